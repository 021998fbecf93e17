-- The study's comparison, per cluster size and scale factor: each run (repetition k of the
-- other environment against repetition k of the baseline) and the mean over runs, of the
-- container environment against its baseline:
--   times (load, power T_PT, throughput): gain = (baseline − other) / baseline × 100 and the
--     ratio baseline / other (the study's plot: > 1.0 is better for the container);
--   Qpm: gain = (other − baseline) / baseline × 100 and the ratio other / baseline (> 1.0 better).
-- Qpm is the computed BBQpm@SF, else the imported published one (qpm_published says so).
-- Pairs: the spec's interleave groups (int_environment_pairs): the baseline environment
-- (bare_metal) with `container`, and in the lab local_lab with lab_container (the spec allows
-- one baseline; the lab pair is the same study on the project's lab, local_lab its A side).
-- Both sides from one campaign when it ran both, else the other side's
-- latest campaign at that size; rows are listed under every campaign that ran either side.
-- The mean row (run = 'mean', repetition NULL) averages the per-run values, gains and ratios
-- over the runs where neither side had a failed record (n_runs of them).
-- Each side's time window and load (int_environment_sides: the mean 1-minute load average right
-- before its timed steps) and load_differs, the load rule of macros/load.sql: two campaigns run
-- one after the other on the same hosts may have run under different load (docs/fair-comparisons.md).
{{ config(materialized='table') }}

with pairs as (
    select study, baseline_environment, environment from {{ ref('int_environment_pairs') }}
),

runs as (
    select
        *,
        coalesce(bbqpm, bbqpm_published) as qpm,
        bbqpm is null and bbqpm_published is not null as qpm_published
    from {{ ref('bigbench_qpm') }}
),

sides as (
    select study, campaign, environment, cluster_nodes, scale_factor_gb, max(last_finished_at) as finished_at
    from runs
    group by all
),

latest as (
    select *
    from sides
    qualify row_number() over (
        partition by study, environment, cluster_nodes, scale_factor_gb order by finished_at desc, campaign desc
    ) = 1
),

reported as (
    select distinct s.study, s.campaign, p.baseline_environment, p.environment, s.cluster_nodes, s.scale_factor_gb
    from sides as s
    inner join pairs as p on p.study = s.study and s.environment in (p.baseline_environment, p.environment)
),

chosen as (
    select
        r.*,
        coalesce(b_same.campaign, b_latest.campaign) as baseline_campaign,
        coalesce(o_same.campaign, o_latest.campaign) as other_campaign
    from reported as r
    left join sides as b_same
        on b_same.study = r.study and b_same.campaign = r.campaign and b_same.environment = r.baseline_environment
        and b_same.cluster_nodes is not distinct from r.cluster_nodes
        and b_same.scale_factor_gb is not distinct from r.scale_factor_gb
    left join latest as b_latest
        on b_latest.study = r.study and b_latest.environment = r.baseline_environment
        and b_latest.cluster_nodes is not distinct from r.cluster_nodes
        and b_latest.scale_factor_gb is not distinct from r.scale_factor_gb
    left join sides as o_same
        on o_same.study = r.study and o_same.campaign = r.campaign and o_same.environment = r.environment
        and o_same.cluster_nodes is not distinct from r.cluster_nodes
        and o_same.scale_factor_gb is not distinct from r.scale_factor_gb
    left join latest as o_latest
        on o_latest.study = r.study and o_latest.environment = r.environment
        and o_latest.cluster_nodes is not distinct from r.cluster_nodes
        and o_latest.scale_factor_gb is not distinct from r.scale_factor_gb
),

per_run as (
    select
        c.study,
        c.campaign,
        c.cluster_nodes,
        c.scale_factor_gb,
        cast(o.repetition as varchar) as run,
        o.repetition,
        c.environment,
        c.other_campaign,
        c.baseline_environment,
        c.baseline_campaign,
        b.valid and o.valid as both_valid,
        not (b.any_failed or o.any_failed) as comparable,
        b.load_s as baseline_load_s,
        o.load_s,
        b.t_pt_s as baseline_t_pt_s,
        o.t_pt_s,
        b.throughput_s as baseline_throughput_s,
        o.throughput_s,
        b.qpm as baseline_qpm,
        o.qpm,
        b.qpm_published or o.qpm_published as qpm_published,
        {{ percent_of('b.load_s - o.load_s', 'b.load_s') }} as load_gain_pct,
        {{ percent_of('b.t_pt_s - o.t_pt_s', 'b.t_pt_s') }} as power_gain_pct,
        {{ percent_of('b.throughput_s - o.throughput_s', 'b.throughput_s') }} as throughput_gain_pct,
        {{ percent_of('o.qpm - b.qpm', 'b.qpm') }} as qpm_gain_pct,
        case when o.load_s > 0 then b.load_s / o.load_s end as load_ratio_baseline_over_other,
        case when o.t_pt_s > 0 then b.t_pt_s / o.t_pt_s end as power_ratio_baseline_over_other,
        case when o.throughput_s > 0 then b.throughput_s / o.throughput_s end
            as throughput_ratio_baseline_over_other,
        case when b.qpm > 0 then o.qpm / b.qpm end as qpm_ratio_other_over_baseline
    from chosen as c
    inner join runs as b
        on b.study = c.study and b.campaign = c.baseline_campaign and b.environment = c.baseline_environment
        and b.cluster_nodes is not distinct from c.cluster_nodes
        and b.scale_factor_gb is not distinct from c.scale_factor_gb
    inner join runs as o
        on o.study = c.study and o.campaign = c.other_campaign and o.environment = c.environment
        and o.cluster_nodes is not distinct from c.cluster_nodes
        and o.scale_factor_gb is not distinct from c.scale_factor_gb
        and o.repetition = b.repetition
),

means as (
    select
        study, campaign, cluster_nodes, scale_factor_gb,
        'mean' as run,
        cast(null as integer) as repetition,
        environment, other_campaign, baseline_environment, baseline_campaign,
        bool_and(both_valid) as both_valid,
        true as comparable,
        avg(baseline_load_s) as baseline_load_s,
        avg(load_s) as load_s,
        avg(baseline_t_pt_s) as baseline_t_pt_s,
        avg(t_pt_s) as t_pt_s,
        avg(baseline_throughput_s) as baseline_throughput_s,
        avg(throughput_s) as throughput_s,
        avg(baseline_qpm) as baseline_qpm,
        avg(qpm) as qpm,
        bool_or(qpm_published) as qpm_published,
        avg(load_gain_pct) as load_gain_pct,
        avg(power_gain_pct) as power_gain_pct,
        avg(throughput_gain_pct) as throughput_gain_pct,
        avg(qpm_gain_pct) as qpm_gain_pct,
        avg(load_ratio_baseline_over_other) as load_ratio_baseline_over_other,
        avg(power_ratio_baseline_over_other) as power_ratio_baseline_over_other,
        avg(throughput_ratio_baseline_over_other) as throughput_ratio_baseline_over_other,
        avg(qpm_ratio_other_over_baseline) as qpm_ratio_other_over_baseline,
        count(*) as n_runs
    from per_run
    where comparable
    group by study, campaign, cluster_nodes, scale_factor_gb, environment, other_campaign,
        baseline_environment, baseline_campaign
),

compared as (
    select *, 1 as n_runs from per_run
    union all by name
    select * from means
),

environment_sides as (
    select * from {{ ref('int_environment_sides') }}
)

select
    c.*,
    b.first_started_at as baseline_first_started_at,
    b.last_finished_at as baseline_last_finished_at,
    b.load1_before_mean as baseline_load1_before_mean,
    o.first_started_at as other_first_started_at,
    o.last_finished_at as other_last_finished_at,
    o.load1_before_mean as other_load1_before_mean,
    {{ load_gap_per_core('b.load1_before_mean', 'o.load1_before_mean', 'greatest(b.cores, o.cores)') }}
        as load_gap_per_core,
    {{ load_gap_per_core('b.load1_before_mean', 'o.load1_before_mean', 'greatest(b.cores, o.cores)') }}
        > {{ load_gap_limit_per_core() }} as load_differs
from compared as c
left join environment_sides as b
    on b.study = c.study and b.campaign = c.baseline_campaign and b.environment = c.baseline_environment
left join environment_sides as o
    on o.study = c.study and o.campaign = c.other_campaign and o.environment = c.environment
