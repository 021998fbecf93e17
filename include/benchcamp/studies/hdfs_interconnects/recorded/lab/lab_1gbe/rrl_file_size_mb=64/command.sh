set -e -o pipefail
hdfs-links hadoop 1gbe jar "$WORK"/.benchcamp-tools/hdfsbench.jar rrl --dir "$DATA"/hdfsbench --buffer 64k --block-size 128m --replication 1 --sizes 65536,67108864 --reads 100 --read-size 4k --seed 42
