"""The real-cluster walkthrough (docs/operations/real-cluster.md) is the one the lab cluster's
integration test executes: its connection definitions are the lab's, character for character once
the shell has filled in the host key, and its environment is hibench_dse's `lab_cluster`."""

from __future__ import annotations

import getpass
import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from benchcamp.core.paths import repo_root
from benchcamp.ops.lab import config, layout

PAGE = repo_root() / "docs" / "operations" / "real-cluster.md"
SPEC = repo_root() / "include" / "benchcamp" / "studies" / "hibench_dse" / "spec.yaml"
HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExampleExampleExampleExample"


def _block(language: str) -> str:
    """The walkthrough's first fenced block in `language`."""
    walkthrough = PAGE.read_text(encoding="utf-8").split("## Every key")[0]
    match = re.search(rf"```{language}\n(.*?)```", walkthrough, re.S)
    assert match, f"{PAGE}: no {language} block in the walkthrough"
    return match.group(1)


def _exports() -> dict[str, dict[str, object]]:
    """The block's `export NAME='json'` lines as the shell reads them, $KEY being HOST_KEY."""
    found = {}
    for line in _block("sh").splitlines():
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            (word,) = shlex.split(value.replace('"$KEY"', HOST_KEY.replace(" ", "\\ ")))
            found[name] = json.loads(word)
    return found


def test_the_connections_are_the_ones_benchcamp_run_defines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    gateway_key = tmp_path / "cluster" / "gateway" / "ssh" / "host_ed25519.pub"
    gateway_key.parent.mkdir(parents=True)
    gateway_key.write_text(HOST_KEY + " benchcamp-lab\n")
    exports = _exports()
    assert set(exports) == {
        f"AIRFLOW_CONN_{layout.CLUSTER_CONNECTION_ID.upper()}",
        f"AIRFLOW_CONN_{layout.CLUSTER_HIVE_CONNECTION_ID.upper()}",
    }
    ssh = exports[f"AIRFLOW_CONN_{layout.CLUSTER_CONNECTION_ID.upper()}"]
    extra = ssh["extra"]
    assert isinstance(extra, dict)
    # the page's paths are relative to the checkout, its login the user the lab runs as
    extra["key_file"] = str(tmp_path / Path(str(extra["key_file"])).relative_to(".lab"))
    ssh["login"] = getpass.getuser()
    assert ssh == config.cluster_ssh_connection()
    hive = exports[f"AIRFLOW_CONN_{layout.CLUSTER_HIVE_CONNECTION_ID.upper()}"] | {"login": getpass.getuser()}
    assert hive == config.cluster_hive_connection()


def test_the_environment_is_the_studys_lab_cluster() -> None:
    (shown,) = yaml.safe_load(_block("yaml"))
    (entry,) = [
        each for each in yaml.safe_load(SPEC.read_text())["environments"] if each["name"] == "lab_cluster"
    ]
    entry.pop("description")
    assert shown == entry
