-- HBase against Cassandra: per workload, operation type and test condition (the cell's other
-- axes: operationcount or target_ops, threads), the ratio HBase / Cassandra of the mean
-- throughput and of the mean average / 95th / 99th percentile latency, each with the p-value of
-- Welch's t-test across the ok repetitions (computed with scipy in int_ycsb_stores_compared)
-- and the verdict at α = 0.05: 'HBase higher', 'Cassandra higher', 'no significant difference',
-- NULL when a side has fewer than two ok repetitions. Higher throughput is better, higher
-- latency worse: the verdict names which store's figure is higher, not which store is better.
-- Where the test is not significant, <figure>_repetitions_to_decide: the repetitions per store
-- that would find the observed difference at the measured σ's (power 0.8, α = 0.05; computed in
-- int_ycsb_stores_compared).
{{ config(materialized='table') }}

with tested as (
    select * from {{ ref('int_ycsb_stores_compared') }}
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
    -- each figure's own n: the served rate's runs wrote histogram logs, the latencies' measured the op
    hbase_served_n,
    cassandra_served_n,
    hbase_latency_n,
    cassandra_latency_n,
    hbase_throughput_ops_s,
    cassandra_throughput_ops_s,
    case when cassandra_throughput_ops_s > 0
        then hbase_throughput_ops_s / cassandra_throughput_ops_s
    end as throughput_ratio,
    throughput_p_value,
    {{ significance_verdict('throughput_p_value', 'hbase_throughput_ops_s', 'cassandra_throughput_ops_s',
                            'HBase', 'Cassandra') }} as throughput_verdict,
    throughput_repetitions_to_decide,
    -- the same throughput within ±10 % of Cassandra's (two one-sided Welch tests, TOST, at α = 0.05)
    throughput_equivalence_p_value,
    throughput_equivalence_p_value < 0.05 as throughput_equivalent,
    -- the same for the rate the stores served at (runs whose clients wrote histogram logs)
    hbase_served_throughput_ops_s,
    cassandra_served_throughput_ops_s,
    case when cassandra_served_throughput_ops_s > 0
        then hbase_served_throughput_ops_s / cassandra_served_throughput_ops_s
    end as served_throughput_ratio,
    served_throughput_p_value,
    {{ significance_verdict('served_throughput_p_value', 'hbase_served_throughput_ops_s',
                            'cassandra_served_throughput_ops_s', 'HBase', 'Cassandra') }}
        as served_throughput_verdict,
    served_throughput_repetitions_to_decide,
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
    {{ latency }}_latency_repetitions_to_decide,
    {% endfor %}
    passed_validation
from tested
