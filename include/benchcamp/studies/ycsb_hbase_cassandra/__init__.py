"""The ycsb_hbase_cassandra study: spec.yaml, and its presentation in plugin.py."""
