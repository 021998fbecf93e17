-- The SSD vs HDD study's table: per algorithm, job of its chain, storage (environment),
-- configuration set and graph, the mean over the usable repetitions of the job's average map,
-- shuffle, merge (sort) and reduce time per successful task attempt (from the JobHistory
-- server), with σ over repetitions and the mean σ over the job's tasks; the job's elapsed time
-- and the whole chain's (the driver's) time. Records are `<job>:<metric>` (graphmr.py); the
-- components' iterations come averaged as one job, `iteration`.
{{ config(materialized='table') }}

{% set graph_workloads = "('mutual_friends', 'triangle_counting', 'connected_components')" %}

with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where workload in {{ graph_workloads }}
),

chains as (
    select
        study,
        campaign,
        environment,
        cell_key,
        -- the cell's runs: by the chain's duration_s, or (published phase times alone) by its jobs'
        any_value(cell_n) as n,
        any_value(cell_n_failed) as n_failed,
        {{ metric_value('duration_s') }} as chain_s,
        {{ metric_value('duration_s', 'stddev') }} as chain_stddev_s,
        {{ metric_value('iterations') }} as iterations,
        bool_and(passed_validation) as passed_validation,
        max(last_finished_at) as last_finished_at
    from cells
    group by study, campaign, environment, cell_key
),

job_metrics as (
    select
        *,
        split_part(metric, ':', 1) as job,
        split_part(metric, ':', 2) as job_metric
    from cells
    where contains(metric, ':') and not starts_with(metric, 'setting:')
),

jobs as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        job,
        any_value(params) as params,
        {{ metric_value('job_elapsed_s', 'n', key='job_metric') }} as job_n,
        {%- for phase in ['map', 'shuffle', 'merge', 'reduce'] %}
        {{ metric_value('phase_' ~ phase ~ '_s', key='job_metric') }} as {{ phase }}_s,
        {{ metric_value('phase_' ~ phase ~ '_s', 'stddev', key='job_metric') }} as {{ phase }}_stddev_s,
        {{ metric_value('phase_' ~ phase ~ '_task_sd_s', key='job_metric') }} as {{ phase }}_task_sd_s,
        {%- endfor %}
        {{ metric_value('job_elapsed_s', key='job_metric') }} as job_elapsed_s,
        {{ metric_value('job_elapsed_s', 'stddev', key='job_metric') }} as job_elapsed_stddev_s,
        -- the attempts of all usable repetitions together: n × their mean is their sum
        {{ metric_value('failed_task_attempts', 'n * mean', key='job_metric') }} as failed_task_attempts,
        {{ metric_value('killed_task_attempts', 'n * mean', key='job_metric') }} as killed_task_attempts
    from job_metrics
    group by study, campaign, environment, workload, cell_key, job
)

select
    j.study,
    j.campaign,
    j.environment,
    j.workload,
    json_extract_string(j.params, '$.graph') as graph,
    json_extract_string(j.params, '$.config_set') as config_set,
    j.job,
    j.cell_key,
    c.n,
    c.n_failed,
    j.job_n,
    j.map_s,
    j.map_stddev_s,
    j.map_task_sd_s,
    j.shuffle_s,
    j.shuffle_stddev_s,
    j.shuffle_task_sd_s,
    j.merge_s,
    j.merge_stddev_s,
    j.merge_task_sd_s,
    j.reduce_s,
    j.reduce_stddev_s,
    j.reduce_task_sd_s,
    j.job_elapsed_s,
    j.job_elapsed_stddev_s,
    j.failed_task_attempts,
    j.killed_task_attempts,
    c.chain_s,
    c.chain_stddev_s,
    c.iterations,
    c.passed_validation,
    c.last_finished_at,
    {{ fingerprint_or_unknown() }} as fingerprint
from jobs as j
inner join chains as c
    on j.study = c.study
    and j.campaign = c.campaign
    and j.environment = c.environment
    and j.cell_key = c.cell_key
{{ fingerprint_join('j') }}
