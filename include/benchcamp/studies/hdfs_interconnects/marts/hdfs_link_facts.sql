-- The link rates each campaign's environment measured when its links were built (iperf3 facts
-- from `hdfs-links facts`, or a real cluster's facts_command): one row per campaign and environment.
{{ config(materialized='view') }}

select
    study,
    campaign,
    environment,
    max(json_extract_string(facts, '$.target.link_level')) as link_level,
    max(try_cast(json_extract_string(facts, '$.target.link_rate_measured_out_mbit') as double))
        as link_out_mbit,
    max(try_cast(json_extract_string(facts, '$.target.link_rate_measured_in_mbit') as double))
        as link_in_mbit
from {{ ref('stg_environments') }}
group by study, campaign, environment
