"""The hibench_dse study's plugin: which runs of HiBench's own report are the study's workloads.

Its TestDFSIO mart (marts/dfsio_read_write.sql) reaches the report only through this plugin: the
read-vs-write section and figure. It also names the Hadoop and Hive settings the study varies or
reports, whose effective values every environment capture asks HiveServer2 for.

`benchcamp import --from hibench-report` reads a `hibench.report`; its Type column names the
run. The study measured HiBench 2.2's WordCount, Enhanced DFSIO and HiveBench on MapReduce, whose
report names them WORDCOUNT, DFSIOE-WRITE / -READ, HIVEAGGR and HIVEJOIN; HiBench 7 names the same
workloads HadoopWordcount, HadoopDfsioe-write / -read, HadoopAggregation and HadoopJoin. Anything
else (HadoopSort, a Spark run such as ScalaSparkWordcount, the HadoopPrepare* data generation) is
refused unless the import maps it explicitly (`--name TYPE=WORKLOAD`) or skips it (`--skip TYPE`).
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.figure import Figure
from benchcamp.core.study import Mart, Rows, Study, Tables
from benchcamp.presentation import figures
from benchcamp.presentation.blocks import Block, Row, TableSection, num
from benchcamp.presentation.text import data_size, delta, number

HIBENCH_TYPES = {
    "WORDCOUNT": "wordcount",
    "DFSIOE-WRITE": "dfsio_write",
    "DFSIOE-READ": "dfsio_read",
    "HIVEAGGR": "hive_aggregation",
    "HIVEJOIN": "hive_join",
    "HadoopWordcount": "wordcount",
    "HadoopDfsioe-write": "dfsio_write",
    "HadoopDfsioe-read": "dfsio_read",
    "HadoopAggregation": "hive_aggregation",
    "HadoopJoin": "hive_join",
}

# What each MB/s divides: a DFSIO cell has three different ones (the scaling table's, TestDFSIO's two).
DFSIO_THROUGHPUT = (
    "Read/Write (MB/s): TestDFSIO's throughput, the bytes over the sum of every map's I/O time; "
    "avg IO (MB/s): the mean of the maps' own rates. Neither counts the job's start-up, so both "
    "exceed the scaling table's throughput (data size over job time)"
)
# Settings the study varies or reports; asked of HiveServer2, whose answer is the effective value
# (defaults included), not only what a *-site.xml happens to set.
EFFECTIVE_SETTINGS = (
    "mapreduce.framework.name",
    "mapreduce.task.io.sort.mb",
    "mapreduce.job.reduces",
    "dfs.replication",
    "dfs.blocksize",
    "fs.defaultFS",
    "hive.execution.engine",
    "hive.exec.reducers.bytes.per.reducer",
)


def dfsio_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Per environment, TestDFSIO's read and write side by side at each data size."""
    headers: tuple[str, ...] = (
        "Data (GB)",
        "Read (s)",
        "Write (s)",
        "Read/Write Δ (%)",
        "Read (MB/s)",
        "Write (MB/s)",
    )
    headers += ("Read avg IO (MB/s)", "Write avg IO (MB/s)")
    out = []
    for environment in dict.fromkeys(row["environment"] for row in rows):
        body = [
            Row(
                (data_size(row["data_size_gb"]),),
                (
                    num(data_size(row["data_size_gb"]), row["data_size_gb"]),
                    num(number(row["read_s"]), row["read_s"]),
                    num(number(row["write_s"]), row["write_s"]),
                    num(delta(row["read_write_delta_pct"], baseline=False), row["read_write_delta_pct"]),
                    num(number(row["read_throughput_mb_s"]), row["read_throughput_mb_s"]),
                    num(number(row["write_throughput_mb_s"]), row["write_throughput_mb_s"]),
                    num(number(row["read_avg_io_rate_mb_s"]), row["read_avg_io_rate_mb_s"]),
                    num(number(row["write_avg_io_rate_mb_s"]), row["write_avg_io_rate_mb_s"]),
                ),
            )
            for row in rows
            if row["environment"] == environment
        ]
        out.append(
            Block(
                f"TestDFSIO read vs write on {environment}",
                headers,
                tuple(body),
                notes=(DFSIO_THROUGHPUT,),
                kind="dfsio",
            )
        )
    return out


def dfsio_read_write(rows: Rows) -> Figure:
    """TestDFSIO read vs write time per data size, side by side."""
    import altair as alt

    values = [
        {
            "data_size_gb": figures.plain(row["data_size_gb"]),
            "environment": row["environment"],
            "phase": phase,
            "seconds": row[column],
        }
        for row in rows
        for phase, column in (("read", "read_s"), ("write", "write_s"))
        if row.get(column) is not None
    ]
    title = "TestDFSIO: read vs write time"
    chart = (
        alt.Chart(alt.Data(values=values))
        .mark_bar()
        .encode(
            x=alt.X("data_size_gb:N", title="Data size (GB)"),
            xOffset="phase:N",
            y=alt.Y("seconds:Q", title="Time (s)"),
            color=alt.Color("phase:N", title="Phase"),
            tooltip=["environment:N", "data_size_gb:N", "phase:N", "seconds:Q"],
        )
        .properties(title=title, width=figures.WIDTH, height=figures.HEIGHT)
    )
    return Figure("dfsio-read-write", title, chart.to_dict())


def dfsio_section(tables: Tables) -> list[Block]:
    """The report's TestDFSIO read vs write (dfsio_read_write)."""
    return dfsio_blocks(tables.get("dfsio_read_write", []))


def dfsio_figures(tables: Tables) -> list[Figure]:
    """The read vs write bars, when the campaign ran TestDFSIO."""
    rows = tables.get("dfsio_read_write", [])
    return [dfsio_read_write(rows)] if rows else []


STUDY = Study(
    "hibench_dse",
    marts=(Mart("dfsio_read_write", "environment, data_size_gb"),),
    report_sections=(TableSection(dfsio_section),),
    figures=(dfsio_figures,),
    effective_settings=EFFECTIVE_SETTINGS,
    native_names={"hibench-report": HIBENCH_TYPES},
)
