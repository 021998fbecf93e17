-- The power test query by query: per campaign, environment, cluster size, scale factor and
-- query, the mean time over the usable runs (int_cells_summarised), the query's weight in
-- T_PT = M × geometric mean, and for a container environment the same delta as the phases
-- against its baseline (int_environment_pairs, the spec's interleave groups: bare_metal for
-- container, local_lab for lab_container; the baseline's
-- same campaign when it ran there, else its latest campaign at that size):
--   gain_pct = (baseline − other) / baseline × 100, ratio_baseline_over_other (> 1.0 is better).
-- Weight in T_PT: log_share_pct = ln(t) / Σ ln(t) × 100 over the environment's queries (NULL
-- unless Σ ln(t) > 0, i.e. times mostly above 1 s), and t_pt_factor = (t / geomean)^(1/M): the
-- factor by which this query moves T_PT compared with a query at the geometric mean.
{{ config(materialized='table') }}

with pairs as (
    select study, baseline_environment, environment from {{ ref('int_environment_pairs') }}
),

queries as (
    select
        study,
        campaign,
        environment,
        try_cast(json_extract_string(params, '$.cluster_nodes') as integer) as cluster_nodes,
        try_cast(json_extract_string(params, '$.scale_factor_gb') as double) as scale_factor_gb,
        json_extract_string(params, '$.query') as query,
        n,
        n_failed,
        mean as power_s,
        stddev as power_stddev_s,
        last_finished_at
    from {{ ref('int_cells_summarised') }}
    where workload = 'bigbench_power' and metric = 'duration_s'
        and coalesce(json_extract_string(params, '$.query'), 'all') <> 'all'
),

weighted as (
    select
        *,
        count(power_s) over sized as queries_timed,
        exp(avg(ln(power_s)) over sized) as geomean_s,
        sum(ln(power_s)) over sized as sum_ln
    from queries
    window sized as (partition by study, campaign, environment, cluster_nodes, scale_factor_gb)
),

sides as (
    select study, campaign, environment, cluster_nodes, scale_factor_gb, max(last_finished_at) as finished_at
    from queries
    group by all
),

latest as (
    select *
    from sides
    qualify row_number() over (
        partition by study, environment, cluster_nodes, scale_factor_gb order by finished_at desc, campaign desc
    ) = 1
),

baselines as (
    select
        s.study, s.campaign, s.environment, s.cluster_nodes, s.scale_factor_gb,
        p.baseline_environment,
        coalesce(same.campaign, l.campaign) as baseline_campaign
    from sides as s
    inner join pairs as p on p.study = s.study and s.environment = p.environment
    left join sides as same
        on same.study = s.study and same.campaign = s.campaign and same.environment = p.baseline_environment
        and same.cluster_nodes is not distinct from s.cluster_nodes
        and same.scale_factor_gb is not distinct from s.scale_factor_gb
    left join latest as l
        on l.study = s.study and l.environment = p.baseline_environment
        and l.cluster_nodes is not distinct from s.cluster_nodes
        and l.scale_factor_gb is not distinct from s.scale_factor_gb
)

select
    w.study,
    w.campaign,
    w.environment,
    w.cluster_nodes,
    w.scale_factor_gb,
    w.query,
    w.n,
    w.n_failed,
    w.power_s,
    w.power_stddev_s,
    w.queries_timed,
    w.geomean_s,
    case when w.sum_ln > 0 then ln(w.power_s) / w.sum_ln * 100 end as log_share_pct,
    pow(w.power_s / w.geomean_s, 1.0 / w.queries_timed) as t_pt_factor,
    b.baseline_environment,
    b.baseline_campaign,
    o.power_s as baseline_power_s,
    {{ percent_of('o.power_s - w.power_s', 'o.power_s') }} as gain_pct,
    case when w.power_s > 0 then o.power_s / w.power_s end as ratio_baseline_over_other,
    w.last_finished_at
from weighted as w
left join baselines as b
    on b.study = w.study and b.campaign = w.campaign and b.environment = w.environment
    and b.cluster_nodes is not distinct from w.cluster_nodes
    and b.scale_factor_gb is not distinct from w.scale_factor_gb
left join queries as o
    on o.study = w.study and o.campaign = b.baseline_campaign and o.environment = b.baseline_environment
    and o.cluster_nodes is not distinct from w.cluster_nodes
    and o.scale_factor_gb is not distinct from w.scale_factor_gb
    and o.query = w.query
