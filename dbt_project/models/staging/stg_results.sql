-- One row per result record, with the matrix axes extracted from params.
-- series_params: the cell's axes other than data_size_gb (e.g. 'maps=4|reduces=2'),
-- so that scaling deltas compare like with like.
select
    study,
    campaign,
    environment,
    workload,
    cell_key,
    params,
    try_cast(json_extract_string(params, '$.data_size_gb') as double) as data_size_gb,
    try_cast(json_extract_string(params, '$.maps') as integer) as maps,
    try_cast(json_extract_string(params, '$.reduces') as integer) as reduces,
    regexp_replace(
        regexp_replace(cell_key, '\|data_size_gb=[^|]*', ''),
        '^[^|]*\|?', ''
    ) as series_params,
    repetition,
    metric,
    value,
    unit,
    status,
    status = 'ok' as is_ok,
    started_at,
    finished_at,
    artifact
from {{ source('raw', 'results') }}
