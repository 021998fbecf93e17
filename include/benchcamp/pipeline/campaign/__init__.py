"""The steps of a campaign, as plain functions the DAG's tasks call.

clean → generate → execute run per repetition on the target (over SSH); validate,
load and report run once per campaign on the Airflow worker. Everything a step
learns is written to the raw archive first, and later steps read the archive, so
any task can be cleared and re-run without duplicating or losing a row.

Modules, each depending only on those before it: `unit` (the unit of work: one repetition of
one cell on one environment), `conf` (a run's parameters checked against the spec, the
campaign's name), `plan` (the units per target, in run order), `steps` (clean, generate and
execute of one repetition), `leftovers` (the Hive side of what campaigns leave on a target),
`target` (once per campaign and target: preflight, cleanup, stopping its jobs), `finish` (validate, load, gate). Importers use the module that defines a name.
"""
