-- The scaling table of every study that varies the data size (HiBench Tables 9 and 17):
-- per cell of metric duration_s, Time (mean), σ, σ%, Data Δ and Time Δ against the
-- smallest size of the same study, campaign, environment, workload and other axes
-- (series_params), the throughput and the linear-scaling projection.
-- n, Time, σ and σ% are int_cells_summarised's, never recomputed here.
-- Sizes are GiB and throughput is MiB/s: data_size_gb × 1024 / mean_s.
-- A cell below its target's resolution (stg_cells_below_resolution) has below_resolution and
-- its resolution_s, and within_threshold NULL: its σ% is shown, not judged.
with cells as (
    select * from {{ ref('int_cells_summarised') }}
),

durations as (
    select * from cells
    where metric = 'duration_s' and data_size_gb is not null
),

processed as (
    select study, campaign, environment, cell_key, {{ metric_value('processed_gb') }} as processed_gb
    from cells
    group by study, campaign, environment, cell_key
),

smallest_sizes as (
    select study, campaign, environment, workload, series_params, min(data_size_gb) as baseline_gb
    from durations
    group by study, campaign, environment, workload, series_params
),

baselines as (
    -- baseline_s is NULL when every repetition of the smallest size failed: the time deltas
    -- are then unknown, while Data Δ still holds.
    select s.*, d.mean as baseline_s
    from smallest_sizes as s
    left join durations as d
        on s.study = d.study
        and s.campaign = d.campaign
        and s.environment = d.environment
        and s.workload = d.workload
        and s.series_params = d.series_params
        and s.baseline_gb = d.data_size_gb
),

thresholds as (
    select * from {{ ref('stg_study_thresholds') }}
),

below as (
    select * from {{ ref('stg_cells_below_resolution') }}
)

select
    d.study,
    d.campaign,
    d.environment,
    d.workload,
    d.data_size_gb,
    d.series_params,
    d.n,
    d.n_failed,
    d.n_warmup,
    d.mean as mean_s,
    d.stddev as stddev_s,
    d.stddev_pct,
    case when d.data_size_gb <> b.baseline_gb
        then {{ percent_of('d.data_size_gb - b.baseline_gb', 'b.baseline_gb') }}
    end as data_delta_pct,
    case when d.data_size_gb <> b.baseline_gb
        then {{ percent_of('d.mean - b.baseline_s', 'b.baseline_s') }}
    end as time_delta_pct,
    case when d.mean > 0 then d.data_size_gb * 1024 / d.mean end as throughput_mb_s,
    b.baseline_s * d.data_size_gb / b.baseline_gb as linear_projection_s,
    case when r.cell_key is null then d.stddev_pct <= coalesce(t.max_stddev_pct, 10) end as within_threshold,
    r.cell_key is not null as below_resolution,
    r.resolution_s,
    d.passed_validation,
    p.processed_gb,
    {{ fingerprint_or_unknown() }} as fingerprint
from durations as d
inner join baselines as b
    on d.study = b.study
    and d.campaign = b.campaign
    and d.environment = b.environment
    and d.workload = b.workload
    and d.series_params = b.series_params
left join thresholds as t
    on d.study = t.study
{{ fingerprint_join('d') }}
left join processed as p
    on d.study = p.study
    and d.campaign = p.campaign
    and d.environment = p.environment
    and d.cell_key = p.cell_key
left join below as r
    on d.study = r.study
    and d.campaign = r.campaign
    and d.environment = r.environment
    and d.cell_key = r.cell_key
