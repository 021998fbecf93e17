#!/bin/bash
# Records YCSB 0.17.0 (BasicDB, no store) outputs of the measurement options the parser must read:
# one directory per step. Needs the lab's YCSB client (lab/ycsb/lib, lab/ycsb/target/benchcamp-ycsb.jar
# for the tee exporter) and its workload files (lab/ycsb/workloads).
set -u
OUT=${1:?out dir}
YCSB=${2:?the lab/ycsb directory}
CP="$YCSB/target/benchcamp-ycsb.jar:$YCSB/lib/*"
EXPORT=(-p exporter=benchcamp.ycsb.TeeMeasurementsExporter)
step() {  # step NAME ARGS...
  local name=$1; shift
  mkdir -p "$OUT/$name"
  local args=("$@" "${EXPORT[@]}" -p "exportfile=$OUT/$name/ycsb.json")
  printf 'java -cp <ycsb core 0.17.0 jars> site.ycsb.Client' > "$OUT/$name/command.txt"
  printf ' %q' "$@" -p exporter=benchcamp.ycsb.TeeMeasurementsExporter -p exportfile=ycsb.json >> "$OUT/$name/command.txt"
  echo >> "$OUT/$name/command.txt"
  (cd "$YCSB/workloads" && java -cp "$CP" site.ycsb.Client "${args[@]}" > "$OUT/$name/stdout.log" 2> "$OUT/$name/stderr.log")
  echo "$name exit=$?"
}
# BasicDB sleeps a random 0-4 ms per call, so latencies span several milliseconds.
Q=(-db site.ycsb.BasicDB -p recordcount=1000 -p operationcount=1000 -p basicdb.verbose=false
   -p basicdb.simulatedelay=4 -p basicdb.randomizedelay=true -threads 2 -s)
# HdrHistogram (0.17's default) with percentiles of every ordinal suffix and fractional ones
step run_a_hdr_percentiles -t -P workloada "${Q[@]}" -p measurementtype=hdrhistogram \
  -p hdrhistogram.percentiles=1,2,3,11,22,50,90,99.9,99.99
# the fixed-bucket histogram: 95th/99th on 1 ms bucket edges and (verbose) one line per bucket
step run_a_histogram -t -P workloada "${Q[@]}" -p measurementtype=histogram -p histogram.buckets=20 \
  -p measurement.histogram.verbose=true
# measurement.interval=both: each operation measured from its start and from its intended start
step run_a_intended -t -P workloada "${Q[@]}" -target 400 -p measurement.interval=both
