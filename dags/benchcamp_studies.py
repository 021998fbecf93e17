"""The Airflow DAGs of every registered study: each study folder's, found at parse time.

A study folder (include/benchcamp/studies/<study>/) declares its campaign in spec.yaml; the factory
builds clean → generate → execute → validate → load → dbt → report from it (for YCSB the execute
step resets usertable, loads it and runs the timed phase, see include/benchcamp/workloads/ycsb.py),
unless the study's plugin module builds its own DAGs. Adding a study adds no file here.
(Airflow's DAG discovery only parses files that mention both "airflow" and "dag".)
A task's process parses this file for its own DAG only (Airflow's parsing context, the documented
way to skip building the other DAGs).
"""

from airflow.sdk import get_parsing_context
from benchcamp.airflow.dag_factory import study_dags

for study_dag in study_dags(only=get_parsing_context().dag_id):
    globals()[study_dag.dag_id] = study_dag
