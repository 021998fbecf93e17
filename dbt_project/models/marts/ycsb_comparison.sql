-- HBase against Cassandra: per workload, operation type and test condition (the cell's other
-- axes: operationcount or target_ops, threads), the ratio HBase / Cassandra of the mean
-- throughput and of the mean average / 95th / 99th percentile latency, each with Welch's t-test
-- across the ok repetitions (macros/welch.sql says why Welch and how its p-value is computed)
-- and the verdict at α = 0.05: 'HBase higher', 'Cassandra higher', 'no significant difference',
-- NULL when a side has fewer than two ok repetitions. Higher throughput is better, higher
-- latency worse: the verdict names which store's figure is higher, not which store is better.
with ops as (
    select * from {{ ref('int_ycsb_ops_summarised') }}
    where op_type is not null
),

pairs as (
    select
        h.study,
        h.campaign,
        h.environment,
        h.workload,
        h.op_type,
        h.pair_params,
        h.operationcount,
        h.target_ops,
        h.threads,
        h.throughput_n as hbase_n,
        c.throughput_n as cassandra_n,
        h.throughput_ops_s as hbase_throughput_ops_s,
        h.throughput_stddev as hbase_throughput_stddev,
        c.throughput_ops_s as cassandra_throughput_ops_s,
        c.throughput_stddev as cassandra_throughput_stddev,
        h.latency_n as hbase_latency_n,
        c.latency_n as cassandra_latency_n,
        h.avg_latency_us as hbase_avg_latency_us,
        h.avg_latency_stddev_us as hbase_avg_latency_stddev_us,
        c.avg_latency_us as cassandra_avg_latency_us,
        c.avg_latency_stddev_us as cassandra_avg_latency_stddev_us,
        h.p95_latency_us as hbase_p95_latency_us,
        h.p95_latency_stddev_us as hbase_p95_latency_stddev_us,
        c.p95_latency_us as cassandra_p95_latency_us,
        c.p95_latency_stddev_us as cassandra_p95_latency_stddev_us,
        h.p99_latency_us as hbase_p99_latency_us,
        h.p99_latency_stddev_us as hbase_p99_latency_stddev_us,
        c.p99_latency_us as cassandra_p99_latency_us,
        c.p99_latency_stddev_us as cassandra_p99_latency_stddev_us,
        h.passed_validation and c.passed_validation as passed_validation
    from ops as h
    inner join ops as c
        on h.study = c.study
        and h.campaign = c.campaign
        and h.environment = c.environment
        and h.workload = c.workload
        and h.pair_params = c.pair_params
        and h.op_type = c.op_type
    where h.store = 'hbase' and c.store = 'cassandra'
),

tested as (
    select
        *,
        {{ student_t_two_sided_p(
            welch_t('hbase_throughput_ops_s', 'hbase_throughput_stddev', 'hbase_n',
                    'cassandra_throughput_ops_s', 'cassandra_throughput_stddev', 'cassandra_n'),
            welch_df('hbase_throughput_stddev', 'hbase_n', 'cassandra_throughput_stddev', 'cassandra_n')
        ) }} as throughput_p_value,
        {% for latency in ('avg', 'p95', 'p99') %}
        {{ student_t_two_sided_p(
            welch_t('hbase_' ~ latency ~ '_latency_us', 'hbase_' ~ latency ~ '_latency_stddev_us', 'hbase_latency_n',
                    'cassandra_' ~ latency ~ '_latency_us', 'cassandra_' ~ latency ~ '_latency_stddev_us',
                    'cassandra_latency_n'),
            welch_df('hbase_' ~ latency ~ '_latency_stddev_us', 'hbase_latency_n',
                     'cassandra_' ~ latency ~ '_latency_stddev_us', 'cassandra_latency_n')
        ) }} as {{ latency }}_latency_p_value{{ "," if not loop.last }}
        {% endfor %}
    from pairs
)

select
    study,
    campaign,
    environment,
    workload,
    op_type,
    pair_params,
    operationcount,
    target_ops,
    threads,
    hbase_n,
    cassandra_n,
    hbase_throughput_ops_s,
    cassandra_throughput_ops_s,
    case when cassandra_throughput_ops_s > 0
        then hbase_throughput_ops_s / cassandra_throughput_ops_s
    end as throughput_ratio,
    throughput_p_value,
    {{ significance_verdict('throughput_p_value', 'hbase_throughput_ops_s', 'cassandra_throughput_ops_s',
                            'HBase', 'Cassandra') }} as throughput_verdict,
    {% for latency in ('avg', 'p95', 'p99') %}
    hbase_{{ latency }}_latency_us,
    cassandra_{{ latency }}_latency_us,
    case when cassandra_{{ latency }}_latency_us > 0
        then hbase_{{ latency }}_latency_us / cassandra_{{ latency }}_latency_us
    end as {{ latency }}_latency_ratio,
    {{ latency }}_latency_p_value,
    {{ significance_verdict(latency ~ '_latency_p_value', 'hbase_' ~ latency ~ '_latency_us',
                            'cassandra_' ~ latency ~ '_latency_us', 'HBase', 'Cassandra') }}
        as {{ latency }}_latency_verdict,
    {% endfor %}
    passed_validation
from tested
