#!/bin/bash
# Records YCSB 0.17.0 (BasicDB) outputs as parser test vectors: one directory per step.
set -u
OUT=${1:?out dir}
CP="/tmp/ycsbrec/classes:/tmp/ycsbrec/lib/*"
EXPORT=(-p exporter=benchcamp.ycsb.TeeMeasurementsExporter)
step() {  # step NAME ARGS...
  local name=$1; shift
  mkdir -p "$OUT/$name"
  local args=("$@" "${EXPORT[@]}" -p "exportfile=$OUT/$name/ycsb.json")
  printf 'java -cp <ycsb core 0.17.0 jars> site.ycsb.Client' > "$OUT/$name/command.txt"
  printf ' %q' "$@" -p exporter=benchcamp.ycsb.TeeMeasurementsExporter -p exportfile=ycsb.json >> "$OUT/$name/command.txt"
  echo >> "$OUT/$name/command.txt"
  (cd /tmp/ycsbrec && java -cp "$CP" site.ycsb.Client "${args[@]}" > "$OUT/$name/stdout.log" 2> "$OUT/$name/stderr.log")
  echo "$name exit=$?"
}
Q=(-p recordcount=1000 -p operationcount=1000 -p basicdb.verbose=false)
step load_a -load -db site.ycsb.BasicDB -P workloada "${Q[@]}" -threads 2 -s
step run_a  -t    -db site.ycsb.BasicDB -P workloada "${Q[@]}" -threads 2 -target 2000 -s
step load_c -load -db site.ycsb.BasicDB -P workloadc "${Q[@]}" -threads 1 -s
step run_c  -t    -db site.ycsb.BasicDB -P workloadc "${Q[@]}" -threads 1 -s
step load_e -load -db site.ycsb.BasicDB -P workloade "${Q[@]}" -threads 1 -s
step run_e  -t    -db site.ycsb.BasicDB -P workloade "${Q[@]}" -threads 4 -s
step load_f -load -db site.ycsb.BasicDB -P workloadf "${Q[@]}" -threads 1 -s
step run_f  -t    -db site.ycsb.BasicDB -P workloadf "${Q[@]}" -threads 1 -target 1000 -s
# verbose BasicDB: every call printed on stdout before the summary
step run_c_verbose -t -db site.ycsb.BasicDB -P workloadc -p recordcount=1000 -p operationcount=1000 -threads 1 -s
# error returns: every 50th update ERROR, every 100th read NOT_FOUND
step run_a_errors -t -db benchcamp.ycsb.FlakyBasicDB -P workloada "${Q[@]}" -threads 1 -s
