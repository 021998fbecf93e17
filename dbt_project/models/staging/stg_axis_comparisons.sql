-- The comparisons each study's spec names between values of one axis (axes.<axis>.comparisons):
-- `value` against `against`, for published comparisons that are not all against the baseline.
select
    study,
    axis,
    value,
    against
from {{ source('raw', 'axis_comparisons') }}
