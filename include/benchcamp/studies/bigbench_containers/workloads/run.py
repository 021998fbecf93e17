# Over 600 lines: one BigBench run's four phases and the checks between them form one workload.
"""One BigBench run (one repetition) as one campaign unit: generate, then load, power, throughput.

The unit is a `bigbench_load` cell (cluster_nodes x scale_factor_gb); its steps are:

* generate (uncounted, on the target over SSH): the project's generator (`datagen`) writes the 23
  tables to the target's local disk, the DuckDB twins of the 21 SQL queries run over those files
  (`expected.py`, their fingerprints archived as `expected.json`), and the files go to the cell's
  input directory on HDFS (WebHDFS where the environment has it). With the study's
  `regenerate_data: false` this happens once per cell and campaign; the data is deterministic.
* execute (`run_own_step`, driven from the controller through the environment's HiveServer2
  connection, every statement's operation log archived): LOAD, Hive tables over the files then
  one CTAS into ORC per table, timed as the phase's wall time (T_load); POWER, q01..q30 in one
  stream, each in its own session and timed by HiveServer2's own "Time taken" as the Hive
  transport does (plus the Spark step's wall time for the ML queries); THROUGHPUT, S streams at
  once (one thread and session each), each a seeded shuffle of the 30 queries (`phases`), the
  phase's wall time being T_throughput. A failed query is recorded failed with its elapsed time
  and the next ones still run; the run is then invalid and `outcomes.json` says why.

Results are checked outside the timed part: the SQL queries' rows against DuckDB's fingerprints,
the text queries non-empty, the ML queries by their Spark result (lab/bigbench-ml, local[2], run
on the controller, or inside the lab's container for lab_container, over the Hive export read as
hdfs:// in both, so that the two environments' ML query times compare).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchcamp.core.paths import repo_root
from benchcamp.core.records import ResultRecord
from benchcamp.platforms import webhdfs
from benchcamp.platforms.hive import (
    RESULTS_FILE,
    HiveStatement,
    server_timing,
    statement_logs,
    string_literal,
)
from benchcamp.studies.bigbench_containers.workloads.phases import (
    ALL,
    ML_QUERIES,
    OUTCOMES_FILE,
    QUERIES,
    SQL_QUERIES,
    TEXT_QUERIES,
    THROUGHPUT,
    OutcomesError,
    PhaseOutcome,
    QueryOutcome,
    RunOutcomes,
    Status,
    bbqpm,
    check_query_names,
    check_streams,
    read_outcomes,
    record_specs,
    stream_orders,
)
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    GenerateError,
    ParseError,
    RunContext,
    Shell,
    Workload,
    job_path,
    staging_path,
)

CONTAINER_ENVIRONMENT = "lab_container"  # the Spark step runs inside it (container_lab.exec_argv)
DATA_SEED = 1  # the generator's seed: every run of every campaign measures the same data
EXPECTED_FILE = "expected.json"
DATAGEN_FILE = "datagen.json"
STEP_FILE = "step.json"
UDF_JAR_ENV = "BENCHCAMP_BIGBENCH_UDF_JAR"
PYTHON_ENV = "BENCHCAMP_PYTHON"
# On disk, per GB of text: the text files, their ORC copies (smaller) and the ML exports.
BYTES_PER_TEXT_BYTE = 2.5
# Every query's session: Hive 4's query results cache answers a repeated query (the throughput
# streams repeat the power test's) from the cache, unmeasured, and it also diverted the ML
# queries' INSERT OVERWRITE DIRECTORY into the cache's directory (seen at SF 0.01): off.
SESSION_SETTINGS: tuple[tuple[str, str], ...] = (("hive.query.results.cache.enabled", "false"),)
_SAFE_PATH = re.compile(r"/[A-Za-z0-9_./+-]*\Z")


def database(ctx: RunContext) -> str:
    """The run's Hive database (ORC tables), one per repetition; `<db>_text` holds the text tables."""
    digest = hashlib.sha1(ctx.unit_path.encode(), usedforsecurity=False).hexdigest()[:12]
    return f"bb_{digest}"


def database_locations(ctx: RunContext, name: str) -> str:
    """LOCATION and MANAGEDLOCATION clauses that put a run database's tables (and the ML queries'
    exports) under the repetition's own data path, not HiveServer2's warehouse: the campaign's
    cleanup and the next preflight's sweep of its study's data path then delete them without
    HiveServer2 (WebHDFS or `hadoop fs`), as they do the input."""
    base = ctx.data_location("hive")
    return f"LOCATION {string_literal(f'{base}/{name}.db')} MANAGEDLOCATION {string_literal(f'{base}/{name}.managed')}"


def scale_factor(ctx: RunContext) -> float:
    value = ctx.param("scale_factor_gb")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"scale_factor_gb must be a positive number of GB, not {value!r}")
    return float(value)


def streams(ctx: RunContext) -> int:
    return check_streams(ctx.spec.setting("bigbench_throughput", "streams", ctx.ladder, 2))


def query_count(ctx: RunContext) -> int:
    """M: the spec's settings say 30 for both tests; BBQpm@SF needs all of them."""
    for workload in ("bigbench_power", "bigbench_throughput"):
        count = ctx.spec.setting(workload, "queries", ctx.ladder, len(QUERIES))
        if count != len(QUERIES):
            raise ValueError(
                f"settings.{workload}.queries is {count!r}: a run measures all {len(QUERIES)} queries (M = 30)"
            )
    return len(QUERIES)


def power_order(ctx: RunContext) -> list[str]:
    """q01..q30, or the spec's `bigbench_power.only` for a partial run: comma-separated names
    (`only: q01,q10,q20`; a setting is one value, not a list), checked. The run is then invalid
    (fewer than 30 queries: no BBQpm@SF), its query times kept."""
    only = ctx.spec.setting("bigbench_power", "only", ctx.ladder, None)
    if not only:
        return list(QUERIES)
    if not isinstance(only, str):
        raise ValueError(f"settings.bigbench_power.only must be comma-separated query names, not {only!r}")
    return check_query_names([name.strip() for name in only.split(",")])


def controller_python() -> str:
    """The Python that runs the generator on the target: $BENCHCAMP_PYTHON there, else this one
    (the lab's target is this host; a real target sets BENCHCAMP_PYTHON to a Python with the
    project installed)."""
    executable = sys.executable
    return executable if _SAFE_PATH.fullmatch(executable) else "python3"


def udf_jar() -> str:
    """The bigbench-udf jar as HiveServer2 reads it (ADD JAR): the lab's build, or $BENCHCAMP_BIGBENCH_UDF_JAR.

    Seen on the lab's HiveServer2 (local MapReduce): a text query's map task lost the jar's
    classes or resources ("word list not in the jar", then NoClassDefFoundError for NameFinder in
    a throughput stream) when another session closed the class loader that had loaded them. The
    lab's HiveServer2 therefore also has the jar on its own classpath
    (`benchcamp.ops.lab.install.hiveserver2_jars`); on a real cluster, put it in
    `hive.aux.jars.path` if concurrent streams fail the same way. A failed query is recorded
    failed, the run invalid."""
    return os.environ.get(UDF_JAR_ENV) or str(
        repo_root() / "lab" / "bigbench-udf" / "target" / "bigbench-udf.jar"
    )


def input_location(ctx: RunContext, table: str | None = None) -> str:
    """The cell's input directory on HDFS (the runner's "$INPUT"), or one table's directory in it."""
    root = ctx.environment.hadoop.data_root
    if not root:
        raise ValueError(f"environment '{ctx.environment.name}' has no data_root (the HDFS path of the data)")
    base = (
        f"{root.rstrip('/')}/{ctx.cell_path}/input" if not ctx.spec.regenerate_data else ctx.data_location()
    )
    return f"{base}/{table}" if table else base


class BigBenchRun(Workload):
    """A whole BigBench run (see the module docstring); registered as `bigbench_load`."""

    name = "bigbench_load"
    family = "bigbench"
    description = "BigBench run: data generation (uncounted), then load, power and throughput phases"
    axes = ("cluster_nodes", "scale_factor_gb")
    generates_once_per_cell = True
    stddev_metric = "duration_s"

    @property
    def uses_hive(self) -> bool:
        return True

    def check_cell(self, ctx: RunContext) -> None:
        scale_factor(ctx)
        streams(ctx)
        query_count(ctx)
        power_order(ctx)
        if not ctx.environment.hive.connection:
            raise ValueError(f"environment '{ctx.environment.name}' names no hive_connection")
        input_location(ctx)
        database_locations(ctx, "check")  # a data_root Hive cannot quote: refused before any data is made

    def estimated_bytes(self, ctx: RunContext) -> int:
        from benchcamp.studies.bigbench_containers.datagen.scaling import estimate_bytes

        return round(estimate_bytes(scale_factor(ctx)) * BYTES_PER_TEXT_BYTE)

    def clean_paths(self, ctx: RunContext) -> list[Shell]:
        from benchcamp.workloads.base import data_path

        return [data_path()]

    def hive_clean(self, ctx: RunContext) -> list[HiveStatement]:
        return _drop_databases(ctx)

    def generate(self, ctx: RunContext) -> list[Command]:
        from benchcamp.studies.bigbench_containers.schema import TABLES

        python = Shell(f'"${{{PYTHON_ENV}:-{controller_python()}}}"')
        tables = {table: staging_path(table) for table in TABLES}
        url = ctx.environment.hadoop.webhdfs_url
        upload: list[Command]
        if url:
            upload = [
                [Shell(line)] for line in webhdfs.upload_lines(url, input_location(ctx), tables, "generate")
            ]
        else:
            upload = [
                [*ctx.hadoop, "fs", "-mkdir", "-p", Shell('"$INPUT"')],
                [*ctx.hadoop, "fs", "-put", *tables.values(), Shell('"$INPUT"')],
            ]
        return [
            ["rm", "-rf", staging_path()],
            ["mkdir", "-p", staging_path()],
            [python, "-m", "benchcamp.studies.bigbench_containers.datagen", "--data-dir", staging_path(),
             "--scale-factor", str(scale_factor(ctx)), "--seed", str(DATA_SEED), Shell(">"), job_path(DATAGEN_FILE)],
            [python, "-m", "benchcamp.studies.bigbench_containers.workloads.expected", "--data-dir", staging_path(),
             "--out", job_path(EXPECTED_FILE)],
            *upload,
            ["rm", "-rf", staging_path()],
        ]  # fmt: skip

    def verify_generate(self, ctx: RunContext, step: ArchivedStep) -> dict[str, float]:
        from benchcamp.studies.bigbench_containers.datagen.scaling import expected_rows, scale_for

        path = step.directory / DATAGEN_FILE
        try:
            stats = json.loads(path.read_text(encoding="utf-8"))
            written = {table: int(found["rows"]) for table, found in stats["tables"].items()}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise GenerateError(
                f"{path}: the generator's statistics are missing or unreadable ({exc})"
            ) from exc
        problems = generated_row_problems(written, expected_rows(scale_for(scale_factor(ctx))))
        if problems:
            raise GenerateError(f"{path}: {'; '.join(problems)}")
        if not (step.directory / EXPECTED_FILE).is_file():
            raise GenerateError(f"{step.directory / EXPECTED_FILE}: DuckDB's expected results are missing")
        return {
            "rows": float(sum(written.values())),
            "bytes": float(sum(int(found["bytes"]) for found in stats["tables"].values())),
        }

    def run_own_step(self, ctx: RunContext, archive_dir: Path) -> ArchivedStep | None:
        return RunDriver(ctx, archive_dir).run()

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        try:
            outcomes = read_outcomes(step.directory / OUTCOMES_FILE)
        except OutcomesError as exc:
            if step.exit_code != 0:
                return [self.duration_record(ctx, step, ok=False)]
            raise ParseError(str(exc)) from exc
        records = []
        for spec in record_specs(outcomes):
            record = self.record(
                ctx, step, spec.metric, spec.value, spec.unit, spec.status, Path(spec.artifact)
            )
            records.append(
                record.model_copy(update={"workload": spec.workload, "params": {**ctx.params, **spec.params}})
            )
        qpm = bbqpm(outcomes, float(ctx.param("scale_factor_gb")))
        if qpm is not None:  # the run's metric, on its throughput phase's cell (the claims compare it)
            record = self.record(ctx, step, "bbqpm", qpm, "BBQpm", "ok", step.directory / OUTCOMES_FILE)
            phase = {**ctx.params, "query": ALL, "stream": ALL}
            records.append(record.model_copy(update={"workload": THROUGHPUT, "params": phase}))
        return records


register(BigBenchRun)


FACT_ROW_TOLERANCE = 0.25  # facts' expected rows are expectations of random counts, not exact


def generated_row_problems(written: dict[str, int], wanted: dict[str, int]) -> list[str]:
    """Tables whose rows are not what the scale factor gives: dimensions exactly, facts within
    the tolerance (their counts are drawn), none missing or empty."""
    problems = []
    for table, rows in wanted.items():
        got = written.get(table)
        if not got:
            problems.append(f"{table}: {'no rows' if got == 0 else 'not written'}")
        elif rows and abs(got - rows) > FACT_ROW_TOLERANCE * rows:
            problems.append(f"{table}: {got} rows, about {rows} expected")
    return problems


def _drop_databases(ctx: RunContext) -> list[HiveStatement]:
    name = database(ctx)
    return [
        HiveStatement("drop_orc", f"DROP DATABASE IF EXISTS {name} CASCADE"),
        HiveStatement("drop_text", f"DROP DATABASE IF EXISTS {name}_text CASCADE"),
    ]


def expected_results(ctx: RunContext, execute_dir: Path) -> dict[str, dict[str, Any]]:
    """DuckDB's fingerprints archived by this cell's generate step (the repetition that generated
    the input, when regenerate_data is false: its verified.json names it)."""
    rep_dir = execute_dir.parent.parent
    tries = sorted((rep_dir / "generate").glob("try*"), key=lambda path: int(path.name[3:] or 0))
    for directory in reversed(tries):
        if (directory / EXPECTED_FILE).is_file():
            return dict(json.loads((directory / EXPECTED_FILE).read_text(encoding="utf-8")))
        meta = directory / "meta.json"
        if meta.is_file():
            generated_by = json.loads(meta.read_text(encoding="utf-8")).get("reused_input_of")
            if generated_by and (Path(generated_by) / EXPECTED_FILE).is_file():
                return dict(json.loads((Path(generated_by) / EXPECTED_FILE).read_text(encoding="utf-8")))
    raise ParseError(f"{rep_dir / 'generate'}: no archived {EXPECTED_FILE} (DuckDB's expected results)")


class RunDriver:
    """Runs the three phases from the controller and writes `outcomes.json` (the archive first)."""

    def __init__(self, ctx: RunContext, archive_dir: Path) -> None:
        self.ctx = ctx
        self.dir = archive_dir
        self.connection = ctx.environment.hive.connection or ""
        self.database = database(ctx)
        self.params = _query_parameters()
        # the ORC database's directory on HDFS (path and URI), known after the load's setup
        self.location = self.location_uri = ""

    def run(self) -> ArchivedStep:
        from benchcamp.transport import hive

        self.dir.mkdir(parents=True, exist_ok=True)
        started = datetime.now(UTC)
        expected = expected_results(self.ctx, self.dir)
        load = self.load(hive)
        outcomes = RunOutcomes(load=load, queries=len(QUERIES))
        if load.status == "ok":
            order = power_order(self.ctx)
            outcomes.power = [self.query(hive, name, None, expected) for name in order]
            orders = stream_orders(self.ctx.campaign, self.ctx.repetition, streams(self.ctx), order)
            outcomes.orders = orders
            outcomes.throughput, outcomes.streams = self.throughput(hive, orders, expected)
        hive.run_statements(self.connection, _drop_databases(self.ctx), self.dir / "drop")
        finished = datetime.now(UTC)
        reasons = outcomes.invalid_reasons()
        (self.dir / OUTCOMES_FILE).write_text(outcomes.to_json(), encoding="utf-8")
        (self.dir / "validity.txt").write_text(
            "valid\n" if not reasons else "invalid: " + "; ".join(reasons) + "\n", encoding="utf-8"
        )
        code = 0 if not reasons else 1
        meta = {"step": "execute", "connection": self.connection, "exit_code": code, "error": "; ".join(reasons),
                "started_at": started.isoformat(), "finished_at": finished.isoformat(),
                "duration_s": (finished - started).total_seconds()}  # fmt: skip
        (self.dir / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        (self.dir / "stderr.log").write_text("; ".join(reasons) + "\n" if reasons else "", encoding="utf-8")
        files = {path.name: path for path in self.dir.iterdir() if path.is_file()}
        return ArchivedStep(self.dir, code, started, finished, files)

    def load(self, hive: Any) -> PhaseOutcome:
        """Text tables over the input files (untimed), then CTAS into ORC per table (T_load)."""
        from benchcamp.studies.bigbench_containers.schema import TABLES, hive_ddl

        text = f"{self.database}_text"
        setup = [
            *_drop_databases(self.ctx),
            HiveStatement("create_text", f"CREATE DATABASE {text} {database_locations(self.ctx, text)}"),
            HiveStatement(
                "create_orc", f"CREATE DATABASE {self.database} {database_locations(self.ctx, self.database)}"
            ),
            *(HiveStatement(f"text_{t}", hive_ddl(text, t, input_location(self.ctx, t))) for t in TABLES),
        ]
        setup.append(HiveStatement("location", f"DESCRIBE DATABASE {self.database}", fetch=True))
        step = hive.run_statements(self.connection, setup, self.dir / "load" / "setup")
        if step.exit_code != 0:
            return PhaseOutcome("failed", 0.0, str(step.directory), step.text("stderr.log").strip())
        described = json.loads(step.text(RESULTS_FILE))["location"]
        self.location, self.location_uri = database_path(described), str(described[0][2])
        ctas = [
            HiveStatement(t, f"CREATE TABLE {self.database}.{t} STORED AS ORC AS SELECT * FROM {text}.{t}", timed=True)
            for t in TABLES
        ]  # fmt: skip
        step = hive.run_statements(self.connection, ctas, self.dir / "load" / "ctas")
        status: Status = "ok" if step.exit_code == 0 else "failed"
        return PhaseOutcome(status, step.duration_s, str(step.directory), step.text("stderr.log").strip())

    def throughput(
        self, hive: Any, orders: list[list[str]], expected: dict[str, dict[str, Any]]
    ) -> tuple[PhaseOutcome, list[list[QueryOutcome]]]:
        def stream(number: int) -> list[QueryOutcome]:
            return [self.query(hive, name, number, expected) for name in orders[number - 1]]

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=len(orders), thread_name_prefix="bigbench-stream") as pool:
            results = list(pool.map(stream, range(1, len(orders) + 1)))
        seconds = time.monotonic() - started
        failed = any(outcome.status != "ok" for result in results for outcome in result)
        phase_dir = self.dir / "throughput"
        return PhaseOutcome("failed" if failed else "ok", seconds, str(phase_dir)), results

    def query(
        self, hive: Any, name: str, stream: int | None, expected: dict[str, dict[str, Any]]
    ) -> QueryOutcome:
        """One query (see `_query`); whatever breaks, a failed outcome with the error and the time."""
        where = self.dir / ("power" if stream is None else f"throughput/stream{stream}") / name
        started = time.monotonic()
        try:
            return self._query(hive, name, stream, expected, where)
        except Exception as exc:  # the next queries still run; the archive keeps the message
            where.mkdir(parents=True, exist_ok=True)
            error = f"{type(exc).__name__}: {exc}"
            (where / "error.txt").write_text(error + "\n", encoding="utf-8")
            return QueryOutcome(name, "failed", time.monotonic() - started, str(where), stream, error)

    def _query(
        self, hive: Any, name: str, stream: int | None, expected: dict[str, dict[str, Any]], where: Path
    ) -> QueryOutcome:
        """One query in its own session: timed by the server, then checked (untimed)."""
        from benchcamp.studies.bigbench_containers.queries import hive_query

        extra: dict[str, Any] = {}
        if name in TEXT_QUERIES:
            extra["udf_jar"] = udf_jar()
        # inside the run's database directory: DROP DATABASE ... CASCADE removes the exports too
        export = f"{self.location}/ml_{'power' if stream is None else f'stream{stream}'}_{name}"
        if name in ML_QUERIES:
            extra["output_dir"] = export
        query = hive_query(name, extra=extra)
        body = query.statements()
        statements = [
            HiveStatement("use", f"USE {self.database}"),
            *(HiveStatement(f"setting_{i}", f"SET {name}={value}") for i, (name, value) in enumerate(SESSION_SETTINGS)),
            *(HiveStatement(f"set_{i}", sql) for i, sql in enumerate(query.set_statements())),
            *(HiveStatement(f"{name}_{i}", sql, timed=is_timed(sql), fetch=i == len(body) - 1 and name not in ML_QUERIES)
              for i, sql in enumerate(body)),
        ]  # fmt: skip
        started = time.monotonic()
        step = hive.run_statements(self.connection, statements, where)
        elapsed = time.monotonic() - started
        if step.exit_code != 0:
            return QueryOutcome(name, "failed", elapsed, str(where), stream, step.text("stderr.log").strip())
        logs = statement_logs(step.text("operation.log"))
        timings = [server_timing(logs.get(f"{name}_{i}", "")) for i in range(len(body))]
        if timings[-1] is None:
            return QueryOutcome(name, "failed", elapsed, str(where), stream,
                                f"no HiveServer2 'Time taken' line for {name} in {where / 'operation.log'}")  # fmt: skip
        hive_s = sum(timing.total_s for timing in timings if timing is not None)
        outcome = QueryOutcome(name, "ok", hive_s, str(where), stream, hive_s=hive_s)
        if name in ML_QUERIES:
            return self.spark(name, outcome, export, where)
        rows = json.loads((where / RESULTS_FILE).read_text(encoding="utf-8")).get(
            f"{name}_{len(body) - 1}", []
        )
        outcome.result_rows = len(rows)
        return _checked(outcome, rows, expected)

    def in_container(self) -> bool:
        """The lab's container: its NameNode (WebHDFS at its own 127.0.0.1) is reached from inside."""
        return self.ctx.environment.name == CONTAINER_ENVIRONMENT

    def spark_result_path(self, name: str, stream: int | None, result: Path) -> Path:
        """Where the Spark step writes its result: the archive, or for the container a file in its
        work directory (the same path on the host), moved into the archive afterwards."""
        if not self.in_container():
            return result
        from benchcamp.studies.bigbench_containers.container_lab import work_dir

        directory = work_dir() / "bigbench-spark" / self.database
        directory.mkdir(parents=True, exist_ok=True)
        return directory / f"{stream or 0}-{name}.json"

    def spark_archive(self) -> Path:
        """Where the Spark step's class-data-sharing archive lives (`ml.cds_archive`): beside the
        module's jars, named by them and this host's Java, or for the container in its work
        directory, named by them and the Java of its root filesystem (made and read by that Java)."""
        from benchcamp.studies.bigbench_containers.ml import cds_archive, jvm_libraries, module_dir

        if not self.in_container():
            java = shutil.which("java")
            runtime = jvm_libraries(Path(java).resolve().parents[1]) if java else []
            return cds_archive(module_dir() / "target", runtime=runtime)
        from benchcamp.studies.bigbench_containers.container_lab import rootfs_dir, work_dir

        directory = work_dir() / "bigbench-spark"
        directory.mkdir(parents=True, exist_ok=True)
        # the installations themselves: Debian's alias links may be absolute, i.e. the host's
        homes = [home for home in sorted(rootfs_dir().glob("usr/lib/jvm/*")) if not home.is_symlink()]
        runtime = [library for home in homes for library in jvm_libraries(home)]
        return cds_archive(directory, tag="container", runtime=runtime)

    def ensure_spark_archive(self, name: str, source: str, where: Path) -> Path | None:
        """The archive, made first if missing by one run of this Spark step over this export with
        `-XX:ArchiveClassesAtExit` (untimed: before the step's clock starts; once per build of the
        module and environment, the power test's first ML query). None if it cannot be made: the
        step then runs without it."""
        try:
            archive = self.spark_archive()
            if archive.is_file():
                return archive
            return self._make_spark_archive(archive, name, source, where)
        except OSError:  # no archive: the step runs without it
            return None

    def _make_spark_archive(self, archive: Path, name: str, source: str, where: Path) -> Path | None:
        from benchcamp.studies.bigbench_containers.ml import spark_command

        with open(archive.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if archive.is_file():
                return archive
            partial = archive.with_suffix(".partial")
            partial.unlink(missing_ok=True)
            scratch = self.spark_result_path(name, None, where / "spark-cds-training.json")
            command = self.spark_argv(
                spark_command(
                    name,
                    self.params.get(name, {}),
                    source,
                    scratch,
                    archive_out=partial,
                    **self.spark_target(),
                )
            )
            with (where / "spark-cds-training.log").open("w") as out:
                code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
            scratch.unlink(missing_ok=True)
            if code != 0 or not partial.is_file():
                partial.unlink(missing_ok=True)
                return None
            partial.rename(archive)
        return archive

    def spark_target(self) -> dict[str, Any]:
        """The environment's Spark master and properties (`spark_master`, `spark_conf`)."""
        environment = self.ctx.environment
        return {"master": environment.option("spark_master"), "conf": environment.option("spark_conf")}

    def spark_argv(self, command: list[str]) -> list[str]:
        """The Spark step as the controller starts it: here, or inside the lab's container (its
        WebHDFS address is the container's own loopback)."""
        if not self.in_container():
            return command
        from benchcamp.studies.bigbench_containers.container_lab import exec_argv

        return exec_argv(["java", *command[1:]])

    def spark(self, name: str, outcome: QueryOutcome, export: str, where: Path) -> QueryOutcome:
        """The ML query's Spark step (its wall time joins the query's), result checked by ml.py."""
        from benchcamp.studies.bigbench_containers.ml import (
            MlResultError,
            parse_result,
            spark_command,
            used_class_sharing,
        )

        # the export as Hive located it (hdfs://...), in every environment alike: bare and
        # container read it through the same client, so their ML query times compare
        source = self.location_uri + export[len(self.location) :]
        result = where / "spark-result.json"
        written = self.spark_result_path(name, outcome.stream, result)
        try:
            archive = self.ensure_spark_archive(name, source, where)
            command = self.spark_argv(
                spark_command(
                    name, self.params.get(name, {}), source, written, archive=archive, **self.spark_target()
                )
            )
        except Exception as exc:  # SparkUnavailableError names Spark and how to build it
            outcome.status, outcome.error = "failed", f"{type(exc).__name__}: {exc}"
            return outcome
        (where / "spark.argv").write_text(shlex.join(command) + "\n", encoding="utf-8")
        started = time.monotonic()
        with (where / "spark.stdout.log").open("w") as out, (where / "spark.stderr.log").open("w") as err:
            code = subprocess.run(command, stdout=out, stderr=err, check=False).returncode
        outcome.spark_s = time.monotonic() - started
        if written != result and written.exists():
            shutil.move(written, result)
        outcome.seconds = (outcome.hive_s or 0.0) + outcome.spark_s
        if code != 0:
            outcome.status = "failed"
            outcome.error = f"Spark step failed (exit {code}): see {where / 'spark.stderr.log'}"
            return outcome
        try:
            parsed = parse_result(name, result)
        except MlResultError as exc:
            outcome.status, outcome.error = "failed", f"Spark result: {exc}"
            return outcome
        stdout = (where / "spark.stdout.log").read_text(encoding="utf-8", errors="replace")
        sharing = "archive" if archive is not None and used_class_sharing(stdout) else "off"
        # the ML queries' times compare across environments only if both mapped their archive
        outcome.checked = f"Spark {type(parsed).__name__}; class sharing {sharing}"
        return outcome


_SESSION_SETUP = re.compile(r"(ADD\s+JAR|CREATE\s+TEMPORARY\s+FUNCTION)\b", re.IGNORECASE)


def is_timed(sql: str) -> bool:
    """Whether a query's statement is part of its time: ADD JAR and CREATE TEMPORARY FUNCTION are
    session set-up (HiveServer2 logs no "Time taken" for them; waiting for one cost 30 s each)."""
    return not _SESSION_SETUP.match(sql.lstrip())


def database_path(rows: list[list[Any]]) -> str:
    """The path of a database's directory from DESCRIBE DATABASE's row (name, comment, location,
    ...): the location without its scheme and authority (hdfs://host:port/...)."""
    if not rows or len(rows[0]) < 3 or not str(rows[0][2]):
        raise ValueError(f"DESCRIBE DATABASE gave no location: {rows!r}")
    location = str(rows[0][2])
    path = re.sub(r"^[a-z]+://[^/]*", "", location)
    if not path.startswith("/"):
        raise ValueError(f"database location {location!r} has no absolute path")
    return path


def _query_parameters() -> dict[str, dict[str, Any]]:
    from benchcamp.studies.bigbench_containers.queries import load_parameters

    return load_parameters()


def _checked(
    outcome: QueryOutcome, rows: list[list[Any]], expected: dict[str, dict[str, Any]]
) -> QueryOutcome:
    """The result against DuckDB's (SQL queries) or non-empty (text queries); failed if not."""
    from benchcamp.studies.bigbench_containers.queries import result_fingerprint

    name = outcome.query
    if not rows:
        outcome.status, outcome.error = "failed", f"{name} returned no rows"
        return outcome
    if name in SQL_QUERIES:
        wanted = expected.get(name)
        if wanted is None:
            outcome.status, outcome.error = "failed", f"no DuckDB result to check {name} against"
            return outcome
        got = result_fingerprint(rows)
        if (got.rows, got.checksum) != (wanted["rows"], wanted["checksum"]):
            outcome.status = "failed"
            outcome.error = (
                f"{name}: Hive's result ({got.rows} rows, {got.checksum}) differs from DuckDB's "
                f"({wanted['rows']} rows, {wanted['checksum']})"
            )
            return outcome
        outcome.checked = f"DuckDB fingerprint ({got.rows} rows)"
    else:
        outcome.checked = f"non-empty ({len(rows)} rows)"
    return outcome
