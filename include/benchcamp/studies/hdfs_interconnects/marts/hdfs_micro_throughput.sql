-- The study's throughput benchmarks per interconnect (environment), total size and client
-- count: the mean aggregate MB/s over the usable repetitions (total / time from the start
-- signal to the last client's close), σ over repetitions, the mean time, the slowest and
-- fastest client, and the link rates the environment measured (iperf3 facts of the campaign).
{{ config(materialized='table') }}

with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where workload in ('swt', 'srt')
),

throughputs as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        try_cast(json_extract_string(any_value(params), '$.clients') as integer) as clients,
        try_cast(json_extract_string(any_value(params), '$.data_size_gb') as double) as data_size_gb,
        {{ metric_value('mb_s', 'n') }} as n,
        any_value(cell_n_failed) as n_failed,
        {{ metric_value('mb_s') }} as mb_s,
        {{ metric_value('mb_s', 'stddev') }} as mb_s_stddev,
        {{ metric_value('mb_s', 'stddev_pct') }} as mb_s_stddev_pct,
        {{ metric_value('duration_s') }} as seconds,
        {{ metric_value('slowest_client_s') }} as slowest_client_s,
        {{ metric_value('fastest_client_s') }} as fastest_client_s,
        bool_and(passed_validation) as passed_validation,
        max(last_finished_at) as last_finished_at
    from cells
    group by study, campaign, environment, workload, cell_key
)

select
    t.*,
    k.link_level,
    k.link_out_mbit,
    k.link_in_mbit
from throughputs as t
left join {{ ref('hdfs_link_facts') }} as k
    on t.study = k.study and t.campaign = k.campaign and t.environment = k.environment
