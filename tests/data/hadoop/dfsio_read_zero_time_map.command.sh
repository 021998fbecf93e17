set -e -o pipefail
hadoop jar "$HADOOP_TESTS_JAR" TestDFSIO -Dtest.build.data="$DATA"/dfsio -read -nrFiles 18 -fileSize 1MB -resFile "$JOB"/dfsio_result.txt
