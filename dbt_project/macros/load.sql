{#- The load rule of environment comparisons (docs/fair-comparisons.md): two sides ran under
    different load when the means of their repetitions' 1-minute load average, read right before
    each timed step, differ by more than a quarter of a core per core of the target: on 2 cores,
    by more than 0.5, about one more runnable process half of the time. The reading before the
    step is the machine's load as the repetition starts, before its own work adds to it. -#}
{% macro load_gap_limit_per_core() -%}
    cast(0.25 as double)
{%- endmacro %}

{#- The gap between two sides' mean pre-step loads per core (NULL when either side has none). -#}
{% macro load_gap_per_core(load_a, load_b, cores) -%}
    case when ({{ cores }}) > 0 then abs(({{ load_a }}) - ({{ load_b }})) / ({{ cores }}) end
{%- endmacro %}
