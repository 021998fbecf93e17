"""The example_sleep study's own workloads (discovered by benchcamp.workloads)."""
