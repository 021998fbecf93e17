-- The study's % differences per phase, (this − baseline) / baseline × 100 (negative: faster):
--   comparison = 'config_set': each pair of configuration sets the spec names in
--     axes.config_set.comparisons (stg_axis_comparisons: e.g. custom against containers, the
--     paper's Tables 13 and 14), same campaign, storage, algorithm, job and graph;
--   comparison = 'storage': each storage (environment) against every other one, same
--     configuration set, algorithm, job and graph, each storage's latest campaign (a campaign
--     runs one environment, so drives are compared across campaigns).
-- Phases: map, shuffle, merge, reduce (graph_phase_times' means) and the job's elapsed time.
{{ config(materialized='table') }}

with phases as (
    unpivot {{ ref('graph_phase_times') }}
    on map_s, shuffle_s, merge_s, reduce_s, job_elapsed_s
    into name phase_column value seconds
),

long as (
    select
        study,
        campaign,
        environment,
        workload,
        graph,
        config_set,
        job,
        replace(phase_column, '_s', '') as phase,
        seconds,
        last_finished_at
    from phases
),

comparisons as (
    select study, value as config_set, against as baseline_config_set
    from {{ ref('stg_axis_comparisons') }}
    where axis = 'config_set'
),

latest as (
    select *
    from long
    qualify row_number() over (
        partition by study, environment, workload, graph, config_set, job, phase
        order by last_finished_at desc
    ) = 1
),

config_set_deltas as (
    select
        'config_set' as comparison,
        t.study, t.campaign, t.environment, t.workload, t.graph, t.job, t.phase, t.config_set,
        b.campaign as baseline_campaign,
        b.environment as baseline_environment,
        b.config_set as baseline_config_set,
        t.seconds,
        b.seconds as baseline_seconds
    from long as t
    inner join comparisons as c
        on t.study = c.study and t.config_set = c.config_set
    inner join long as b
        on t.study = b.study and t.campaign = b.campaign and t.environment = b.environment
        and t.workload = b.workload and t.graph = b.graph and t.job = b.job and t.phase = b.phase
        and b.config_set = c.baseline_config_set
),

storage_deltas as (
    select
        'storage' as comparison,
        t.study, t.campaign, t.environment, t.workload, t.graph, t.job, t.phase, t.config_set,
        b.campaign as baseline_campaign,
        b.environment as baseline_environment,
        b.config_set as baseline_config_set,
        t.seconds,
        b.seconds as baseline_seconds
    from latest as t
    inner join latest as b
        on t.study = b.study and t.workload = b.workload and t.graph = b.graph
        and t.config_set = b.config_set and t.job = b.job and t.phase = b.phase
    where t.environment <> b.environment
)

select
    *,
    {{ percent_of('seconds - baseline_seconds', 'baseline_seconds') }} as delta_pct
from (
    select * from config_set_deltas
    union all
    select * from storage_deltas
)
