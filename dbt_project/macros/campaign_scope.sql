{#- Which rows a data test judges. With the var `benchcamp_campaigns` (a list of
    "study/campaign" names, or one such name: the campaigns this build loaded), a test of a
    model with a `campaign` column (and a `study` column, when it has one) judges only those
    campaigns' rows, so an old campaign's bad rows never fail a later campaign's build; without
    the var (make test, a manual `dbt build`) every row. Models without a campaign column (study
    thresholds, claims, change points across campaigns) are always judged whole. -#}
{% macro campaign_scope(relation) -%}
    {%- set loaded = var('benchcamp_campaigns', none) -%}
    {%- if loaded is none or not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- if loaded is string -%}
        {%- set loaded = [loaded] -%}
    {%- endif -%}
    {%- set columns = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
    {%- if 'campaign' not in columns -%}
        {{ return('') }}
    {%- endif -%}
    {%- set pairs = [] -%}
    {%- for name in loaded -%}
        {%- set study, campaign = (name.split('/', 1) if name is string else name) -%}
        {%- if 'study' in columns -%}
            {%- do pairs.append("(study = " ~ quoted(study) ~ " and campaign = " ~ quoted(campaign) ~ ")") -%}
        {%- else -%}
            {%- do pairs.append("campaign = " ~ quoted(campaign)) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(pairs | join(' or ') if pairs else 'false') }}
{%- endmacro %}

{#- A SQL string literal of `value` (dbt's string_literal does not escape quotes). -#}
{% macro quoted(value) -%}
    {{ return("'" ~ (value | string | replace("'", "''")) ~ "'") }}
{%- endmacro %}

{#- dbt's own get_where_subquery (the relation every generic data test reads), with the
    campaign scope added to the test's `where` config. -#}
{% macro default__get_where_subquery(relation) -%}
    {%- set conditions = [config.get('where', ''), campaign_scope(relation)] | select | list -%}
    {%- if conditions -%}
        {%- set filtered -%}
            (select * from {{ relation }} where ({{ conditions | join(') and (') }})) dbt_subquery
        {%- endset -%}
        {% do return(filtered) %}
    {%- else -%}
        {% do return(relation) %}
    {%- endif -%}
{%- endmacro %}
