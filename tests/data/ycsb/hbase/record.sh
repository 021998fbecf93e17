#!/bin/bash
# Records YCSB 0.17.0 outputs against the lab's HBase through benchcamp.ycsb.HBaseClient, as
# parser test vectors: one directory per step (command.txt, stdout.log, stderr.log, ycsb.json).
# Usage: record.sh OUT_DIR ZOOKEEPER_PORT (an HBase started by the lab, e.g. on free ports).
set -u
OUT=${1:?out dir}
ZK=${2:?zookeeper port}
REPO=$(cd "$(dirname "$0")/../../../.." && pwd)
CP="$REPO/lab/ycsb/target/benchcamp-ycsb.jar:$REPO/lab/ycsb/lib/*"
JAVA=${JAVA:-java}
EXPORT=(-p exporter=benchcamp.ycsb.TeeMeasurementsExporter)
CORE=(-p workload=site.ycsb.workloads.CoreWorkload -p recordcount=1000 -p operationcount=1000
      -p requestdistribution=zipfian -p table=usertable -p "hbase.zookeeper.property.clientPort=$ZK")
A=(-p readproportion=0.5 -p updateproportion=0.5)
C=(-p readproportion=1.0 -p updateproportion=0.0)
E=(-p readproportion=0.0 -p updateproportion=0.0 -p scanproportion=0.95 -p insertproportion=0.05
   -p maxscanlength=100 -p scanlengthdistribution=uniform)
F=(-p readproportion=0.5 -p updateproportion=0.0 -p readmodifywriteproportion=0.5)
step() {  # step NAME ARGS...
  local name=$1; shift
  mkdir -p "$OUT/$name"
  printf 'java -cp <benchcamp-ycsb.jar and lab/ycsb/lib> site.ycsb.Client' > "$OUT/$name/command.txt"
  printf ' %q' "$@" "${EXPORT[@]}" -p exportfile=ycsb.json >> "$OUT/$name/command.txt"
  echo >> "$OUT/$name/command.txt"
  (cd "$OUT/$name" && "$JAVA" -cp "$CP" site.ycsb.Client "$@" "${EXPORT[@]}" -p exportfile=ycsb.json \
    > stdout.log 2> stderr.log)
  echo "$name exit=$?"
}
reset() {
  "$JAVA" -cp "$CP" benchcamp.ycsb.ResetTable hbase usertable -p "hbase.zookeeper.property.clientPort=$ZK" \
    2> /dev/null || exit 1
}
for workload in a c e f; do
  declare -n mix=${workload^^}
  reset
  step "load_$workload" -load -db benchcamp.ycsb.HBaseClient "${CORE[@]}" "${mix[@]}" -threads 1 -s
  step "run_$workload" -t -db benchcamp.ycsb.HBaseClient "${CORE[@]}" "${mix[@]}" -threads 1 -s
done
