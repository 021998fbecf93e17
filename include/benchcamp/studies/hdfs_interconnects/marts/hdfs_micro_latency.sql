-- The study's latency benchmarks per interconnect (environment) and file size: the mean over
-- the usable repetitions of one file's write or read time (swl, srl) or of the mean positioned
-- read (rrl), σ over repetitions, the mean MB/s, and the link rates the environment measured
-- (iperf3, when its links were built: facts of the campaign).
{{ config(materialized='table') }}

with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where workload in ('swl', 'srl', 'rrl')
),

latencies as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        try_cast(json_extract_string(any_value(params), '$.file_size_mb') as double) as file_size_mb,
        {{ metric_value('duration_s', 'n') }} as n,
        {{ metric_value('duration_s', 'n_failed') }} as n_failed,
        {{ metric_value('duration_s') }} as latency_s,
        {{ metric_value('duration_s', 'stddev') }} as latency_stddev_s,
        {{ metric_value('duration_s', 'stddev_pct') }} as latency_stddev_pct,
        {{ metric_value('mb_s') }} as mb_s,
        {{ metric_value('min_read_s') }} as min_read_s,
        {{ metric_value('max_read_s') }} as max_read_s,
        bool_and(passed_validation) as passed_validation,
        max(last_finished_at) as last_finished_at
    from cells
    group by study, campaign, environment, workload, cell_key
)

select
    l.*,
    k.link_level,
    k.link_out_mbit,
    k.link_in_mbit
from latencies as l
left join {{ ref('hdfs_link_facts') }} as k
    on l.study = k.study and l.campaign = k.campaign and l.environment = k.environment
