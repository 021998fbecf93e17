-- MapReduce phase times per cell, as the SSD/HDD study reports them: the mean over the
-- repetitions of each job's average map, shuffle, merge (sort) and reduce time per
-- successful task attempt (from the JobHistory server), with σ across repetitions, and
-- the job's own elapsed time. Only environments with a JobHistory server produce rows.
with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where metric in (
        'phase_map_s', 'phase_shuffle_s', 'phase_merge_s', 'phase_reduce_s',
        'job_elapsed_s', 'failed_task_attempts', 'killed_task_attempts'
    )
),

pivoted as (
    select
        study,
        campaign,
        environment,
        workload,
        cell_key,
        any_value(data_size_gb) as data_size_gb,
        any_value(series_params) as series_params,
        {{ metric_value('job_elapsed_s', 'n') }} as n,
        {{ metric_value('phase_map_s') }} as map_s,
        {{ metric_value('phase_map_s', 'stddev') }} as map_stddev_s,
        {{ metric_value('phase_shuffle_s') }} as shuffle_s,
        {{ metric_value('phase_shuffle_s', 'stddev') }} as shuffle_stddev_s,
        {{ metric_value('phase_merge_s') }} as merge_s,
        {{ metric_value('phase_merge_s', 'stddev') }} as merge_stddev_s,
        {{ metric_value('phase_reduce_s') }} as reduce_s,
        {{ metric_value('phase_reduce_s', 'stddev') }} as reduce_stddev_s,
        {{ metric_value('job_elapsed_s') }} as job_elapsed_s,
        -- the attempts of all usable repetitions together: n × their mean is their sum
        {{ metric_value('failed_task_attempts', 'n * mean') }} as failed_task_attempts,
        {{ metric_value('killed_task_attempts', 'n * mean') }} as killed_task_attempts
    from cells
    group by study, campaign, environment, workload, cell_key
)

select
    p.*,
    {{ fingerprint_or_unknown() }} as fingerprint
from pivoted as p
{{ fingerprint_join('p') }}
