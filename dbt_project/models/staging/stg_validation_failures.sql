-- Failed expectations; cell_key is '' for a failure about the whole campaign.
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
from {{ source('raw', 'validation_failures') }}
