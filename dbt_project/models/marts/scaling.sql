-- The scaling table of every study that varies data size (e.g. HiBench Tables 9 and 17):
-- per cell Time (mean), σ, σ%, Data Δ and Time Δ against the smallest size of the same
-- workload, environment and other axes, throughput and the linear-scaling projection.
-- Sizes are GiB; throughput is MiB/s (data_size_gb × 1024 / mean_s).
with durations as (
    select * from {{ ref('int_cells_summarised') }}
    where metric = 'duration_s' and data_size_gb is not null
),

processed as (
    select study, campaign, cell_key, mean as processed_gb
    from {{ ref('int_cells_summarised') }}
    where metric = 'processed_gb'
),

baselines as (
    select study, campaign, environment, workload, series_params, min(data_size_gb) as baseline_gb
    from durations
    group by study, campaign, environment, workload, series_params
),

baseline_times as (
    select d.study, d.campaign, d.environment, d.workload, d.series_params, b.baseline_gb, d.mean as baseline_s
    from durations as d
    inner join baselines as b
        on d.study = b.study and d.campaign = b.campaign and d.environment = b.environment
        and d.workload = b.workload and d.series_params = b.series_params and d.data_size_gb = b.baseline_gb
),

thresholds as (
    select * from {{ ref('stg_study_thresholds') }}
)

select
    d.study,
    d.campaign,
    d.environment,
    d.workload,
    d.data_size_gb,
    d.series_params,
    d.cell_key,
    d.n,
    d.n_failed,
    d.mean as mean_s,
    d.stddev as stddev_s,
    d.stddev_pct,
    case when d.data_size_gb <> bt.baseline_gb
        then (d.data_size_gb - bt.baseline_gb) / bt.baseline_gb * 100 end as data_delta_pct,
    case when d.data_size_gb <> bt.baseline_gb
        then (d.mean - bt.baseline_s) / bt.baseline_s * 100 end as time_delta_pct,
    case when d.mean > 0 then d.data_size_gb * 1024 / d.mean end as throughput_mb_s,
    bt.baseline_s * d.data_size_gb / bt.baseline_gb as linear_projection_s,
    d.stddev_pct <= coalesce(t.max_stddev_pct, 10) as within_threshold,
    d.passed_validation,
    p.processed_gb,
    d.last_finished_at
from durations as d
left join baseline_times as bt
    on d.study = bt.study and d.campaign = bt.campaign and d.environment = bt.environment
    and d.workload = bt.workload and d.series_params = bt.series_params
left join thresholds as t on d.study = t.study
left join processed as p on d.study = p.study and d.campaign = p.campaign and d.cell_key = p.cell_key
