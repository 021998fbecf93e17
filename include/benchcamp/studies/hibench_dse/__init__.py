"""The hibench_dse study: spec.yaml."""
