-- The Airflow run behind each DAG-loaded campaign: backfills are told from the runs they re-did;
-- settings: JSON of what the campaign ran with (the conf with the DAG's defaults filled in).
select
    study,
    campaign,
    run_id,
    run_type,
    logical_date,
    recorded_at,
    settings
from {{ source('raw', 'campaign_runs') }}
