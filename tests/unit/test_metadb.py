"""The stack's PostgreSQL metadata database, started for real in a scratch Airflow home."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import psutil
import pytest
from benchcamp.ops import metadb
from benchcamp.ops.supervisor import alive


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "airflow"))
    return tmp_path / "airflow"


def test_it_initialises_starts_answers_and_stops_leaving_no_process(home: Path) -> None:
    pid = metadb.start(timeout_s=60)
    try:
        assert metadb.initialised() and (home / "metadb" / "PG_VERSION").exists()
        assert (home / "run" / "metadb.pid").read_text() == f"{pid}\n"
        assert metadb.start() == pid  # idempotent: the running server is kept
        connection = metadb._connect(metadb.DATABASE)  # noqa: SLF001 (the database Airflow uses exists)
        try:
            with connection.cursor() as cursor:
                cursor.execute("select current_user, current_database(), current_setting('listen_addresses')")
                assert cursor.fetchone() == ("airflow", "airflow", "")  # a socket only, no TCP port
        finally:
            connection.close()
        socket = metadb.socket_dir() / metadb.SOCKET_NAME
        assert socket.is_socket() and oct(socket.stat().st_mode & 0o777) == "0o700"
        assert metadb.url() == f"postgresql+psycopg2://airflow@/airflow?host={metadb.socket_dir()}"
        workers = psutil.Process(pid).children()
        assert workers  # the postmaster's checkpointer, writer, ...
    finally:
        metadb.stop()
    assert not alive(pid) and not any(alive(worker.pid) for worker in workers)
    assert metadb.supervised().pid() is None and not metadb.ready()


def test_data_survive_a_restart(home: Path) -> None:
    metadb.start(timeout_s=60)
    try:
        connection = metadb._connect(metadb.DATABASE)  # noqa: SLF001
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("create table kept (value int); insert into kept values (42)")
        connection.close()
    finally:
        metadb.stop()
    metadb.start(timeout_s=60)
    try:
        connection = metadb._connect(metadb.DATABASE)  # noqa: SLF001
        with connection.cursor() as cursor:
            cursor.execute("select value from kept")
            assert cursor.fetchall() == [(42,)]
        connection.close()
    finally:
        metadb.stop()


def test_a_home_too_long_for_a_socket_path_gets_a_short_socket_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_HOME", "/srv/airflow")
    assert metadb.socket_dir() == Path("/srv/airflow/run")
    monkeypatch.setenv("AIRFLOW_HOME", "/srv/" + "d" * 120)
    chosen = metadb.socket_dir()
    assert chosen.parent == Path(tempfile.gettempdir()) and len(str(chosen / metadb.SOCKET_NAME)) <= 100
    monkeypatch.setenv("AIRFLOW_HOME", "/srv/" + "e" * 120)
    assert metadb.socket_dir() != chosen  # one per home


def test_as_root_it_runs_in_a_user_namespace_as_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    command = metadb._unprivileged(["postgres", "-D", "x"])  # noqa: SLF001
    assert command[:2] == ["unshare", "--user"] and command[-3:] == ["postgres", "-D", "x"]
    assert "--map-user=65534" in command
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert metadb._unprivileged(["postgres"]) == ["postgres"]  # noqa: SLF001


def test_a_server_that_cannot_start_fails_naming_its_log(home: Path) -> None:
    metadb.initialise()
    (home / "metadb" / "postgresql.conf").write_text("shared_buffers = 'nonsense'\n")
    with pytest.raises(metadb.MetadbError, match=str(home / "logs" / "metadb.log")):
        metadb.start(timeout_s=20)
    assert "shared_buffers" in (home / "logs" / "metadb.log").read_text()
