"""The parsed dbt project is reused across warehouses only when it is what a parse would give."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from benchcamp.pipeline import transform


def _comparable(manifest: Any) -> dict[str, Any]:
    """Every node, source and unit test as dbt writes them, without their creation times."""
    written = manifest.writable_manifest().to_dict()
    nodes: dict[str, Any] = {}
    for kind in ("nodes", "sources", "unit_tests"):
        for unique_id, node in written[kind].items():
            nodes[unique_id] = {key: value for key, value in node.items() if key != "created_at"}
    return nodes


def test_a_new_warehouse_gets_exactly_what_its_own_parse_gives(tmp_path: Path) -> None:
    transform.parsed_manifest(tmp_path / "first.duckdb")  # parsed, or recalled from the cache
    recalled = transform.parsed_manifest(tmp_path / "second_one.duckdb")
    fresh = transform._invoke(["parse"], tmp_path / "second_one.duckdb", tmp_path / "scratch").result
    assert _comparable(recalled) == _comparable(fresh)
    scaling = recalled.nodes["model.benchcamp.scaling"]
    assert (scaling.database, scaling.relation_name) == ("second_one", '"second_one"."main"."scaling"')


def test_the_cache_key_follows_every_project_file_but_not_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "dbt_project"
    shutil.copytree(transform.project_dir(), project, ignore=shutil.ignore_patterns("target", "logs"))
    monkeypatch.setattr(transform, "project_dir", lambda: project)
    before = transform._project_digest()
    (project / "studies" / "__pycache__").mkdir(exist_ok=True)
    (project / "studies" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert transform._project_digest() == before
    scaling = next(project.rglob("scaling.sql"))
    scaling.write_text(scaling.read_text() + "\n-- an edit\n")
    assert transform._project_digest() != before


def test_a_damaged_cache_file_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transform, "_PARSED", {})
    digest = transform._project_digest()
    monkeypatch.setattr(transform, "_cache_file", lambda _: tmp_path / "cache" / "damaged.msgpack")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "damaged.msgpack").write_bytes(b"benchcamp\nnot msgpack")
    manifest = transform.parsed_manifest(tmp_path / "w.duckdb")
    assert manifest.nodes["model.benchcamp.scaling"].database == "w"
    assert transform._PARSED[digest][0] == "w"  # the new parse replaced it


def test_a_load_rebuilds_the_marts_of_every_study_that_declares_one_of_its_workloads() -> None:
    """A study's marts filter rows by workload: one that shares a workload with the loaded study
    reads its new records and is rebuilt; one that shares none is left as it was."""
    from benchcamp.pipeline.transform import affected_studies

    specs = {"a": {"w1", "w2"}, "b": {"w3"}, "c": {"w2", "w4"}, "d": {"w4"}}
    assert affected_studies(["a"], specs) == ["a", "c"]
    assert affected_studies(["b"], specs) == ["b"]
    assert affected_studies(["b", "d"], specs) == ["b", "c", "d"]
    assert affected_studies(["unknown"], specs) == []


def test_a_build_selects_only_after_a_whole_build_of_the_same_project_and_no_failure_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No selection on a new warehouse, after another version of the project was built, or when
    a build failed since the last whole one (it may have left any mart half-built)."""
    from datetime import UTC, datetime

    from benchcamp.pipeline import transform
    from benchcamp.pipeline.warehouse import connect, record_build

    monkeypatch.setattr(transform, "_build_digest", lambda project: "v2")
    warehouse = tmp_path / "w.duckdb"
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) is None  # no warehouse
    connect(warehouse).close()
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) is None  # no build
    record_build(warehouse, datetime.now(UTC), True, "test", [], [], "v1", None)
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) is None  # another project
    record_build(warehouse, datetime.now(UTC), True, "test", [], [], "v2", None)
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) == "path:models path:studies/hibench_dse"
    record_build(warehouse, datetime.now(UTC), True, "test", [], [], "v2", "path:models path:studies/x")
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) == "path:models path:studies/hibench_dse"
    record_build(warehouse, datetime.now(UTC), False, "test", [], ["model.x: error"], "v2", "path:models")
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) is None  # failed since
    record_build(warehouse, datetime.now(UTC), True, "test", [], [], "v2", None)
    assert transform.loaded_selection(warehouse, ["hibench_dse"]) is not None


def test_the_build_state_follows_the_modules_the_python_models_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study's marts are left as built only while what they are computed from is unchanged:
    the project and the benchcamp modules its Python models import (not any other module)."""
    project = tmp_path / "dbt_project"
    (project / "models").mkdir(parents=True)
    (project / "models" / "m.py").write_text(
        "from benchcamp.pipeline.used import f\n\ndef model(dbt, s): ...\n"
    )
    (tmp_path / "include" / "benchcamp" / "pipeline").mkdir(parents=True)
    used, unused = (
        tmp_path / "include" / "benchcamp" / "pipeline" / name for name in ("used.py", "other.py")
    )
    used.write_text("def f(): return 1\n")
    unused.write_text("def g(): return 1\n")
    monkeypatch.setattr(transform, "project_dir", lambda: project)
    before = transform._build_digest("project")
    unused.write_text("def g(): return 2\n")
    assert transform._build_digest("project") == before
    used.write_text("def f(): return 2\n")
    assert transform._build_digest("project") != before
    assert transform._build_digest("another project") != transform._build_digest("project")
