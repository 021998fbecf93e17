"""Per-task phase times from JobHistory REST answers recorded on this machine (a YARN WordCount)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from benchcamp.workloads._jobhistory import load_job_history, parse_job_history

RECORDED = Path(__file__).parents[1] / "data" / "jobhistory" / "wordcount_yarn.json"


def test_phases_per_attempt_and_their_means() -> None:
    job = load_job_history(RECORDED)
    assert (job.job_id, job.state, job.maps, job.reduces) == ("job_1795365318596_0001", "SUCCEEDED", 3, 2)
    assert job.elapsed_s == pytest.approx(22.182)  # finishTime − startTime of the job
    reduce0 = next(a for a in job.attempts if a.attempt_id == "attempt_1795365318596_0001_r_000000_0")
    # 1795365367707 start, 1795365374276 shuffle end, 1795365374626 merge end, 1795365375628 finish
    assert (reduce0.shuffle_s, reduce0.merge_s, reduce0.reduce_s) == (6.569, 0.35, 1.002)
    assert reduce0.map_s is None and reduce0.node == "localhost:8042"
    metrics = job.metrics()
    # The JobHistory server's own averages (avgMapTime 8991, avgShuffleTime 6808, avgMergeTime 286,
    # avgReduceTime 782 ms, truncated) agree with ours to the millisecond.
    raw = json.loads(RECORDED.read_text())["job"]["job"]
    for phase, average in (("map", "avgMapTime"), ("shuffle", "avgShuffleTime"), ("merge", "avgMergeTime"),
                           ("reduce", "avgReduceTime")):  # fmt: skip
        assert metrics[f"phase_{phase}_s"] == pytest.approx(raw[average] / 1000, abs=0.001)
    assert metrics["phase_map_s"] == pytest.approx((8.131 + 9.127 + 9.717) / 3)


def test_failed_attempts_are_listed_but_not_averaged() -> None:
    document = json.loads(RECORDED.read_text())
    changed = copy.deepcopy(document)
    attempt = changed["attempts"]["task_1795365318596_0001_m_000000"]["taskAttempts"]["taskAttempt"][0]
    attempt["state"] = "FAILED"
    changed["job"]["job"]["state"] = "FAILED"
    job = parse_job_history(changed)
    assert not job.succeeded and job.state == "FAILED"
    assert len(job.attempts) == 5
    assert job.metrics()["phase_map_s"] == pytest.approx((8.131 + 9.127) / 2)


def test_a_missing_field_names_the_file_and_the_field(tmp_path: Path) -> None:
    document = json.loads(RECORDED.read_text())
    del document["attempts"]["task_1795365318596_0001_r_000001"]["taskAttempts"]["taskAttempt"][0][
        "shuffleFinishTime"
    ]
    broken = tmp_path / "job.json"
    broken.write_text(json.dumps(document))
    with pytest.raises(
        ValueError,
        match=r"job.json: attempts of task_1795365318596_0001_r_000001: missing field 'shuffleFinishTime'",
    ):
        load_job_history(broken)
    (tmp_path / "cut.json").write_text('{"job": ')
    with pytest.raises(ValueError, match="cut.json: not readable as JSON"):
        load_job_history(tmp_path / "cut.json")
