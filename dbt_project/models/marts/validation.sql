-- Every failed expectation, as the report and the results page list them. The results
-- stay in the other marts, marked through passed_validation: nothing is dropped.
select
    study,
    campaign,
    environment,
    workload,
    cell_key,
    expectation,
    details,
    observed,
    threshold
from {{ ref('stg_validation_failures') }}
