"""The mapreduce_ssd_hdd study: spec.yaml."""
