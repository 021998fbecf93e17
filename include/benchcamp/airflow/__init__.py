"""Airflow glue: the study DAGs' factory and the Airflow CLI's environment."""
