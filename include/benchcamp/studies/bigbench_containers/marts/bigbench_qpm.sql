-- BigBench's metric per run (one repetition is one run): one row per campaign, environment,
-- cluster size, scale factor and repetition, with the three phases' times and
--   T_PT     = M × geometric mean of the power test's per-query times (when the run has them),
--              else the imported `t_pt_s` (a published power phase); `t_pt_mismatch` when both
--              exist and differ by more than 0.1 %
--   BBQpm@SF = SF · 60 · M / (0.1 · T_load + sqrt(T_PT · T_throughput / S))
-- M (`queries`) and S (`streams`) are the spec's settings, written as records on the throughput
-- phase record, so the warehouse alone gives the metric. A run is valid only when its load
-- phase, all M power queries and every stream's M queries succeeded and the throughput phase
-- record exists (a published run: its phase records stand for the queries the kit checked);
-- an invalid run keeps its times, gets no Qpm, and `invalid_reason` says what is missing or failed.
{{ config(materialized='table') }}

with records as (
    select
        study,
        campaign,
        environment,
        workload,
        try_cast(json_extract_string(params, '$.cluster_nodes') as integer) as cluster_nodes,
        try_cast(json_extract_string(params, '$.scale_factor_gb') as double) as scale_factor_gb,
        coalesce(json_extract_string(params, '$.query'), 'all') as query,
        coalesce(json_extract_string(params, '$.stream'), 'all') as stream,
        repetition,
        metric,
        value,
        is_usable,
        finished_at
    from {{ ref('stg_results') }}
    where workload in ('bigbench_load', 'bigbench_power', 'bigbench_throughput') and not is_warmup
),

runs as (
    select
        study, campaign, environment, cluster_nodes, scale_factor_gb, repetition,
        max(finished_at) as last_finished_at
    from records
    group by all
),

phase_figures as (
    -- the phase records (query and stream `all`): measured times, settings and imported figures
    select
        study, campaign, environment, cluster_nodes, scale_factor_gb, repetition,
        {{ metric_value('duration_s', 'value', where="workload = 'bigbench_load' and is_usable") }} as load_s,
        count(*) filter (where workload = 'bigbench_load' and metric = 'duration_s') as load_records,
        {{ metric_value('t_pt_s', 'value', where="workload = 'bigbench_power' and is_usable") }} as t_pt_imported_s,
        {{ metric_value('duration_s', 'value', where="workload = 'bigbench_throughput' and is_usable") }}
            as throughput_s,
        count(*) filter (where workload = 'bigbench_throughput' and metric = 'duration_s') as throughput_records,
        {{ metric_value('streams', 'value', where="workload = 'bigbench_throughput' and is_usable") }} as streams,
        {{ metric_value('queries', 'value', where="workload = 'bigbench_throughput' and is_usable") }} as queries,
        {{ metric_value('bbqpm_published', 'value', where="workload = 'bigbench_throughput' and is_usable") }}
            as bbqpm_published
    from records
    where query = 'all' and stream = 'all'
    group by all
),

power_queries as (
    select
        study, campaign, environment, cluster_nodes, scale_factor_gb, repetition,
        count(distinct query) as power_queries_recorded,
        count(distinct query) filter (where is_usable) as power_queries_ok,
        exp(avg(ln(value)) filter (where is_usable)) as power_geomean_s
    from records
    where workload = 'bigbench_power' and query <> 'all' and metric = 'duration_s'
    group by all
),

stream_queries as (
    select
        study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, stream,
        count(distinct query) as queries_recorded,
        count(distinct query) filter (where is_usable) as queries_ok
    from records
    where workload = 'bigbench_throughput' and query <> 'all' and metric = 'duration_s'
    group by all
),

failed_anything as (
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, count(*) as failed_records
    from records
    where not is_usable and metric = 'duration_s'
    group by all
),

figures as (
    select
        r.*,
        f.load_s,
        coalesce(f.load_records, 0) as load_records,
        f.throughput_s,
        coalesce(f.throughput_records, 0) as throughput_records,
        cast(f.streams as integer) as streams,
        -- M: the setting record; without one (no throughput phase) the power test's query count
        cast(coalesce(f.queries, p.power_queries_recorded) as integer) as queries,
        coalesce(p.power_queries_recorded, 0) as power_queries_recorded,
        coalesce(p.power_queries_ok, 0) as power_queries_ok,
        p.power_geomean_s,
        f.t_pt_imported_s,
        f.bbqpm_published,
        exists (
            select 1 from stream_queries as s
            where s.study = r.study and s.campaign = r.campaign and s.environment = r.environment
                and s.cluster_nodes is not distinct from r.cluster_nodes
                and s.scale_factor_gb is not distinct from r.scale_factor_gb and s.repetition = r.repetition
        ) as has_stream_queries,
        coalesce(x.failed_records, 0) > 0 as any_failed
    from runs as r
    left join phase_figures as f using (study, campaign, environment, cluster_nodes, scale_factor_gb, repetition)
    left join power_queries as p using (study, campaign, environment, cluster_nodes, scale_factor_gb, repetition)
    left join failed_anything as x using (study, campaign, environment, cluster_nodes, scale_factor_gb, repetition)
),

with_t_pt as (
    select
        *,
        queries * power_geomean_s as t_pt_queries_s,
        coalesce(queries * power_geomean_s, t_pt_imported_s) as t_pt_s,
        case when power_geomean_s is not null then 'queries' when t_pt_imported_s is not null then 'imported' end
            as t_pt_source,
        -- a published run: its power phase is the imported figure alone, no per-query record
        power_queries_recorded = 0 and t_pt_imported_s is not null as published_phases
    from figures
),

problems as (
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, 1 as phase, 0 as stream, '' as query,
        case when load_records = 0 then 'no load phase' else 'load phase failed' end as problem
    from with_t_pt where load_s is null
    union all
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, 2, 0, '', 'no power phase'
    from with_t_pt where power_queries_recorded = 0 and t_pt_imported_s is null
    union all
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, 2, 0, query,
        query || ' failed in the power test'
    from records
    where workload = 'bigbench_power' and query <> 'all' and metric = 'duration_s' and not is_usable
    union all
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, 2, 0, 'zz',
        'power test has ' || power_queries_recorded || ' of ' || queries || ' queries'
    from with_t_pt where power_queries_recorded > 0 and power_queries_recorded < queries
    union all
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, 3, 0, '',
        case
            when throughput_records = 0 then 'no throughput phase'
            when throughput_s is null then 'throughput phase failed'
            when streams < 1 then 'stream count ' || streams || ' is below 1'
            else 'no streams/queries setting records'
        end
    from with_t_pt where throughput_s is null or streams is null or streams < 1 or queries is null
    union all
    select study, campaign, environment, cluster_nodes, scale_factor_gb, repetition, 3, try_cast(stream as integer), query,
        query || ' failed in stream ' || stream
    from records
    where workload = 'bigbench_throughput' and query <> 'all' and metric = 'duration_s' and not is_usable
    union all
    -- every stream 1..S must have run its M queries (a published run's phase record stands for them)
    select t.study, t.campaign, t.environment, t.cluster_nodes, t.scale_factor_gb, t.repetition, 3, k.stream, 'zz',
        'stream ' || k.stream || ' has ' || coalesce(s.queries_recorded, 0) || ' of ' || t.queries || ' queries'
    from with_t_pt as t
    cross join lateral (select unnest(range(1, t.streams + 1)) as stream) as k
    left join stream_queries as s
        on s.study = t.study and s.campaign = t.campaign and s.environment = t.environment
        and s.cluster_nodes is not distinct from t.cluster_nodes
        and s.scale_factor_gb is not distinct from t.scale_factor_gb
        and s.repetition = t.repetition and s.stream = cast(k.stream as varchar)
    where t.streams >= 1 and t.queries is not null and coalesce(s.queries_recorded, 0) < t.queries
        and not (t.published_phases and not t.has_stream_queries)
),

reasons as (
    select
        study, campaign, environment, cluster_nodes, scale_factor_gb, repetition,
        string_agg(problem, '; ' order by phase, stream, query) as invalid_reason
    from problems
    group by all
),

scored as (
    select
        t.*,
        w.invalid_reason,
        w.invalid_reason is null as valid
    from with_t_pt as t
    left join reasons as w using (study, campaign, environment, cluster_nodes, scale_factor_gb, repetition)
)

select
    study,
    campaign,
    environment,
    cluster_nodes,
    scale_factor_gb,
    repetition,
    load_s,
    t_pt_s,
    throughput_s,
    streams,
    queries,
    case when valid then
        scale_factor_gb * 60 * queries / (0.1 * load_s + sqrt(t_pt_s * throughput_s / streams))
    end as bbqpm,
    valid,
    invalid_reason,
    bbqpm_published,
    case when valid then {{ percent_of(
        'scale_factor_gb * 60 * queries / (0.1 * load_s + sqrt(t_pt_s * throughput_s / streams)) - bbqpm_published',
        'bbqpm_published') }}
    end as published_delta_pct,
    t_pt_source,
    t_pt_queries_s,
    t_pt_imported_s,
    coalesce(abs(t_pt_queries_s - t_pt_imported_s) > 0.001 * t_pt_imported_s, false) as t_pt_mismatch,
    power_queries_ok,
    power_geomean_s,
    published_phases,
    any_failed,
    last_finished_at
from scored
