"""docker-compose.yaml and the Dockerfile, checked against the repository, Airflow's CLI and its config.

No Docker engine runs on the CI and lab machines, so the deployment is never started here. These
tests catch what would otherwise fail only on a user's machine: a mount of a folder that is not
there, a command or setting Airflow does not have, an unpinned image, a secret written into the
file, a variable `.env.example` does not explain, a layout in which the package cannot find its
dbt project.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from airflow.configuration import conf
from benchcamp.core.paths import repo_root
from benchcamp.ops import cli
from benchcamp.workloads.hivebench import generator_jar

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yaml"
DOCKERFILE = ROOT / "Dockerfile"
ENV_EXAMPLE = ROOT / ".env.example"
AIRFLOW_SERVICES = {
    "airflow-init",
    "airflow-apiserver",
    "airflow-scheduler",
    "airflow-dag-processor",
    "airflow-triggerer",
}
LONG_RUNNING = AIRFLOW_SERVICES - {"airflow-init"}
PROJECT_FOLDERS = ("dags", "plugins", "include", "dbt_project", "expectations")
SECRET_NAME = re.compile(r"(PASSWORD|SECRET|_KEY)$")
SHARED_SETTINGS = (
    "AIRFLOW__API_AUTH__JWT_SECRET",
    "AIRFLOW__API__SECRET_KEY",
    "AIRFLOW__CORE__FERNET_KEY",
    "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN",
)
# `$$` is compose's escaped dollar; `${NAME}`, `${NAME:-default}`, `${NAME:?message}`, `$NAME`.
REFERENCE = re.compile(
    r"\$\$|\$\{(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|\$(?P<bare>[A-Za-z_]\w*)"
)


@dataclass(frozen=True)
class Reference:
    """One variable reference in the compose file: its name, operator (`:-`, `:?`, ...) and argument."""

    name: str
    op: str
    arg: str


def references(text: str) -> list[Reference]:
    found = []
    for match in REFERENCE.finditer(text):
        if match.group(0) != "$$":
            name = match.group("name") or match.group("bare")
            found.append(Reference(name, match.group("op") or "", match.group("arg") or ""))
    return found


def interpolate(text: str, values: Mapping[str, str]) -> str:
    """Compose's substitution: a value from `values`, else the `:-` default; `:?` without one fails."""

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op = match.group("op") or ""
        if values.get(name) or (name in values and not op.startswith(":")):
            return values[name]
        if op.endswith("-"):
            return match.group("arg") or ""
        raise KeyError(f"${{{name}}} has no value: {match.group('arg')}")

    return REFERENCE.sub(substitute, text)


def strings(node: object) -> Iterator[str]:
    """Every string (key or value) of a parsed YAML document: what compose interpolates."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from strings(key)
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return dict(compose["services"])


@pytest.fixture(scope="module")
def airflow_parser() -> argparse.ArgumentParser:
    from airflow.cli.cli_parser import get_parser

    return get_parser()


def environment(service: Mapping[str, Any]) -> dict[str, str]:
    """A service's environment after YAML merge keys, in either of compose's two spellings."""
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        return dict(item.split("=", 1) for item in raw)
    return {str(key): str(value) for key, value in raw.items()}


def command(service: Mapping[str, Any]) -> list[str]:
    raw = service["command"]
    return list(raw) if isinstance(raw, list) else shlex.split(raw)


def volumes(service: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(source, target) of each mount, short (`src:dst[:mode]`) or long syntax."""
    mounts = []
    for entry in service.get("volumes", []):
        if isinstance(entry, dict):
            mounts.append((str(entry["source"]), str(entry["target"])))
        else:
            source, target = entry.split(":")[:2]
            mounts.append((source, target))
    return mounts


def is_bind(source: str) -> bool:
    return source.startswith((".", "/", "~"))


def healthcheck_command(service: Mapping[str, Any]) -> list[str]:
    """The healthcheck as the argv the container runs (CMD) or the shell splits (CMD-SHELL)."""
    test = service["healthcheck"]["test"]
    assert isinstance(test, list) and test[0] in ("CMD", "CMD-SHELL"), test
    if test[0] == "CMD":
        return [interpolate(part, {}) for part in test[1:]]
    return shlex.split(interpolate(test[1], {}))


def parse_airflow(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Airflow's own CLI parser on `argv` (its leading `airflow` dropped); fails the test if refused."""
    if argv[:1] == ["airflow"]:
        argv = argv[1:]
    try:
        return parser.parse_args(argv)
    except SystemExit:
        pytest.fail(
            f"`airflow {shlex.join(argv)}` is not a command Airflow {version('apache-airflow')} accepts"
        )


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with comments dropped and continuation lines joined."""
    joined: list[str] = []
    pending = ""
    for line in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        pending += line.rstrip().removesuffix("\\") + " "
        if not line.rstrip().endswith("\\"):
            joined.append(pending.strip())
            pending = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1]) for text in joined]


def dockerfile_images() -> list[str]:
    """Images the Dockerfile builds from (FROM lines that do not name an earlier stage)."""
    stages: set[str] = set()
    images = []
    for instruction, arguments in dockerfile_instructions():
        if instruction == "FROM":
            words = [word for word in arguments.split() if not word.startswith("--")]
            if words[0] not in stages:
                images.append(words[0])
            if len(words) == 3 and words[1].upper() == "AS":
                stages.add(words[2])
    return images


def split_image(image: str) -> tuple[str, str]:
    name, _, tag = image.rpartition(":")
    return (name, tag) if name and "/" not in tag else (image, "")


def env_example() -> dict[str, tuple[str, list[str]]]:
    """Each variable assigned in .env.example: (its value, the comment lines right above it)."""
    entries: dict[str, tuple[str, list[str]]] = {}
    comments: list[str] = []
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            comments.append(line)
        elif match := re.fullmatch(r"([A-Za-z_]\w*)=(.*)", line):
            entries[match.group(1)] = (match.group(2), comments)
            comments = []
        else:
            comments = []
    return entries


def container_root(services: Mapping[str, Mapping[str, Any]]) -> PurePosixPath:
    """Where the checkout is mirrored in the containers: the parent of the mounted include/."""
    targets = {source: target for source, target in volumes(services["airflow-scheduler"])}
    return PurePosixPath(targets["./include"]).parent


def test_the_compose_file_has_postgres_and_the_airflow_3_components(services: dict[str, Any]) -> None:
    """Airflow 3's layout: api-server, scheduler, dag-processor and triggerer after a one-shot init."""
    assert set(services) == {"postgres"} | AIRFLOW_SERVICES
    for name in AIRFLOW_SERVICES:
        assert services[name]["user"] == "${AIRFLOW_UID:-50000}:0", name  # any UID, always group 0
    for name in LONG_RUNNING:
        depends = services[name]["depends_on"]
        assert depends["postgres"] == {"condition": "service_healthy"}, name
        assert depends["airflow-init"] == {"condition": "service_completed_successfully"}, name
        assert services[name]["restart"] == "unless-stopped", name
    assert services["airflow-init"]["restart"] == "no"


def test_every_bind_mount_exists_in_the_repository(compose: dict[str, Any]) -> None:
    """A missing host folder would be created empty (root-owned) by Docker: no DAGs, no error."""
    declared = set(compose.get("volumes") or {})
    binds = []
    for name, service in compose["services"].items():
        for source, _target in volumes(service):
            if is_bind(source):
                path = (ROOT / source).resolve()
                assert path.is_relative_to(ROOT) and path.exists(), (
                    f"{name}: {source} is not in the repository"
                )
                binds.append(source.removeprefix("./"))
            else:
                assert source in declared, f"{name}: volume {source} is not declared"
    assert set(PROJECT_FOLDERS) <= set(binds)


def test_the_containers_mirror_the_checkout(services: dict[str, Any]) -> None:
    """The package finds dbt_project/ and the generator jar relative to include/, as in a clone."""
    root = container_root(services)
    for name in AIRFLOW_SERVICES:
        mounts = dict(volumes(services[name]))
        env = environment(services[name])
        for folder in PROJECT_FOLDERS:
            assert mounts[f"./{folder}"] == str(root / folder), name
        assert env["PYTHONPATH"] == str(root / "include"), name
        assert env["AIRFLOW__CORE__DAGS_FOLDER"] == str(root / "dags"), name
        assert env["AIRFLOW__CORE__PLUGINS_FOLDER"] == str(root / "plugins"), name
        named = [PurePosixPath(target) for source, target in volumes(services[name]) if not is_bind(source)]
        for variable in ("BENCHCAMP_RESULTS", "BENCHCAMP_WAREHOUSE"):  # results outlive the containers
            path = PurePosixPath(env[variable])
            assert any(path.is_relative_to(target) for target in named), f"{name}: {variable}={path}"
    jar = root / generator_jar().relative_to(repo_root())
    copies = [
        arguments.split() for instruction, arguments in dockerfile_instructions() if instruction == "COPY"
    ]
    assert any(words[-1] == str(jar) for words in copies), f"the Dockerfile does not put the jar at {jar}"


def test_every_airflow_command_is_one_airflow_accepts(
    services: dict[str, Any], airflow_parser: argparse.ArgumentParser
) -> None:
    """Each component's command and healthcheck parse with the installed Airflow's own CLI parser."""
    subcommands = next(
        action.choices for action in airflow_parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    expected = {
        "airflow-apiserver": "api-server",
        "airflow-scheduler": "scheduler",
        "airflow-dag-processor": "dag-processor",
        "airflow-triggerer": "triggerer",
    }
    for name, subcommand in expected.items():
        argv = command(services[name])
        assert argv[0] == subcommand and subcommand in subcommands, name
        parse_airflow(airflow_parser, argv)
        check = healthcheck_command(services[name])
        if check[0] == "airflow":
            parse_airflow(airflow_parser, check)
    jobs = {
        name: parse_airflow(airflow_parser, healthcheck_command(services[name])).job_type
        for name in ("airflow-dag-processor", "airflow-triggerer")
    }
    assert jobs == {"airflow-dag-processor": "DagProcessorJob", "airflow-triggerer": "TriggererJob"}


def test_airflow_init_runs_the_projects_own_set_up(services: dict[str, Any]) -> None:
    """The pools are defined once (benchcamp.ops.cli.prepare_airflow), not copied into the compose file."""
    argv = command(services["airflow-init"])
    assert argv[:3] == ["python", "-m", "benchcamp.ops.cli"]  # the image's entrypoint execs `python` as is
    args = cli.build_parser().parse_args(argv[3:])
    assert args.handler is cli.cmd_airflow_init
    env = environment(services["airflow-init"])
    assert references(env[cli.ADMIN_PASSWORD_ENV])[0].op == ":?"
    # The login file airflow-init writes is the one the api-server reads, on a volume both mount.
    passwords = PurePosixPath(env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"])
    for name in ("airflow-init", "airflow-apiserver"):
        assert environment(services[name])["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"] == str(
            passwords
        )
        assert (
            sum(
                passwords.is_relative_to(target)
                for source, target in volumes(services[name])
                if not is_bind(source)
            )
            == 1
        ), name


def test_healthchecks_probe_what_the_components_serve(services: dict[str, Any]) -> None:
    """Every long-running service has a healthcheck aimed at the port Airflow really listens on."""
    options = conf.configuration_description
    api_port = options["api"]["options"]["port"]["default"]
    health_port = options["scheduler"]["options"]["scheduler_health_check_server_port"]["default"]
    assert healthcheck_command(services["postgres"])[0] == "pg_isready"
    for name in LONG_RUNNING:
        assert healthcheck_command(services[name]), name
    api = healthcheck_command(services["airflow-apiserver"])
    assert api[:2] == ["curl", "--fail"] and urlsplit(api[-1]).port == int(api_port)
    assert urlsplit(api[-1]).path == "/api/v2/monitor/health"  # unauthenticated by design
    scheduler = healthcheck_command(services["airflow-scheduler"])
    assert urlsplit(scheduler[-1]).port == int(health_port)
    assert environment(services["airflow-scheduler"])["AIRFLOW__SCHEDULER__ENABLE_HEALTH_CHECK"] == "true"


def test_every_image_is_pinned(services: dict[str, Any]) -> None:
    """A moving tag (`latest`, `16`) changes the deployment under a user who changed nothing."""
    images = [service["image"] for service in services.values()] + dockerfile_images()
    assert len(dockerfile_images()) >= 2
    for image in images:
        name, tag = split_image(image)
        assert tag and tag != "latest", image
        assert re.match(r"\d+\.\d+\.\d+", tag) or re.match(r"\d+\.\d+-", tag), (
            f"{image}: no version in the tag"
        )


def test_the_airflow_image_is_the_airflow_the_project_locks(services: dict[str, Any]) -> None:
    """Dockerfile FROM, the compose image and the Airflow and Python installed from uv.lock agree."""
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    expected_tag = f"{version('apache-airflow')}-{python}"
    bases = [split_image(image) for image in dockerfile_images() if split_image(image)[0] == "apache/airflow"]
    assert bases and all(tag == expected_tag for _name, tag in bases), bases
    for name in AIRFLOW_SERVICES:
        service = services[name]
        assert service["build"] == "." and (ROOT / service["build"] / "Dockerfile").is_file(), name
        assert split_image(service["image"]) == ("benchcamp-airflow", expected_tag), name
    runs = [arguments.split() for instruction, arguments in dockerfile_instructions() if instruction == "RUN"]
    exports = [argv for argv in runs if "export" in argv]  # uv export: the lock, not a fresh resolution
    assert exports and all("--frozen" in argv and "--no-dev" in argv for argv in exports)


def test_every_variable_is_documented_in_env_example(compose: dict[str, Any]) -> None:
    """`cp .env.example .env` must show a user every value the compose file reads."""
    documented = env_example()
    used = {reference.name for text in strings(compose) for reference in references(text)}
    assert used, "the compose file reads no variable"
    assert used <= set(documented), f"not in .env.example: {sorted(used - set(documented))}"
    for name, (_value, comments) in documented.items():
        assert comments, f".env.example: {name} has no comment explaining it"


def test_secrets_are_required_and_never_written_in(compose: dict[str, Any]) -> None:
    """Each secret comes from .env through `${NAME:?message}`: unset or empty, compose refuses to start."""
    found = [reference for text in strings(compose) for reference in references(text)]
    secrets = {reference.name for reference in found if SECRET_NAME.search(reference.name)}
    assert {"AIRFLOW_JWT_SECRET", "AIRFLOW_API_SECRET_KEY", "POSTGRES_PASSWORD"} <= secrets
    for reference in found:
        if reference.name in secrets:
            assert reference.op == ":?" and reference.arg.strip(), reference
    for name, service in compose["services"].items():
        for key, value in environment(service).items():
            assert not key.startswith("_PIP_ADDITIONAL_REQUIREMENTS"), name  # the image has the deps
            if SECRET_NAME.search(key):
                assert re.fullmatch(r"\$\{\w+:\?[^}]+\}", value), f"{name}: {key} is not read from .env"
    example = env_example()
    for name in secrets:  # an unedited copy of the example must not start with a published secret
        assert example[name][0] == "", f".env.example gives {name} a value"
    conn = environment(compose["services"]["airflow-scheduler"])["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"]
    assert urlsplit(interpolate(conn, {"POSTGRES_PASSWORD": "from-env"})).password == "from-env"
    assert ".env" in ENV_EXAMPLE.with_name(".gitignore").read_text(encoding="utf-8").splitlines()


def test_every_airflow_component_shares_the_secrets(services: dict[str, Any]) -> None:
    """Tokens signed by the api-server must verify in the scheduler, dag-processor and triggerer."""
    for setting in SHARED_SETTINGS:
        values = {name: environment(services[name]).get(setting) for name in AIRFLOW_SERVICES}
        assert len(set(values.values())) == 1 and None not in values.values(), f"{setting}: {values}"


def test_published_ports_are_bound_to_localhost(services: dict[str, Any]) -> None:
    """The UI and REST API are reachable from this machine only, as with `make up`."""
    published = {name: service.get("ports", []) for name, service in services.items()}
    assert len(published["airflow-apiserver"]) == 1
    for name, ports in published.items():
        for port in ports:
            assert interpolate(str(port), {}).startswith("127.0.0.1:"), f"{name}: {port}"
    api_port = conf.configuration_description["api"]["options"]["port"]["default"]
    assert interpolate(published["airflow-apiserver"][0], {}) == f"127.0.0.1:8080:{api_port}"
    execution_api = urlsplit(
        environment(services["airflow-scheduler"])["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"]
    )
    assert execution_api.hostname == "airflow-apiserver" and execution_api.port == int(api_port)


def test_every_airflow_setting_is_one_airflow_knows(services: dict[str, Any]) -> None:
    """A misspelt AIRFLOW__SECTION__KEY is silently ignored by Airflow; here it fails."""
    described = conf.configuration_description
    # astronomer-cosmos reads this one with conf.getboolean(..., fallback) without declaring it.
    undeclared = {("cosmos", "enable_telemetry")}
    import cosmos.settings

    assert '"cosmos", "enable_telemetry"' in Path(cosmos.settings.__file__).read_text(encoding="utf-8")
    settings = {
        key for name in AIRFLOW_SERVICES for key in environment(services[name]) if key.startswith("AIRFLOW__")
    }
    assert len(settings) > 10
    for key in settings:
        _, section, option = key.lower().split("__")
        known = option in described.get(section, {}).get("options", {})
        assert known or (section, option) in undeclared, f"{key}: Airflow has no [{section}] {option}"


def test_the_parse_limits_are_those_benchcamp_up_sets(
    services: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compose file repeats the stack's limits on a slow parse of the DAG file (a YAML file
    cannot import them): every Airflow component has the values `benchcamp up` sets."""
    from benchcamp.ops import stack

    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path))  # the stack's secrets are written there
    keys = (
        "AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT",
        "AIRFLOW__DAG_PROCESSOR__DAG_FILE_PROCESSOR_TIMEOUT",
        "AIRFLOW__DAG_PROCESSOR__STALE_DAG_THRESHOLD",
    )
    wanted = {key: stack.stack_environment()[key] for key in keys}
    for name in AIRFLOW_SERVICES:
        assert {key: environment(services[name]).get(key) for key in keys} == wanted, name


def test_the_build_context_holds_what_the_dockerfile_copies() -> None:
    """.dockerignore keeps .venv, .env and the lab's jars out; the files the build copies stay in."""
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert patterns[0] == "*"
    included = [pattern.removeprefix("!") for pattern in patterns if pattern.startswith("!")]
    sources = [
        source
        for instruction, arguments in dockerfile_instructions()
        if instruction == "COPY" and "--from=" not in arguments
        for source in arguments.split()[:-1]
        if not source.startswith("--")
    ]
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert any(source == pattern or source.startswith(pattern + "/") for pattern in included), source
    assert not any(pattern.startswith(".env") for pattern in included)


def test_airflow_init_gives_simple_auth_manager_the_password_from_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The api-server then uses that password instead of generating and printing one."""
    from airflow.api_fastapi.auth.managers.simple.simple_auth_manager import SimpleAuthManager

    passwords = tmp_path / "auth" / "passwords.json"
    prepared: list[tuple[dict[str, str], bool]] = []
    monkeypatch.setattr(
        cli, "prepare_airflow", lambda env, log_to_file=True: prepared.append((env, log_to_file))
    )
    monkeypatch.setenv("AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS", "alice:admin")
    monkeypatch.setenv("AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE", str(passwords))
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "airflow"))

    monkeypatch.setenv(cli.ADMIN_PASSWORD_ENV, "")
    assert cli.main(["airflow-init"]) == cli.ExitCode.BAD_INPUT
    assert not prepared and not passwords.exists()  # nothing done without a password

    monkeypatch.setenv(cli.ADMIN_PASSWORD_ENV, 'p"w\\1')
    passwords.parent.mkdir()
    passwords.write_text(json.dumps({"alice": "old"}))
    assert cli.main(["airflow-init"]) == cli.ExitCode.OK
    assert prepared == [({"AIRFLOW_HOME": str(tmp_path / "airflow")}, False)]  # output to the container log
    with passwords.open("r+") as handle:
        assert SimpleAuthManager._get_passwords(handle) == {"alice": 'p"w\\1'}
    assert stat.S_IMODE(passwords.stat().st_mode) == 0o600


def test_a_prepared_airflow_home_is_not_migrated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`benchcamp run` reusing a home skips `db migrate` and `pools import` (about ten seconds) until
    Airflow's version or the pools change; a home with another database is always prepared."""
    from benchcamp.airflow import airflow_env

    calls: list[str] = []

    def fake_airflow(
        args: list[str], env: dict[str, str], check: bool = True, log: Path | None = None
    ) -> None:
        calls.append(args[0])
        (tmp_path / "airflow.db").touch()

    monkeypatch.setattr(airflow_env, "run_airflow", fake_airflow)
    monkeypatch.delenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    env = {"AIRFLOW_HOME": str(tmp_path)}
    airflow_env.prepare_airflow(env)
    airflow_env.prepare_airflow(env)
    assert calls == ["db", "pools"]
    pools = airflow_env.pool_definitions()
    monkeypatch.setattr(airflow_env, "pool_definitions", lambda: {**pools, "new_pool": {"slots": 1}})
    airflow_env.prepare_airflow(env)
    assert calls == ["db", "pools"] * 2
    airflow_env.prepare_airflow({**env, "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": "postgresql://db/airflow"})
    assert calls == ["db", "pools"] * 3


def test_a_new_home_starts_from_the_database_the_last_new_home_with_its_set_up_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite makes about ten Airflow homes, each `db migrate` + `pools import` (about ten
    seconds of CPU): a new home gets a copy of the last new home's prepared SQLite file instead,
    unless anything that decides the database's contents differs (Airflow, pools, settings)."""
    from benchcamp.airflow import airflow_env

    calls: list[tuple[str, str]] = []

    def fake_airflow(
        args: list[str], env: dict[str, str], check: bool = True, log: Path | None = None
    ) -> None:
        calls.append((args[0], Path(env["AIRFLOW_HOME"]).name))
        (Path(env["AIRFLOW_HOME"]) / "airflow.db").write_text(f"prepared in {Path(env['AIRFLOW_HOME']).name}")

    monkeypatch.setattr(airflow_env, "run_airflow", fake_airflow)
    monkeypatch.delenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    airflow_env.prepare_airflow({"AIRFLOW_HOME": str(tmp_path / "first")})
    airflow_env.prepare_airflow({"AIRFLOW_HOME": str(tmp_path / "second")})
    assert calls == [("db", "first"), ("pools", "first")]
    assert (tmp_path / "second" / "airflow.db").read_text() == "prepared in first"
    assert (tmp_path / "second" / airflow_env.PREPARED_FILE).exists()
    # another auth manager (its own tables) or a home's own configuration: prepared afresh
    other = {"AIRFLOW_HOME": str(tmp_path / "third"), "AIRFLOW__CORE__AUTH_MANAGER": "other.Manager"}
    airflow_env.prepare_airflow(other)
    (tmp_path / "fourth").mkdir()
    (tmp_path / "fourth" / "airflow.cfg").write_text("[core]\nauth_manager = other.Manager\n")
    airflow_env.prepare_airflow({"AIRFLOW_HOME": str(tmp_path / "fourth")})
    assert [home for _, home in calls] == ["first", "first", "third", "third", "fourth", "fourth"]
    # a shared database (the stack's Postgres) never comes from a copy
    airflow_env.prepare_airflow(
        {"AIRFLOW_HOME": str(tmp_path / "fifth"), "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": "postgresql://db/a"}
    )
    assert calls[-2:] == [("db", "fifth"), ("pools", "fifth")]
