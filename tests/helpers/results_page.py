"""The results app as a browser signed in (or not) meets it, and the rows a figure's spec plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def results_client(warehouse: Path, signed_in: bool) -> Any:
    from airflow.api_fastapi.auth.managers.simple.user import SimpleAuthManagerUser
    from benchcamp.presentation.results_page import create_app, require_login
    from fastapi.testclient import TestClient

    app = create_app(warehouse)
    if signed_in:  # what Airflow's get_user returns for a valid session: the login itself is Airflow's
        app.dependency_overrides[require_login] = lambda: SimpleAuthManagerUser(
            username="admin", role="admin"
        )
    return TestClient(app)


def plotted(spec: Any) -> list[dict[str, Any]]:
    """Every data row a Vega-Lite spec embeds (inline `data.values` or top-level `datasets`)."""
    rows: list[dict[str, Any]] = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "values" and isinstance(value, list):
                rows += value
            elif key == "datasets":
                rows += [row for dataset in value.values() for row in dataset]
            else:
                rows += plotted(value)
    elif isinstance(spec, list):
        for item in spec:
            rows += plotted(item)
    return rows
