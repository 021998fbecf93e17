"""Hardware changes between campaigns: a target whose hosts or their fingerprints differ from the
previous campaign captured on it, with the facts that changed, kept in `raw.hardware_changes`.

The campaign's finish step calls it after loading the environment snapshots (`raw.environments`);
the report and the history marts read the table, so a time series splits where the hardware did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchcamp.pipeline.warehouse import connect

__all__ = ["HardwareChange", "detect_hardware_changes"]

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class HardwareChange:
    """A target whose hardware fingerprint differs from the one its previous campaign ran on."""

    study: str
    campaign: str
    environment: str
    previous_study: str
    previous_campaign: str
    previous_fingerprint: str
    fingerprint: str
    changed_facts: dict[str, dict[str, list[object]]] = field(default_factory=dict)


def _hosts(
    con: duckdb.DuckDBPyConnection, study: str, campaign: str, environment: str
) -> dict[str, dict[str, object]]:
    from benchcamp.transport.environment import HARDWARE_FACTS

    rows = con.execute(
        "select host, facts from raw.environments where study = ? and campaign = ? and environment = ?",
        [study, campaign, environment],
    ).fetchall()
    return {host: {name: json.loads(facts).get(name) for name in HARDWARE_FACTS} for host, facts in rows}


def _changed_facts(
    before: dict[str, dict[str, object]], after: dict[str, dict[str, object]]
) -> dict[str, dict[str, list[object]]]:
    """Per host, each hardware fact as [before, after] where it differs (a host gone or new: all facts)."""
    changed: dict[str, dict[str, list[object]]] = {}
    for host in sorted(before.keys() | after.keys()):
        old, new = before.get(host, {}), after.get(host, {})
        diff = {
            name: [old.get(name), new.get(name)]
            for name in sorted(old.keys() | new.keys())
            if old.get(name) != new.get(name)
        }
        if diff:
            changed[host] = diff
    return changed


def detect_hardware_changes(path: Path | None, study: str, campaign: str) -> list[HardwareChange]:
    """Compare each target's hosts and their fingerprints with the previous campaign captured on that target.

    A target's hardware is its set of `host=fingerprint` pairs: a node added, removed or replaced is a
    change as much as a new CPU is.

    "Previous" is by capture time across every study (a target is shared by all of them), so a backfill
    of old logical dates run after an upgrade compares with the newest hardware, not the old one. The
    campaign's rows in `raw.hardware_changes` are replaced by what is found now: re-running a load
    neither duplicates an event nor keeps a stale one.
    """
    with connect(path) as con:
        current = con.execute(
            """
            select environment, string_agg(host || '=' || fingerprint, '+' order by host), min(captured_at)
            from raw.environments where study = ? and campaign = ?
            group by environment order by environment
            """,
            [study, campaign],
        ).fetchall()
        changes: list[HardwareChange] = []
        for environment, fingerprint, first_captured in current:
            previous = con.execute(
                """
                select study, campaign, string_agg(host || '=' || fingerprint, '+' order by host)
                from raw.environments
                where environment = ? and not (study = ? and campaign = ?)
                group by study, campaign
                having max(captured_at) < ?
                order by max(captured_at) desc
                limit 1
                """,
                [environment, study, campaign, first_captured],
            ).fetchone()
            if previous is None or previous[2] == fingerprint:
                continue
            changes.append(
                HardwareChange(
                    study=study,
                    campaign=campaign,
                    environment=environment,
                    previous_study=previous[0],
                    previous_campaign=previous[1],
                    previous_fingerprint=previous[2],
                    fingerprint=fingerprint,
                    changed_facts=_changed_facts(
                        _hosts(con, previous[0], previous[1], environment),
                        _hosts(con, study, campaign, environment),
                    ),
                )
            )
        con.execute("begin transaction")
        try:
            con.execute(
                "delete from raw.hardware_changes where study = ? and campaign = ?", [study, campaign]
            )
            for change in changes:
                con.execute(
                    """
                    insert into raw.hardware_changes (study, campaign, environment, previous_study,
                        previous_campaign, previous_fingerprint, fingerprint, changed_facts, detected_at)
                    values (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        change.study,
                        change.campaign,
                        change.environment,
                        change.previous_study,
                        change.previous_campaign,
                        change.previous_fingerprint,
                        change.fingerprint,
                        json.dumps(change.changed_facts, sort_keys=True, default=str),
                        datetime.now(UTC),
                    ],
                )
            con.execute("commit")
        except Exception:
            con.execute("rollback")
            raise
    return changes
