set -u
export WORK="${BENCHCAMP_WORK_DIR:-$HOME/benchcamp}"
export UNIT="$WORK"/ycsb_hbase_cassandra/rec_one_client/ycsb_a_store=cassandra_target_ops=500_threads=16/rep1
export DATA="$UNIT"/data
export INPUT="$DATA"
export JOB="$UNIT"/jobs/execute-try1
if [ -z "${HADOOP_EXAMPLES_JAR:-}" ]; then HADOOP_EXAMPLES_JAR=$(ls "${HADOOP_HOME:-/usr/lib/hadoop}"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar 2>/dev/null | head -n 1); fi; export HADOOP_EXAMPLES_JAR
if [ -z "${HADOOP_TESTS_JAR:-}" ]; then HADOOP_TESTS_JAR=$(ls "${HADOOP_HOME:-/usr/lib/hadoop}"/share/hadoop/mapreduce/hadoop-mapreduce-client-jobclient-*-tests.jar 2>/dev/null | head -n 1); fi; export HADOOP_TESTS_JAR
rm -rf "$JOB" && mkdir -p "$JOB" || exit 97
echo "BENCHCAMP_JOB $JOB"
cat > "$JOB"/command.sh <<'BENCHCAMP_EOF_4ff17e413b27a910'
set -e -o pipefail
java --add-opens=java.base/java.nio=ALL-UNNAMED -XX:TieredStopAtLevel=1 -cp "$YCSB_CLASSPATH" benchcamp.ycsb.ResetTable cassandra usertable
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$YCSB_CLASSPATH" site.ycsb.Client -load -db benchcamp.ycsb.CassandraCQLClient -p workload=site.ycsb.workloads.CoreWorkload -p recordcount=1000 -p operationcount=1000 -p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=zipfian -p table=usertable -threads 16 -p exporter=benchcamp.ycsb.TeeMeasurementsExporter -p exportfile="$JOB"/load.ycsb.json -s > "$JOB"/load.stdout.log
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$YCSB_CLASSPATH" site.ycsb.Client -t -db benchcamp.ycsb.CassandraCQLClient -p workload=site.ycsb.workloads.CoreWorkload -p recordcount=1000 -p operationcount=1000 -p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=zipfian -p table=usertable -threads 16 -target 500 -p measurement.interval=both -p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$JOB"/ -p exporter=benchcamp.ycsb.TeeMeasurementsExporter -p exportfile="$JOB"/ycsb.json -s
BENCHCAMP_EOF_4ff17e413b27a910
cd "$JOB"
{ echo "cores=$(nproc 2>/dev/null)"; echo "before=$(cat /proc/loadavg 2>/dev/null)"; } > "$JOB"/load.txt
start=$(date +%s.%N)
if command -v setsid >/dev/null 2>&1; then
  setsid -w bash -c 'echo $$ > "$1"/pgid; exec bash "$1"/command.sh' benchcamp-job "$JOB" > "$JOB"/stdout.log 2> "$JOB"/stderr.log
else
  bash "$JOB"/command.sh > "$JOB"/stdout.log 2> "$JOB"/stderr.log
fi
rc=$?
end=$(date +%s.%N)
echo "after=$(cat /proc/loadavg 2>/dev/null)" >> "$JOB"/load.txt
printf "%s %s %s\n" "$rc" "$start" "$end" > "$JOB"/status
echo "BENCHCAMP_STATUS $rc $start $end"
