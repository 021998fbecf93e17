-- Whether each cell's repetitions were enough, for campaigns run with a target_ci_pct: the achieved
-- 95 % confidence interval of its mean (half-width, and as a % of the mean), n, and why its adaptive
-- repetitions stopped. The statistics are the adaptive step's (scipy's t quantile), not recomputed;
-- repetitions_for_target, what the target would need at the measured σ, is int_adaptive_stops_projected's.
with stops as (
    select * from {{ ref('int_adaptive_stops_projected') }}
),

fingerprints as (
    select * from {{ ref('int_environment_fingerprints') }}
)

select
    s.study,
    s.campaign,
    s.environment,
    s.workload,
    s.cell_key,
    s.metric,
    s.repetitions as n_planned,
    s.ok_n as n,
    s.failed_n as n_failed,
    s.mean,
    s.stddev,
    s.half_width,
    s.half_width_pct,
    s.target_ci_pct,
    s.max_repetitions,
    s.confidence,
    s.stop_reason,
    s.decided_round,
    coalesce(s.half_width_pct <= s.target_ci_pct, false) as target_reached,
    s.repetitions_for_target,
    f.fingerprint
from stops as s
left join fingerprints as f
    on s.study = f.study
    and s.campaign = f.campaign
    and s.environment = f.environment
