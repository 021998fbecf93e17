"""Locust's users for `benchmarks/results_page_load.py`: a signed-in person browsing the results page.

Each user signs in once as Airflow's UI does (`POST /auth/token` with the SimpleAuthManager's
login; the JWT it answers is what the UI keeps as its `_token` cookie, sent here as that cookie),
loads the page's scripts once (the browser caches them for a day), then browses in a loop: the
list of studies, the study's page (its latest campaign), an earlier campaign picked from the
page's list, one of that campaign's figures as SVG (a link on its page) and its tables as CSV,
with a think time between pages. Run by the driver through `locust --headless`; its settings
come from the driver's environment (`BENCHCAMP_LOAD_*`).
"""

from __future__ import annotations

import os
import random
import re
from typing import Any

from locust import HttpUser, SequentialTaskSet, between, task

PREFIX = os.environ.get("BENCHCAMP_LOAD_PREFIX", "/benchcamp")
STUDY = os.environ.get("BENCHCAMP_LOAD_STUDY", "hibench_dse")
CAMPAIGNS = os.environ.get("BENCHCAMP_LOAD_CAMPAIGNS", "").split(",")
USER = os.environ.get("BENCHCAMP_LOAD_USER", "admin")
PASSWORD = os.environ.get("BENCHCAMP_LOAD_PASSWORD", "")
THINK_S = tuple(float(part) for part in os.environ.get("BENCHCAMP_LOAD_THINK_S", "5,15").split(","))
SCRIPTS = ("vega-bundle.js", "figures.js")
FIGURE_LINK = re.compile(r"figures/([A-Za-z0-9_.-]+)\.svg")
HTML = {"Accept": "text/html,application/xhtml+xml"}


class Browse(SequentialTaskSet):
    """One pass of a person's visit, in the order the page's links lead."""

    campaign = ""
    figures: list[str] = []

    def page(self, path: str, name: str) -> str:
        with self.client.get(path, name=name, headers=HTML, catch_response=True) as answer:
            text = str(answer.text or "")
            if answer.status_code == 200 and "Benchmark results" not in text:
                answer.failure("a 200 without the page's title")
            return text

    @task
    def studies(self) -> None:
        self.page(f"{PREFIX}/", "list of studies")

    @task
    def latest(self) -> None:
        self.page(f"{PREFIX}/{STUDY}", "study page (latest campaign)")

    @task
    def earlier(self) -> None:
        self.campaign = random.choice(CAMPAIGNS)
        text = self.page(f"{PREFIX}/{STUDY}?campaign={self.campaign}", "study page (a chosen campaign)")
        self.figures = sorted(set(FIGURE_LINK.findall(text)))

    @task
    def figure(self) -> None:
        if not self.figures:
            return
        name = random.choice(self.figures)
        self.client.get(f"{PREFIX}/{STUDY}/figures/{name}.svg?campaign={self.campaign}", name="figure (SVG)")

    @task
    def tables(self) -> None:
        self.client.get(f"{PREFIX}/{STUDY}/csv?campaign={self.campaign}", name="tables (CSV)")


class SignedInUser(HttpUser):
    tasks = [Browse]
    wait_time = between(THINK_S[0], THINK_S[-1])

    def on_start(self) -> None:
        answer: Any = self.client.post(
            "/auth/token", json={"username": USER, "password": PASSWORD}, name="sign in"
        )
        token = answer.json()["access_token"] if answer.status_code in (200, 201) else ""
        self.client.cookies.set("_token", token)  # what the UI's sign-in leaves in the browser
        for script in SCRIPTS:
            self.client.get(f"{PREFIX}/_static/{script}", name="page scripts (once)")
