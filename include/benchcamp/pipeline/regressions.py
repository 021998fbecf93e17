"""Regression alerts: the `change_points` mart's regressions that a campaign makes known, once.

A step is found once Otava's t-test separates it (`pipeline.change_points`): a large one by
the first campaign after it, a smaller one a few campaigns later. The DAG's `alert_regressions` task (after
dbt_build) asks for the regressions whose segment after the change holds this campaign and
that no earlier campaign has announced (`raw.regression_alerts` remembers which campaign
did), records them, and emits one Airflow Asset event per regression and calls the user's
notifier (README "Change points and regression alerts"). A re-run of the same campaign
announces its own regressions again (its events may not have been sent).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

NOTIFIER_VARIABLE = "benchcamp_regression_notifier"

# change_points rows, the series holding `campaign` in the segment after the change
_CANDIDATES_SQL = """
select cp.*
from main.change_points as cp
inner join main.int_history_series as this
    on this.study = cp.study and this.environment = cp.environment
    and this.hardware_epoch = cp.hardware_epoch and this.cell_key = cp.cell_key
    and this.metric = cp.metric and this.campaign = ?
inner join main.int_history_series as after
    on after.study = cp.study and after.environment = cp.environment
    and after.hardware_epoch = cp.hardware_epoch and after.cell_key = cp.cell_key
    and after.metric = cp.metric and after.campaign = cp.campaign_after
inner join main.int_history_series as last
    on last.study = cp.study and last.environment = cp.environment
    and last.hardware_epoch = cp.hardware_epoch and last.cell_key = cp.cell_key
    and last.metric = cp.metric and last.campaign = cp.last_campaign
where cp.study = ? and cp.is_regression and this.position between after.position and last.position
order by cp.environment, cp.cell_key, cp.metric, cp.campaign_after
"""
_ALERT_KEY = ("study", "environment", "hardware_epoch", "cell_key", "metric", "campaign_after")


@dataclass(frozen=True)
class Regression:
    """One regression as an alert says it: which figure got worse, by how much, and how sure."""

    study: str
    environment: str
    fingerprint: str
    hardware_epoch: int
    workload: str
    cell_key: str
    metric: str
    unit: str
    better: str
    campaign_before: str
    campaign_after: str
    mean_before: float
    mean_after: float
    change: float
    change_pct: float
    p_value: float
    regression_pct: float

    def extra(self, campaign: str) -> dict[str, Any]:
        """The Asset event's extra: JSON-safe (no % of a change from 0: null), with the campaign that
        found it."""
        fields = {
            name: None if isinstance(value, float) and math.isnan(value) else value
            for name, value in asdict(self).items()
        }
        return {**fields, "found_by_campaign": campaign}

    def summary(self) -> str:
        return (
            f"REGRESSION {self.study} on {self.environment}: {self.cell_key} {self.metric} "
            f"{self.mean_before:.4g} -> {self.mean_after:.4g} {self.unit} ({self.change:+.4g} {self.unit}, "
            f"{'from 0' if math.isnan(self.change_pct) else f'{self.change_pct:+.1f} %'}, "
            f"{self.better} is better, p {self.p_value:.2g}) "
            f"between campaigns {self.campaign_before} and {self.campaign_after}"
        )


def regressions_from_rows(rows: list[Mapping[str, Any]]) -> list[Regression]:
    """change_points rows → the regressions among them (is_regression), typed for an event."""
    found = []
    for row in rows:
        if not row["is_regression"]:
            continue
        change = row["change_pct"]
        found.append(
            Regression(
                study=str(row["study"]),
                environment=str(row["environment"]),
                fingerprint=str(row["fingerprint"]),
                hardware_epoch=int(row["hardware_epoch"]),
                workload=str(row["workload"]),
                cell_key=str(row["cell_key"]),
                metric=str(row["metric"]),
                unit=str(row["unit"] or ""),
                better=str(row["better"]),
                campaign_before=str(row["campaign_before"]),
                campaign_after=str(row["campaign_after"]),
                mean_before=float(row["mean_before"]),
                mean_after=float(row["mean_after"]),
                change=float(row["change"]),
                change_pct=math.nan if change is None else float(change),
                p_value=float(row["p_value"]),
                regression_pct=float(row["regression_pct"]),
            )
        )
    return found


def new_regressions(warehouse: Path, study: str, campaign: str) -> list[Regression]:
    """The regressions `campaign` makes known (none announced by another campaign), recorded in
    raw.regression_alerts in one transaction. A warehouse without the marts has none."""
    from benchcamp.pipeline.warehouse import connect

    with connect(warehouse) as con:
        has_marts = con.execute(
            "select count(*) from information_schema.tables where table_schema = 'main' "
            "and table_name in ('change_points', 'int_history_series')"
        ).fetchone()
        if not has_marts or has_marts[0] < 2:
            return []
        cursor = con.execute(_CANDIDATES_SQL, [campaign, study])
        names = [column[0] for column in cursor.description]
        found = regressions_from_rows([dict(zip(names, row, strict=True)) for row in cursor.fetchall()])
        announced = {
            tuple(row[:-1]): row[-1]
            for row in con.execute(
                f"select {', '.join(_ALERT_KEY)}, alerted_by from raw.regression_alerts where study = ?",
                [study],
            ).fetchall()
        }
        fresh = [
            regression
            for regression in found
            if announced.get(tuple(getattr(regression, name) for name in _ALERT_KEY), campaign) == campaign
        ]
        if not fresh:
            return []
        con.execute("begin transaction")
        try:
            con.executemany(
                f"insert or replace into raw.regression_alerts ({', '.join(_ALERT_KEY)}, alerted_by, "
                "alerted_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [*(getattr(regression, name) for name in _ALERT_KEY), campaign, datetime.now(UTC)]
                    for regression in fresh
                ],
            )
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise
    return fresh


def load_notifier(path: str) -> Callable[[Mapping[str, Any]], Any]:
    """The object at `module:attribute` (or `module.attribute`): an Airflow BaseNotifier instance
    (e.g. SmtpNotifier, SlackNotifier) or any callable taking the task context."""
    module_name, _, attribute = path.partition(":") if ":" in path else path.rpartition(".")
    if not module_name or not attribute:
        raise ValueError(f"notifier {path!r}: give module:attribute, e.g. my_alerts:notify_team")
    notifier = getattr(importlib.import_module(module_name), attribute)
    if not callable(notifier):
        raise ValueError(f"notifier {path!r} is a {type(notifier).__name__}, not a notifier or a function")
    return notifier  # type: ignore[no-any-return]
