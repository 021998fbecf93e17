{% test column_rules(model, not_null=[], non_negative=[], positive=[]) %}
-- A model's column rules in one query: one row per broken rule (rule(column), failing rows).
-- One dbt node per model instead of one per column and rule: dbt spends about 0.02 s on each
-- node whatever it checks, and a mart with ten columns had ten to twenty such nodes.
-- NULL passes non_negative and positive (list the column under not_null for that).
{%- set checks = [] -%}
{%- for column in not_null %}{% do checks.append(("not_null", column, column ~ " is null")) %}{% endfor -%}
{%- for column in non_negative %}{% do checks.append(("non_negative", column, column ~ " < 0")) %}{% endfor -%}
{%- for column in positive %}{% do checks.append(("positive", column, column ~ " <= 0")) %}{% endfor %}
with counted as (
    select
    {%- for rule, column, failing in checks %}
        count_if({{ failing }}) as "{{ rule }}({{ column }})"{{ "," if not loop.last }}
    {%- endfor %}
    from {{ model }}
)
select broken_rule, failing_rows
from (unpivot counted on columns(*) into name broken_rule value failing_rows)
where failing_rows > 0
{% endtest %}
