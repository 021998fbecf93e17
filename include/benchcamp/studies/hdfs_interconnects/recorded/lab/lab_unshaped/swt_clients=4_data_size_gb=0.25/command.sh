set -e -o pipefail
hdfs-links hadoop unshaped jar "$WORK"/.benchcamp-tools/hdfsbench.jar swt --dir "$DATA"/hdfsbench --buffer 64k --block-size 128m --replication 1 --total 268435456 --clients 4
