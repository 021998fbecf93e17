"""The campaigns of a study whose repetitions have not all ended: what the results page shows
above the last finished campaign while a run is under way (issue 50, item 5).

Read from the archive only, as `benchcamp run`'s progress display reads it (`progress`): a
campaign folder with an attempt and a plan but no validation yet is unfinished. The archive
cannot tell a live run from one killed without a word, so each carries when a file of it was
last written, and the page says which it looks like (`QUIET_S`) rather than calling it running.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchcamp.core.paths import results_root, slug
from benchcamp.pipeline import archive, attempts
from benchcamp.pipeline.progress import CampaignWatch, TargetProgress

# A campaign none of whose files changed for this long is shown as perhaps interrupted: a
# tiny or small repetition writes its step folders within minutes (a paper-size step may not).
QUIET_S = 30 * 60
# One quiet for longer is left out: a run killed without a word (or stopped by Ctrl-C, which
# marks its repetitions interrupted and validates nothing) is no news a day later.
FORGOTTEN_S = 24 * 60 * 60
# The archive's depth below a campaign: cell / repetition / step / try (`archive.step_dir`).
_DEPTH = 4


@dataclass(frozen=True)
class Unfinished:
    """One campaign under way (or stopped without its analysis), read now."""

    campaign: str
    started: datetime
    last_written: datetime
    targets: tuple[TargetProgress, ...]

    def quiet_s(self, now: datetime) -> float:
        return max((now - self.last_written).total_seconds(), 0.0)


def unfinished_campaigns(
    study: str, now: datetime | None = None, root: Path | None = None
) -> list[Unfinished]:
    """The study's campaigns with a plan and no validation yet, written to in the last
    `FORGOTTEN_S`, the latest started first."""
    now = now or datetime.now(UTC)
    study_dir = (root or results_root()) / slug(study)
    if not study_dir.is_dir():
        return []
    found = []
    for folder in study_dir.iterdir():
        if (folder / archive.VALIDATION_FILE).exists() or not (folder / attempts.PLAN_FILE).is_file():
            continue  # validated (the warehouse has it, or will after the load), or never planned
        campaign, started = attempts.archive_owner(folder), attempts.attempt_started(folder)
        if campaign is None or started is None:
            continue
        last_written = datetime.fromtimestamp(_newest_mtime(folder), UTC)
        if (now - last_written).total_seconds() > FORGOTTEN_S:
            continue
        progress = CampaignWatch(study, campaign, since=started, root=root).read(now)
        if not progress.planned:
            continue
        found.append(
            Unfinished(
                campaign=campaign,
                started=started,
                last_written=last_written,
                targets=progress.targets,
            )
        )
    return sorted(found, key=lambda item: item.started, reverse=True)


def _newest_mtime(folder: Path) -> float:
    """The latest change under the campaign's folder: its folders to a try's, and a try's files
    (a step writes its logs there as it ends); a bounded walk, never the step's data."""
    newest = folder.stat().st_mtime
    level = [folder]
    for _ in range(_DEPTH + 1):
        below = []
        for directory in level:
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue  # moved aside or removed between the listing and now
            for entry in entries:
                try:
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
                except OSError:
                    continue
                if entry.is_dir(follow_symlinks=False) and entry.name != attempts.ATTEMPTS_DIR:
                    below.append(Path(entry.path))  # not the earlier attempts moved aside
        level = below
    return newest
