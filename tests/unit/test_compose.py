"""docker-compose.yaml, the deployment for machines with a Docker engine, checked without one.

There is no Docker engine here, so the file is validated for what breaks a `docker compose up`
silently or dangerously: paths that do not exist, commands Airflow does not have, floating
images, secrets with defaults, the UI open beyond 127.0.0.1, components with different secrets.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
AIRFLOW_SERVICES = (
    "airflow-init",
    "airflow-apiserver",
    "airflow-scheduler",
    "airflow-dag-processor",
    "airflow-triggerer",
)
SECRETS = ("POSTGRES_PASSWORD", "BENCHCAMP_ADMIN_PASSWORD", "AIRFLOW_JWT_SECRET", "AIRFLOW_API_SECRET_KEY")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "docker-compose.yaml").read_text()))


def _airflow_command_paths() -> set[tuple[str, ...]]:
    """Every `airflow <command> [<subcommand>]` that Airflow's own CLI parser knows."""
    from airflow.cli.cli_parser import airflow_commands

    paths: set[tuple[str, ...]] = set()
    for command in airflow_commands:
        paths.add((command.name,))
        for sub in getattr(command, "subcommands", ()):
            paths.add((command.name, sub.name))
    return paths


def _airflow_invocations(service: dict[str, Any]) -> list[list[str]]:
    """The Airflow command lines a service runs: its command (entrypoint airflow) or `airflow …` in scripts."""
    command = service.get("command")
    invocations: list[list[str]] = []
    texts: list[str] = []
    if isinstance(command, str) and not service.get("entrypoint"):
        invocations.append(command.split())  # the image's entrypoint runs `airflow <command>`
    elif isinstance(command, list):
        texts.extend(str(part) for part in command)
    health = service.get("healthcheck", {}).get("test", [])
    texts.extend(str(part) for part in (health if isinstance(health, list) else [health]))
    invocations += [
        match.split() for text in texts for match in re.findall(r"\bairflow ([a-z][a-z -]*)", text)
    ]
    return invocations


def test_the_official_layout_is_there(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"postgres", *AIRFLOW_SERVICES}
    for name in AIRFLOW_SERVICES[1:]:
        service = compose["services"][name]
        assert service["depends_on"]["airflow-init"]["condition"] == "service_completed_successfully"
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert service["healthcheck"]["test"], name
    assert compose["services"]["postgres"]["healthcheck"]["test"]


def test_every_mounted_project_path_exists(compose: dict[str, Any]) -> None:
    named = set(compose.get("volumes") or {})
    mounted = {"dags", "plugins", "include", "dbt_project", "expectations"}
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source, target = volume.split(":")[:2]
            if source.startswith("."):
                assert (ROOT / source).exists(), f"{name} mounts {source}, which is not in the repository"
                mounted.discard(Path(source).name)
            else:
                assert source in named, f"{name} mounts undeclared volume {source}"
    assert not mounted, f"project folders not mounted: {mounted}"
    results = compose["services"]["airflow-scheduler"]["environment"]
    assert results["BENCHCAMP_RESULTS"].startswith("/opt/benchcamp/var/")
    assert results["BENCHCAMP_WAREHOUSE"].startswith("/opt/benchcamp/var/")


def test_every_service_runs_a_real_airflow_command(compose: dict[str, Any]) -> None:
    known = _airflow_command_paths()
    for name in AIRFLOW_SERVICES:
        invocations = _airflow_invocations(compose["services"][name])
        assert invocations, f"{name} runs no Airflow command"
        for words in invocations:
            assert (words[0],) in known, f"{name}: `airflow {words[0]}` is not an Airflow command"
            if len(words) > 1 and any(path[0] == words[0] and len(path) == 2 for path in known):
                assert tuple(words[:2]) in known, f"{name}: `airflow {' '.join(words[:2])}` is not a command"


def test_the_init_script_uses_the_projects_own_pools_command(compose: dict[str, Any]) -> None:
    from benchcamp.cli import build_parser

    script = "\n".join(compose["services"]["airflow-init"]["command"])
    assert "benchcamp pools --output /tmp/pools.json" in script
    assert "airflow pools import /tmp/pools.json" in script
    build_parser().parse_args(["pools", "--output", "/tmp/pools.json"])  # a real benchcamp command


def test_images_are_pinned_and_match_the_locked_airflow(compose: dict[str, Any]) -> None:
    from importlib.metadata import version

    airflow = version("apache-airflow")
    for name, service in compose["services"].items():
        image = service["image"]
        repository, _, tag = image.rpartition(":")
        assert repository and tag and tag != "latest" and re.search(r"\d", tag), (
            f"{name}: {image} is not pinned"
        )
    assert compose["services"]["airflow-apiserver"]["image"] == f"benchcamp-airflow:{airflow}-python3.11"
    dockerfile = (ROOT / "Dockerfile").read_text()
    (base,) = re.findall(r"^FROM (\S+)", dockerfile, flags=re.MULTILINE)
    assert base == f"apache/airflow:{airflow}-python3.11"
    assert "uv export --frozen" in dockerfile  # the locked dependencies, not a fresh resolution


def test_secrets_come_from_the_env_file_and_are_documented(compose: dict[str, Any]) -> None:
    text = (ROOT / "docker-compose.yaml").read_text()
    documented = set(
        re.findall(r"^([A-Z_][A-Z0-9_]*)=", (ROOT / ".env.example").read_text(), flags=re.MULTILINE)
    )
    used = set(re.findall(r"(?<!\$)\$\{([A-Z_][A-Z0-9_]*)", text))
    assert used <= documented, f"undocumented in .env.example: {used - documented}"
    for secret in SECRETS:
        assert re.search(rf"\$\{{{secret}:\?", text), f"{secret} must be required (${{{secret}:?...}})"
        assert not re.search(rf"\$\{{{secret}:-", text), f"{secret} must have no default"
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def test_every_component_shares_one_jwt_secret_and_login(compose: dict[str, Any]) -> None:
    environments = [compose["services"][name]["environment"] for name in AIRFLOW_SERVICES]
    for key in ("AIRFLOW__API_AUTH__JWT_SECRET", "AIRFLOW__API__SECRET_KEY", "AIRFLOW__CORE__AUTH_MANAGER"):
        assert len({env[key] for env in environments}) == 1, key
    assert all(env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS"] == "False" for env in environments)


def test_the_ui_listens_on_loopback_only(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"
    assert compose["services"]["airflow-apiserver"]["ports"]
