"""The ycsb_hbase_cassandra study: spec.yaml."""
