{#- The verdict of a two-sample test (the p-values come from scipy: int_ycsb_stores_compared):
    "<a> higher" / "<b> higher" when p < alpha, else "no significant difference"; NULL without a test. -#}
{% macro significance_verdict(p_value, mean_a, mean_b, label_a, label_b, alpha=0.05) -%}
    case
        when ({{ p_value }}) is null then null
        when ({{ p_value }}) < {{ alpha }} and ({{ mean_a }}) > ({{ mean_b }}) then '{{ label_a }} higher'
        when ({{ p_value }}) < {{ alpha }} and ({{ mean_a }}) < ({{ mean_b }}) then '{{ label_b }} higher'
        else 'no significant difference'
    end
{%- endmacro %}
