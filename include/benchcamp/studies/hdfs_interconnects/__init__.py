"""The hdfs_interconnects study: spec.yaml."""
