-- Latency against offered load: the points of the offered-load sweep (cells with target_ops),
-- per store, workload, client threads and operation type, ordered by target_ops. achieved_pct is
-- the achieved throughput as a share of the target: well below 100 past saturation, the knee
-- of the curve, where latency should rise (validation flags a significant fall).
{{ config(materialized='table') }}

with ops as (
    select * from {{ ref('int_ycsb_ops_summarised') }}
    where target_ops is not null and op_type is not null
)

select
    o.study,
    o.campaign,
    o.environment,
    o.store,
    o.workload,
    o.threads,
    o.clients,
    o.op_type,
    o.target_ops,
    o.cell_key,
    o.pair_params,
    o.n,
    o.n_failed,
    o.throughput_ops_s,
    o.throughput_stddev,
    {{ percent_of('o.throughput_ops_s', 'o.target_ops') }} as achieved_pct,
    -- the rate over the period the clients' histogram logs cover (YCSB's throughput also counts
    -- each client's start), and its share of the target; NULL for runs without those logs
    o.served_throughput_ops_s,
    {{ percent_of('o.served_throughput_ops_s', 'o.target_ops') }} as served_pct,
    o.avg_latency_us,
    o.avg_latency_stddev_us,
    o.p95_latency_us,
    o.p99_latency_us,
    o.intended_avg_latency_us,
    o.intended_p95_latency_us,
    o.intended_p99_latency_us,
    o.passed_validation,
    {{ fingerprint_or_unknown() }} as fingerprint
from ops as o
{{ fingerprint_join('o') }}
