-- TestDFSIO read against write per data size: the mean host-timed durations, the
-- study's Read/Write Δ (%) = (write − read) / read × 100, and TestDFSIO's own figures
-- over its N map tasks, averaged over the repetitions: Throughput = Σ size / Σ time and
-- Average I/O rate = Σ(size / time) / N, both MB/s as TestDFSIO prints them.
-- Grouping also by series_params makes a second DFSIO series (another file size, say)
-- fail the uniqueness test instead of being silently merged.
with cells as (
    select * from {{ ref('int_cells_summarised') }}
    where workload in ('dfsio_read', 'dfsio_write') and data_size_gb is not null
),

pivoted as (
    select
        study,
        campaign,
        environment,
        data_size_gb,
        series_params,
        any_value(mean) filter (where workload = 'dfsio_read' and metric = 'duration_s') as read_s,
        any_value(mean) filter (where workload = 'dfsio_write' and metric = 'duration_s') as write_s,
        any_value(mean) filter (
            where workload = 'dfsio_read' and metric = 'throughput_mb_s'
        ) as read_throughput_mb_s,
        any_value(mean) filter (
            where workload = 'dfsio_write' and metric = 'throughput_mb_s'
        ) as write_throughput_mb_s,
        any_value(mean) filter (
            where workload = 'dfsio_read' and metric = 'avg_io_rate_mb_s'
        ) as read_avg_io_rate_mb_s,
        any_value(mean) filter (
            where workload = 'dfsio_write' and metric = 'avg_io_rate_mb_s'
        ) as write_avg_io_rate_mb_s
    from cells
    group by study, campaign, environment, data_size_gb, series_params
)

select
    p.study,
    p.campaign,
    p.environment,
    p.data_size_gb,
    read_s,
    write_s,
    {{ percent_of('write_s - read_s', 'read_s') }} as read_write_delta_pct,
    read_throughput_mb_s,
    write_throughput_mb_s,
    read_avg_io_rate_mb_s,
    write_avg_io_rate_mb_s,
    coalesce(e.fingerprint, 'unknown') as fingerprint
from pivoted as p
left join {{ ref('int_environment_fingerprints') }} as e
    on p.study = e.study
    and p.campaign = e.campaign
    and p.environment = e.environment
