"""Hadoop job client output (parsed by the MapReduce workloads) and the jar variables the transport exports."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchcamp.core.steps import NoiseProbe, RunContext, Shell

_JOB_ID = re.compile(r"Running job: (job_\S+)")
_SUCCESS = re.compile(r"Job (job_\S+) completed successfully")
_COUNTERS_HEADER = re.compile(r"Counters: (\d+)\s*$")
_TASK_COUNTERS = "Final Counters for"
_COUNTER = re.compile(r"^\s+(?P<name>[^=\t]+?)=(?P<value>-?\d+)\s*$")
_GROUP = re.compile(r"^\t(?P<group>[^\t=][^=]*?)\s*$")

EXAMPLES_JAR = "HADOOP_EXAMPLES_JAR"
TESTS_JAR = "HADOOP_TESTS_JAR"
EMPTY_JOB_KIND = "mapreduce_job"


def empty_job_probe(ctx: RunContext) -> NoiseProbe:
    """An empty MapReduce job, timed as the MapReduce workloads time theirs (around `hadoop jar`):
    WordCount over one line on the data file system, one reducer. What it takes is the client
    JVM, the job's set-up and commit, and their spread is what no cell of these jobs can resolve."""
    folder = '"$DATA"/noise_floor'
    line = Shell(f"{folder}/in.txt")
    return NoiseProbe(
        kind=EMPTY_JOB_KIND,
        description="an empty MapReduce job (WordCount over one line)",
        setup=[
            [*ctx.hadoop, "fs", "-mkdir", "-p", Shell(folder)],
            [Shell("echo 'benchcamp noise floor' |"), *ctx.hadoop, "fs", "-put", "-f", "-", line],
        ],
        job=[
            *ctx.hadoop,
            "jar",
            Shell(f'"${EXAMPLES_JAR}"'),
            "wordcount",
            "-D",
            "mapreduce.job.reduces=1",
            line,
            Shell(f'{folder}/out-"$run"'),
        ],
        cleanup=[[*ctx.hadoop, "fs", "-rm", "-r", "-f", "-skipTrash", Shell(folder)]],
    )


@dataclass
class JobReport:
    """What the Hadoop job client printed about one job."""

    job_id: str | None = None
    succeeded: bool = False
    counters: dict[str, dict[str, int]] = field(default_factory=dict)

    def counter(self, group: str, name: str) -> int | None:
        return self.counters.get(group, {}).get(name)


def parse_job_reports(log: str) -> list[JobReport]:
    """Every job the client ran, in order, with success flag and counters by group."""
    reports: list[JobReport] = []
    current: JobReport | None = None
    group: str | None = None
    in_counters = False
    for line in log.splitlines():
        if match := _JOB_ID.search(line):
            current = JobReport(job_id=match.group(1))
            reports.append(current)
            in_counters = False
            continue
        if match := _SUCCESS.search(line):
            if current is None or current.job_id != match.group(1):
                current = JobReport(job_id=match.group(1))
                reports.append(current)
            current.succeeded = True
            continue
        if _COUNTERS_HEADER.search(line) and current is not None:
            in_counters = _TASK_COUNTERS not in line  # per-task counters are not the job's
            group = None
            continue
        if in_counters and current is not None:
            if match := _COUNTER.match(line):
                if group is not None:
                    current.counters.setdefault(group, {})[match.group("name").strip()] = int(
                        match.group("value")
                    )
                continue
            if match := _GROUP.match(line):
                group = match.group("group").strip()
                continue
            in_counters = False
    return reports
