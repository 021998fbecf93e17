{#- Welch's unequal-variance t-test from per-group summaries (mean, sample σ, n), for comparing
    two stores over their repetitions. NULL unless both groups have n >= 2 (no σ otherwise) and
    both means and σ are known.
    Welch rather than Mann-Whitney U: with 3 repetitions a side the smallest two-sided exact U
    p-value is 2/20 = 0.1, so U could never reach α = 0.05.

    DuckDB has no t-distribution CDF, so student_t_two_sided_p integrates the density:
        p = 2 Γ((ν+1)/2) / (√π Γ(ν/2)) · ∫_{θ0}^{π/2} cos^(ν−1) θ dθ,   θ0 = atan(|t| / √ν)
    (x = √ν tan θ in the tail integral of the t density). With u = (π/2 − θ0) w² the integrand
    becomes 2 w sin^(ν−1)(u) (π/2 − θ0) on w in [0, 1], smooth at both ends for ν >= 1 (Welch's
    ν >= min(n1, n2) − 1 >= 1), and the midpoint rule on 4096 points gives p within 3e-6 of
    scipy.stats.t for ν from 1 to 200 (tests/unit/test_ycsb_marts.py checks t-table values). -#}

{% macro welch_t(mean_a, stddev_a, n_a, mean_b, stddev_b, n_b) -%}
    case
        when ({{ mean_a }}) is null or ({{ mean_b }}) is null
            or ({{ stddev_a }}) is null or ({{ stddev_b }}) is null then null
        when ({{ n_a }}) >= 2 and ({{ n_b }}) >= 2 then
            case
                when pow({{ stddev_a }}, 2) / ({{ n_a }}) + pow({{ stddev_b }}, 2) / ({{ n_b }}) > 0
                    then (({{ mean_a }}) - ({{ mean_b }}))
                        / sqrt(pow({{ stddev_a }}, 2) / ({{ n_a }}) + pow({{ stddev_b }}, 2) / ({{ n_b }}))
                {#- no spread on either side: any difference is certain, none is none #}
                when ({{ mean_a }}) = ({{ mean_b }}) then 0
                when ({{ mean_a }}) > ({{ mean_b }}) then 'infinity'::double
                else '-infinity'::double
            end
    end
{%- endmacro %}

{% macro welch_df(stddev_a, n_a, stddev_b, n_b) -%}
    {#- Welch–Satterthwaite degrees of freedom; NULL when both variances are 0. -#}
    case
        when ({{ n_a }}) >= 2 and ({{ n_b }}) >= 2
            and pow({{ stddev_a }}, 2) / ({{ n_a }}) + pow({{ stddev_b }}, 2) / ({{ n_b }}) > 0
        then pow(pow({{ stddev_a }}, 2) / ({{ n_a }}) + pow({{ stddev_b }}, 2) / ({{ n_b }}), 2)
            / (
                pow(pow({{ stddev_a }}, 2) / ({{ n_a }}), 2) / (({{ n_a }}) - 1)
                + pow(pow({{ stddev_b }}, 2) / ({{ n_b }}), 2) / (({{ n_b }}) - 1)
            )
    end
{%- endmacro %}

{% macro student_t_two_sided_p(t, df, points=4096) -%}
    case
        when ({{ t }}) is null then null
        when isinf({{ t }}) then 0.0
        when ({{ df }}) is null then case when ({{ t }}) = 0 then 1.0 end
        else least(1.0,
            2 * exp(lgamma((({{ df }}) + 1) / 2) - lgamma(({{ df }}) / 2)) / sqrt(pi())
            * (pi() / 2 - atan(abs({{ t }}) / sqrt({{ df }}))) / {{ points }}
            * list_sum(list_transform(range({{ points }}), lambda i:
                2 * ((i + 0.5) / {{ points }})
                * pow(
                    sin(pow((i + 0.5) / {{ points }}, 2) * (pi() / 2 - atan(abs({{ t }}) / sqrt({{ df }})))),
                    ({{ df }}) - 1
                )
            ))
        )
    end
{%- endmacro %}

{% macro significance_verdict(p_value, mean_a, mean_b, label_a, label_b, alpha=0.05) -%}
    {#- "<a> higher" / "<b> higher" when p < alpha, else "no significant difference"; NULL without a test. -#}
    case
        when ({{ p_value }}) is null then null
        when ({{ p_value }}) < {{ alpha }} and ({{ mean_a }}) > ({{ mean_b }}) then '{{ label_a }} higher'
        when ({{ p_value }}) < {{ alpha }} and ({{ mean_a }}) < ({{ mean_b }}) then '{{ label_b }} higher'
        else 'no significant difference'
    end
{%- endmacro %}
