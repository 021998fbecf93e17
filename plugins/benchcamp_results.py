"""The results page inside Airflow's UI (logic in benchcamp.presentation.results_page).

`fastapi_apps` mounts the page's app on the API server under /benchcamp. The `external_views`
entry puts it in the navigation (Browse → Benchmark results); its `url_route` is what makes
Airflow 3's UI show the page inside its own frame, at `/plugin/benchcamp_results` (the UI embeds
`href` in an iframe beside its navigation), rather than leave the UI for a bare page. The icon
is served by the page's app, like its scripts.
"""

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
            "icon": "/benchcamp/_static/icon.svg",
            "destination": "nav",
            "category": "browse",
            "url_route": "benchcamp_results",
        }
    ]
