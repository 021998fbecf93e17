-- Per cell and metric: statistics over the ok repetitions (failed ones are counted, not averaged).
-- σ is the sample standard deviation (n − 1), as the studies report it.
with results as (
    select * from {{ ref('stg_results') }}
),

failures as (
    select distinct study, campaign, cell_key from {{ ref('stg_validation_failures') }}
),

summarised as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        any_value(params) as params,
        any_value(data_size_gb) as data_size_gb,
        any_value(series_params) as series_params,
        metric,
        any_value(unit) as unit,
        count(*) filter (where is_ok) as n,
        count(*) filter (where not is_ok) as n_failed,
        avg(value) filter (where is_ok) as mean,
        stddev_samp(value) filter (where is_ok) as stddev,
        min(started_at) as first_started_at,
        max(finished_at) as last_finished_at
    from results
    group by study, campaign, environment, workload, cell_key, metric
)

select
    s.*,
    case when s.mean > 0 then s.stddev / s.mean * 100 end as stddev_pct,
    f.cell_key is null as passed_validation
from summarised as s
left join failures as f
    on s.study = f.study and s.campaign = f.campaign and s.cell_key = f.cell_key
