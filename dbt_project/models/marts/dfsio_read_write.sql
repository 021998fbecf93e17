-- TestDFSIO read vs write per data size: host-timed durations, Read/Write Δ (%) =
-- (write − read) / read × 100, and TestDFSIO's own figures over the N map tasks:
-- Throughput = Σ size / Σ time, Average I/O rate = Σ(size / time) / N (means over repetitions).
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
        max(mean) filter (where workload = 'dfsio_read' and metric = 'duration_s') as read_s,
        max(mean) filter (where workload = 'dfsio_write' and metric = 'duration_s') as write_s,
        max(mean) filter (where workload = 'dfsio_read' and metric = 'throughput_mb_s') as read_throughput_mb_s,
        max(mean) filter (where workload = 'dfsio_write' and metric = 'throughput_mb_s') as write_throughput_mb_s,
        max(mean) filter (where workload = 'dfsio_read' and metric = 'avg_io_rate_mb_s') as read_avg_io_rate_mb_s,
        max(mean) filter (where workload = 'dfsio_write' and metric = 'avg_io_rate_mb_s') as write_avg_io_rate_mb_s
    from cells
    group by study, campaign, environment, data_size_gb
)

select
    *,
    case when read_s > 0 then (write_s - read_s) / read_s * 100 end as read_write_delta_pct
from pivoted
