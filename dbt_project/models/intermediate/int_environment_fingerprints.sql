-- The hardware a campaign ran on, per target environment: the distinct fingerprints of its
-- hosts joined into one sorted key. Marts carry it next to every figure, so rows from
-- different hardware are told apart (and never pooled by anything grouping on it).
select
    study,
    campaign,
    environment,
    string_agg(distinct fingerprint, '+' order by fingerprint) as fingerprint,
    count(distinct host) as hosts
from {{ ref('stg_environments') }}
group by study, campaign, environment
