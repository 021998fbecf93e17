-- Per cell and metric, the statistics every study reports: n usable repetitions (ok and
-- passing the record-level expectations, stg_results.is_usable), n_failed the cell's other
-- measured repetitions (never averaged), their mean, the sample
-- standard deviation (n − 1, as the studies use; NULL with fewer than two) and σ% = σ / mean × 100.
-- Warm-up repetitions are only counted (n_warmup, n_warmup_failed): no statistic includes them.
-- n_failed is per cell, not per record: a repetition that failed wrote only duration_s, yet it
-- is a failed repetition for compile_s too, so n + n_failed is the cell's measured repetitions
-- for every metric, and a metric with no usable repetition is a cell with no result (mean NULL,
-- n 0, n_failed k), never a failed data test. A cell with warm-ups only (a run stopped after
-- them) has n 0 and n_failed 0.
-- cell_n, cell_n_failed, cell_n_warmup: the cell's repetitions, the same on each of its rows: its
-- duration_s's n, n_failed and n_warmup, or, in a cell without any duration (published figures
-- given as a throughput or a latency alone), its repetitions with a usable value of any metric,
-- the other measured ones, and its warm-ups. Marts count a cell's runs by them.
-- passed_validation: no failed expectation names this cell in this campaign and environment.
with results as (
    select * from {{ ref('stg_results') }}
),

measured as (
    select study, campaign, environment, workload, cell_key,
        count(distinct repetition) filter (where not is_warmup) as n_measured,
        bool_or(metric = 'duration_s') as has_duration,
        count(*) filter (where metric = 'duration_s' and is_usable) as duration_n,
        count(*) filter (where metric = 'duration_s' and is_warmup) as duration_n_warmup,
        count(distinct repetition) filter (where is_usable) as usable_repetitions,
        count(distinct repetition) filter (where is_warmup) as warmup_repetitions
    from results
    group by study, campaign, environment, workload, cell_key
),

failed_cells as (
    select distinct study, campaign, environment, cell_key
    from {{ ref('stg_validation_failures') }}
),

summarised as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        metric,
        any_value(params) as params,
        any_value(data_size_gb) as data_size_gb,
        any_value(maps) as maps,
        any_value(reduces) as reduces,
        any_value(series_params) as series_params,
        any_value(unit) as unit,
        count(*) filter (where is_usable) as n,
        count(*) filter (where is_warmup) as n_warmup,
        count(*) filter (where is_warmup and status = 'warmup_failed') as n_warmup_failed,
        avg(value) filter (where is_usable) as mean,
        stddev_samp(value) filter (where is_usable) as stddev,
        min(started_at) as first_started_at,
        max(finished_at) as last_finished_at
    from results
    group by study, campaign, environment, workload, cell_key, metric
)

select
    s.study,
    s.campaign,
    s.environment,
    s.workload,
    s.cell_key,
    s.metric,
    s.params,
    s.data_size_gb,
    s.maps,
    s.reduces,
    s.series_params,
    s.unit,
    s.n,
    m.n_measured - s.n as n_failed,
    s.n_warmup,
    s.n_warmup_failed,
    m.cell_n,
    m.n_measured - m.cell_n as cell_n_failed,
    m.cell_n_warmup,
    s.mean,
    s.stddev,
    {{ percent_of('s.stddev', 's.mean') }} as stddev_pct,
    f.cell_key is null as passed_validation,
    s.first_started_at,
    s.last_finished_at
from summarised as s
inner join (
    select
        *,
        case when has_duration then duration_n else usable_repetitions end as cell_n,
        case when has_duration then duration_n_warmup else warmup_repetitions end as cell_n_warmup
    from measured
) as m
    on s.study = m.study
    and s.campaign = m.campaign
    and s.environment = m.environment
    and s.workload = m.workload
    and s.cell_key = m.cell_key
left join failed_cells as f
    on s.study = f.study
    and s.campaign = f.campaign
    and s.environment = f.environment
    and s.cell_key = f.cell_key
