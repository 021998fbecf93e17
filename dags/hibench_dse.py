"""Airflow DAG for HiBench on DataStax Enterprise (study 1): WordCount and TestDFSIO scaling campaigns.

Everything is declared in include/benchcamp/studies/hibench_dse/spec.yaml; the factory
builds clean → generate → execute → validate → load → dbt → report from it.
(Airflow's DAG discovery only parses files that mention both "airflow" and "dag".)
"""

from benchcamp.airflow.dag_factory import build_study_dag

dag = build_study_dag("hibench_dse")
