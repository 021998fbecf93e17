select study, max_stddev_pct
from {{ source('raw', 'study_thresholds') }}
