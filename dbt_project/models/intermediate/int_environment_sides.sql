-- Each campaign's run on each environment as one side of a comparison: the time window of its
-- measured repetitions (the first start and the last finish of their records) and the target's
-- load during them (stg_repetition_load: the means of the 1-minute load average read right
-- before and right after each timed step, and the target's online CPUs). Warm-ups are left out.
with windows as (
    select
        study,
        campaign,
        environment,
        min(started_at) as first_started_at,
        max(finished_at) as last_finished_at,
        count(distinct cell_key || '/' || repetition) as n_repetitions
    from {{ ref('stg_results') }}
    where not is_warmup
    group by study, campaign, environment
),

loads as (
    select
        study,
        campaign,
        environment,
        count(load1_before) as n_load,
        avg(load1_before) as load1_before_mean,
        min(load1_before) as load1_before_min,
        max(load1_before) as load1_before_max,
        avg(load1_after) as load1_after_mean,
        max(cores) as cores
    from {{ ref('stg_repetition_load') }}
    where repetition >= 1
    group by study, campaign, environment
)

select
    w.study,
    w.campaign,
    w.environment,
    w.first_started_at,
    w.last_finished_at,
    w.n_repetitions,
    coalesce(l.n_load, 0) as n_load,
    l.load1_before_mean,
    l.load1_before_min,
    l.load1_before_max,
    l.load1_after_mean,
    l.cores
from windows as w
left join loads as l using (study, campaign, environment)
