"""The results page under Browse → Benchmark results (logic in benchcamp.presentation.results_page)."""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin
from benchcamp.presentation.results_page import create_app


class BenchcampResultsPlugin(AirflowPlugin):
    name = "benchcamp_results"
    fastapi_apps = [{"app": create_app(), "url_prefix": "/benchcamp", "name": "Benchmark results"}]
    external_views = [
        {
            "name": "Benchmark results",
            "href": "/benchcamp/",
            "destination": "nav",
            "category": "browse",
            "url_route": "benchcamp_results",
        }
    ]
