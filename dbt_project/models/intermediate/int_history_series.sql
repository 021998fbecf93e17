-- The series the change_points mart searches: one row per campaign of every (study, environment,
-- hardware epoch, cell, tracked metric), the campaign's mean over its usable repetitions, in
-- time order (position). A hardware epoch is a run of consecutive campaigns on one target with
-- one fingerprint: a change of hardware starts a new series (never one across it), and hardware
-- A, then B, then A again is three series. Time is the campaign's first start on the target;
-- campaigns without one (an import without timestamps) follow, by name.
with tracked as (
    select * from {{ ref('stg_study_history_metrics') }}
),

cells as (
    select
        c.*,
        {{ fingerprint_or_unknown() }} as fingerprint
    from {{ ref('int_cells_summarised') }} as c
    {{ fingerprint_join('c') }}
    where c.n > 0 and c.mean is not null
),

campaigns as (
    select study, environment, campaign, any_value(fingerprint) as fingerprint, min(first_started_at) as started_at
    from cells
    group by study, environment, campaign
),

ordered as (
    select
        *,
        lag(fingerprint) over (
            partition by study, environment order by started_at nulls last, campaign
        ) as previous_fingerprint
    from campaigns
),

epochs as (
    select
        *,
        sum(case when previous_fingerprint is distinct from fingerprint then 1 else 0 end) over (
            partition by study, environment order by started_at nulls last, campaign
            rows between unbounded preceding and current row
        )::bigint as hardware_epoch
    from ordered
)

select
    c.study,
    c.environment,
    c.fingerprint,
    e.hardware_epoch,
    c.workload,
    c.cell_key,
    c.metric,
    c.unit,
    t.better,
    t.regression_pct,
    t.min_magnitude_pct,
    t.max_pvalue,
    t.window_campaigns,
    c.campaign,
    e.started_at as campaign_started_at,
    c.mean,
    c.stddev,
    c.n,
    row_number() over (
        partition by c.study, c.environment, e.hardware_epoch, c.cell_key, c.metric
        order by e.started_at nulls last, c.campaign
    ) as position
from cells as c
inner join tracked as t
    on c.study = t.study
    and c.metric = t.metric
inner join epochs as e
    on c.study = e.study
    and c.environment = e.environment
    and c.campaign = e.campaign
