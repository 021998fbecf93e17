{#- dbt-duckdb (1.10) builds an incremental Python model's new rows into a real table,
    `<model>__dbt_tmp<timestamp>`, where it expects a temporary one, so it never drops it: every
    build of int_change_point_series left one in the warehouse. The project's on-run-end drops
    them; a `__dbt_tmp` name is dbt's own, never a model's. -#}
{% macro drop_leftover_temp_tables() %}
  {% if execute %}
    {% set found = run_query(
        "select schema_name, table_name from duckdb_tables() "
        "where database_name = current_database() and contains(table_name, '__dbt_tmp')") %}
    {% for row in found.rows %}
      {% do run_query('drop table if exists "' ~ row[0] ~ '"."' ~ row[1] ~ '"') %}
    {% endfor %}
  {% endif %}
{% endmacro %}
