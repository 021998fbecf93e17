{#- One metric's statistic as a column, for pivoting int_cells_summarised's rows (one per
    cell and metric) into one row per cell: `{{ metric_value('phase_map_s') }} as map_s`.
    `statistic` is any expression over the row (mean, stddev, n, n * mean); `key` the column
    naming the metric (int_ycsb_ops_summarised pivots on its parsed `measure`); `where` narrows
    further (dfsio_read_write pivots read and write of one size side by side). Each group holds
    at most one row per metric (int_cells_summarised is unique per cell and metric), so
    any_value takes that row's value. -#}
{% macro metric_value(metric, statistic='mean', key='metric', where=none) -%}
    any_value({{ statistic }}) filter (where {{ key }} = '{{ metric }}'{% if where %} and {{ where }}{% endif %})
{%- endmacro %}
