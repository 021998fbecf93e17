-- Result records with the matrix axes pulled out of params, so that later models can
-- group and order by them. series_params is the cell's axes other than data_size_gb
-- ('maps=4|reduces=2', '' when there are none), taken from the canonical cell_key, so a
-- scaling series compares like with like.
-- is_usable: an ok record that passes the record-level expectations (a finite value and, for
-- duration_s, more than 0 s: validation's duration_positive): the only records any statistic
-- uses. The others stay here, visible, and the marts count them as failed.
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
    array_to_string(
        list_filter(
            string_split(substr(cell_key, length(workload) + 2), '|'),
            lambda axis: axis <> '' and not starts_with(axis, 'data_size_gb=')
        ),
        '|'
    ) as series_params,
    repetition,
    metric,
    value,
    unit,
    status,
    status = 'ok' as is_ok,
    status = 'ok' and isfinite(value) and (metric <> 'duration_s' or value > 0) as is_usable,
    status in ('warmup', 'warmup_failed') as is_warmup,
    started_at,
    finished_at,
    artifact
from {{ source('raw', 'results') }}
