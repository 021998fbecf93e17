-- The study's % improvement of each interconnect (environment) over each other, per benchmark
-- and file size (latency) or client count and total (throughput), each environment's latest
-- campaign (a campaign runs one environment, so interconnects are compared across campaigns):
--   latency:    (other − this) / other × 100   (positive: this one takes less time)
--   throughput: (this − other) / other × 100   (positive: this one moves more MB/s)
-- and `up_to_pct`, the maximum over the sizes or client counts of that pair and benchmark, as
-- the study states its results ("up to +108 %").
{{ config(materialized='table') }}

with measures as (
    select
        study, campaign, environment, workload, 'latency' as kind,
        'file_size_mb=' || file_size_mb as point, latency_s as value, link_out_mbit, last_finished_at
    from {{ ref('hdfs_micro_latency') }}
    where n > 0
    union all
    select
        study, campaign, environment, workload, 'throughput' as kind,
        'clients=' || clients || ' data_size_gb=' || data_size_gb as point, mb_s as value, link_out_mbit,
        last_finished_at
    from {{ ref('hdfs_micro_throughput') }}
    where n > 0
),

latest as (
    select *
    from measures
    qualify row_number() over (
        partition by study, environment, workload, point order by last_finished_at desc
    ) = 1
),

pairs as (
    select
        t.study,
        t.workload,
        t.kind,
        t.point,
        t.environment,
        t.campaign,
        o.environment as other_environment,
        o.campaign as other_campaign,
        t.value,
        o.value as other_value,
        t.link_out_mbit,
        o.link_out_mbit as other_link_out_mbit,
        case
            when t.kind = 'latency' then {{ percent_of('o.value - t.value', 'o.value') }}
            else {{ percent_of('t.value - o.value', 'o.value') }}
        end as improvement_pct
    from latest as t
    inner join latest as o
        on t.study = o.study and t.workload = o.workload and t.point = o.point
    where t.environment <> o.environment
)

select
    *,
    max(improvement_pct) over (partition by study, workload, environment, other_environment) as up_to_pct
from pairs
