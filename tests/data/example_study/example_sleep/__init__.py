"""The example_sleep study (tests only): everything a new study brings, in its own folder.

spec.yaml (the campaign), plugin.py (its report and page sections), workloads/sleep.py (its
workload and parser), marts/ (its dbt mart), recorded/ (a recorded run its parser reads).
tests/unit/test_study_contract.py installs it next to the bundled studies.
"""
