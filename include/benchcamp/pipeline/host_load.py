"""The target's load average around each measured repetition, a fact archived with its output.

A comparison of environments on the same hosts is fair only when both sides ran under the same
load. The execute step records the target's /proc/loadavg right before the timed step starts and
right after it ends (`load.txt` in its try folder: `cores=`, `before=`, `after=`): inside the SSH
wrapper for a shell step, else in short sessions of their own (HiveServer2's queries, a
workload's own step). A load that cannot be read is not a failed repetition: the row says so.
The load step copies the readings into `raw.repetition_load`; the `environment_load` mart
compares the sides of each comparison (docs/fair-comparisons.md).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from benchcamp.core.paths import slug
from benchcamp.core.records import read_jsonl
from benchcamp.pipeline.archive import RECORDS_FILE, write_atomically
from benchcamp.transport import ssh

LOAD_FILE = ssh.LOAD_FILE


def sample(connection: str) -> tuple[str, str] | None:
    """(cores, /proc/loadavg) of the target now, or None when it cannot be read (logged)."""
    try:
        return ssh.read_load(connection)
    except Exception as exc:  # a fact that could not be read, not a failed measurement
        logging.getLogger(__name__).warning("the load of %s could not be read: %s", connection, exc)
        return None


def write_load(directory: Path, before: tuple[str, str] | None, after: tuple[str, str] | None) -> Path:
    """`load.txt` of a timed step measured outside the wrapper, in the wrapper's format."""
    cores = (before or after or ("", ""))[0]
    text = f"cores={cores}\nbefore={before[1] if before else ''}\nafter={after[1] if after else ''}\n"
    path = directory / LOAD_FILE
    write_atomically(path, text)
    return path


def _load_1m(line: str) -> float | None:
    """The 1-minute load average of a /proc/loadavg line ('0.52 0.40 0.33 1/234 5678')."""
    try:
        return float(line.split()[0])
    except (IndexError, ValueError):
        return None


def parse_load(text: str) -> dict[str, Any]:
    """cores, load1_before and load1_after of a `load.txt` (None where a line is missing or empty)."""
    facts = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    cores = facts.get("cores", "").strip()
    return {
        "cores": int(cores) if cores.isdigit() and int(cores) > 0 else None,
        "load1_before": _load_1m(facts.get("before", "")),
        "load1_after": _load_1m(facts.get("after", "")),
    }


def load_rows(campaign_dir: Path) -> list[dict[str, Any]]:
    """One `raw.repetition_load` row per archived repetition whose latest execute try recorded
    its load: the repetition's identity from its records, the readings from `load.txt`."""
    rows = []
    for records_file in sorted(campaign_dir.glob(f"*/rep*/{RECORDS_FILE}")):
        rep_dir = records_file.parent
        tries = sorted(
            (rep_dir / "execute").glob(f"try*/{LOAD_FILE}"), key=lambda path: int(path.parent.name[3:] or 0)
        )
        records = read_jsonl(records_file.read_text(encoding="utf-8"), str(records_file))
        if not tries or not records:
            continue
        # the unit's own cell (a repetition may write records of other cells, as BigBench's run does)
        folder = rep_dir.parent.name.split("@")[0]
        own = next((record for record in records if slug(record.cell_key) == folder), records[0])
        rows.append(
            {
                "study": own.study,
                "campaign": own.campaign,
                "environment": own.environment,
                "cell_key": own.cell_key,
                "repetition": own.repetition,
                **parse_load(tries[-1].read_text(encoding="utf-8")),
            }
        )
    return rows
