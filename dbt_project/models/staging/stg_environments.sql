select study, campaign, environment, host, fingerprint, facts, captured_at
from {{ source('raw', 'environments') }}
