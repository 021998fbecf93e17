"""The BigBench study's lab container (container_lab.py): its pure parts, no container started.

The podman command line, the recipe digest, facts parsing (cgroup v1 and v2 files, podman and
runc versions, dpkg's package list), the Airflow connections, and the generic hook that merges a
study's lab connections into the lab's own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchcamp.core import study as study_module
from benchcamp.core.study import Study
from benchcamp.ops import lab
from benchcamp.studies.bigbench_containers import container_lab as c

V1_FILES = """==> /proc/self/cgroup <==
4:memory:/libpod_parent/libpod-0123
==> /sys/fs/cgroup/memory/memory.limit_in_bytes <==
3221225472
==> /sys/fs/cgroup/memory/memory.usage_in_bytes <==
1010827264
==> /sys/fs/cgroup/memory/memory.max_usage_in_bytes <==
1337982976
==> /sys/fs/cgroup/cpu/cpu.cfs_quota_us <==
-1
==> /sys/fs/cgroup/cpu/cpu.cfs_period_us <==
100000
"""
V2_FILES = """==> /proc/self/cgroup <==
0::/
==> /sys/fs/cgroup/memory.max <==
2147483648
==> /sys/fs/cgroup/memory.current <==
52428800
==> /sys/fs/cgroup/memory.peak <==
62914560
==> /sys/fs/cgroup/cpu.max <==
150000 100000
"""


def test_cgroup_v1_limits_are_read_in_bytes_and_millicores() -> None:
    assert c.parse_cgroup_limits(V1_FILES) == {
        "cgroup_version": 1,
        "memory_limit_bytes": 3 * 2**30,
        "memory_usage_bytes": 1010827264,
        "memory_peak_bytes": 1337982976,
        "cpu_quota_millicores": 0,  # -1: no quota
    }


def test_cgroup_v1_without_a_limit_says_zero() -> None:
    unlimited = V1_FILES.replace("3221225472", "9223372036854771712")
    assert c.parse_cgroup_limits(unlimited)["memory_limit_bytes"] == 0


def test_cgroup_v2_limits_and_cpu_quota() -> None:
    limits = c.parse_cgroup_limits(V2_FILES)
    assert limits == {
        "cgroup_version": 2,
        "memory_limit_bytes": 2 * 2**30,
        "memory_usage_bytes": 50 * 2**20,
        "memory_peak_bytes": 60 * 2**20,
        "cpu_quota_millicores": 1500,
    }
    no_limits = V2_FILES.replace("2147483648", "max").replace("150000 100000", "max 100000")
    assert c.parse_cgroup_limits(no_limits)["memory_limit_bytes"] == 0
    assert c.parse_cgroup_limits(no_limits)["cpu_quota_millicores"] == 0


def test_runtime_versions_are_parsed() -> None:
    text = json.dumps({"Client": {"Version": "4.3.1", "GoVersion": "go1.19.8"}})
    assert c.parse_podman_version(text) == {"version": "4.3.1", "go": "go1.19.8"}
    runc = "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev\n"
    assert c.parse_runc_version(runc) == "1.1.5+ds1"


def test_packages_digest_covers_installed_packages_only_in_any_order() -> None:
    status = (
        "Package: zlib1g\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1:1.2.13\n\n"
        "Package: socat\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.7.4.4-2\n"
        "Description: relay\n multi-line description\n\n"
        "Package: gone\nStatus: deinstall ok config-files\nArchitecture: amd64\nVersion: 1\n"
    )
    digest, count = c.packages_digest(status)
    assert count == 2
    reordered = "\n\n".join(reversed(status.strip().split("\n\n")))
    assert c.packages_digest(reordered) == (digest, 2)
    assert c.packages_digest(status.replace("1.7.4.4-2", "1.7.4.4-3"))[0] != digest


def test_recipe_digest_follows_the_recipe_file() -> None:
    recipe = c.recipe_file().read_bytes()
    assert c.recipe_digest() == c.recipe_digest(recipe)
    assert c.recipe_digest(recipe + b"\n# one more package\n") != c.recipe_digest()
    assert b"mmdebstrap" in recipe and b"openjdk-17-jre-headless" in recipe and b"bookworm" in recipe


def test_rootfs_is_current_only_when_built_from_this_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(c, "rootfs_dir", lambda: tmp_path / "rootfs")
    monkeypatch.setattr(c, "rootfs_meta_file", lambda: tmp_path / "rootfs.json")
    assert not c.rootfs_current()
    (tmp_path / "rootfs" / "usr" / "bin").mkdir(parents=True)
    (tmp_path / "rootfs.json").write_text(json.dumps({"recipe_sha256": "an older recipe"}))
    assert not c.rootfs_current()
    (tmp_path / "rootfs.json").write_text(json.dumps({"recipe_sha256": c.recipe_digest()}))
    assert c.rootfs_current()


def test_run_arguments_isolate_the_container(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.delenv("BENCHCAMP_CONTAINER_INSIDE", raising=False)
    arguments = c.run_arguments("2g")
    joined = " ".join(arguments)
    assert arguments[:2] == ["run", "--detach"]
    assert f"--network {c.NETWORK} --ip {c.CONTAINER_ADDRESS}" in joined
    assert "--memory 2g --memory-swap 2g" in joined and "--runtime runc" in joined
    root = Path(__file__).resolve().parents[3]
    assert f"--volume {root}:{root}:ro" in joined  # the checkout (jars, venv) read-only
    state = tmp_path / "lab" / "bigbench-container"
    assert f"--volume {state}:{state}:rw" in joined  # the only writable mount
    assert f"BENCHCAMP_LAB_DIR={state}" in arguments and "BENCHCAMP_LAB_YARN=0" in arguments
    rootfs = arguments.index("--rootfs")
    assert arguments[rootfs + 1] == f"{c.rootfs_dir()}:O"  # overlay: the cached tree never changes
    assert arguments[-2:] == ["benchcamp.studies.bigbench_containers.container_lab", "inside"]


def test_state_dir_is_the_lab_dir_inside_the_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.delenv("BENCHCAMP_CONTAINER_INSIDE", raising=False)
    assert c.state_dir() == tmp_path / "bigbench-container"
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path / "bigbench-container"))
    monkeypatch.setenv("BENCHCAMP_CONTAINER_INSIDE", "1")
    assert c.state_dir() == tmp_path / "bigbench-container"


def test_containers_conf_uses_runc_and_limits_this_host_grants() -> None:
    import resource

    text = c.containers_conf_text()
    assert 'runtime = "runc"' in text
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if nofile != resource.RLIM_INFINITY:
        assert f'"nofile={nofile}:{nofile}"' in text
    assert "nproc=" in text


def test_forwarders_expose_ssh_and_hive_on_the_container_address() -> None:
    commands = c.forwarder_commands("10.232.14.2")
    assert [command[1] for command in commands] == [
        "TCP-LISTEN:2222,bind=10.232.14.2,fork,reuseaddr",
        "TCP-LISTEN:10000,bind=10.232.14.2,fork,reuseaddr",
    ]
    assert [command[2] for command in commands] == ["TCP:127.0.0.1:2222", "TCP:127.0.0.1:10000"]


def test_connections_pin_the_container_host_key(tmp_path: Path) -> None:
    (tmp_path / "ssh").mkdir()
    for key in ("host_ed25519", "client_ed25519"):  # the container made them: kept as they are
        (tmp_path / "ssh" / key).write_text("private\n")
    (tmp_path / "ssh" / "host_ed25519.pub").write_text(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample root@x\n"
    )
    connections = c.lab_connections(tmp_path)
    assert set(connections) == {
        "AIRFLOW_CONN_BENCHCAMP_CONTAINER_SSH",
        "AIRFLOW_CONN_BENCHCAMP_CONTAINER_HIVE",
    }
    ssh = json.loads(connections["AIRFLOW_CONN_BENCHCAMP_CONTAINER_SSH"])
    assert (ssh["conn_type"], ssh["host"], ssh["port"], ssh["login"]) == (
        "ssh",
        c.CONTAINER_ADDRESS,
        2222,
        "root",
    )
    assert ssh["extra"]["host_key"] == "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample"
    assert ssh["extra"]["no_host_key_check"] == "false"
    assert ssh["extra"]["key_file"] == str(tmp_path / "ssh" / "client_ed25519")
    hive = json.loads(connections["AIRFLOW_CONN_BENCHCAMP_CONTAINER_HIVE"])
    assert (hive["conn_type"], hive["host"], hive["port"]) == ("hiveserver2", c.CONTAINER_ADDRESS, 10000)
    assert hive["extra"] == {"auth_mechanism": "NONE"}


def test_connections_before_the_first_start_pin_the_key_the_container_will_use(tmp_path: Path) -> None:
    """A campaign builds its connections before its preflight starts the container: the keys
    are made then, and the container's sshd (the bare lab's `_start_sshd`) keeps them."""
    ssh = json.loads(c.lab_connections(tmp_path)["AIRFLOW_CONN_BENCHCAMP_CONTAINER_SSH"])
    public = (tmp_path / "ssh" / "host_ed25519.pub").read_text()
    assert ssh["extra"]["host_key"] == " ".join(public.split()[:2]) and public.startswith("ssh-ed25519 ")
    assert ssh["extra"]["no_host_key_check"] == "false"
    assert Path(ssh["extra"]["key_file"]).is_file()
    again = json.loads(c.lab_connections(tmp_path)["AIRFLOW_CONN_BENCHCAMP_CONTAINER_SSH"])
    assert again["extra"]["host_key"] == ssh["extra"]["host_key"]  # made once, not again


def test_the_lab_merges_study_connections_and_keeps_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generic hook: Study.lab_connections joins airflow_connection_env; the lab's own win a clash."""
    own = "AIRFLOW_CONN_BENCHCAMP_LAB_SSH"
    plugins = [
        Study("a_study", lab_connections=lambda: {"AIRFLOW_CONN_X_SSH": "{}", own: '{"host": "elsewhere"}'}),
        Study("another"),
    ]
    monkeypatch.setattr(study_module, "study_plugins", lambda: plugins)
    connections = lab.airflow_connection_env()
    assert connections["AIRFLOW_CONN_X_SSH"] == "{}"
    assert json.loads(connections[own])["host"] == "127.0.0.1"
    assert study_module.study_lab_connections() == plugins[0].lab_connections()  # type: ignore[misc]


def test_memory_sizes_as_podman_reads_them() -> None:
    assert [c.memory_bytes(text) for text in ("3g", "512M", "1024k", "4096")] == [
        3 * 2**30,
        2**29,
        2**20,
        4096,
    ]
    with pytest.raises(lab.LabError, match="not a memory size"):
        c.memory_bytes("3 GB")


def test_exec_argv_runs_in_the_container_from_its_work_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHCAMP_LAB_DIR", str(tmp_path))
    monkeypatch.delenv("BENCHCAMP_CONTAINER_INSIDE", raising=False)
    argv = c.exec_argv(["java", "-version"])
    assert argv == [
        "podman",
        "exec",
        "--workdir",
        str(tmp_path / "bigbench-container" / "work"),
        c.CONTAINER_NAME,
        "java",
        "-version",
    ]


def test_cat_blocks_keep_each_file_apart() -> None:
    blocks = c.parse_cat_blocks("==> /a <==\n1\n2\n==> /b <==\n\n")
    assert blocks == {"/a": "1\n2", "/b": ""}
