-- The cells whose mean was below their target's resolution (raw.cells_below_resolution, from the
-- archive's below_resolution.json; benchcamp.pipeline.noise_floor): the σ% gate did not judge them.
select
    study,
    campaign,
    environment,
    workload,
    cell_key,
    mean_s,
    stddev_pct,
    n,
    resolution_s,
    floor_stddev_s,
    floor_mean_s,
    floor_runs,
    floor_probe
from {{ source('raw', 'cells_below_resolution') }}
