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
    {%- if not loaded -%}
        {{ return('false') }}
    {%- endif -%}
    {#- The names as one JSON literal, split at their first '/' by DuckDB: no loop here and no
        term per campaign in the test's SQL, however many campaigns a build loaded (an import of
        4,445 campaigns spent minutes on a disjunction of 4,445 terms in each of its data tests).
        An element that is not a string (a pair) starts after '[' or ', ' without a quote; a
        string holding ', ' can look like one too, and only takes the disjunction. -#}
    {%- set names_json = tojson(loaded) -%}
    {%- if modules.re.search('^.[^"]|, [^"]', names_json) -%}
        {{ return(campaign_pairs(loaded, 'study' in columns)) }}
    {%- endif -%}
    {%- set names -%}
        select n[:strpos(n, '/') - 1] as study, n[strpos(n, '/') + 1:] as campaign
        from (select unnest(from_json({{ quoted(names_json) }}, '["VARCHAR"]')) as n)
        where strpos(n, '/') > 0
    {%- endset -%}
    {%- if 'study' in columns -%}
        {{ return("(study, campaign) in (" ~ names ~ ")") }}
    {%- endif -%}
    {{ return("campaign in (select campaign from (" ~ names ~ "))") }}
{%- endmacro %}

{#- The scope as a disjunction, one term per campaign: for names given as (study, campaign) pairs. -#}
{% macro campaign_pairs(loaded, with_study) -%}
    {%- set pairs = [] -%}
    {%- for name in loaded -%}
        {%- set study, campaign = (name.split('/', 1) if name is string else name) -%}
        {%- if with_study -%}
            {%- do pairs.append("(study = " ~ quoted(study) ~ " and campaign = " ~ quoted(campaign) ~ ")") -%}
        {%- else -%}
            {%- do pairs.append("campaign = " ~ quoted(campaign)) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(pairs | join(' or ')) }}
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
