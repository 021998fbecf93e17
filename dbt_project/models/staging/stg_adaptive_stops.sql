-- Why each cell of a campaign with adaptive repetitions stopped, as the last adaptive round saw it.
select
    study,
    campaign,
    environment,
    workload,
    cell_key,
    metric,
    repetitions,
    ok_n,
    failed_n,
    mean,
    stddev,
    half_width,
    half_width_pct,
    target_ci_pct,
    max_repetitions,
    confidence,
    reason as stop_reason,
    decided_round
from {{ source('raw', 'adaptive_stops') }}
