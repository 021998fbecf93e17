set -e -o pipefail
hdfs-links hadoop unshaped jar "$WORK"/.benchcamp-tools/hdfsbench.jar srl --dir "$DATA"/hdfsbench --buffer 64k --block-size 128m --replication 1 --sizes 65536,67108864
