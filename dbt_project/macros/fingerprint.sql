{#- The hardware fingerprint beside a mart's rows: one definition of the join on
    int_environment_fingerprints (study, campaign, environment), so no mart can join it on
    fewer keys and pool campaigns run on different hardware.
    `fingerprint_join('o')` after the from clause; select `fp.fingerprint` (NULL without a
    capture) or `fingerprint_or_unknown()` ('unknown', as most marts show it). -#}
{% macro fingerprint_join(rows_alias, alias='fp') -%}
    left join {{ ref('int_environment_fingerprints') }} as {{ alias }}
        on {{ rows_alias }}.study = {{ alias }}.study
        and {{ rows_alias }}.campaign = {{ alias }}.campaign
        and {{ rows_alias }}.environment = {{ alias }}.environment
{%- endmacro %}

{% macro fingerprint_or_unknown(alias='fp') -%}
    coalesce({{ alias }}.fingerprint, 'unknown')
{%- endmacro %}
