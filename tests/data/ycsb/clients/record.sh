#!/bin/bash
# Records two YCSB 0.17.0 clients run together against one store (the lab's Cassandra), each
# with its HdrHistogram interval logs (hdrhistogram.fileoutput) and every latency sample
# (measurementtype=hdrhistogram+raw): the merge of the logs is checked against the pooled samples.
# Needs the lab with its stores (`benchcamp lab up --stores`) and lab/ycsb built.
set -u
OUT=${1:?out dir}
YCSB=${2:?the lab/ycsb directory}
CP="$YCSB/target/benchcamp-ycsb.jar:$YCSB/lib/*"
JAVA=(java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$CP")
DB=(-db benchcamp.ycsb.CassandraCQLClient -P "$YCSB/workloads/workloada" -p recordcount=1000 -p table=usertable)
"${JAVA[@]}" benchcamp.ycsb.ResetTable cassandra usertable > /dev/null 2>&1 || exit 1
"${JAVA[@]}" site.ycsb.Client -load "${DB[@]}" -threads 4 > /dev/null 2>&1 || exit 1
client() {  # client N ARGS...: one client's run, its files under OUT/clientN
  local n=$1; shift
  local dir="$OUT/client$n"
  mkdir -p "$dir"
  local args=(-t "${DB[@]}" -p operationcount=2000 -p measurementtype=hdrhistogram+raw
    -p measurement.raw.output_file="$dir/raw.csv" -p hdrhistogram.fileoutput=true
    -p hdrhistogram.output.path="$dir/" -p measurement.interval=both
    -p exporter=benchcamp.ycsb.TeeMeasurementsExporter -p exportfile="$dir/ycsb.json" "$@" -s)
  printf 'java -cp <lab/ycsb classpath> site.ycsb.Client' > "$dir/command.txt"
  printf ' %q' "${args[@]}" | sed "s|$OUT/||g" >> "$dir/command.txt"
  echo >> "$dir/command.txt"
  "${JAVA[@]}" site.ycsb.Client "${args[@]}" > "$dir/stdout.log" 2> "$dir/stderr.log"
  echo "client$n exit=$?"
}
# different shapes, started together: one thread at 400 ops/s, eight threads at 800 ops/s
client 1 -threads 1 -target 400 &
client 2 -threads 8 -target 800 &
wait
# the samples the tests pool: reads and intended reads (the updates' are left out, for size)
for dir in "$OUT"/client*; do
  grep -E '^Raw(Intended-)?READ,' "$dir/raw.csv" > "$dir/raw-reads.csv" && rm "$dir/raw.csv"
done
