"""Per-task phase times from JobHistory REST answers recorded on this machine (a YARN WordCount)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from benchcamp.platforms.jobhistory import fetch_script, load_job_history, parse_job_history
from benchcamp.workloads.base import ParseError

RECORDED = Path(__file__).parents[1] / "data" / "jobhistory" / "wordcount_yarn.json"
JOB = "job_1795365318596_0001"
MAP0 = "task_1795365318596_0001_m_000000"


def archived_copy(tmp_path: Path, document: dict[str, object]) -> Path:
    path = tmp_path / "stdout.log"
    path.write_text(json.dumps(document))
    return path


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


def test_a_task_whose_attempts_are_missing_fails_naming_the_file(tmp_path: Path) -> None:
    """Without the check the job parsed as SUCCEEDED with the map mean of two maps out of three."""
    document = json.loads(RECORDED.read_text())
    del document["attempts"][MAP0]
    path = archived_copy(tmp_path, document)
    with pytest.raises(ParseError) as failure:
        load_job_history(path)
    assert str(failure.value) == (
        f"{path}: the attempts of {MAP0} are missing (1 of 5 listed tasks without their attempts answer)"
    )
    document["attempts"][MAP0] = {"taskAttempts": {"taskAttempt": []}}  # answered, but empty
    with pytest.raises(ParseError, match=f"{path}: job {JOB}: task {MAP0} succeeded with attempt "):
        load_job_history(archived_copy(tmp_path, document))


def test_tasks_fewer_than_the_jobs_totals_fail(tmp_path: Path) -> None:
    """The task and its attempts both gone (an answer cut short): only mapsTotal tells."""
    document = json.loads(RECORDED.read_text())
    del document["attempts"][MAP0]
    document["tasks"]["tasks"]["task"] = [t for t in document["tasks"]["tasks"]["task"] if t["id"] != MAP0]
    path = archived_copy(tmp_path, document)
    with pytest.raises(ParseError) as failure:
        load_job_history(path)
    assert str(failure.value) == (
        f"{path}: job {JOB}: mapsTotal 3 and mapsCompleted 3, but 2 MAP tasks listed and 2 with a successful attempt"
    )


def test_attempt_counts_of_the_job_are_checked(tmp_path: Path) -> None:
    """A reduce attempt that failed and was retried, dropped from its task's answer."""
    document = json.loads(RECORDED.read_text())
    document["job"]["job"]["failedReduceAttempts"] = 1
    path = archived_copy(tmp_path, document)
    with pytest.raises(
        ParseError, match=f"{path}: job {JOB}: failedReduceAttempts 1, but the attempts answers hold 0"
    ):
        load_job_history(path)
    del document["job"]["job"]["failedReduceAttempts"]  # a server that does not report it: not checked
    assert load_job_history(archived_copy(tmp_path, document)).failed_attempts == 0


def test_attempts_of_a_task_the_job_does_not_list_fail() -> None:
    document = json.loads(RECORDED.read_text())
    document["attempts"]["task_1795365318596_0001_m_000009"] = document["attempts"][MAP0]
    with pytest.raises(ParseError, match="job history: attempts of task_1795365318596_0001_m_000009, a task"):
        parse_job_history(document)


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


def test_the_fetch_script_quotes_everything_and_refuses_what_is_not_a_job_or_a_url() -> None:
    import shlex

    script = fetch_script("http://127.0.0.1:19888", "job_1795365318596_0001", ["ip", "netns", "exec", "ns"])
    words = shlex.split(script)
    assert words[:6] == ["ip", "netns", "exec", "ns", "python3", "-c"]
    assert words[-3:] == ["http://127.0.0.1:19888", "job_1795365318596_0001", "120.0"]
    for job in ("job_1; rm -rf /", "$(id)", "job_1795365318596_0001'"):
        with pytest.raises(ValueError, match="not a MapReduce job id"):
            fetch_script("http://127.0.0.1:19888", job, [])
    with pytest.raises(ValueError, match="not a JobHistory server URL"):
        fetch_script("http://h:1/$(id)", "job_1_1", [])


def test_the_fetch_program_builds_the_document_the_parser_reads(tmp_path: Path) -> None:
    """The target-side program, run against a local HTTP server replaying the recorded answers."""
    import http.server
    import shlex
    import subprocess
    import sys
    import threading

    document = json.loads(RECORDED.read_text())
    base = "/ws/v1/history/mapreduce/jobs/job_1795365318596_0001"
    answers = {
        base: document["job"],
        base + "/counters": document["counters"],
        base + "/tasks": document["tasks"],
    }
    answers.update({f"{base}/tasks/{task}/attempts": body for task, body in document["attempts"].items()})
    calls: list[str] = []

    class Replay(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server API)
            calls.append(self.path)
            if self.path == base and calls.count(base) == 1:
                self.send_error(404)  # the job is not in the history yet: retried
                return
            body = json.dumps(answers[self.path]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Replay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        words = shlex.split(fetch_script(url, "job_1795365318596_0001", [], wait_s=30))
        words[0] = sys.executable  # python3 on the target
        result = subprocess.run(words, capture_output=True, text=True, timeout=300, check=True)
    finally:
        server.shutdown()
    fetched = parse_job_history(json.loads(result.stdout))
    assert fetched == parse_job_history(document)
    assert calls.count(base) == 2


def test_an_attempt_that_ends_before_it_starts_is_refused_not_averaged() -> None:
    document = json.loads(RECORDED.read_text())
    attempt = document["attempts"][MAP0]["taskAttempts"]["taskAttempt"][0]
    attempt["finishTime"] = attempt["startTime"] - 1000
    with pytest.raises(ParseError, match=rf"attempts of {MAP0}: attempt \S+ ends before it starts"):
        parse_job_history(document)
    reduce_attempt = document["attempts"]["task_1795365318596_0001_r_000001"]["taskAttempts"]["taskAttempt"][
        0
    ]
    document = json.loads(RECORDED.read_text())
    reduce_attempt = document["attempts"]["task_1795365318596_0001_r_000001"]["taskAttempts"]["taskAttempt"][
        0
    ]
    reduce_attempt["mergeFinishTime"] = reduce_attempt["shuffleFinishTime"] - 1
    with pytest.raises(ParseError, match=r"attempt \S+'s merge ends before it starts"):
        parse_job_history(document)


@pytest.mark.parametrize("value", ["soon", None, [1], 1.5e400])
def test_a_time_that_is_not_a_number_names_the_field(value: object) -> None:
    document = json.loads(RECORDED.read_text())
    document["attempts"][MAP0]["taskAttempts"]["taskAttempt"][0]["startTime"] = value
    with pytest.raises(
        ParseError, match=rf"attempts of {MAP0}: field 'startTime' is not a time in milliseconds"
    ):
        parse_job_history(document)


def test_attempts_given_as_a_list_are_refused_naming_the_source() -> None:
    document = json.loads(RECORDED.read_text())
    document["attempts"] = list(document["attempts"].values())
    with pytest.raises(ParseError, match="job history: 'attempts' is not an object but list"):
        parse_job_history(document)


SPECULATIVE = RECORDED.parent / "wordcount_cluster_speculative.json"


def test_a_speculative_copy_killed_when_its_twin_won_is_no_failed_attempt() -> None:
    """A real cluster job (speculative execution on, as Hadoop's default): one map ran twice and
    its slower copy was killed. That is counted as killed, not as failed, and never averaged."""
    job = parse_job_history(json.loads(SPECULATIVE.read_text()), str(SPECULATIVE))
    assert job.succeeded and (job.maps, job.reduces, len(job.attempts)) == (12, 6, 19)
    assert (job.failed_attempts, job.killed_attempts) == (0, 1)
    (killed,) = [attempt for attempt in job.attempts if attempt.state == "KILLED"]
    assert killed.attempt_id.endswith("_m_000002_1") and killed.map_s is None
    maps = [a.map_s for a in job.attempts if a.task_type == "MAP" and a.state == "SUCCEEDED"]
    assert len(maps) == 12 and job.metrics()["phase_map_s"] == pytest.approx(sum(maps) / 12)  # type: ignore[arg-type]


def test_the_report_shows_killed_attempts_beside_the_failed_ones() -> None:
    from benchcamp.presentation.blocks import attempts_cell

    assert attempts_cell(0.0, 1.0).text == "0 (+1 killed)" and attempts_cell(0.0, 1.0).value == 0.0
    assert attempts_cell(2.0, 0.0).text == "2" and attempts_cell(2.0, None).text == "2"
    assert attempts_cell(None, 3.0).text == "-"
