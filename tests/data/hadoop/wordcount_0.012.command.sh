set -e -o pipefail
hadoop jar "$HADOOP_EXAMPLES_JAR" wordcount -D mapreduce.job.reduces=2 "$DATA"/input "$DATA"/output
