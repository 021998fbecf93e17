-- The Airflow run behind each DAG-loaded campaign: backfills are told from the runs they re-did.
select
    study,
    campaign,
    run_id,
    run_type,
    logical_date,
    recorded_at
from {{ source('raw', 'campaign_runs') }}
