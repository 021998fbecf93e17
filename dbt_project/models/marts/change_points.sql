-- Each change point of a tracked metric's history (int_change_point_series, Apache Otava's
-- analysis kept between builds), with the campaigns either side, the segments' means, the change
-- (absolute and in %) and whether it is a regression: worse by more than the spec's
-- regression_pct, or any worsening from a mean of 0 (whose change in % is undefined).
with analysed as (
    select
        s.*,
        unnest(from_json(s.points_json, '[{"at_index": "BIGINT", "seg_start": "BIGINT", "seg_end": "BIGINT",
            "mean_before": "DOUBLE", "mean_after": "DOUBLE", "stddev_before": "DOUBLE",
            "stddev_after": "DOUBLE", "p_value": "DOUBLE"}]')) as cp
    from {{ ref('int_change_point_series') }} as s
),

points as (
    select
        a.study, a.environment, a.hardware_epoch, a.cell_key, a.metric,
        a.min_magnitude_pct, a.max_pvalue, a.window_campaigns,
        cp.at_index as position_after,
        cp.seg_start + 1 as first_position,
        cp.seg_end as last_position,
        cp.mean_before, cp.mean_after, cp.stddev_before, cp.stddev_after, cp.p_value
    from analysed as a
),

series as (
    select * from {{ ref('int_history_series') }}
),

measured as (
    select
        p.*,
        s_after.fingerprint,
        s_after.workload,
        s_after.unit,
        s_after.better,
        s_after.regression_pct,
        s_first.campaign as first_campaign,
        s_before.campaign as campaign_before,
        s_before.campaign_started_at as campaign_before_at,
        s_after.campaign as campaign_after,
        s_after.campaign_started_at as campaign_after_at,
        s_last.campaign as last_campaign,
        p.position_after - p.first_position + 1 as campaigns_before,
        p.last_position - p.position_after as campaigns_after,
        p.mean_after - p.mean_before as change,
        case when p.mean_before <> 0 then (p.mean_after - p.mean_before) / abs(p.mean_before) * 100 end as change_pct,
        greatest(
            case when p.mean_before <> 0 then abs(p.mean_after / p.mean_before - 1) else 0 end,
            case when p.mean_after <> 0 then abs(p.mean_before / p.mean_after - 1) else 0 end
        ) * 100 as magnitude_pct,
        case when (p.mean_after > p.mean_before) = (s_after.better = 'lower') then 'worse' else 'better' end as direction
    from points as p
    {% for side, position in [('s_first', 'first_position'), ('s_before', 'position_after'), ('s_after', 'position_after + 1'), ('s_last', 'last_position')] %}
    inner join series as {{ side }}
        on {{ side }}.study = p.study and {{ side }}.environment = p.environment
        and {{ side }}.hardware_epoch = p.hardware_epoch and {{ side }}.cell_key = p.cell_key
        and {{ side }}.metric = p.metric and {{ side }}.position = p.{{ position }}
    {% endfor %}
)

select
    study, environment, fingerprint, hardware_epoch, workload, cell_key, metric, unit, better,
    first_campaign, campaign_before, campaign_before_at, campaign_after, campaign_after_at, last_campaign,
    campaigns_before, campaigns_after, mean_before, mean_after, stddev_before, stddev_after,
    change, change_pct, magnitude_pct, p_value, direction,
    direction = 'worse' and (change_pct is null or abs(change_pct) > regression_pct) as is_regression,
    regression_pct, min_magnitude_pct, max_pvalue, window_campaigns
from measured
