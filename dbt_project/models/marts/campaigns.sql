-- One row per campaign that has results: when it ran and how it went. Reports pick
-- "the latest campaign of a study" here (by last_finished_at), so they read marts only.
with cells as (
    select * from {{ ref('int_cells_summarised') }}
),

runs as (
    select * from {{ ref('stg_campaign_runs') }}
),

failures as (
    select study, campaign, count(*) as failed_expectations
    from {{ ref('stg_validation_failures') }}
    group by study, campaign
)

select
    c.study,
    c.campaign,
    string_agg(distinct c.environment, ',' order by c.environment) as environments,
    count(distinct c.environment || '/' || c.cell_key) as cells,
    sum(c.n + c.n_failed) as records,
    sum(c.n_failed) as failed_records,
    coalesce(any_value(f.failed_expectations), 0) as failed_expectations,
    min(c.first_started_at) as first_started_at,
    max(c.last_finished_at) as last_finished_at,
    any_value(r.run_type) as run_type,
    any_value(r.logical_date) as logical_date,
    any_value(r.settings) as settings
from cells as c
left join failures as f
    on c.study = f.study
    and c.campaign = f.campaign
left join runs as r
    on c.study = r.study
    and c.campaign = r.campaign
group by c.study, c.campaign
