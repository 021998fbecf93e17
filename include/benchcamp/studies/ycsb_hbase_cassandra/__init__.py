"""The ycsb_hbase_cassandra study: spec.yaml; plugin.py (its report sections, figures, marts,
stores) and validation.py (its latency-anomaly check)."""
