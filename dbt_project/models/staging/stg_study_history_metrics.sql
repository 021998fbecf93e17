-- The metrics each study tracks across campaigns (its spec's `history:` section): the direction
-- in which each is better, the % beyond which a change in the bad direction is a regression, and
-- the significance level of the change points (change_points reads them).
select
    study,
    metric,
    better,
    regression_pct,
    min_magnitude_pct,
    max_pvalue,
    window_campaigns
from {{ source('raw', 'study_history_metrics') }}
