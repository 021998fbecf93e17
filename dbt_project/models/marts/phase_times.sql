-- MapReduce phase times per cell, as the SSD/HDD study reports them: the mean over the
-- repetitions of each job's average map, shuffle, merge (sort) and reduce time per
-- successful task attempt (from the JobHistory server), with σ across repetitions, and
-- the job's own elapsed time. Only environments with a JobHistory server produce rows.
with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where metric in (
        'phase_map_s', 'phase_shuffle_s', 'phase_merge_s', 'phase_reduce_s',
        'job_elapsed_s', 'failed_task_attempts'
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
        max(n) filter (where metric = 'job_elapsed_s') as n,
        any_value(mean) filter (where metric = 'phase_map_s') as map_s,
        any_value(stddev) filter (where metric = 'phase_map_s') as map_stddev_s,
        any_value(mean) filter (where metric = 'phase_shuffle_s') as shuffle_s,
        any_value(stddev) filter (where metric = 'phase_shuffle_s') as shuffle_stddev_s,
        any_value(mean) filter (where metric = 'phase_merge_s') as merge_s,
        any_value(stddev) filter (where metric = 'phase_merge_s') as merge_stddev_s,
        any_value(mean) filter (where metric = 'phase_reduce_s') as reduce_s,
        any_value(stddev) filter (where metric = 'phase_reduce_s') as reduce_stddev_s,
        any_value(mean) filter (where metric = 'job_elapsed_s') as job_elapsed_s,
        any_value(n * mean) filter (where metric = 'failed_task_attempts') as failed_task_attempts
    from cells
    group by study, campaign, environment, workload, cell_key
)

select
    p.*,
    coalesce(e.fingerprint, 'unknown') as fingerprint
from pivoted as p
left join {{ ref('int_environment_fingerprints') }} as e
    on p.study = e.study
    and p.campaign = e.campaign
    and p.environment = e.environment
