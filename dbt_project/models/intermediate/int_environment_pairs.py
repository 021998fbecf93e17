"""The environments each study compares, from its spec: one row per pair of an `interleave` group
(environments on the same hosts), the group's baseline side against each other member.

A group's baseline side is the spec's baseline environment when it is in the group, else the
group's first (its A side): e.g. `[bare_metal, container]` gives bare_metal against container and
`[local_lab, lab_container]` local_lab against lab_container. A study's comparison marts join this
rather than name environments, so a pair is added or renamed in the spec alone. Read from the
specs at build time (`benchcamp.core.spec`), as the load step copies the axes' comparisons.
"""

from typing import Any

import pandas as pd
from benchcamp.core.spec import load_spec, study_names

COLUMNS = {"study": "varchar", "baseline_environment": "varchar", "environment": "varchar"}


def pairs() -> list[tuple[str, str, str]]:
    """(study, baseline environment, environment) of every study's interleave groups, in spec order."""
    rows = []
    for study in study_names():
        spec = load_spec(study)
        baselines = {environment.name for environment in spec.environments if environment.baseline}
        for group in spec.interleave:
            first = next((name for name in group if name in baselines), group[0])
            rows += [(study, first, other) for other in group if other != first]
    return rows


def model(dbt: Any, session: Any) -> Any:
    dbt.config(materialized="table")
    frame = pd.DataFrame(pairs(), columns=list(COLUMNS), dtype="string")
    return session.from_df(frame).project(
        ", ".join(f"{name}::{kind} as {name}" for name, kind in COLUMNS.items())
    )
