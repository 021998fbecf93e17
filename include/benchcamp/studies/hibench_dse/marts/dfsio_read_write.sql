-- TestDFSIO read against write per data size: the mean host-timed durations, the
-- study's Read/Write Δ (%) = (write − read) / read × 100, and TestDFSIO's own figures
-- over its N map tasks, averaged over the repetitions: Throughput = Σ size / Σ time and
-- Average I/O rate = Σ(size / time) / N, both MB/s as TestDFSIO prints them.
-- Grouping also by series_params makes a second DFSIO series (another file size, say)
-- fail the uniqueness test instead of being silently merged.
{{ config(materialized='table') }}

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
        {{ metric_value('duration_s', where="workload = 'dfsio_read'") }} as read_s,
        {{ metric_value('duration_s', where="workload = 'dfsio_write'") }} as write_s,
        {{ metric_value('throughput_mb_s', where="workload = 'dfsio_read'") }} as read_throughput_mb_s,
        {{ metric_value('throughput_mb_s', where="workload = 'dfsio_write'") }} as write_throughput_mb_s,
        {{ metric_value('avg_io_rate_mb_s', where="workload = 'dfsio_read'") }} as read_avg_io_rate_mb_s,
        {{ metric_value('avg_io_rate_mb_s', where="workload = 'dfsio_write'") }} as write_avg_io_rate_mb_s
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
    {{ fingerprint_or_unknown() }} as fingerprint
from pivoted as p
{{ fingerprint_join('p') }}
