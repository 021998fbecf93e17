set -e -o pipefail
hadoop jar "$HADOOP_EXAMPLES_JAR" randomtextwriter -D mapreduce.randomtextwriter.totalbytes=12884902 -D mapreduce.randomtextwriter.bytespermap=12884902 -D mapreduce.job.maps=1 "$DATA"/input
