-- Every pair of environments one campaign ran on (an interleaved campaign's group, or any
-- campaign with several targets): each side's time window and load, whether the windows
-- overlap and whether the sides ran under different load (the rule of macros/load.sql: the
-- sides' mean 1-minute load average before the timed steps differ by more than
-- load_gap_limit_per_core per core). `environment` is the side planned first (an interleaved
-- campaign's A side), else the one that started first.
{{ config(materialized='table') }}

with positions as (
    select study, campaign, environment, min(planned_position) as first_position
    from {{ ref('stg_run_order') }}
    where repetition >= 1
    group by study, campaign, environment
),

sides as (
    select
        s.*,
        row_number() over (
            partition by s.study, s.campaign
            order by p.first_position nulls last, s.first_started_at nulls last, s.environment
        ) as side_rank
    from {{ ref('int_environment_sides') }} as s
    left join positions as p using (study, campaign, environment)
),

orders as (
    select study, campaign, bool_or(run_order = 'interleaved') as interleaved
    from {{ ref('stg_run_order') }}
    group by study, campaign
),

pairs as (
    select
        a.study,
        a.campaign,
        a.environment,
        b.environment as other_environment,
        coalesce(o.interleaved, false) as interleaved,
        a.first_started_at,
        a.last_finished_at,
        b.first_started_at as other_first_started_at,
        b.last_finished_at as other_last_finished_at,
        a.first_started_at < b.last_finished_at and b.first_started_at < a.last_finished_at
            as windows_overlap,
        a.n_repetitions,
        b.n_repetitions as other_n_repetitions,
        a.n_load,
        b.n_load as other_n_load,
        a.load1_before_mean,
        b.load1_before_mean as other_load1_before_mean,
        a.load1_after_mean,
        b.load1_after_mean as other_load1_after_mean,
        greatest(a.cores, b.cores) as cores
    from sides as a
    inner join sides as b
        on a.study = b.study and a.campaign = b.campaign and a.side_rank < b.side_rank
    left join orders as o on o.study = a.study and o.campaign = a.campaign
)

select
    *,
    {{ load_gap_per_core('load1_before_mean', 'other_load1_before_mean', 'cores') }} as load_gap_per_core,
    {{ load_gap_limit_per_core() }} as load_gap_limit_per_core,
    {{ load_gap_per_core('load1_before_mean', 'other_load1_before_mean', 'cores') }}
        > {{ load_gap_limit_per_core() }} as load_differs
from pairs
