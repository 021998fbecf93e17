{% test expression_is_true(model, expression) %}
-- Rows for which `expression` (SQL over the model's columns) is false or NULL.
select * from {{ model }} where not coalesce({{ expression }}, false)
{% endtest %}
