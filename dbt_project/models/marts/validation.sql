-- Every failed expectation, as the report and the results page show them.
select study, campaign, environment, workload, cell_key, expectation, details, observed, threshold
from {{ ref('stg_validation_failures') }}
