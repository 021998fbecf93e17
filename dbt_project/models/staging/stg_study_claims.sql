-- Each study's published claims (its claims.yaml, validated by benchcamp.core.claims), copied
-- into raw.study_claims when a campaign is loaded or imported; `definition` is the whole claim
-- as JSON (its cells: workloads, axis, numerator, denominator, trend_axis).
select
    study,
    claim_id,
    position as claim_position,
    paper,
    kind,
    metric,
    expect,
    tolerance_pct,
    cast(definition as varchar) as definition
from {{ source('raw', 'study_claims') }}
