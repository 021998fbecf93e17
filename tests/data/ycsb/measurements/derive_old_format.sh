#!/bin/bash
# Derives old_format/stdout.log from the real run_a_histogram/stdout.log: the summary as YCSB
# releases before its Status class printed it (percentiles in ms, return code 0 for success,
# no LatencyVariance line). Same run, same figures; only the labels and the percentile unit change.
set -eu
cd "$(dirname "$0")"
mkdir -p old_format
awk -F', ' 'BEGIN { OFS = ", " }
  $2 ~ /^LatencyVariance/ { next }
  $2 ~ /PercentileLatency\(us\)$/ { sub(/\(us\)$/, "(ms)", $2); $3 = $3 / 1000 }
  $2 == "Return=OK" { $2 = "Return=0" }
  { print }' run_a_histogram/stdout.log > old_format/stdout.log
