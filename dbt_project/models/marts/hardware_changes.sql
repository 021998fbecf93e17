-- Hardware-change events per study: the campaign that first ran on new hardware, the one before
-- it on the same target, what changed, and marker_at (the new campaign's first start) where a time
-- series draws the change, before the first point measured on the new hardware.
with changes as (
    select * from {{ ref('stg_hardware_changes') }}
),

starts as (
    select study, campaign, environment, min(first_started_at) as first_started_at
    from {{ ref('int_cells_summarised') }}
    group by study, campaign, environment
)

select
    c.study,
    c.environment,
    c.campaign,
    c.previous_study,
    c.previous_campaign,
    c.previous_fingerprint,
    c.fingerprint,
    c.changed_facts,
    c.detected_at,
    coalesce(s.first_started_at, c.detected_at) as marker_at
from changes as c
left join starts as s
    on c.study = s.study
    and c.campaign = s.campaign
    and c.environment = s.environment
