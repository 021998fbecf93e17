-- Per cell, the mean step time against the sleep it asked for: the harness's overhead.
-- A study's mart lives in its folder (studies/<study>/marts/) and is built by the one dbt build.
with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where workload = 'sleep'
)

select
    d.study,
    d.campaign,
    d.environment,
    d.cell_key,
    s.mean as slept_s,
    d.n,
    d.mean as duration_s,
    d.mean - s.mean as overhead_s
from cells as d
inner join cells as s
    on d.study = s.study
    and d.campaign = s.campaign
    and d.environment = s.environment
    and d.cell_key = s.cell_key
    and s.metric = 'slept_s'
where d.metric = 'duration_s'
