-- Each repetition's planned place in its target's run order (pipeline.run_order), as planned and
-- archived; `order` is renamed run_order (a keyword otherwise).
select
    study,
    campaign,
    environment,
    workload,
    cell_key,
    repetition,
    planned_position,
    "order" as run_order,
    seed
from {{ source('raw', 'run_order') }}
