"""The study's three graph algorithms, each a chain of MapReduce jobs run by lab/graphmr.

Per repetition, all in the execute step: the environment's protocol when it has one
(`reformat_command`: stop Hadoop, drop the page cache, reformat HDFS, start, verify; the study did
this before every experiment), the cell's graph into the fresh HDFS, the chain with the cell's
configuration set as job settings, then every job's answers from the JobHistory server
(`jobhistory_url`, through `jobhistory_via`) into the step's directory. Parse turns the driver's
summary line and those answers into records. Per job of the chain (`<step>:<metric>`, the step
being graphmr's job name: `1-wedges`, `2-close`, `init`, `iteration`, `sizes`, ...) the mean
map, shuffle, merge and reduce time over successful attempts and their σ over tasks; the
components' iterations are averaged into one `iteration` step (their count is `iterations`).

Graphs (the `graph` axis) are made on the controller and copied to the target as a tool: `karate`
is Zachary's club, every other name is a real edge list when `$BENCHCAMP_GRAPHS_DIR/<name>.txt`
(or `.txt.gz`) exists (checked and cleaned by `graphs.import_edge_list`), else a synthetic
power-law graph with that SNAP graph's node and edge counts (seeded, so every run gets the same).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

from benchcamp.core.paths import repo_root
from benchcamp.core.records import ResultRecord
from benchcamp.platforms.jobhistory import parse_job_history
from benchcamp.studies.mapreduce_ssd_hdd import graphs
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    ParseError,
    RunContext,
    Shell,
    Workload,
    data_path,
    job_path,
    tool_path,
)

GRAPHMR_JAR = "graphmr.jar"
GRAPH_SEED = 4  # the synthetic graphs' seed: fixed, so a graph's name always means the same edges
# SNAP's published node and edge counts of the study's graphs (undirected edges).
SHAPES: dict[str, tuple[int, int]] = {
    "brightkite": (58_228, 214_078),
    "epinions": (75_879, 508_837),
    "slashdot": (82_168, 948_464),
    "gowalla": (196_591, 950_327),
    "twitter_ego": (81_306, 1_768_149),
    "youtube": (1_134_890, 2_987_624),
    "gplus_ego": (107_614, 13_673_453),
    "flickr": (1_715_255, 15_555_041),
    "pokec": (1_632_803, 30_622_564),
    "orkut": (3_072_441, 117_185_083),
}
BYTES_PER_EDGE_ON_HDFS = 120  # edge list plus the chain's largest intermediate (wedges, pairs)
PHASES = ("map", "shuffle", "merge", "reduce")
# The study's knob per configuration set: how many maps run at once (a job setting since Hadoop 2.7).
PARALLEL_MAPS = "parallel_maps"
RUNNING_MAP_LIMIT = "mapreduce.job.running.map.limit"
EXTENDS = "extends"  # `<set>.extends: <other set>`: the set starts from the other's settings
HISTORY_WAIT_S = 120

# Runs on the target (any python3), where the JobHistory server is reachable: every job of the
# chain, in order, as {"job", "counters", "tasks", "attempts", "conf"} (the generic fetch's shape
# plus the job's effective configuration). A job reaches the history a few seconds after it ends.
_FETCH_CHAIN = """
import gzip, json, sys, time, urllib.error, urllib.request
base, wait_s, out = sys.argv[1].rstrip("/"), float(sys.argv[2]), sys.argv[3]
jobs = [job for job in sys.argv[4].split(",") if job]
def get(job, path):
    url = base + "/ws/v1/history/mapreduce/jobs/" + job + path
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)
for job in jobs:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            document = {"job": get(job, "")}
            break
        except urllib.error.HTTPError as error:
            if error.code != 404 or time.monotonic() > deadline:
                sys.exit("job history of " + job + ": HTTP " + str(error.code) + " from " + base)
            time.sleep(1)
    document["counters"] = get(job, "/counters")
    document["tasks"] = get(job, "/tasks")
    tasks = (document["tasks"].get("tasks") or {}).get("task") or []
    document["attempts"] = {t["id"]: get(job, "/tasks/" + t["id"] + "/attempts") for t in tasks}
    document["conf"] = get(job, "/conf")
    with gzip.open(out + "/jobhistory-" + job + ".json.gz", "wt") as handle:
        json.dump(document, handle)
"""
SUMMARY = re.compile(r"^graphmr: (algorithm=\S+ .*)$", re.MULTILINE)


def graphs_dir() -> Path | None:
    """Where the user keeps downloaded SNAP/KONECT edge lists (`<name>.txt` or `.txt.gz`)."""
    value = os.environ.get("BENCHCAMP_GRAPHS_DIR")
    return Path(value) if value else None


def graph_cache() -> Path:
    """The controller's cache of graphmr-ready edge lists (made once per graph and source)."""
    return Path(os.environ.get("BENCHCAMP_GRAPH_CACHE") or repo_root() / ".graphs")


def real_edge_list(name: str) -> Path | None:
    directory = graphs_dir()
    if directory is None:
        return None
    for suffix in (".txt", ".txt.gz"):
        candidate = directory / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def graph_file(name: str) -> Path:
    """The cell's graph as graphmr reads it, made on first use (see the module's docstring)."""
    if name != "karate" and name not in SHAPES:
        raise ValueError(
            f"unknown graph '{name}': karate, or one of {', '.join(SHAPES)} "
            "(a real edge list from $BENCHCAMP_GRAPHS_DIR/<name>.txt, else a synthetic one of its shape)"
        )
    source = real_edge_list(name) if name != "karate" else None
    cache = graph_cache()
    if source is not None:
        stat = source.stat()
        target = cache / f"{name}-imported-{stat.st_size}-{int(stat.st_mtime)}.txt"
        if not target.exists():
            graphs.import_edge_list(source, target, extra_columns=True)
        return target
    target = cache / ("karate.txt" if name == "karate" else f"{name}-synthetic-seed{GRAPH_SEED}.txt")
    if not target.exists():
        cache.mkdir(parents=True, exist_ok=True)
        if name == "karate":
            graphs.write_karate(target)
        else:
            nodes, edges = SHAPES[name]
            graphs.generate_power_law_graph_for_shape(target, nodes, edges, seed=GRAPH_SEED)
    return target


def job_settings(ctx: RunContext) -> dict[str, str]:
    """The Hadoop properties of the cell's configuration set (the spec's settings: plain names for
    every set, `<set>.<name>` for one set, `<set>.extends` to start from another set's, as the
    paper built its sets incrementally), `parallel_maps` as the running-map limit."""
    config_set = str(ctx.param("config_set"))
    axis = ctx.spec.axes.get("config_set")
    known_sets = {str(value) for value in axis.all_values()} if axis else set()
    common: dict[str, str] = {}
    own: dict[str, dict[str, str]] = {}
    for name, value in ctx.spec.settings.get(ctx.workload, {}).items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        prefix, _, rest = name.partition(".")
        if rest and prefix in known_sets:
            own.setdefault(prefix, {})[rest] = text
        else:
            common[name] = text
    settings = {**common, **_set_settings(config_set, own, sorted(known_sets), ctx.workload, ())}
    if PARALLEL_MAPS in settings:
        settings[RUNNING_MAP_LIMIT] = settings.pop(PARALLEL_MAPS)
    return settings


def _set_settings(
    config_set: str, own: dict[str, dict[str, str]], known: list[str], workload: str, seen: tuple[str, ...]
) -> dict[str, str]:
    """One set's own values over those of the set it extends (and so on up the chain)."""
    if config_set in seen:
        chain = " -> ".join((*seen, config_set))
        raise ValueError(
            f"configuration sets of {workload} extend each other in a circle ({chain}): break it"
        )
    values = dict(own.get(config_set, {}))
    parent = values.pop(EXTENDS, None)
    if parent is None:
        return values
    if parent not in known:
        raise ValueError(
            f"configuration set '{config_set}' of {workload} extends '{parent}', which is not a "
            f"configuration set (settings.{workload}['{config_set}.{EXTENDS}']): name one of {', '.join(known)}"
        )
    return {**_set_settings(parent, own, known, workload, (*seen, config_set)), **values}


class GraphChain(Workload):
    """One graphmr algorithm on one graph under one configuration set."""

    family = "graph_mapreduce"
    axes = ("graph", "config_set")
    fetches_own_job_history = True  # every job of the chain, in the execute step (see execute)
    algorithm: str  # graphmr's name for it

    def check_cell(self, ctx: RunContext) -> None:
        graph_name = str(ctx.param("graph"))
        if graph_name != "karate" and graph_name not in SHAPES:
            graph_file(graph_name)  # raises the ValueError naming the known graphs
        settings = job_settings(ctx)
        if RUNNING_MAP_LIMIT not in settings:
            raise ValueError(
                f"configuration set '{ctx.param('config_set')}' of {ctx.workload} has no "
                f"{PARALLEL_MAPS} (settings.{ctx.workload}['{ctx.param('config_set')}.{PARALLEL_MAPS}'])"
            )
        if not ctx.environment.hadoop.data_root:
            raise ValueError(
                f"environment '{ctx.environment.name}' needs a data_root (the HDFS path graphs go to)"
            )

    def estimated_bytes(self, ctx: RunContext) -> int:
        name = str(ctx.param("graph"))
        edges = SHAPES[name][1] if name in SHAPES else len(graphs.KARATE_EDGES)
        return edges * BYTES_PER_EDGE_ON_HDFS

    def tools(self, ctx: RunContext) -> list[Path]:
        return [repo_root() / "lab" / "graphmr" / "target" / GRAPHMR_JAR, graph_file(str(ctx.param("graph")))]

    def generate(self, ctx: RunContext) -> list[Command]:
        # Only a look at the graph the target got: HDFS is reformatted at the start of execute.
        graph = graph_file(str(ctx.param("graph"))).name
        return [["head", "-n", "3", tool_path(graph)], ["wc", "-l", tool_path(graph)]]

    def execute(self, ctx: RunContext) -> list[Command]:
        """The protocol, the graph into the fresh HDFS, the chain, then every job's history.

        The protocol runs here, right before the chain, not in generate: a scheduler may run
        every cell's generate before any execute (`airflow dags test` does), and a reformat
        wipes whatever another cell had put into HDFS. The measured figures are the driver's
        own time and the JobHistory's phase times, so the protocol costs no measured second.
        """
        commands: list[Command] = []
        protocol = ctx.environment.transport.reformat_command
        if ctx.spec.reformat_storage and protocol:
            commands.append([Shell(f"( {protocol}\n)")])  # the spec's own command, as the preflight runs it
        graph = graph_file(str(ctx.param("graph"))).name
        options = [word for name, value in job_settings(ctx).items() for word in ("-D", f"{name}={value}")]
        commands += [
            [*ctx.hadoop, "fs", "-mkdir", "-p", data_path()],
            [*ctx.hadoop, "fs", "-put", tool_path(graph), data_path("graph.txt")],
            [
                *ctx.hadoop, "jar", tool_path(GRAPHMR_JAR), self.algorithm, *options,
                data_path("graph.txt"), data_path("out"),
            ],
        ]  # fmt: skip
        history = ctx.environment.jobhistory
        if history.url:
            via = " ".join(shlex.quote(word) for word in history.via.split())
            ids = "$(sed -n 's/^graphmr: algorithm=.* job_ids=\\([^ ]*\\) .*/\\1/p' \"$JOB\"/stdout.log | tail -n 1)"
            commands.append(
                [
                    Shell(via) if via else Shell(""), "python3", "-c", _FETCH_CHAIN, history.url,
                    str(HISTORY_WAIT_S), job_path(), Shell(f'"{ids}"'),
                ]
            )  # fmt: skip
        return commands

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        if step.exit_code != 0:
            return [self.duration_record(ctx, step, ok=False)]
        summary = parse_summary(step.text("stdout.log"), str(step.directory / "stdout.log"))
        if summary.get("algorithm") != self.algorithm:
            raise ParseError(
                f"{step.directory / 'stdout.log'}: summary of algorithm {summary.get('algorithm')!r}, "
                f"expected {self.algorithm!r}"
            )
        source = step.directory / "stdout.log"
        records = [
            self.record(ctx, step, "duration_s", float(summary["seconds"]), "s", artifact=source),
            self.record(ctx, step, "chain_jobs", float(summary["jobs"]), "jobs", artifact=source),
        ]
        for key, unit in COUNTS.items():
            if key in summary:
                records.append(self.record(ctx, step, key, float(summary[key]), unit, artifact=source))
        if ctx.environment.jobhistory.url:
            paths = [step.directory / history_file(job) for job in summary["job_ids"].split(",")]
            documents = [(path, load_document(path)) for path in paths]
            for metric, (value, unit, artifact) in chain_metrics(documents, job_settings(ctx)).items():
                records.append(self.record(ctx, step, metric, value, unit, artifact=artifact))
        return records


COUNTS = {
    "nodes": "nodes",
    "edges": "edges",
    "iterations": "iterations",
    "triangles": "triangles",
    "wedges": "wedges",
    "components": "components",
    "largest": "nodes",
    "pairs": "pairs",
    "mutual_friends": "friends",
}


ANSWERS = {
    "triangles": ("wedges", "triangles"),
    "components": ("iterations", "components", "largest"),
    "mutual_friends": ("pairs", "mutual_friends"),
}
"""The counts each algorithm's driver prints as its answer: a summary without them is refused
(the exact answers are the study's check that the chain computed the right thing)."""


def parse_summary(text: str, source: str) -> dict[str, str]:
    """The driver's last `graphmr: algorithm=... seconds=... job_ids=...` line as key → value."""
    lines = SUMMARY.findall(text)
    if not lines:
        raise ParseError(f"{source}: no 'graphmr: algorithm=...' summary line (the chain did not finish)")
    fields = dict(word.split("=", 1) for word in lines[-1].split() if "=" in word)
    for required in (
        "algorithm",
        "jobs",
        "seconds",
        "job_ids",
        *ANSWERS.get(fields.get("algorithm", ""), ()),
    ):
        if required not in fields:
            raise ParseError(f"{source}: the summary line has no {required}=")
    try:
        numbers = {
            key: float(fields[key]) for key in ("jobs", "seconds", *(k for k in COUNTS if k in fields))
        }
    except ValueError as exc:
        raise ParseError(f"{source}: a summary value is not a number ({exc})") from exc
    if not numbers["seconds"] > 0:
        raise ParseError(f"{source}: seconds={fields['seconds']}: a chain's time must be positive")
    negative = [key for key, value in numbers.items() if value < 0]
    if negative:
        raise ParseError(f"{source}: {negative[0]}={fields[negative[0]]}: a count cannot be negative")
    if len(fields["job_ids"].split(",")) != int(fields["jobs"]):
        raise ParseError(f"{source}: jobs={fields['jobs']} but {fields['job_ids']} lists another number")
    return fields


def history_file(job_id: str) -> str:
    """The step's file holding one job's JobHistory answers, gzipped (a job's configuration alone
    is some 400 kB of JSON; the archive keeps the step's files)."""
    return f"jobhistory-{job_id}.json.gz"


def load_document(path: Path) -> dict[str, Any]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return dict(json.load(handle))
    except FileNotFoundError as exc:
        raise ParseError(f"{path}: the job's history was not fetched (see the step's stderr.log)") from exc
    except (OSError, EOFError, ValueError) as exc:
        raise ParseError(f"{path}: not readable as gzipped JSON ({exc})") from exc


def step_name(document: dict[str, Any], source: str) -> str:
    """graphmr names its jobs `graphmr <algorithm> <step>`; iterations share one step name."""
    name = str(((document.get("job") or {}).get("job") or {}).get("name", ""))
    words = name.split()
    if len(words) != 3 or words[0] != "graphmr":
        raise ParseError(f"{source}: job name {name!r} is not 'graphmr <algorithm> <step>'")
    return "iteration" if words[2].startswith("iteration-") else words[2]


def effective_settings(document: dict[str, Any], source: str) -> dict[str, str]:
    properties = ((document.get("conf") or {}).get("conf") or {}).get("property") or []
    if not properties:
        raise ParseError(f"{source}: the job's configuration (conf) is missing")
    return {str(entry["name"]): str(entry["value"]) for entry in properties}


def chain_metrics(
    documents: list[tuple[Path, dict[str, Any]]], wanted: dict[str, str]
) -> dict[str, tuple[float, str, Path]]:
    """Per step of the chain: mean phase times and their σ over tasks (iterations averaged), the
    job's elapsed time, failed attempts; the effective value of every setting the cell asked for,
    checked against the job's configuration (a job that ran with other settings is refused)."""
    by_step: dict[str, list[tuple[Any, Path]]] = {}
    metrics: dict[str, tuple[float, str, Path]] = {}
    for index, (path, document) in enumerate(documents):
        source = str(path)
        job = parse_job_history(document, source)
        if not job.succeeded:
            raise ParseError(f"{source}: job {job.job_id} ended {job.state}")
        by_step.setdefault(step_name(document, source), []).append((job, path))
        effective = effective_settings(document, source)  # every job of the chain, as asked
        for name, value in wanted.items():
            if effective.get(name) != value:
                raise ParseError(
                    f"{source}: the job ran with {name}={effective.get(name)!r}, the cell asked for {value!r}"
                )
            if index == 0:  # one record per setting, from the chain's first job
                try:
                    number = float(value) if value not in ("true", "false") else float(value == "true")
                except ValueError:
                    continue
                metrics[f"setting:{name}"] = (number, "value", path)
    for step, jobs in by_step.items():
        artifact = jobs[0][1]
        metrics[f"{step}:job_elapsed_s"] = (fmean(job.elapsed_s for job, _ in jobs), "s", artifact)
        metrics[f"{step}:failed_task_attempts"] = (
            float(sum(job.failed_attempts for job, _ in jobs)), "attempts", artifact,
        )  # fmt: skip
        metrics[f"{step}:killed_task_attempts"] = (
            float(sum(job.killed_attempts for job, _ in jobs)), "attempts", artifact,
        )  # fmt: skip
        for phase in PHASES:
            per_job = [job.mean(phase) for job, _ in jobs]
            if any(value is None for value in per_job):
                continue
            metrics[f"{step}:phase_{phase}_s"] = (fmean(v for v in per_job if v is not None), "s", artifact)
            spreads = []
            for job, _ in jobs:
                values = [
                    getattr(attempt, f"{phase}_s")
                    for attempt in job.attempts
                    if attempt.state == "SUCCEEDED" and getattr(attempt, f"{phase}_s") is not None
                ]
                spreads.append(pstdev(values) if len(values) > 1 else 0.0)
            metrics[f"{step}:phase_{phase}_task_sd_s"] = (fmean(spreads), "s", artifact)
    return metrics


@register
class MutualFriends(GraphChain):
    name = "mutual_friends"
    algorithm = "mutual_friends"
    description = "mutual friends of every connected pair: neighbour lists, then the pairs job"


@register
class TriangleCounting(GraphChain):
    name = "triangle_counting"
    algorithm = "triangles"
    description = "triangle counting: open wedges, then closing them against the edges"


@register
class ConnectedComponents(GraphChain):
    name = "connected_components"
    algorithm = "components"
    description = "connected components by minimum-label propagation until no label changes"
