-- The YCSB study's table: per cell and operation type, the run's throughput (ops/s) with its
-- σ and σ% over the ok repetitions, and the operation type's average, 95th and 99th percentile
-- latency (µs) with their σ; a percentile old YCSB printed only as "under 1 ms" is its bound
-- (p95_latency_below_us) and the number of repetitions that gave only it (p95_below_n). One row per (study, campaign, environment, workload, cell, op_type).
-- Every statistic is int_ycsb_ops_summarised's (σ% included), never recomputed here.
{{ config(materialized='table') }}

with ops as (
    select * from {{ ref('int_ycsb_ops_summarised') }}
),

thresholds as (
    select * from {{ ref('stg_study_thresholds') }}
)

select
    o.study,
    o.campaign,
    o.environment,
    o.store,
    o.workload,
    o.operationcount,
    o.target_ops,
    o.threads,
    o.clients,
    o.op_type,
    o.cell_key,
    o.pair_params,
    o.n,
    o.n_failed,
    o.n_warmup,
    o.operations_requested,
    o.throughput_ops_s,
    o.throughput_stddev,
    o.throughput_stddev_pct,
    o.served_throughput_ops_s,
    o.operations,
    o.avg_latency_us,
    o.avg_latency_stddev_us,
    o.p95_latency_us,
    o.p95_latency_stddev_us,
    o.p99_latency_us,
    o.intended_avg_latency_us,
    o.intended_p95_latency_us,
    o.intended_p99_latency_us,
    o.p99_latency_stddev_us,
    o.p95_latency_below_us,
    o.p95_below_n,
    o.p99_latency_below_us,
    o.p99_below_n,
    o.throughput_stddev_pct <= coalesce(t.max_stddev_pct, 10) as within_threshold,
    o.passed_validation,
    {{ fingerprint_or_unknown() }} as fingerprint
from ops as o
left join thresholds as t
    on o.study = t.study
{{ fingerprint_join('o') }}
