-- The σ% quality gate of each study's spec.
select
    study,
    max_stddev_pct
from {{ source('raw', 'study_thresholds') }}
