{#- `part` as a percentage of `whole`: part / whole × 100, NULL unless whole > 0.
    One definition for σ%, Data Δ, Time Δ and Read/Write Δ, so they round alike. -#}
{% macro percent_of(part, whole) -%}
    case when ({{ whole }}) > 0 then ({{ part }}) / ({{ whole }}) * 100 end
{%- endmacro %}
