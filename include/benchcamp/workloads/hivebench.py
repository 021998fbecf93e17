"""HiveBench (Pavlo's queries on `rankings` and `uservisits`): aggregation and join in Hive.

Generate runs the project's generator (lab/hivebench, shipped to the target as a
jar): with MapReduce in local mode on the target's local disk, then puts both tables
into the data file system; on a cluster as a map-only job writing both tables straight
onto it, one part per map, byte for byte the parts the single process writes (the jar's
JUnit tests check it). It then declares them to Hive as external tables over those
files. Execute runs the query through the study's Hive connection; its time is HiveServer2's own (compile +
execute), and the result is checked against what the generator knows it wrote:
the aggregation has one row per distinct source IP, the join returns one row.
"Processed data" is what the query reads, as the study reports it: uservisits for
the aggregation, both tables for the join.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, ClassVar

from benchcamp.core.records import ResultRecord
from benchcamp.platforms import webhdfs
from benchcamp.platforms.hive import (
    OPERATION_LOG,
    RESULTS_FILE,
    HiveStatement,
    identifier,
    server_timing,
    statement_logs,
    string_literal,
)
from benchcamp.workloads import register
from benchcamp.workloads.base import (
    ArchivedStep,
    Command,
    GenerateError,
    NoiseProbe,
    ParseError,
    RunContext,
    Shell,
    Workload,
    data_path,
    job_path,
    staging_path,
    tool_path,
)

GENERATOR_JAR = "hivebench-datagen.jar"
# The generator job on a cluster (environments without `mapreduce_local`): one map per
# GENERATE_BYTES_PER_MAP of data (an HDFS block), at most GENERATE_MAPS_PER_NODE per node. A map
# costs a container start (seconds), so tiny tables take one map, not one per node.
GENERATE_BYTES_PER_MAP = 128 * 1024**2
GENERATE_MAPS_PER_NODE = 2
# bytes per row as the generator writes them (measured: 55 and 155 on average)
RANKINGS_ROW_BYTES, USERVISITS_ROW_BYTES = 55, 155
STATS_FILE = "stats.json"
BYTES_PER_GIB = 1024**3
# HiBench's sizing: 132 M pages and 1.1 G visits at 240 GB (STUDIES.md, study 1).
DEFAULT_PAGES_PER_GB = 550_000
DEFAULT_USERVISITS_PER_GB = 4_583_333
FIELD_DELIMITER = "|"
JOIN_FROM, JOIN_TO = "1999-01-01", "2000-01-01"

RANKINGS_COLUMNS = "pageURL STRING, pageRank INT, avgDuration INT"
USERVISITS_COLUMNS = (
    "sourceIP STRING, destURL STRING, visitDate STRING, adRevenue DOUBLE, userAgent STRING, "
    "countryCode STRING, languageCode STRING, searchWord STRING, duration INT"
)


def generator_jar() -> Path:
    from benchcamp.core.paths import repo_root

    return repo_root() / "lab" / "hivebench" / "target" / GENERATOR_JAR


def row_counts(ctx: RunContext) -> tuple[int, int]:
    """(pages, uservisits) for the cell's size, as the study parameterises PAGES and USERVISITS."""
    size = float(ctx.param("data_size_gb"))
    pages = max(1, round(size * int(ctx.setting("pages_per_gb", DEFAULT_PAGES_PER_GB))))
    visits = max(1, round(size * int(ctx.setting("uservisits_per_gb", DEFAULT_USERVISITS_PER_GB))))
    return pages, visits


def generate_maps(pages: int, visits: int, nodes: int) -> int:
    """Maps of the generator job: one per block of data, at least one, at most two per node."""
    size = pages * RANKINGS_ROW_BYTES + visits * USERVISITS_ROW_BYTES
    return max(1, min(GENERATE_MAPS_PER_NODE * nodes, -(-size // GENERATE_BYTES_PER_MAP)))


def table_name(ctx: RunContext, table: str) -> str:
    """One set of tables per repetition (a hash of its unit path): repetitions never share tables.

    Every table is external, over `ctx.data_location(table)`: its data lives under the
    campaign's data path, never in HiveServer2's warehouse, so deleting that path deletes it
    (no HiveServer2 needed) and DROP TABLE only forgets the table.
    """
    digest = hashlib.sha1(ctx.unit_path.encode(), usedforsecurity=False).hexdigest()[:12]
    return identifier(f"bc_{digest}_{table}")


def load_generator_stats(step_dir: Path) -> dict[str, Any]:
    path = step_dir / STATS_FILE
    try:
        stats = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ParseError(f"{path}: generator statistics missing or unreadable ({exc})") from exc
    if not isinstance(stats, dict):
        raise ParseError(f"{path}: generator statistics are not a JSON object")
    return stats


def latest_generate_dir(execute_dir: Path) -> Path:
    """The archived generate step of the same repetition (rep<N>/generate/try<T>, highest T)."""
    tries = sorted(
        (execute_dir.parent.parent / "generate").glob("try*"), key=lambda path: int(path.name[3:] or 0)
    )
    if not tries:
        raise ParseError(f"{execute_dir}: no archived generate step beside it")
    return tries[-1]


class _HiveBench(Workload):
    family = "hivebench"
    axes = ("data_size_gb",)
    hive_table_pattern = r"bc_[0-9a-f]{12}_[a-z_]+"  # table_name's
    output_table: ClassVar[str]
    output_columns: ClassVar[str]
    input_tables: ClassVar[tuple[str, ...]]

    def tools(self, ctx: RunContext) -> list[Path]:
        return [generator_jar()]

    def generate(self, ctx: RunContext) -> list[Command]:
        pages, visits = row_counts(ctx)
        if not ctx.environment.hadoop.mapreduce_local:
            # Where MapReduce runs on a cluster, the data is generated there: a map-only job, one
            # part per map, each the bytes the single-process generator writes into that part
            # with the same number of parts (whatever that number, the tables' rows are the same).
            maps = generate_maps(pages, visits, ctx.environment.transport.nodes)
            # one map: run it in the application master's container (Hadoop's uber mode for small
            # jobs), not in a second one: 4-10 s less per tiny repetition on the lab cluster
            uber = ["-D", "mapreduce.job.ubertask.enable=true"] if maps == 1 else []
            return [
                [
                    *ctx.hadoop, "jar", tool_path(GENERATOR_JAR), "job", *uber,
                    "--pages", str(pages), "--uservisits", str(visits), "--seed", str(ctx.repetition),
                    "--files", str(maps), "--out", data_path(), "--stats", job_path(STATS_FILE),
                ]
            ]  # fmt: skip
        return [
            ["rm", "-rf", staging_path()],
            [
                "java", "-Xmx256m", "-jar", tool_path(GENERATOR_JAR),
                "--pages", str(pages), "--uservisits", str(visits),
                "--seed", str(ctx.repetition), "--out", staging_path(),
            ],
            ["cp", staging_path(STATS_FILE), job_path(STATS_FILE)],
            *self._upload(ctx),
            ["rm", "-rf", staging_path()],
        ]  # fmt: skip

    @staticmethod
    def _upload(ctx: RunContext) -> list[Command]:
        """The generated tables onto the data file system: through WebHDFS where the environment
        has it (no JVM: two `hadoop fs` start-ups were most of a tiny repetition's generate step),
        else with `hadoop fs`."""
        tables = ("rankings", "uservisits")
        url, root = ctx.environment.hadoop.webhdfs_url, ctx.environment.hadoop.data_root
        if url and root:
            local = {table: staging_path(table) for table in tables}
            return [
                [Shell(line)] for line in webhdfs.upload_lines(url, ctx.data_location(), local, "generate")
            ]
        return [
            [*ctx.hadoop, "fs", "-mkdir", "-p", data_path()],
            [*ctx.hadoop, "fs", "-put", *(staging_path(table) for table in tables), data_path()],
        ]

    def verify_generate(self, ctx: RunContext, step: ArchivedStep) -> dict[str, float]:
        pages, visits = row_counts(ctx)
        stats = load_generator_stats(step.directory)
        if (stats.get("pages"), stats.get("uservisits")) != (pages, visits):
            raise GenerateError(
                f"the generator wrote {stats.get('pages')} pages / {stats.get('uservisits')} visits, "
                f"the cell asks for {pages} / {visits}; see {step.directory / STATS_FILE}"
            )
        return {
            name: float(stats[name])
            for name in ("rankings_bytes", "uservisits_bytes", "distinct_source_ips", "visits_1999_2000")
            if name in stats
        }

    def check_cell(self, ctx: RunContext) -> None:
        """The tables' LOCATIONs are HiveQL literals: a data_root with a quote, a semicolon or a
        line break is refused before the campaign generates the data they would point at."""
        for table in (*self.input_tables, self.output_table):
            string_literal(ctx.data_location(table))

    def _create(self, ctx: RunContext, table: str, columns: str, text: bool) -> list[HiveStatement]:
        name = table_name(ctx, table)
        stored = (
            f"ROW FORMAT DELIMITED FIELDS TERMINATED BY {string_literal(FIELD_DELIMITER)} STORED AS TEXTFILE"
            if text
            else "STORED AS SEQUENCEFILE"
        )
        return [
            HiveStatement(f"drop_{table}", f"DROP TABLE IF EXISTS {name}"),
            HiveStatement(
                f"create_{table}",
                f"CREATE EXTERNAL TABLE {name} ({columns}) {stored} "
                f"LOCATION {string_literal(ctx.data_location(table))}",
            ),
        ]

    def hive_setup(self, ctx: RunContext) -> list[HiveStatement]:
        statements: list[HiveStatement] = []
        for table in self.input_tables:
            columns = RANKINGS_COLUMNS if table == "rankings" else USERVISITS_COLUMNS
            statements += self._create(ctx, table, columns, text=True)
        return statements + self._create(ctx, self.output_table, self.output_columns, text=False)

    def hive_clean(self, ctx: RunContext) -> list[HiveStatement]:
        return [
            HiveStatement(f"drop_{table}", f"DROP TABLE IF EXISTS {table_name(ctx, table)}")
            for table in (*self.input_tables, self.output_table)
        ]

    def noise_probe(self, ctx: RunContext) -> NoiseProbe:
        """The aggregation's plan on a one-row table, timed by HiveServer2 as the cells are: its
        spread is the server's compile, job set-up and commit jitter, none of it the data's."""
        source, output = "bc_noise_floor_in", "bc_noise_floor_out"
        return NoiseProbe(
            kind="hive_query",
            description="a one-row Hive aggregation",
            hive_setup=(
                f"DROP TABLE IF EXISTS {source}",
                f"DROP TABLE IF EXISTS {output}",
                f"CREATE TABLE {source} (sourceIP STRING, adRevenue DOUBLE)",
                f"INSERT INTO {source} VALUES ('10.0.0.1', 1.0)",
                f"CREATE TABLE {output} (sourceIP STRING, sumAdRevenue DOUBLE) STORED AS SEQUENCEFILE",
            ),
            hive_job=f"INSERT OVERWRITE TABLE {output} SELECT sourceIP, SUM(adRevenue) FROM {source} GROUP BY sourceIP",
            hive_cleanup=(f"DROP TABLE IF EXISTS {source}", f"DROP TABLE IF EXISTS {output}"),
        )

    def query(self, ctx: RunContext) -> str:
        raise NotImplementedError

    def hive_execute(self, ctx: RunContext) -> list[HiveStatement]:
        output = table_name(ctx, self.output_table)
        return [
            HiveStatement("query", self.query(ctx), timed=True),
            HiveStatement("check_rows", f"SELECT COUNT(*) FROM {output}", fetch=True),
        ]

    def expected_rows(self, stats: dict[str, Any]) -> int:
        raise NotImplementedError

    def processed_bytes(self, stats: dict[str, Any]) -> int:
        return sum(int(stats[f"{table}_bytes"]) for table in self.input_tables)

    def parse(self, ctx: RunContext, step: ArchivedStep) -> list[ResultRecord]:
        if step.exit_code != 0:
            return [self.duration_record(ctx, step, ok=False)]
        log_path = step.directory / OPERATION_LOG
        timing = server_timing(statement_logs(step.text(OPERATION_LOG)).get("query", ""))
        if timing is None:
            raise ParseError(f"{log_path}: no 'Completed executing command … Time taken' line for the query")
        results_path = step.directory / RESULTS_FILE
        try:
            rows = int(json.loads(step.text(RESULTS_FILE))["check_rows"][0][0])
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ParseError(f"{results_path}: no row count for the query's output ({exc})") from exc
        generated = latest_generate_dir(step.directory)
        stats = load_generator_stats(generated)
        expected = self.expected_rows(stats)
        if rows != expected:
            raise ParseError(
                f"{results_path}: the {self.name} query produced {rows} rows, {expected} expected from "
                f"the generated data ({generated / STATS_FILE}); the repetition is marked failed"
            )
        records = [
            self.record(ctx, step, "duration_s", timing.total_s, "s", artifact=log_path),
            self.record(ctx, step, "compile_s", timing.compile_s, "s", artifact=log_path),
            self.record(
                ctx, step, "processed_gb", self.processed_bytes(stats) / BYTES_PER_GIB, "GiB",
                artifact=generated / STATS_FILE,
            ),
            self.record(ctx, step, "result_rows", float(rows), "rows", artifact=results_path),
        ]  # fmt: skip
        # In local mode every job shares the HiveServer2 JVM's file-system statistics, so Hive's
        # "HDFS Read" there is cumulative over the server's life: kept only for real clusters.
        if timing.hdfs_read_bytes is not None and not ctx.environment.hadoop.mapreduce_local:
            records.append(
                self.record(
                    ctx, step, "hdfs_read_bytes", float(timing.hdfs_read_bytes), "B", artifact=log_path
                )
            )
        return records


@register
class HiveAggregation(_HiveBench):
    name = "hive_aggregation"
    description = "HiveBench aggregation: total adRevenue per sourceIP"
    input_tables = ("uservisits",)
    output_table = "uservisits_aggre"
    output_columns = "sourceIP STRING, sumAdRevenue DOUBLE"

    def query(self, ctx: RunContext) -> str:
        return (
            f"INSERT OVERWRITE TABLE {table_name(ctx, self.output_table)} "
            f"SELECT sourceIP, SUM(adRevenue) FROM {table_name(ctx, 'uservisits')} GROUP BY sourceIP"
        )

    def expected_rows(self, stats: dict[str, Any]) -> int:
        return int(stats["distinct_source_ips"])


@register
class HiveJoin(_HiveBench):
    name = "hive_join"
    description = "HiveBench join: top sourceIP by revenue from 1999 visits joined to rankings"
    input_tables = ("rankings", "uservisits")
    output_table = "rankings_uservisits_join"
    output_columns = "sourceIP STRING, avgPageRank DOUBLE, totalRevenue DOUBLE"

    def query(self, ctx: RunContext) -> str:
        return (
            f"INSERT OVERWRITE TABLE {table_name(ctx, self.output_table)} "
            "SELECT NUV.sourceIP, AVG(R.pageRank), SUM(NUV.adRevenue) AS totalRevenue "
            f"FROM {table_name(ctx, 'rankings')} R JOIN ("
            f"SELECT sourceIP, destURL, adRevenue FROM {table_name(ctx, 'uservisits')} UV "
            f"WHERE datediff(UV.visitDate, {string_literal(JOIN_FROM)}) >= 0 "
            f"AND datediff(UV.visitDate, {string_literal(JOIN_TO)}) <= 0"
            ") NUV ON (R.pageURL = NUV.destURL) "
            "GROUP BY NUV.sourceIP ORDER BY totalRevenue DESC LIMIT 1"
        )

    def expected_rows(self, stats: dict[str, Any]) -> int:
        return 1 if int(stats.get("visits_1999_2000", 1)) > 0 else 0
