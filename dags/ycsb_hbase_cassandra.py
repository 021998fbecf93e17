"""Airflow DAG for YCSB on HBase vs Cassandra (study 3): core workloads A-F, repeated, with offered-load sweeps.

Everything is declared in include/benchcamp/studies/ycsb_hbase_cassandra/spec.yaml; the factory
builds clean → generate → execute → validate → load → dbt → report from it; for YCSB the
execute step resets usertable, loads it and runs the timed phase (generate has nothing to do:
a run must follow its own load, see include/benchcamp/workloads/ycsb.py).
(Airflow's DAG discovery only parses files that mention both "airflow" and "dag".)
"""

from benchcamp.airflow.dag_factory import build_study_dag

dag = build_study_dag("ycsb_hbase_cassandra")
