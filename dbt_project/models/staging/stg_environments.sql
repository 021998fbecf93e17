-- Captured facts per campaign and host; the fingerprint says which results may be pooled.
select
    study,
    campaign,
    environment,
    host,
    fingerprint,
    facts,
    captured_at
from {{ source('raw', 'environments') }}
