set -e -o pipefail
hdfs-links hadoop 1gbe jar "$WORK"/.benchcamp-tools/hdfsbench.jar srl --dir "$DATA"/hdfsbench --buffer 64k --block-size 128m --replication 1 --sizes 65536,1048576
