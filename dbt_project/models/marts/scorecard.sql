-- The reproduction scorecard: one row per study, campaign, environment and published claim
-- (stg_study_claims), the verdict over the claim's comparisons (int_claims_compared):
--   contradicted  when a comparison is (after Benjamini–Hochberg over the claim's comparisons),
--   reproduced    when every comparison is (each 95 % interval wholly inside the claimed region),
--   inconclusive  otherwise (an interval spans the region's edge, or too few repetitions),
--   not measured  when the campaign has none of the cells the claim compares.
-- The evidence is the deciding comparison: for a contradicted claim the one with the smallest
-- adjusted p against it, otherwise the weakest (largest p_support, untested ones first).
-- An inconclusive claim also gets the repetitions per cell that would decide it at the noise
-- measured (int_claims_compared's power calculation, from the comparison it marks: the claim's
-- `power_comparison`), or why no number would (`decide_reason`).
with claims as (
    select * from {{ ref('stg_study_claims') }}
),

runs as (
    select distinct study, campaign, environment
    from {{ ref('int_cells_summarised') }}
),

comparisons as (
    select * from {{ ref('int_claims_compared') }}
),

rolled as (
    select
        study,
        campaign,
        environment,
        claim_id,
        count(*) as comparisons,
        count(*) filter (where verdict = 'reproduced') as n_reproduced,
        count(*) filter (where verdict = 'contradicted') as n_contradicted,
        count(*) filter (where verdict = 'inconclusive') as n_inconclusive,
        -- the deciding comparison's position: most contradicting, else weakest support
        coalesce(
            arg_min(comparison_position, p_against_adjusted) filter (where verdict = 'contradicted'),
            arg_max(comparison_position, coalesce(p_support, 2))
        ) as deciding_position,
        string_agg(
            comparison || ': ' || coalesce(printf('%.4f', estimate), 'no mean')
            || coalesce(printf(' [%.4f, %.4f]', ci_low, ci_high), ' (no interval)')
            || ' n ' || n_per_side || ' ' || verdict,
            '; ' order by comparison_position
        ) as evidence
    from comparisons
    group by study, campaign, environment, claim_id
)

select
    r.study,
    r.campaign,
    r.environment,
    c.claim_id,
    c.claim_position,
    c.paper,
    c.kind,
    c.metric,
    c.expect,
    c.tolerance_pct,
    case c.expect
        when 'higher' then 'ratio above 1'
        when 'lower' then 'ratio below 1'
        else printf('ratio within 1 ± %g %%', c.tolerance_pct)
    end as claimed,
    case
        when coalesce(s.comparisons, 0) = 0 then 'not measured'
        when s.n_contradicted > 0 then 'contradicted'
        when s.n_reproduced = s.comparisons then 'reproduced'
        else 'inconclusive'
    end as verdict,
    coalesce(s.comparisons, 0) as comparisons,
    coalesce(s.n_reproduced, 0) as n_reproduced,
    coalesce(s.n_contradicted, 0) as n_contradicted,
    coalesce(s.n_inconclusive, 0) as n_inconclusive,
    d.comparison as deciding_comparison,
    d.estimate,
    d.ci_low,
    d.ci_high,
    d.n_per_side,
    d.p_support,
    d.p_against_adjusted,
    s.evidence,
    case when s.comparisons > 0 then d.method || case
        when s.comparisons > 1 then printf('; Benjamini–Hochberg over %d comparisons', s.comparisons)
        else ''
    end end as method,
    w.repetitions_to_decide,
    w.comparison as power_comparison,
    w.decide_edge,
    w.decide_route,
    w.decide_reason,
    w.power_method
from runs as r
inner join claims as c
    on r.study = c.study
left join rolled as s
    on r.study = s.study
    and r.campaign = s.campaign
    and r.environment = s.environment
    and c.claim_id = s.claim_id
left join comparisons as d
    on s.study = d.study
    and s.campaign = d.campaign
    and s.environment = d.environment
    and s.claim_id = d.claim_id
    and s.deciding_position = d.comparison_position
left join comparisons as w
    on s.study = w.study
    and s.campaign = w.campaign
    and s.environment = w.environment
    and s.claim_id = w.claim_id
    and w.sets_claim_repetitions
