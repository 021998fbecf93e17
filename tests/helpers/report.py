"""hibench_dse lab records for the reports and the study contract (campaigns a week apart)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from benchcamp.core.records import ResultRecord

STUDY = "hibench_dse"
LATE = datetime(2026, 3, 8, tzinfo=UTC)


def records(campaign: str, finished: datetime, study: str = STUDY) -> list[ResultRecord]:
    """WordCount at three sizes (Table 9's times, scaled) and TestDFSIO write/read, three repetitions."""
    out = []

    def add(workload: str, size: float, rep: int, metric: str, value: float, status: str = "ok") -> None:
        params: dict[str, Any] = {"data_size_gb": size}
        if workload == "wordcount":
            params |= {"maps": 4, "reduces": 2}
        out.append(
            ResultRecord(
                study=study,
                campaign=campaign,
                environment="local_lab",
                workload=workload,
                params=params,
                repetition=rep,
                metric=metric,
                value=value,
                unit="s" if metric.endswith("_s") and "_mb_" not in metric else "MB/s",
                status=status,  # type: ignore[arg-type]
                started_at=finished - timedelta(seconds=value) if metric == "duration_s" else None,
                finished_at=finished,
            )
        )

    for size, mean, sigma in ((0.012, 40.68, 0.57), (0.017, 57.85, 0.17), (0.022, 74.71, 0.35)):
        for rep, value in enumerate((mean - sigma, mean, mean + sigma), start=1):
            add("wordcount", size, rep, "duration_s", value)
            # what the JobHistory server gave (environments with one): per-job phase means
            for metric, phase in (("phase_map_s", 9.0), ("phase_shuffle_s", 6.0), ("phase_merge_s", 0.5)):
                add("wordcount", size, rep, metric, phase * size / 0.012 + rep * 0.1)
            add("wordcount", size, rep, "phase_reduce_s", 1.0)
            add("wordcount", size, rep, "job_elapsed_s", value - 5)
        for rep in (1, 2, 3):
            add("dfsio_write", size, rep, "duration_s", 25.0 * size / 0.012)
            add("dfsio_read", size, rep, "duration_s", 20.0 * size / 0.012)
            add("dfsio_write", size, rep, "throughput_mb_s", 30.0)
            add("dfsio_read", size, rep, "throughput_mb_s", 40.0)
            add("dfsio_write", size, rep, "avg_io_rate_mb_s", 31.0)
            add("dfsio_read", size, rep, "avg_io_rate_mb_s", 41.0)
    add("wordcount", 0.022, 4, "duration_s", 500.0, status="failed")
    return out
