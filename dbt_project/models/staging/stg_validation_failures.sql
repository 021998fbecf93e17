select study, campaign, environment, workload, cell_key, expectation, details, observed, threshold
from {{ source('raw', 'validation_failures') }}
