-- A target's hardware fingerprint differed from the one its previous campaign ran on.
select
    study,
    campaign,
    environment,
    previous_study,
    previous_campaign,
    previous_fingerprint,
    fingerprint,
    cast(changed_facts as varchar) as changed_facts,
    detected_at
from {{ source('raw', 'hardware_changes') }}
