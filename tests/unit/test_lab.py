"""The lab's generated configuration (no services started here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchcamp import lab


def test_sshd_config_binds_loopback_keys_only_and_sets_the_target_env(tmp_path: Path) -> None:
    text = lab.sshd_config_text(tmp_path, 2299, {"PATH": "/x/bin:/usr/bin", "BENCHCAMP_WORK_DIR": "/w"})
    lines = text.splitlines()
    assert "ListenAddress 127.0.0.1" in lines and "Port 2299" in lines
    assert "PasswordAuthentication no" in lines and "KbdInteractiveAuthentication no" in lines
    assert f"HostKey {tmp_path / 'ssh' / 'host_ed25519'}" in lines
    assert 'SetEnv "PATH=/x/bin:/usr/bin" "BENCHCAMP_WORK_DIR=/w"' in lines


def test_connection_pins_the_host_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.setenv("BENCHCAMP_LAB_SSH_PORT", "2299")
    (tmp_path / "ssh").mkdir()
    (tmp_path / "ssh" / "host_ed25519.pub").write_text(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample benchcamp-lab\n"
    )
    ((name, value),) = lab.airflow_connection_env().items()
    assert name == "AIRFLOW_CONN_BENCHCAMP_LAB_SSH"
    connection = json.loads(value)
    assert connection["host"] == "127.0.0.1" and connection["port"] == 2299
    assert connection["extra"]["host_key"] == "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample"
    assert connection["extra"]["no_host_key_check"] == "false"
    assert connection["extra"]["key_file"] == str(tmp_path / "ssh" / "client_ed25519")


def test_target_env_puts_the_lab_hadoop_first() -> None:
    env = lab.target_shell_env()
    assert env["PATH"].split(":")[0].endswith("lab/bin")
    assert env["HADOOP_CONF_DIR"].endswith("lab/hadoop/conf")
