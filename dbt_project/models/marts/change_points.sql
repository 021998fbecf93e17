-- Each change point of a tracked metric's history (int_change_point_series, Apache Otava's
-- analysis kept between builds, which names the campaigns either side), with the segments'
-- means, the change (absolute and in %) and whether it is a regression: worse by more than the
-- spec's regression_pct, or any worsening from a mean of 0 (whose change in % is undefined).
with points as (
    select
        s.* exclude (points_json, weak_json),
        unnest(from_json(s.points_json, '[{"at_index": "BIGINT", "seg_start": "BIGINT", "seg_end": "BIGINT",
            "first_campaign": "VARCHAR", "campaign_before": "VARCHAR", "campaign_before_at": "TIMESTAMPTZ",
            "campaign_after": "VARCHAR", "campaign_after_at": "TIMESTAMPTZ", "last_campaign": "VARCHAR",
            "mean_before": "DOUBLE", "mean_after": "DOUBLE", "stddev_before": "DOUBLE",
            "stddev_after": "DOUBLE", "p_value": "DOUBLE"}]')) as cp
    from {{ ref('int_change_point_series') }} as s
),

measured as (
    select
        p.*,
        cp.mean_after - cp.mean_before as change,
        case when cp.mean_before <> 0 then (cp.mean_after - cp.mean_before) / abs(cp.mean_before) * 100 end as change_pct,
        greatest(
            case when cp.mean_before <> 0 then abs(cp.mean_after / cp.mean_before - 1) else 0 end,
            case when cp.mean_after <> 0 then abs(cp.mean_before / cp.mean_after - 1) else 0 end
        ) * 100 as magnitude_pct,
        case when (cp.mean_after > cp.mean_before) = (p.better = 'lower') then 'worse' else 'better' end as direction
    from points as p
)

select
    study, environment, fingerprint, hardware_epoch, workload, cell_key, metric, unit, better,
    cp.first_campaign, cp.campaign_before, cp.campaign_before_at, cp.campaign_after, cp.campaign_after_at,
    cp.last_campaign,
    cp.at_index - cp.seg_start as campaigns_before,
    cp.seg_end - cp.at_index as campaigns_after,
    cp.mean_before, cp.mean_after, cp.stddev_before, cp.stddev_after,
    change, change_pct, magnitude_pct, cp.p_value, direction,
    direction = 'worse' and (change_pct is null or abs(change_pct) > regression_pct) as is_regression,
    regression_pct, min_magnitude_pct, max_pvalue, window_campaigns
from measured
