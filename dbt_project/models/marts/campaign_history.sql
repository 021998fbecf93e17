-- The time series across campaigns: per study, environment and cell, each campaign's mean
-- duration and σ with the hardware fingerprint it ran on and, for DAG runs, the run's type and
-- logical date (a backfill sits next to the run it re-did, never replacing it). One row per
-- campaign and cell: figures draw lines through them; nothing here averages across campaigns,
-- so results from before and after a hardware change are never pooled.
with durations as (
    select * from {{ ref('int_cells_summarised') }}
    where metric = 'duration_s'
),

runs as (
    select * from {{ ref('stg_campaign_runs') }}
)

select
    d.study,
    d.campaign,
    d.environment,
    d.workload,
    d.series_params,
    d.data_size_gb,
    d.cell_key,
    fp.fingerprint,
    r.run_type,
    r.logical_date,
    d.first_started_at,
    d.last_finished_at,
    d.mean as mean_s,
    d.stddev as stddev_s,
    d.n,
    d.n_failed
from durations as d
{{ fingerprint_join('d') }}
left join runs as r
    on d.study = r.study
    and d.campaign = r.campaign
