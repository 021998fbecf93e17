"""The target's noise floor, measured at preflight, and the cells it leaves below resolution.

Why: at the lab's tiny sizes a MapReduce job is mostly its fixed cost (the client JVM, the
job's set-up and commit), and the spread of that cost, in seconds, is the harness's and the
lab's, not the job's work. A cell whose mean is below the resolution

    resolution = σ_floor × 100 / max_stddev_pct

cannot pass the σ% gate even if its own work were perfectly steady, so its σ% says nothing
about it: such a cell is reported *below resolution* (its σ% shown, not judged) instead of
failed by the gate. Every other expectation still judges it, and its figures stay, marked.

Method: the workload's probe (`Workload.noise_probe`, the smallest job of its kind) runs once
untimed (class loading, page cache), then `runs` times, each timed on the target around the
job (`date +%s.%N`, as the cells' steps are); σ_floor is the sample standard deviation
(n − 1) of the timed runs. A probe that fails leaves the floor unmeasured and every cell gated.
The raw output (every run's start, end and exit code, their logs) is archived in the
preflight's folder; the floor, with the workloads it covers, in `noise_floor/<target>.json`.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from benchcamp.core.paths import child, slug, write_atomically
from benchcamp.core.steps import NoiseProbe, render
from benchcamp.platforms.hive import HiveStatement, server_timing, statement_logs

FLOOR_DIR = "noise_floor"
_RUN = re.compile(r"^noise_floor_run=(\d+) (-?\d+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$")
_SETUP_FAILED = re.compile(r"^noise_floor_setup_failed=(\d+)$")


class NoiseFloor(BaseModel):
    """One target's floor for one probe kind: its timed runs and what they cover."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    environment: str
    kind: str
    description: str
    workloads: list[str]
    durations_s: list[float]  # the timed runs, in order (the untimed first run left out)
    untimed_s: float | None = None
    problem: str = ""  # why the floor was not measured; empty when it was
    archive: str = ""
    max_stddev_pct: float = 10.0  # the study's σ gate when measured: the resolution the console states

    @property
    def measured(self) -> bool:
        return not self.problem and len(self.durations_s) >= 2

    @property
    def mean_s(self) -> float | None:
        return statistics.fmean(self.durations_s) if self.durations_s else None

    @property
    def stddev_s(self) -> float | None:
        return statistics.stdev(self.durations_s) if self.measured else None

    def resolution_s(self, max_stddev_pct: float) -> float | None:
        """The smallest mean whose σ% the gate can judge: σ_floor × 100 / max_stddev_pct."""
        stddev = self.stddev_s
        return None if stddev is None else stddev * 100 / max_stddev_pct

    def line(self, max_stddev_pct: float | None = None) -> str:
        """`local_lab: an empty MapReduce job: mean 4.41 s, σ 1.31 s over 4 runs → resolution 13.1 s`,
        at the gate in force when it was measured unless told another."""
        if max_stddev_pct is None:
            max_stddev_pct = self.max_stddev_pct
        if not self.measured:
            return f"{self.environment}: {self.description}: not measured ({self.problem}); every cell gated"
        return (
            f"{self.environment}: {self.description}: mean {self.mean_s:.2f} s, σ {self.stddev_s:.2f} s "
            f"over {len(self.durations_s)} runs → resolution {self.resolution_s(max_stddev_pct):.3g} s "
            f"(σ × 100 / {max_stddev_pct:g} %)"
        )


def probe_body(probe: NoiseProbe, runs: int, drop_caches: bool = False) -> str:
    """The preflight's probe script: set-up, one untimed run and `runs` timed ones (stopping at
    the first that fails), clean-up; one `noise_floor_run=<run> <exit> <start> <end>` line each.
    With `drop_caches` (the study drops the page cache before each repetition, and the target
    lets it) every run starts on a dropped cache too, untimed, as the cells' jobs do."""
    setup = " && ".join(render(command) for command in probe.setup) or "true"
    cleanup = " && ".join(render(command) for command in probe.cleanup) or "true"
    return (
        "\n".join(
            [
                "set -u",
                "run=0",
                f'{{ {setup}; }} > "$JOB"/setup.log 2>&1 || {{ echo "noise_floor_setup_failed=$?"; exit 0; }}',
                f"for run in $(seq 0 {int(runs)}); do",
                *(
                    ["  sync; { echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null || true"]
                    if drop_caches
                    else []
                ),
                "  start=$(date +%s.%N)",
                f'  {render(probe.job)} > "$JOB"/run-"$run".log 2>&1',
                "  rc=$?",
                "  end=$(date +%s.%N)",
                '  echo "noise_floor_run=$run $rc $start $end"',
                '  [ "$rc" = 0 ] || break',
                "done",
                f'{{ {cleanup}; }} > "$JOB"/cleanup.log 2>&1 || echo "noise_floor_cleanup_failed=$?"',
            ]
        )
        + "\n"
    )


def parse_probe_output(stdout: str, runs: int) -> tuple[float | None, list[float], str]:
    """(untimed run's seconds, timed runs' seconds, problem) from the probe's stdout; the problem
    is empty when all `runs` timed runs exited 0."""
    untimed: float | None = None
    timed: list[float] = []
    for line in stdout.splitlines():
        if match := _SETUP_FAILED.match(line.strip()):
            return None, [], f"its set-up exited {match.group(1)} (setup.log)"
        match = _RUN.match(line.strip())
        if not match:
            continue
        run, code = int(match.group(1)), int(match.group(2))
        seconds = float(match.group(4)) - float(match.group(3))
        if code != 0:
            return untimed, timed, f"run {run} exited {code} (run-{run}.log)"
        if run == 0:
            untimed = seconds
        else:
            timed.append(seconds)
    if len(timed) < runs:
        return untimed, timed, f"{len(timed)} of {runs} timed runs reported"
    return untimed, timed, ""


def hive_probe_statements(probe: NoiseProbe, runs: int) -> list[HiveStatement]:
    """A Hive probe as one session: set-up, the untimed run `run0` and timed `run1`…, clean-up."""
    return [
        *(HiveStatement(f"setup{index}", sql) for index, sql in enumerate(probe.hive_setup)),
        *(HiveStatement(f"run{run}", probe.hive_job, timed=True) for run in range(runs + 1)),
        *(HiveStatement(f"cleanup{index}", sql) for index, sql in enumerate(probe.hive_cleanup)),
    ]


def parse_hive_probe(operation_log: str, runs: int) -> tuple[float | None, list[float], str]:
    """(untimed, timed, problem) from a Hive probe's operation log: each run's compile + execute
    time as HiveServer2 logged it (`platforms.hive.server_timing`), as the Hive cells' durations."""
    logs = statement_logs(operation_log)
    seconds: list[float] = []
    for run in range(runs + 1):
        timing = server_timing(logs.get(f"run{run}", ""))
        if timing is None:
            return (seconds[0] if seconds else None), seconds[1:], f"no server timing for run {run}"
        seconds.append(timing.total_s)
    return seconds[0], seconds[1:], ""


def floor_path(campaign_dir: Path, environment: str) -> Path:
    return child(campaign_dir, FLOOR_DIR, f"{slug(environment)}.json", what="environment")


def save_floors(campaign_dir: Path, environment: str, floors: list[NoiseFloor]) -> Path:
    """The target's floors (one per probe kind), replacing an earlier preflight try's."""
    path = floor_path(campaign_dir, environment)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps([floor.model_dump() for floor in floors], indent=2))
    return path


def load_floors(campaign_dir: Path) -> list[NoiseFloor]:
    folder = campaign_dir / FLOOR_DIR
    return [
        NoiseFloor.model_validate(item)
        for path in sorted(folder.glob("*.json"))
        for item in json.loads(path.read_text(encoding="utf-8"))
    ]


def resolutions(floors: list[NoiseFloor], max_stddev_pct: float) -> dict[tuple[str, str], NoiseFloor]:
    """{(environment, workload): its measured floor}: the cells whose σ% a floor can excuse."""
    return {
        (floor.environment, workload): floor
        for floor in floors
        if floor.resolution_s(max_stddev_pct) is not None
        for workload in floor.workloads
    }


BELOW_RESOLUTION_FILE = "below_resolution.json"
# A cell below resolution as the warehouse keeps it (raw.cells_below_resolution): the cell, its
# mean and measured σ%, and the floor that put it there.
BELOW_RESOLUTION_COLUMNS = (
    "study", "campaign", "environment", "workload", "cell_key", "mean_s", "stddev_pct", "n",
    "resolution_s", "floor_stddev_s", "floor_mean_s", "floor_runs", "floor_probe",
)  # fmt: skip


def floor_columns(floor: NoiseFloor) -> dict[str, object]:
    return {
        "floor_stddev_s": floor.stddev_s,
        "floor_mean_s": floor.mean_s,
        "floor_runs": len(floor.durations_s),
        "floor_probe": floor.description,
    }


def save_below_resolution(campaign_dir: Path, rows: list[dict[str, object]]) -> Path:
    path = campaign_dir / BELOW_RESOLUTION_FILE
    write_atomically(path, json.dumps(rows, indent=2))
    return path


def load_below_resolution(campaign_dir: Path) -> list[dict[str, object]]:
    path = campaign_dir / BELOW_RESOLUTION_FILE
    if not path.exists():
        return []
    rows: list[dict[str, object]] = json.loads(path.read_text(encoding="utf-8"))
    return rows


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float | str) else float("nan")


def below_resolution_line(row: dict[str, object]) -> str:
    """`local_lab wordcount|data_size_gb=0.012|…: below resolution: mean 3.68 s < 13.1 s
    (an empty MapReduce job: σ 1.31 s over 4 runs); σ% 14.1 (n=2) not judged`."""
    stddev = row.get("stddev_pct")
    measured = "" if stddev is None else f"; σ% {_float(stddev):.1f} (n={row['n']}) not judged"
    return (
        f"{row['environment']} {row['cell_key']}: below resolution: mean {_float(row['mean_s']):.2f} s "
        f"< {_float(row['resolution_s']):.3g} s ({row['floor_probe']}: σ {_float(row['floor_stddev_s']):.2f} s "
        f"over {row['floor_runs']} runs){measured}"
    )
