"""The bigbench_containers study: spec.yaml."""
