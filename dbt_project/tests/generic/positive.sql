{% test positive(model, column_name) %}
-- Rows where the column is zero or below (NULL passes: use not_null for that).
select * from {{ model }} where {{ column_name }} <= 0
{% endtest %}
