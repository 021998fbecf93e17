-- YCSB cells (workloads ycsb_*) one row per (cell, operation type), from the per-cell
-- statistics of int_cells_summarised: the run's throughput (ops/s over every operation type)
-- beside the operation type's latencies, each as mean and sample σ over the ok repetitions
-- (the throughput also with its σ%).
-- Operation types are the workload mix's (read, update, insert, scan, read_modify_write, ...);
-- cleanup (once per client thread at the end) and <op>_failed (latencies of not-ok calls, which
-- only failed repetitions have, and no statistic includes) are left out. A cell without any
-- operation figures (every repetition failed before YCSB printed a summary) keeps one row with
-- a NULL op_type, so its failures stay visible. A percentile YCSB printed only as a bound (before
-- HdrHistogram, `95thPercentileLatency(ms), 0`: under 1 ms; metric <op>_p95_latency_below_us) is
-- no latency: it is kept apart as p95_latency_below_us (the bound) and p95_below_n (its repetitions),
-- so the p95 mean is over measured values only and a cell with bounds alone has a NULL p95.
-- Under a target throughput the runs also measure each call from its intended start (YCSB's
-- Intended-<OP>, metrics intended_<op>_...): kept beside the op's own latencies as intended_*,
-- where a client that fell behind its schedule shows the queue its service latency leaves out.
{{ config(materialized='view') }}

with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where starts_with(workload, 'ycsb_')
),

per_cell as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        any_value(params) as params,
        -- the cell's runs: by duration_s, or (published figures without one) by its other metrics
        any_value(cell_n) as n,
        any_value(cell_n_failed) as n_failed,
        any_value(cell_n_warmup) as n_warmup,
        {{ metric_value('operations_requested') }} as operations_requested,
        {{ metric_value('throughput_ops_s', 'n') }} as throughput_n,
        {{ metric_value('throughput_ops_s') }} as throughput_ops_s,
        {{ metric_value('throughput_ops_s', 'stddev') }} as throughput_stddev,
        {{ metric_value('throughput_ops_s', 'stddev_pct') }} as throughput_stddev_pct,
        -- the run's operations over the period its clients' histogram logs cover (YCSB's
        -- throughput also counts each client's start); NULL for runs without those logs
        {{ metric_value('served_throughput_ops_s', 'n') }} as served_n,
        {{ metric_value('served_throughput_ops_s') }} as served_throughput_ops_s,
        {{ metric_value('served_throughput_ops_s', 'stddev') }} as served_throughput_stddev,
        bool_and(passed_validation) as passed_validation
    from cells
    group by study, campaign, environment, workload, cell_key
),

op_metrics as (
    select
        *,
        -- intended_<op>_...: the same operation measured from its intended start (YCSB's
        -- measurement.interval=both under a target): its measures are prefixed, on the op's row
        regexp_extract(metric, '^(intended_)?(.+)_(operations|avg_latency_us|p95_latency_us|p99_latency_us|p95_latency_below_us|p99_latency_below_us)$', 2) as op_type,
        regexp_extract(metric, '^(intended_)?(.+)_(operations|avg_latency_us|p95_latency_us|p99_latency_us|p95_latency_below_us|p99_latency_below_us)$', 1)
            || regexp_extract(metric, '^(intended_)?(.+)_(operations|avg_latency_us|p95_latency_us|p99_latency_us|p95_latency_below_us|p99_latency_below_us)$', 3) as measure
    from cells
),

per_op as (
    select
        study,
        campaign,
        environment,
        cell_key,
        op_type,
        {{ metric_value('operations', key='measure') }} as operations,
        {{ metric_value('avg_latency_us', 'n', key='measure') }} as latency_n,
        {{ metric_value('avg_latency_us', key='measure') }} as avg_latency_us,
        {{ metric_value('avg_latency_us', 'stddev', key='measure') }} as avg_latency_stddev_us,
        {{ metric_value('p95_latency_us', key='measure') }} as p95_latency_us,
        {{ metric_value('p95_latency_us', 'stddev', key='measure') }} as p95_latency_stddev_us,
        {{ metric_value('p99_latency_us', key='measure') }} as p99_latency_us,
        {{ metric_value('p99_latency_us', 'stddev', key='measure') }} as p99_latency_stddev_us,
        {{ metric_value('p95_latency_below_us', key='measure') }} as p95_latency_below_us,
        {{ metric_value('p95_latency_below_us', 'n', key='measure') }} as p95_below_n,
        {{ metric_value('p99_latency_below_us', key='measure') }} as p99_latency_below_us,
        {{ metric_value('p99_latency_below_us', 'n', key='measure') }} as p99_below_n,
        {{ metric_value('intended_avg_latency_us', key='measure') }} as intended_avg_latency_us,
        {{ metric_value('intended_p95_latency_us', key='measure') }} as intended_p95_latency_us,
        {{ metric_value('intended_p99_latency_us', key='measure') }} as intended_p99_latency_us
    from op_metrics
    where op_type <> '' and op_type <> 'cleanup' and not ends_with(op_type, '_failed')
    group by study, campaign, environment, cell_key, op_type
)

select
    c.study,
    c.campaign,
    c.environment,
    c.workload,
    c.cell_key,
    json_extract_string(c.params, '$.store') as store,
    try_cast(json_extract_string(c.params, '$.operationcount') as bigint) as operationcount,
    try_cast(json_extract_string(c.params, '$.target_ops') as double) as target_ops,
    try_cast(json_extract_string(c.params, '$.threads') as integer) as threads,
    -- YCSB processes run together (the clients axis); a cell without it ran one
    coalesce(try_cast(json_extract_string(c.params, '$.clients') as integer), 1) as clients,
    -- the cell's axes other than store: HBase and Cassandra cells with equal pair_params compare
    array_to_string(
        list_filter(
            string_split(substr(c.cell_key, length(c.workload) + 2), '|'),
            lambda axis: axis <> '' and not starts_with(axis, 'store=')
        ),
        '|'
    ) as pair_params,
    o.op_type,
    coalesce(c.n, 0) as n,
    coalesce(c.n_failed, 0) as n_failed,
    coalesce(c.n_warmup, 0) as n_warmup,
    c.operations_requested,
    c.throughput_n,
    c.throughput_ops_s,
    c.throughput_stddev,
    c.throughput_stddev_pct,
    c.served_n,
    c.served_throughput_ops_s,
    c.served_throughput_stddev,
    o.operations,
    o.latency_n,
    o.avg_latency_us,
    o.avg_latency_stddev_us,
    o.p95_latency_us,
    o.p95_latency_stddev_us,
    o.p99_latency_us,
    o.p99_latency_stddev_us,
    o.p95_latency_below_us,
    o.p95_below_n,
    o.p99_latency_below_us,
    o.p99_below_n,
    o.intended_avg_latency_us,
    o.intended_p95_latency_us,
    o.intended_p99_latency_us,
    c.passed_validation
from per_cell as c
left join per_op as o
    on c.study = o.study
    and c.campaign = o.campaign
    and c.environment = o.environment
    and c.cell_key = o.cell_key
