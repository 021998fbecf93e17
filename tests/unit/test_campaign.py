# Over 600 lines: every unit check of the campaign steps (conf, plan, scripts, steps) in one file.
"""Run configuration checks and planning: bad input is refused before anything runs."""

from __future__ import annotations

import http.server
import json
import posixpath
import re
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from benchcamp.core.paths import UnsafePathName, child
from benchcamp.core.spec import load_spec
from benchcamp.pipeline import archive
from benchcamp.pipeline.campaign.conf import CampaignConfError, campaign_id, check_conf, resolve_campaign
from benchcamp.pipeline.campaign.leftovers import table_location
from benchcamp.pipeline.campaign.plan import context_for, expected_cells, plan_units
from benchcamp.pipeline.campaign.steps import clean_body, step_facts
from benchcamp.pipeline.campaign.target import PREFLIGHT_REFUSALS, cleanup_body, preflight_body
from benchcamp.pipeline.campaign.unit import RepetitionUnit
from benchcamp.transport import ssh
from benchcamp.transport.ssh import commands_body
from benchcamp.workloads import get_workload
from benchcamp.workloads.base import Endpoint, RunContext, render
from benchcamp.workloads.hivebench import generate_maps, row_counts
from helpers.web import free_port

SPEC = load_spec("hibench_dse")


def test_defaults_plan_every_implemented_cell_times_repetitions() -> None:
    conf = check_conf(SPEC, {"ladder": "tiny", "order": "sequential"})  # the spec's is randomised
    units = plan_units(SPEC, conf, "c1")
    assert conf.workloads == ["wordcount", "dfsio_write", "dfsio_read", "hive_aggregation", "hive_join"]
    # 15 cells x 3 measured repetitions, and the spec's one warm-up for each of the 6 Hive cells
    assert len(units["local_lab"]) == 15 * 3 + 6
    assert units["dse_cluster"] == []
    first_cell = units["local_lab"][:3]
    assert [unit["repetition"] for unit in first_cell] == [1, 2, 3]
    assert {(env, wl, reps) for env, wl, _, reps in expected_cells(units)} == {
        ("local_lab", "wordcount", 3),
        ("local_lab", "dfsio_write", 3),
        ("local_lab", "dfsio_read", 3),
        ("local_lab", "hive_aggregation", 3),
        ("local_lab", "hive_join", 3),
    }


def test_a_planned_unit_has_the_typed_keys_and_crosses_task_boundaries_as_json() -> None:
    """A unit is what `RepetitionUnit` declares (a run order adds its optional keys) and comes back
    from JSON unchanged: Airflow hands units between tasks as XCom, the archive keeps them as JSON."""
    conf = check_conf(SPEC, {"ladder": "tiny", "order": "randomised", "order_seed": 3})
    units = plan_units(SPEC, conf, "c1")
    assert RepetitionUnit.__optional_keys__ == {"position", "order", "order_seed", "kept"}
    assert units["local_lab"][0] == {
        "study": "hibench_dse", "campaign": "c1", "environment": "local_lab", "workload": "hive_aggregation",
        "params": {"data_size_gb": 0.012}, "repetition": 0, "ladder": "tiny", "position": 1,
        "order": "randomised", "order_seed": 3,
    }  # fmt: skip
    for unit in units["local_lab"]:
        assert set(unit) == RepetitionUnit.__required_keys__ | {"position", "order", "order_seed"}
    assert json.loads(json.dumps(units)) == units


def test_hive_workloads_need_a_hive_connection_on_the_target() -> None:
    with pytest.raises(CampaignConfError, match="names no hive_connection"):
        check_conf(SPEC, {"environment": "dse_cluster", "workloads": ["hive_join"]})


def test_cell_subset_and_environment() -> None:
    key = "dfsio_write|data_size_gb=0.012"
    conf = check_conf(
        SPEC,
        {
            "ladder": "tiny",
            "cells": [key],
            "repetitions": 2,
            "environment": "dse_cluster",
            "workloads": ["dfsio_write"],
            "order": "sequential",
        },
    )
    units = plan_units(SPEC, conf, "c1")
    assert [unit["repetition"] for unit in units["dse_cluster"]] == [1, 2]
    assert units["local_lab"] == []


@pytest.mark.parametrize(
    ("conf", "message"),
    [
        ({"ladder": "huge"}, "ladder 'huge'"),
        ({"repetitions": 0}, "repetitions must be an integer from 1"),
        ({"repetitions": -1}, "repetitions must be an integer from 1"),
        ({"repetitions": "3"}, "repetitions must be an integer"),
        ({"environment": "mars"}, "no environment 'mars'"),
        ({"workloads": ["sort"]}, "no workload 'sort'"),
        (
            {"cells": ["wordcount|data_size_gb=999"]},
            "cell 'wordcount|data_size_gb=999' is not in the small matrix",
        ),
        ({"repetitons": 3}, "unknown parameter 'repetitons'"),
    ],
)
def test_bad_conf_is_rejected_with_a_message_that_says_what_to_fix(
    conf: dict[str, object], message: str
) -> None:
    with pytest.raises(CampaignConfError, match=message):
        check_conf(SPEC, conf)


def test_campaign_id_is_path_and_sql_safe() -> None:
    assert campaign_id("manual__2026-11-22T10:00:00+00:00") == "manual__2026-11-22T10_00_00+00_00"
    assert "'" not in campaign_id("x'; drop table y; --")


def test_a_declared_but_unimplemented_workload_is_refused_by_name() -> None:
    spec = load_spec("bigbench_containers")  # bigbench_load runs the whole run; the power test's
    with pytest.raises(
        CampaignConfError, match="'bigbench_power' is declared by the study but not implemented yet"
    ):
        check_conf(spec, {"workloads": ["bigbench_power"]})  # records come from it, no unit of its own


def _fake_hadoop(tmp_path: Path, df_available: int, safemode: str = "OFF") -> dict[str, str]:
    """A `hadoop` stand-in answering `fs -df` and `dfsadmin -safemode get` like the real CLI."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "hadoop"
    script.write_text(
        "#!/bin/bash\n"
        'case "$1 $2" in\n'
        f'  "fs -df") printf "Filesystem Size Used Available Use%%\\nhdfs://x 1000000000 0 {df_available} 0%%\\n" ;;\n'
        f'  "dfsadmin -safemode") echo "Safe mode is {safemode}" ;;\n'
        '  "fs -test") exit 1 ;;\n'
        "  *) exit 0 ;;\n"
        "esac\n"
    )
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "WORK": str(tmp_path / "work")}


def _run_body(body: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", body], env=env, capture_output=True, text=True, timeout=60)


def _no_webhdfs(environment: str = "local_lab") -> Any:
    """The lab's environment without its WebHDFS address: a preflight run here by a unit test must
    reach only the fake `hadoop`, never the lab's NameNode (its leftover sweep would delete the
    data of a campaign running on the lab)."""
    return SPEC.environment(environment).replace(webhdfs_url=None)


def test_preflight_refuses_a_campaign_the_file_system_cannot_hold(tmp_path: Path) -> None:
    ctx = RunContext(
        SPEC, _no_webhdfs(), "c1", "wordcount", {"data_size_gb": 0.044, "maps": 4, "reduces": 2}, 1, "small"
    )
    needed = 118_111_600
    refused = _run_body(preflight_body(ctx, needed), _fake_hadoop(tmp_path, df_available=5_000_000))
    assert refused.returncode == 7
    assert f"needs {needed} bytes" in refused.stderr and "has 5000000 bytes free" in refused.stderr
    accepted = _run_body(preflight_body(ctx, needed), _fake_hadoop(tmp_path / "ok", df_available=10**12))
    assert accepted.returncode == 0, accepted.stderr
    assert "safemode=off" in accepted.stdout and f"data_needed_bytes={needed}" in accepted.stdout


def test_preflight_gives_up_on_safe_mode_after_the_bounded_wait(tmp_path: Path) -> None:
    spec = load_spec("hibench_dse")
    environment = _no_webhdfs().replace(safemode_wait_s=1)
    ctx = RunContext(spec, environment, "c1", "dfsio_write", {"data_size_gb": 0.012}, 1, "tiny")
    stuck = _run_body(preflight_body(ctx, 1), _fake_hadoop(tmp_path, df_available=10**12, safemode="ON"))
    assert stuck.returncode == 5 and "still in safe mode after 1 s" in stuck.stderr


def test_clean_fails_when_the_study_requires_dropping_caches_and_it_is_refused(tmp_path: Path) -> None:
    spec = load_spec("hibench_dse").model_copy(update={"drop_caches_required": True})
    hadoop_fs_only = spec.environment("local_lab").replace(webhdfs_url=None)
    ctx = RunContext(spec, hadoop_fs_only, "c1", "dfsio_write", {"data_size_gb": 0.012}, 1, "tiny")
    body = clean_body(ctx).replace("/proc/sys/vm/drop_caches", str(tmp_path / "missing" / "drop_caches"))
    result = _run_body(body, {**_fake_hadoop(tmp_path, 10**12), "DATA": "/benchcamp/x"})
    assert result.returncode == 4 and "cannot be dropped" in result.stderr
    assert "clean_verified=yes" in result.stdout


class _FakeWebHdfs(http.server.BaseHTTPRequestHandler):
    """Answers WebHDFS DELETE, GETFILESTATUS, LISTSTATUS and GETCONTENTSUMMARY for the paths in
    `present` (files, with their sizes in `sizes`, and the folders above them) as a NameNode does
    (the real one is exercised by the integration tests; this pins the scripts' handling of
    each answer)."""

    present: ClassVar[set[str]] = set()
    sizes: ClassVar[dict[str, int]] = {}
    delete_status: ClassVar[int] = 200
    requests: ClassVar[list[str]] = []
    uploaded: ClassVar[dict[str, bytes]] = {}
    safemode: ClassVar[str] = ""  # NameNodeInfo's Safemode: "" when off
    free: ClassVar[int] = 10**12  # NameNodeInfo's Free: bytes left for data

    def _exists(self, path: str) -> bool:
        return any(name == path or name.startswith(path + "/") for name in self.present)

    def _path(self) -> str:
        parsed = urllib.parse.urlsplit(self.path)
        assert parsed.path.startswith("/webhdfs/v1/")
        return urllib.parse.unquote(parsed.path[len("/webhdfs/v1") :])

    def do_DELETE(self) -> None:  # noqa: N802 (http.server's naming)
        self.requests.append("DELETE " + self.path)
        path = self._path()
        if self.delete_status == 200:
            self.present -= {name for name in self.present if name == path or name.startswith(path + "/")}
        self.send_response(self.delete_status)
        self.end_headers()
        self.wfile.write(b'{"boolean": true}')

    def do_GET(self) -> None:  # noqa: N802
        self.requests.append("GET " + self.path)
        if self.path.startswith("/jmx?"):  # the NameNodeInfo bean, laid out as Hadoop's JMX servlet does
            bean = {"name": "Hadoop:service=NameNode,name=NameNodeInfo", "Total": 2 * self.free,
                    "Safemode": self.safemode, "Free": self.free, "NonDfsUsedSpace": 5}  # fmt: skip
            self.send_response(200)
            self.end_headers()
            self.wfile.write(json.dumps({"beans": [bean]}, indent=2, separators=(",", " : ")).encode())
            return
        path, op = self._path(), urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)["op"][0]
        if not self._exists(path):
            self.send_response(404)
            self.end_headers()
            return
        under = [name for name in self.present if name.startswith(path + "/")]
        body: dict[str, object] = {}
        if op == "LISTSTATUS":
            names = sorted({name[len(path) + 1 :].split("/")[0] for name in under})
            statuses = [{"pathSuffix": name, "type": "DIRECTORY", "length": 0} for name in names]
            body = {"FileStatuses": {"FileStatus": statuses}}
        elif op == "GETCONTENTSUMMARY":
            files = [name for name in under if name in self.sizes]
            length = sum(self.sizes[name] for name in files)
            body = {"ContentSummary": {"directoryCount": 1, "fileCount": len(files), "length": length,
                                       "snapshotLength": 0, "spaceConsumed": length, "typeQuota": {}}}  # fmt: skip
        self.send_response(200)
        self.end_headers()
        self.wfile.write(json.dumps(body, separators=(",", ":")).encode())  # as the NameNode writes it

    def do_PUT(self) -> None:  # noqa: N802
        """MKDIRS, and CREATE as a NameNode answers it: a redirect to a DataNode, which takes the body."""
        self.requests.append("PUT " + self.path)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if query["op"] == ["CREATE"] and "datanode" not in query:
            self.send_response(307)
            self.send_header("Location", self.path + "&datanode=true")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if query["op"] == ["CREATE"]:
            self.uploaded[self._path()] = body
        self.send_response(201 if query["op"] == ["CREATE"] else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def webhdfs() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeWebHdfs)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FakeWebHdfs.present, _FakeWebHdfs.delete_status, _FakeWebHdfs.requests = set(), 200, []
    _FakeWebHdfs.sizes = {}
    _FakeWebHdfs.uploaded = {}
    _FakeWebHdfs.safemode, _FakeWebHdfs.free = "", 10**12
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def _webhdfs_clean(
    tmp_path: Path, url: str, environment: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    spec = load_spec("hibench_dse")
    target = spec.environment("local_lab").replace(webhdfs_url=url)
    ctx = RunContext(
        spec, target, "c1", "wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, 1, "tiny"
    )
    body = clean_body(ctx).replace("/proc/sys/vm/drop_caches", str(tmp_path / "drop_caches"))
    assert "hadoop" not in body  # no JVM: curl only
    env = {"PATH": "/usr/bin:/bin", **(environment or {})}
    return _run_body(body, env)


DATA = "/benchcamp/hibench_dse/c1/wordcount_data_size_gb=0.012_maps=4_reduces=2/rep1"


def test_clean_deletes_and_verifies_through_webhdfs(tmp_path: Path, webhdfs: str) -> None:
    _FakeWebHdfs.present.add(DATA)
    result = _webhdfs_clean(tmp_path, webhdfs)
    assert result.returncode == 0, result.stderr
    assert "clean_verified=yes" in result.stdout and DATA not in _FakeWebHdfs.present
    delete, check = _FakeWebHdfs.requests
    assert delete.startswith("DELETE /webhdfs/v1/benchcamp/hibench_dse/c1/wordcount_data_size_gb%3D0.012")
    assert "op=DELETE&recursive=true&user.name=" in delete and "op=GETFILESTATUS" in check


def test_clean_through_webhdfs_fails_when_data_stays_or_the_namenode_errs(
    tmp_path: Path, webhdfs: str
) -> None:
    _FakeWebHdfs.present.add(DATA)
    _FakeWebHdfs.delete_status = 403
    refused = _webhdfs_clean(tmp_path, webhdfs)
    assert refused.returncode == 1 and f"WebHDFS delete of {DATA} answered HTTP 403" in refused.stderr
    assert "clean_verified" not in refused.stdout
    # the target's BENCHCAMP_WEBHDFS_URL wins over the spec's address (the lab moves its ports)
    moved = _webhdfs_clean(tmp_path, "http://127.0.0.1:9", {"BENCHCAMP_WEBHDFS_URL": webhdfs})
    assert moved.returncode == 1 and "answered HTTP 403" in moved.stderr
    unreachable = _webhdfs_clean(tmp_path, "http://127.0.0.1:9")
    assert unreachable.returncode == 1 and "answered HTTP 000" in unreachable.stderr


CELL = "wordcount_data_size_gb=0.012_maps=4_reduces=2"


def _leftovers_ctx(spec_update: dict[str, object] | None = None, **environment: object) -> RunContext:
    spec = load_spec("hibench_dse").model_copy(update=spec_update or {})
    target = spec.environment("local_lab").replace(**environment)
    return RunContext(
        spec, target, "next", "wordcount", {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, 1, "tiny"
    )


def _staging(work: Path, study: str, campaign: str, size: int) -> Path:
    folder = work / study / campaign / CELL / "rep1" / "staging" / "rankings"
    folder.mkdir(parents=True)
    (folder / "part-00000").write_bytes(b"x" * size)
    return folder.parent


def test_preflight_removes_what_earlier_campaigns_of_the_study_left_and_says_so(
    tmp_path: Path, webhdfs: str
) -> None:
    """Through WebHDFS: the study's folder goes whole (its campaigns named and measured first),
    with the generators' staging folders on the target's disk; another study's are kept."""
    for path, size in (
        (f"/benchcamp/hibench_dse/killed/{CELL}/rep1/output/part-r-00000", 100),
        ("/benchcamp/hibench_dse/failed/hive_join_data_size_gb=0.012/rep2/rankings/part-00000", 50),
        ("/benchcamp/other_study/old/cell/rep1/part-00000", 7),
    ):
        _FakeWebHdfs.present.add(path)
        _FakeWebHdfs.sizes[path] = size
    env = _fake_hadoop(tmp_path, df_available=10**12)
    work = Path(env["WORK"])
    staged = _staging(work, "hibench_dse", "killed", 10)
    other = _staging(work, "other_study", "old", 10)
    result = _run_body(preflight_body(_leftovers_ctx(webhdfs_url=webhdfs), 1), env)
    assert result.returncode == 0, result.stderr
    facts = step_facts(result.stdout)
    assert facts["leftover_campaigns"] == "failed,killed"
    assert (facts["leftovers_removed"], facts["leftovers_files"], facts["leftovers_bytes"]) == (
        "3",
        "3",
        "160",
    )
    assert _FakeWebHdfs.present == {"/benchcamp/other_study/old/cell/rep1/part-00000"}
    assert not staged.exists() and other.exists()
    assert [r.split("?")[0] for r in _FakeWebHdfs.requests if r.startswith("DELETE")] == [
        "DELETE /webhdfs/v1/benchcamp/hibench_dse"
    ]
    # removed before the free space is read: the space they held counts
    assert result.stdout.index("leftovers_removed=") < result.stdout.index("data_available_bytes=")


def test_with_webhdfs_the_preflight_asks_the_namenode_over_http_and_starts_no_jvm(
    tmp_path: Path, webhdfs: str
) -> None:
    """Safe mode and free space from the NameNode's NameNodeInfo (its JMX over HTTP), the data
    root made through WebHDFS: no `hadoop` on the PATH at all. Too little space and safe mode
    past the wait are refused as with `hadoop` (exit 7 and 5); a NameNode that does not answer
    is named with its address."""
    env = {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path / "work")}
    ctx = _leftovers_ctx(webhdfs_url=webhdfs, safemode_wait_s=1)
    body = preflight_body(ctx, 1000)
    assert "hadoop" not in body.replace("hadoop.", "")
    _FakeWebHdfs.free = 123_456
    accepted = _run_body(body, env)
    assert accepted.returncode == 0, accepted.stderr
    facts = step_facts(accepted.stdout)
    assert (facts["safemode"], facts["data_available_bytes"]) == ("off", "123456")
    assert any(r.startswith("PUT /webhdfs/v1/benchcamp?op=MKDIRS") for r in _FakeWebHdfs.requests)
    _FakeWebHdfs.free = 999
    small = _run_body(body, env)
    assert small.returncode == 7 and "has 999 bytes free" in small.stderr
    _FakeWebHdfs.safemode = "Safe mode is ON. The reported blocks 0 needs additional 3 blocks."
    stuck = _run_body(body, env)
    assert stuck.returncode == 5 and "still in safe mode after 1 s" in stuck.stderr
    gone = _run_body(
        preflight_body(_leftovers_ctx(webhdfs_url="http://127.0.0.1:9", safemode_wait_s=1), 1), env
    )
    assert (
        gone.returncode == 5 and "the NameNode did not answer at http://127.0.0.1:9 within 1 s" in gone.stderr
    )


def test_preflight_with_nothing_left_deletes_nothing(tmp_path: Path, webhdfs: str) -> None:
    result = _run_body(preflight_body(_leftovers_ctx(webhdfs_url=webhdfs), 1), _fake_hadoop(tmp_path, 10**12))
    assert result.returncode == 0, result.stderr
    facts = step_facts(result.stdout)
    assert (facts["leftovers_removed"], facts["leftovers_bytes"], facts["leftover_campaigns"]) == (
        "0",
        "0",
        "",
    )
    assert not [r for r in _FakeWebHdfs.requests if r.startswith("DELETE")]


def test_preflight_fails_when_it_cannot_see_or_remove_the_leftovers(tmp_path: Path, webhdfs: str) -> None:
    unreachable = _run_body(  # not waited for in safe mode (the test above): straight to the listing
        preflight_body(_leftovers_ctx(webhdfs_url="http://127.0.0.1:9", safemode_wait_s=None), 1),
        _fake_hadoop(tmp_path, 10**12),
    )
    assert unreachable.returncode == 1
    assert "preflight: WebHDFS listing of /benchcamp/hibench_dse answered HTTP 000" in unreachable.stderr
    _FakeWebHdfs.present.add(f"/benchcamp/hibench_dse/killed/{CELL}/rep1/x")
    _FakeWebHdfs.delete_status = 403
    refused = _run_body(
        preflight_body(_leftovers_ctx(webhdfs_url=webhdfs), 1), _fake_hadoop(tmp_path / "2", 10**12)
    )
    assert refused.returncode == 1 and "answered HTTP 403" in refused.stderr
    assert "leftovers_removed" not in refused.stdout


def _recording_hadoop(tmp_path: Path, count_output: str) -> dict[str, str]:
    """A `hadoop` that answers `fs -count` with a real recorded listing, `fs -ls` with nothing
    (all gone) and records each call's arguments (one per line, calls apart by a blank line)."""
    env = _fake_hadoop(tmp_path, df_available=10**12)
    (tmp_path / "count.txt").write_text(count_output)
    script = Path(env["PATH"].split(":")[0]) / "hadoop"
    script.write_text(
        "#!/bin/bash\n"
        f'printf "%s\\n" "$@" >> {tmp_path / "calls.txt"}; echo >> {tmp_path / "calls.txt"}\n'
        'case "$1 $2" in\n'
        f'  "fs -df") printf "Filesystem Size Used Available Use%%\\nhdfs://x 1000000000 0 {10**12} 0%%\\n" ;;\n'
        f'  "fs -count") cat {tmp_path / "count.txt"} ;;\n'
        '  "dfsadmin -safemode") echo "Safe mode is OFF" ;;\n'
        "esac\n"
    )
    return env


def _calls(tmp_path: Path) -> list[list[str]]:
    text = (tmp_path / "calls.txt").read_text()
    return [call.split("\n") for call in text.strip("\n").split("\n\n")]


def test_preflight_removes_leftovers_with_hadoop_fs_where_there_is_no_webhdfs(tmp_path: Path) -> None:
    """On the real `hadoop fs -count` listing recorded on the lab: each listed campaign folder is
    removed by its exact path, then checked gone; the figures are the listing's."""
    recorded = Path(__file__).parents[1] / "data" / "hadoop" / "fs_count_leftovers.stdout.log"
    env = _recording_hadoop(tmp_path, recorded.read_text())
    ctx = _leftovers_ctx({"study": "rec_study"}, webhdfs_url=None)
    result = _run_body(preflight_body(ctx, 1), env)
    assert result.returncode == 0, result.stderr
    facts = step_facts(result.stdout)
    assert facts["leftover_campaigns"] == "failed,killed"
    assert (facts["leftovers_removed"], facts["leftovers_files"], facts["leftovers_bytes"]) == (
        "2",
        "3",
        "42000",
    )
    calls = [call for call in _calls(tmp_path) if call[0] == "fs" and call[1] != "-df"]
    assert calls[0] == ["fs", "-count", "/benchcamp/rec_study/*"]
    assert calls[1] == [
        "fs",
        "-rm",
        "-r",
        "-f",
        "-skipTrash",
        "/benchcamp/rec_study/failed",
        "/benchcamp/rec_study/killed",
    ]
    assert calls[2] == ["fs", "-ls", "-d", "/benchcamp/rec_study/failed", "/benchcamp/rec_study/killed"]


@pytest.mark.parametrize("data_root", ["/bench mark's", "/x;rm -rf ~", '/a"$(id)`b`'])
def test_leftover_paths_reach_hadoop_as_one_quoted_word(tmp_path: Path, data_root: str) -> None:
    """No user string is ever split or run by the shell: the spec's data_root arrives whole."""
    env = _recording_hadoop(tmp_path, "")
    result = _run_body(preflight_body(_leftovers_ctx(webhdfs_url=None, data_root=data_root), 1), env)
    assert result.returncode == 0, result.stderr
    assert ["fs", "-count", f"{data_root}/hibench_dse/*"] in _calls(tmp_path)
    assert step_facts(result.stdout)["leftovers_removed"] == "0"


def test_without_a_data_file_system_only_the_staging_leftovers_go(tmp_path: Path) -> None:
    """A target without Hadoop (the YCSB stores): no `hadoop` is called at all."""
    env = {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path / "work")}
    staged = _staging(tmp_path / "work", "hibench_dse", "killed", 10)
    result = _run_body(preflight_body(_leftovers_ctx(), 1, data_fs=False), env)
    assert result.returncode == 0, result.stderr
    facts = step_facts(result.stdout)
    assert (facts["leftovers_removed"], facts["leftovers_bytes"], facts["leftover_campaigns"]) == (
        "1",
        "10",
        "killed",
    )
    assert not staged.exists() and "data_fs=none" in result.stdout


def test_a_service_the_cells_need_that_does_not_answer_refuses_the_campaign_naming_each(
    tmp_path: Path,
) -> None:
    """The preflight connects from the target to every endpoint the cells need (a store's nodes):
    all that do not answer are named at once with the setting that says where they are, and the
    campaign is refused (exit 10, a refusal nothing retries) before any repetition; the work
    directory is not even made."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as listening:
        open_port = listening.getsockname()[1]
        closed = [free_port(), free_port()]
        nodes = [
            Endpoint("Cassandra", "127.0.0.1", open_port, "ring"),
            *(Endpoint("Cassandra", "127.0.0.1", port, "ring") for port in closed),
        ]
        env = {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path / "work")}
        refused = _run_body(preflight_body(_leftovers_ctx(), 1, data_fs=False, endpoints=nodes), env)
        assert refused.returncode == 10 and 10 in PREFLIGHT_REFUSALS
        named = refused.stderr.strip()
        assert named == (
            f"preflight: not answering from the target: Cassandra at 127.0.0.1:{closed[0]} (ring); "
            f"Cassandra at 127.0.0.1:{closed[1]} (ring): start it, or point the environment at where it runs"
        )
        assert not (tmp_path / "work").exists()
        answered = _run_body(preflight_body(_leftovers_ctx(), 1, data_fs=False, endpoints=nodes[:1]), env)
        assert answered.returncode == 0, answered.stderr
        assert step_facts(answered.stdout)["endpoints_answered"] == "1"


def test_a_client_host_that_does_not_take_a_login_refuses_the_campaign(tmp_path: Path) -> None:
    """A host the cells log in to (YCSB's client hosts) is tried with the target's own ssh, here
    pointed by BENCHCAMP_SSH_CONFIG at a port nothing listens on: named, refused before anything."""
    config = tmp_path / "ssh_config"
    config.write_text(f"Host *\n  Port {free_port()}\n  StrictHostKeyChecking yes\n")
    host = Endpoint("YCSB client host", "127.0.0.1", 22, "the environment's ycsb_client_hosts", over_ssh=True)
    env = {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path / "work"), "BENCHCAMP_SSH_CONFIG": str(config)}
    refused = _run_body(preflight_body(_leftovers_ctx(), 1, data_fs=False, endpoints=[host]), env)
    assert refused.returncode == 10
    assert refused.stderr.strip() == (
        "preflight: not answering from the target: YCSB client host 127.0.0.1 over SSH (the environment's "
        "ycsb_client_hosts): start it, or point the environment at where it runs"
    )
    assert not (tmp_path / "work").exists()


def test_a_host_name_from_the_spec_reaches_the_connect_as_one_word(tmp_path: Path) -> None:
    odd = Endpoint("Cassandra", "a b;touch pwned", 9042, "ring")
    result = _run_body(
        preflight_body(_leftovers_ctx(), 1, data_fs=False, endpoints=[odd]),
        {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path)},
    )
    assert result.returncode == 10 and "Cassandra at a b;touch pwned:9042" in result.stderr
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


def test_cleanup_deletes_the_campaigns_data_through_webhdfs_without_a_jvm(
    tmp_path: Path, webhdfs: str
) -> None:
    kept = f"/benchcamp/hibench_dse/other/{CELL}/rep1/x"
    _FakeWebHdfs.present |= {f"/benchcamp/hibench_dse/next/{CELL}/rep1/output/part-r-00000", kept}
    body = cleanup_body(_leftovers_ctx(webhdfs_url=webhdfs))
    assert "hadoop" not in body
    result = _run_body(body, {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path / "work")})
    assert result.returncode == 0 and "cleanup_verified=yes" in result.stdout, result.stderr
    assert _FakeWebHdfs.present == {kept}
    _FakeWebHdfs.present.add(f"/benchcamp/hibench_dse/next/{CELL}/rep1/y")
    _FakeWebHdfs.delete_status = 500
    failed = _run_body(body, {"PATH": "/usr/bin:/bin", "WORK": str(tmp_path / "work")})
    assert (
        failed.returncode == 1 and "cleanup: WebHDFS delete of /benchcamp/hibench_dse/next" in failed.stderr
    )


def _hive_generate_upload(tmp_path: Path, url: str) -> tuple[str, subprocess.CompletedProcess[str]]:
    """The HiveBench generate step's upload lines, run by bash over generated-looking local files."""
    spec = load_spec("hibench_dse")
    target = spec.environment("local_lab").replace(webhdfs_url=url)
    ctx = RunContext(spec, target, "c1", "hive_join", {"data_size_gb": 0.012}, 1, "tiny")
    for table, parts in (("rankings", 2), ("uservisits", 1)):
        folder = tmp_path / "unit" / "staging" / table
        folder.mkdir(parents=True)
        for number in range(parts):
            (folder / f"part-0000{number}").write_bytes(f"{table} {number}\n".encode() * 1000)
    commands = get_workload("hive_join").generate(ctx)
    upload = [command for command in commands if command[0] not in ("rm", "java", "cp")]
    body = commands_body(upload)
    return body, _run_body(body, {"PATH": "/usr/bin:/bin", "UNIT": str(tmp_path / "unit")})


def test_hive_generate_uploads_its_tables_through_webhdfs(tmp_path: Path, webhdfs: str) -> None:
    body, result = _hive_generate_upload(tmp_path, webhdfs)
    assert "hadoop" not in body  # no JVM: curl only
    assert result.returncode == 0, result.stderr
    data = "/benchcamp/hibench_dse/c1/hive_join_data_size_gb=0.012/rep1"
    assert sorted(_FakeWebHdfs.uploaded) == [
        f"{data}/rankings/part-00000",
        f"{data}/rankings/part-00001",
        f"{data}/uservisits/part-00000",
    ]
    assert _FakeWebHdfs.uploaded[f"{data}/rankings/part-00001"] == b"rankings 1\n" * 1000
    assert _FakeWebHdfs.requests[0].startswith("PUT /webhdfs/v1/benchcamp/hibench_dse/c1/hive_join")
    assert "op=MKDIRS&user.name=" in _FakeWebHdfs.requests[0]
    assert all("overwrite=false" in r for r in _FakeWebHdfs.requests if "op=CREATE" in r)


def test_hive_generate_upload_fails_naming_the_file_and_status(tmp_path: Path, webhdfs: str) -> None:
    _, unreachable = _hive_generate_upload(tmp_path, "http://127.0.0.1:9")
    assert unreachable.returncode == 1
    assert "WebHDFS mkdir of /benchcamp/hibench_dse/c1/hive_join" in unreachable.stderr
    assert "answered HTTP 000" in unreachable.stderr
    # without webhdfs_url the step keeps `hadoop fs`
    spec = load_spec("hibench_dse")
    plain = spec.environment("local_lab").replace(webhdfs_url=None)
    ctx = RunContext(spec, plain, "c1", "hive_join", {"data_size_gb": 0.012}, 1, "tiny")
    assert "-put" in render(get_workload("hive_join").generate(ctx)[4])


def test_hive_generate_on_a_cluster_is_one_map_only_job_writing_onto_hdfs() -> None:
    """Where MapReduce runs on a cluster the tables are generated there, by the generator's job
    (a map per HDFS block, at most two per node; its statistics into the archived job folder),
    never on the gateway and uploaded; in local mode the single process writes them and they
    are put (above)."""
    cluster = SPEC.environment("lab_cluster")
    ctx = RunContext(SPEC, cluster, "c1", "hive_aggregation", {"data_size_gb": 0.012}, 2, "tiny")
    (command,) = get_workload("hive_aggregation").generate(ctx)
    assert render(command) == (
        'hadoop jar "$WORK"/.benchcamp-tools/hivebench-datagen.jar job -D mapreduce.job.ubertask.enable=true '
        "--pages 6600 --uservisits 55000 "
        '--seed 2 --files 1 --out "$DATA" --stats "$JOB"/stats.json'
    )
    # 240 GiB (the paper's smallest): a map per 128 MiB, capped at two per node (3 nodes here)
    sized = [
        RunContext(SPEC, cluster, "c1", "hive_aggregation", {"data_size_gb": size}, 1, "tiny")
        for size in (0.1, 1, 240)
    ]
    assert [generate_maps(*row_counts(each), 3) for each in sized] == [1, 6, 6]
    assert generate_maps(*row_counts(sized[1]), 1) == 2
    local = get_workload("hive_aggregation").generate(
        RunContext(
            SPEC, SPEC.environment("local_lab"), "c1", "hive_aggregation", {"data_size_gb": 0.012}, 2, "tiny"
        )
    )
    assert local[1][:3] == ["java", "-Xmx256m", "-jar"] and "job" not in local[1]


def test_warmups_run_first_numbered_from_zero_down_and_are_not_expected_by_validation() -> None:
    conf = check_conf(
        SPEC,
        {"ladder": "tiny", "workloads": ["wordcount", "hive_join"], "repetitions": 2, "order": "sequential"},
    )
    units = plan_units(SPEC, conf, "c1")["local_lab"]
    by_cell: dict[str, list[int]] = {}
    for unit in units:
        by_cell.setdefault(unit["workload"] + str(unit["params"]), []).append(unit["repetition"])
    assert {reps[0] for key, reps in by_cell.items() if key.startswith("hive_join")} == {0}
    assert all(reps == [0, 1, 2] for key, reps in by_cell.items() if key.startswith("hive_join"))
    assert all(reps == [1, 2] for key, reps in by_cell.items() if key.startswith("wordcount"))
    assert {reps for _, _, _, reps in expected_cells({"local_lab": units})} == {2}
    # the trigger form's override: two for every cell, or none
    two = plan_units(SPEC, check_conf(SPEC, {"ladder": "tiny", "warmup_repetitions": 2}), "c1")["local_lab"]
    assert sorted({unit["repetition"] for unit in two}) == [-1, 0, 1, 2, 3]
    none = plan_units(SPEC, check_conf(SPEC, {"ladder": "tiny", "warmup_repetitions": 0}), "c1")["local_lab"]
    assert min(unit["repetition"] for unit in none) == 1


@pytest.mark.parametrize("bad", [-1, 11, "1", True, 1.5])
def test_a_bad_warmup_count_is_refused(bad: object) -> None:
    with pytest.raises(CampaignConfError, match="warmup_repetitions must be an integer from 0 to 10"):
        check_conf(SPEC, {"warmup_repetitions": bad})


ESCAPING_NAMES = ["..", ".", "a/..", "../x", "/etc", "/", ".hidden", "a\\..", ""]


@pytest.mark.parametrize("name", [name for name in ESCAPING_NAMES if name])
def test_a_campaign_name_that_could_leave_its_folder_is_refused_by_the_plan(name: str) -> None:
    with pytest.raises(CampaignConfError, match="must start with a letter or digit"):
        resolve_campaign({"campaign": name}, "manual__2026-11-24")


@pytest.mark.parametrize("name", ESCAPING_NAMES)
def test_every_path_built_from_a_name_stays_under_its_parent(name: str, tmp_path: Path) -> None:
    """Where the name builds a path (archive folder, HDFS data path, cleanup pattern), not only in
    the name check: a name that got past it still cannot reach the parent or above."""
    for path in (
        archive.campaign_dir("hibench_dse", name, tmp_path),
        archive.repetition_dir("hibench_dse", "c1", name, 1, tmp_path),
    ):
        assert path.resolve().is_relative_to(tmp_path / "hibench_dse")
        assert path.resolve() != (tmp_path / "hibench_dse").resolve()
    with pytest.raises(UnsafePathName):
        child(tmp_path, name)
    ctx = RunContext(
        SPEC, SPEC.environment("local_lab"), name, "dfsio_write", {"data_size_gb": 0.012}, 1, "tiny"
    )
    data = ctx.data_location("in")
    assert data.startswith("/benchcamp/hibench_dse/") and "/../" not in data and "/./" not in data
    assert posixpath.normpath(data).startswith("/benchcamp/hibench_dse/") and posixpath.normpath(data).count(
        "/"
    ) == data.count("/")
    hadoop_fs = RunContext(
        SPEC, SPEC.environment("local_lab").replace(webhdfs_url=None), name, "dfsio_write",
        {"data_size_gb": 0.012}, 1, "tiny",
    )  # fmt: skip
    pattern = cleanup_body(hadoop_fs).split("-skipTrash ", 1)[1].split()[0].strip("'")
    through_webhdfs = cleanup_body(ctx).split("/webhdfs/v1", 1)[1].split()[0].strip("'")
    for path in (pattern, urllib.parse.unquote(through_webhdfs)):
        assert path.startswith("/benchcamp/hibench_dse/") and path.rstrip("/") != "/benchcamp/hibench_dse"
        assert posixpath.normpath(path) == path


def test_each_try_of_a_step_has_its_own_folder_and_the_latest_is_the_highest_number(tmp_path: Path) -> None:
    """The one helper every step (and the benchmarks) archives under: `<rep>/<step>/try<N>`."""
    assert archive.step_dir(tmp_path, "execute", 3) == tmp_path / "execute" / "try3"
    for number in (10, 2, 1):
        archive.step_dir(tmp_path, "execute", number).mkdir(parents=True)
        (archive.step_dir(tmp_path, "execute", number) / "meta.json").write_text("{}")
    archive.step_dir(tmp_path, "execute", 11).mkdir()  # started, never wrote its meta.json
    assert archive.step_tries(tmp_path, "execute") == [tmp_path / "execute" / f"try{n}" for n in (1, 2, 10)]
    assert archive.step_tries(tmp_path, "generate") == []


def test_a_symbolic_link_in_the_archive_cannot_redirect_a_campaign_folder(tmp_path: Path) -> None:
    (tmp_path / "hibench_dse").mkdir()
    (tmp_path / "hibench_dse" / "c1").symlink_to(tmp_path.parent)
    with pytest.raises(UnsafePathName, match="resolves outside"):
        archive.campaign_dir("hibench_dse", "c1", tmp_path)


@pytest.mark.parametrize("run_id", ["..", ".", "_x", ".hidden"])
def test_a_run_id_that_could_leave_its_folder_names_a_safe_campaign(run_id: str) -> None:
    name = resolve_campaign({}, run_id)
    assert name.startswith("run_") and "/" not in name


def test_a_study_that_generates_once_per_cell_is_refused_for_workloads_that_cannot() -> None:
    """`regenerate_data: false` is never silently ignored: a workload that regenerates its
    repetition's data in place (Hive tables over it, TestDFSIO read's write, YCSB's load) refuses it."""
    once = SPEC.model_copy(update={"regenerate_data": False})
    check_conf(once, {"ladder": "tiny", "workloads": ["wordcount", "dfsio_write"]})
    with pytest.raises(
        CampaignConfError, match=r"regenerate_data: false\), which dfsio_read, hive_join cannot"
    ):
        check_conf(once, {"ladder": "tiny", "workloads": ["wordcount", "dfsio_read", "hive_join"]})


def test_generated_input_is_the_repetitions_data_or_the_cells_kept_input() -> None:
    unit = {"study": "hibench_dse", "campaign": "c1", "environment": "local_lab", "workload": "wordcount",
            "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, "repetition": 2, "ladder": "tiny"}  # fmt: skip
    ctx = context_for(unit)
    assert 'export INPUT="$DATA"' in ssh.prologue(ctx, "generate", 1)
    once = RunContext(SPEC.model_copy(update={"regenerate_data": False}), ctx.environment, "c1", "wordcount",
                      ctx.params, 2, "tiny")  # fmt: skip
    assert (
        "export INPUT=/benchcamp/hibench_dse/c1/wordcount_data_size_gb=0.012_maps=4_reduces=2/input"
        in ssh.prologue(once, "generate", 1)
    )
    execute = render(get_workload("wordcount").execute(once)[0])
    assert '"$INPUT"/input "$DATA"/output' in execute


def test_a_study_that_reformats_storage_needs_the_targets_reformat_command(tmp_path: Path) -> None:
    reformatting = SPEC.model_copy(update={"reformat_storage": True})
    with pytest.raises(CampaignConfError, match="environment 'local_lab' has no reformat_command"):
        check_conf(reformatting, {"ladder": "tiny"})
    marker = tmp_path / "formatted"
    environment = _no_webhdfs().replace(reformat_command=f"touch {marker}")
    ctx = RunContext(reformatting, environment, "c1", "wordcount", {"data_size_gb": 0.012}, 1, "tiny")
    done = _run_body(preflight_body(ctx, 1), _fake_hadoop(tmp_path / "ok", df_available=10**12))
    assert done.returncode == 0 and marker.exists(), done.stderr
    assert "storage_reformatted_at=20" in done.stdout
    broken = environment.replace(reformat_command="echo formatting; exit 3")
    ctx = RunContext(reformatting, broken, "c1", "wordcount", {"data_size_gb": 0.012}, 1, "tiny")
    failed = _run_body(preflight_body(ctx, 1), _fake_hadoop(tmp_path / "bad", df_available=10**12))
    assert failed.returncode == 8 and "reformat_command failed (exit 3)" in failed.stderr
    assert "storage_reformatted_at" not in failed.stdout
    # a study without reformat_storage never runs the command
    plain = RunContext(SPEC, environment, "c1", "wordcount", {"data_size_gb": 0.012}, 1, "tiny")
    assert str(marker) not in preflight_body(plain, 1)


def test_with_regenerate_data_false_the_first_repetition_generates_and_the_next_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One SSH generate per cell and target (the recorded RandomTextWriter output verifies it); the
    next repetitions archive which one generated their input; the preflight forgets it again."""
    import shutil
    from datetime import UTC, datetime

    from benchcamp.pipeline.campaign.plan import context_for, rep_dir_for
    from benchcamp.pipeline.campaign.steps import _latest_step_status, forget_shared_inputs, run_generate
    from benchcamp.workloads.base import ArchivedStep

    monkeypatch.setenv("BENCHCAMP_RESULTS", str(tmp_path / "results"))
    once = SPEC.model_copy(update={"regenerate_data": False})
    monkeypatch.setattr("benchcamp.pipeline.campaign.plan.load_spec", lambda study: once)
    bodies: list[str] = []

    def generate_on_target(
        ctx: RunContext, conn: str, step: str, body: str, archive_dir: Path, *a, **k
    ) -> ArchivedStep:  # type: ignore[no-untyped-def]
        bodies.append(body)
        archive_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(
            Path(__file__).parents[1] / "data/hadoop/randomtextwriter_0.012.stderr.log",
            archive_dir / "stderr.log",
        )
        (archive_dir / "meta.json").write_text('{"exit_code": 0}')
        now = datetime.now(UTC)
        return ArchivedStep(directory=archive_dir, exit_code=0, started_at=now, finished_at=now)

    monkeypatch.setattr(ssh, "run_step", generate_on_target)
    units = [
        {"study": "hibench_dse", "campaign": "c1", "environment": "local_lab", "workload": "wordcount",
         "params": {"data_size_gb": 0.012, "maps": 4, "reduces": 2}, "repetition": rep, "ladder": "tiny"}
        for rep in (1, 2, 3)
    ]  # fmt: skip
    first = run_generate(units[0])
    assert len(bodies) == 1 and '-skipTrash "$INPUT"' in bodies[0]  # a crashed run's input goes first
    for unit in units[1:]:
        assert run_generate(unit) == f"input generated once for the cell (regenerate_data: false) by {first}"
        rep_dir = rep_dir_for(context_for(unit))
        assert _latest_step_status(rep_dir, "generate")[0] == 0
        meta = json.loads((rep_dir / "generate" / "try1" / "meta.json").read_text())
        assert meta["reused_input_of"] == first and meta["duration_s"] == 0.0
    assert len(bodies) == 1
    monkeypatch.setattr(
        "benchcamp.pipeline.campaign.target._uses_data_fs", lambda units: False
    )  # the preflight's own SSH step
    forget_shared_inputs(context_for(units[0]))
    run_generate(units[1])
    assert len(bodies) == 2, "a forgotten input is generated again"


def test_controller_setup_runs_here_archive_first_and_fails_naming_its_output(tmp_path: Path) -> None:
    """An environment's controller_setup (e.g. the lab's container brought up before the preflight
    reaches it): argv without a shell, a relative program is the project's, output archived."""
    from benchcamp.pipeline.campaign.target import ControllerSetupFailed, run_controller_setup

    step = run_controller_setup(("bash", "-c", 'echo "up $1"; echo note >&2', "-", "a b;c"), tmp_path / "ok")
    assert step.exit_code == 0 and step.text("stdout.log") == "up a b;c\n"
    assert step.text("stderr.log") == "note\n" and (tmp_path / "ok" / "status").read_text().startswith("0 ")
    assert json.loads((tmp_path / "ok" / "command.json").read_text())[1:] == [
        "-c",
        'echo "up $1"; echo note >&2',
        "-",
        "a b;c",
    ]
    with pytest.raises(ControllerSetupFailed, match=r"exited 3; raw output archived in .*failed\n.*broken"):
        run_controller_setup(("bash", "-c", "echo broken >&2; exit 3"), tmp_path / "failed")
    assert (tmp_path / "failed" / "stderr.log").read_text() == "broken\n"
    with pytest.raises(ControllerSetupFailed, match=r"no-such-tool up' exited 127(.|\n)*No such file"):
        run_controller_setup(("lab/bin/no-such-tool", "up"), tmp_path / "missing")


def test_a_tables_location_is_read_from_describe_formatted() -> None:
    """On DESCRIBE FORMATTED's rows as the lab's HiveServer2 4.0.1 returned them for an external
    HiveBench table (tests/data/hive/describe_formatted_external.json): the path without
    `hdfs://host:port`, which the preflight matches against the study's data root."""
    rows = json.loads(
        (Path(__file__).parents[1] / "data" / "hive" / "describe_formatted_external.json").read_text()
    )
    assert (
        table_location(rows)
        == "/benchcamp/rec_study/killed/hive_aggregation_data_size_gb=0.012/rep1/uservisits"
    )
    assert table_location([row for row in rows if "Location" not in str(row[0])]) == ""


@pytest.mark.parametrize("workload", ["hive_aggregation", "hive_join"])
def test_the_preflight_recognises_every_table_hivebench_names(workload: str) -> None:
    import re

    from benchcamp.workloads.hivebench import table_name

    ctx = RunContext(SPEC, SPEC.environment("local_lab"), "c1", workload, {"data_size_gb": 0.012}, 3, "tiny")
    hivebench = get_workload(workload)
    names = [statement.sql.split()[-1] for statement in hivebench.hive_clean(ctx)]
    assert names and all(re.fullmatch(hivebench.hive_table_pattern or "", name) for name in names)
    assert table_name(ctx, "rankings") in names or workload == "hive_aggregation"
    assert not re.fullmatch(hivebench.hive_table_pattern or "", "bc_orders")  # a user's table


@pytest.mark.parametrize(
    ("study", "cell"),
    [
        ("hibench_dse", "hive_aggregation|data_size_gb=0.012"),
        ("bigbench_containers", None),
    ],
)
def test_a_data_root_hive_cannot_quote_is_refused_before_anything_runs(study: str, cell: str | None) -> None:
    """The Hive workloads' tables (HiveBench) and run databases (BigBench) are LOCATIONs under the
    data root, written as HiveQL literals: a data root with a quote was refused only when the
    tables were made, after the campaign had generated their data (hours at paper size)."""
    from benchcamp.core.spec import parse_spec, spec_files

    path = next(file for file in spec_files() if file.parent.name == study)
    text = re.sub(r"data_root: (\S+)", 'data_root: "\\1/o\'neil"', path.read_text(encoding="utf-8"))
    spec = parse_spec(text, str(path), study)
    hive_workloads = [name for name in spec.workloads if name.startswith(("hive_", "bigbench_load"))]
    conf = {"ladder": "tiny", "workloads": hive_workloads, **({"cells": [cell]} if cell else {})}
    with pytest.raises(CampaignConfError, match=r"cannot run: .*o'neil"):
        check_conf(spec, conf)
