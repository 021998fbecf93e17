# Over 600 lines: every `benchcamp` subcommand and its argparse tree; each handler is thin over the packages.
"""`benchcamp`: import results, print reports, run the lab and whole campaigns.

Exit codes: one table for every command (`core.outcomes`, the README's "Exit codes and faults").
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchcamp.airflow.airflow_env import (
    airflow_environment,
    mark_run_failed,
    prepare_airflow,
    start_airflow,
    stop_process_group,
)
from benchcamp.core.outcomes import ExitCode, for_signal, worst
from benchcamp.core.paths import airflow_home, default_warehouse

if TYPE_CHECKING:
    import duckdb

    from benchcamp.core.spec import StudySpec
    from benchcamp.pipeline.campaign.conf import CampaignConf
    from benchcamp.pipeline.native_runs import NativeRead
    from benchcamp.pipeline.transform import DbtBuildError


def _warehouse(args: argparse.Namespace) -> Path:
    return Path(args.warehouse) if args.warehouse else default_warehouse()


def _in_background(name: str, work: Callable[[], object]) -> threading.Thread:
    """Python-bound work on the other core while DuckDB (which releases the GIL) reads and loads.

    Errors are dropped: the same work done again in the main thread raises them where they are handled.
    """

    def run() -> None:
        try:
            work()
        except Exception:
            return

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


def cmd_import(args: argparse.Namespace) -> int:
    """Read, check, validate, load and build a record file; all of it or, on any failure, nothing.

    The records are loaded and the marts built in a staged copy of the warehouse, which replaces
    it only when the build passed. Exits 6 (BUSY) when another process holds the warehouse for
    the whole wait; when the build fails, 2 (BAD_INPUT) if a failed data test's rows come from
    the file's records, else 7 (ANALYSIS_FAILED), naming the failed checks and the file's lines
    behind them: never a traceback, and the warehouse as it was."""
    from benchcamp.pipeline.transform import DbtBuildError
    from benchcamp.pipeline.warehouse import WarehouseBusy

    try:
        if args.source_format or args.study or args.campaign or args.environment:
            return _import_native(args)
        if len(args.files) != 1:
            print("error: one record file at a time (several files only with --from)", file=sys.stderr)
            return ExitCode.BAD_INPUT
        path = Path(args.files[0])
        return _import(args, path, f"benchcamp import {path.name}")
    except WarehouseBusy as exc:
        print(f"error: {exc}\nnothing was loaded", file=sys.stderr)
        return ExitCode.BUSY
    except _BuildRefused as exc:
        print("\n".join(exc.lines), file=sys.stderr)
        return exc.code
    except DbtBuildError as exc:
        nodes = [node for node in exc.failed_nodes if not node.startswith("(")] or [str(exc)]
        print(
            f"error: the figures could not be built: {'; '.join(nodes)}\nnothing was loaded",
            file=sys.stderr,
        )
        return ExitCode.ANALYSIS_FAILED


def _pairs(values: list[str], option: str) -> dict[str, str]:
    """`NAME=VALUE` options as a dict; ValueError names the malformed one."""
    pairs: dict[str, str] = {}
    for value in values:
        name, equals, setting = value.partition("=")
        if not equals or not name or not setting:
            raise ValueError(f"{option} {value!r}: write NAME=VALUE")
        pairs[name] = setting
    return pairs


def _import_native(args: argparse.Namespace) -> int:
    """`--from` HiBench, TestDFSIO or YCSB files: read into records of one campaign (docs/importing-native.md),
    then imported as a record file is."""
    import tempfile

    from benchcamp.core.records import CAMPAIGN_NAME, CAMPAIGN_RULE, coerce_param, write_jsonl
    from benchcamp.pipeline.native import NativeError, NativeImport, read_native

    missing = [f"--{name}" for name in ("study", "campaign", "environment") if not getattr(args, name)]
    try:
        if missing:
            raise ValueError(f"native files need {', '.join(missing)} (the campaign their runs become)")
        if not re.fullmatch(CAMPAIGN_NAME, args.campaign):
            raise ValueError(f"--campaign {args.campaign!r} {CAMPAIGN_RULE}")
        options = NativeImport(
            study=args.study,
            campaign=args.campaign,
            environment=args.environment,
            params={name: coerce_param(value) for name, value in _pairs(args.param, "--param").items()},
            names=_pairs(args.name, "--name"),
            skip=frozenset(args.skip),
            timezone=args.timezone,
        )
        read = read_native(args.source_format, [Path(file) for file in args.files], options)
    except (ValueError, NativeError) as exc:
        print(f"error: {exc}\nnothing was loaded", file=sys.stderr)
        return ExitCode.BAD_INPUT
    left_out = "".join(f"; left out (--skip): {count} {name}" for name, count in read.skipped.items())
    print(f"{len(args.files)} file(s): {read.runs} runs, {len(read.records)} records{left_out}")
    for note in read.notes:
        print(f"note: {note}")
    with tempfile.TemporaryDirectory(prefix="benchcamp-native-") as folder:
        path = Path(folder) / "records.jsonl"
        path.write_text(write_jsonl(read.records), encoding="utf-8")
        origin = f"benchcamp import --from {args.source_format or 'detected'} {Path(args.files[0]).name}"
        return _import(args, path, origin, read)


class _BuildRefused(Exception):
    """An import whose build failed: what to print, and the exit code."""

    def __init__(self, lines: list[str], code: ExitCode) -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines
        self.code = code


def _import(args: argparse.Namespace, path: Path, origin: str, native: NativeRead | None = None) -> int:
    from benchcamp.core.records import RecordError
    from benchcamp.core.spec import load_spec
    from benchcamp.pipeline import importer
    from benchcamp.pipeline.run_facts import write_run_facts
    from benchcamp.pipeline.transform import DbtBuildError, build_marts, parse_ahead
    from benchcamp.pipeline.warehouse import connect, staged_warehouse

    target = _warehouse(args)
    with importer.staging() as con:
        try:
            count = importer.stage_file(con, path)
            # GX is imported and dbt's parse recalled while DuckDB computes the statistics and
            # loads; beside the file's parse (DuckDB on both cores) they only slowed it down.
            gx = _in_background("import-gx", lambda: importlib.import_module("great_expectations"))
            if not count:
                print(f"error: {path}: no records\nnothing was loaded", file=sys.stderr)
                return ExitCode.BAD_INPUT
            importer.check_spec(con, path, args.strict_environment)
            repeats = importer.check_repeats(con, path)
        except (RecordError, importer.SpecMismatch) as exc:
            print(f"error: {exc}\nnothing was loaded", file=sys.stderr)
            return ExitCode.BAD_INPUT
        dbt = _in_background("dbt-parse", lambda: parse_ahead(target))
        loads = importer.campaigns(con, repeats)
        thresholds = {
            study: load_spec(study).thresholds.max_stddev_pct
            for study in dict.fromkeys(c.study for c in loads)
        }
        min_ok = {study: load_spec(study).thresholds.min_ok_repetitions for study in thresholds}
        cells = importer.cell_statistics(con)
        # Loaded and built in a copy: the warehouse changes only if the build passes.
        with staged_warehouse(target) as staged:
            # The suite (Python) runs on the other core while DuckDB inserts the records. It imports
            # GX only once the background import is done: two threads importing GX's circular
            # modules at once get a partially initialised module (an ImportError seen in CI).
            gx.join()
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-validate") as pool:
                validating = pool.submit(importer.validate, cells, thresholds, min_ok)
                specs = {study: load_spec(study) for study in thresholds}
                loads = importer.load(con, staged, loads, validating.result, thresholds, specs)
                failures = validating.result()
            if native is not None:  # in the staged copy too: they land with the records, or neither does
                with connect(staged) as facts_con:
                    write_run_facts(facts_con, list(native.facts), native.repetitions())
            dbt.join()
            try:
                build_marts(
                    staged,
                    unit_tests=False,
                    campaigns=[(item.study, item.campaign) for item in loads],
                    origin=origin,
                    folder_of=target,
                )
            except DbtBuildError as exc:
                raise _refusal(con, staged, path, exc) from None
    for item in loads:
        repeated = ""
        if item.repeats:
            pairs = ", ".join(f"line {line} = line {first}" for line, first in item.repeats[:3])
            more = f" and {len(item.repeats) - 3} more" if len(item.repeats) > 3 else ""
            repeated = f"; {len(item.repeats)} identical repeat(s) loaded once: {pairs}{more}"
        print(
            f"{item.study} / {item.campaign}: {item.records} records "
            f"({item.inserted} new, {item.replaced} replaced{repeated})"
        )
    from benchcamp.presentation.report import export_snapshot

    export_snapshot(target)
    order = {(item.study, item.campaign): index for index, item in enumerate(loads)}
    all_failures = sorted(failures, key=lambda failure: order[(failure.study, failure.campaign)])
    for failure in all_failures:
        print(
            f"FAILED {failure.expectation} [{failure.study}/{failure.campaign}] {failure.cell_key}: {failure.details}"
        )
    if all_failures:
        print(
            f"{len(all_failures)} expectation(s) failed; the records are loaded and marked", file=sys.stderr
        )
        return ExitCode.VALIDATION_FAILED
    print(f"all expectations passed; warehouse: {target}")
    return ExitCode.OK


def _refusal(con: duckdb.DuckDBPyConnection, built: Path, path: Path, exc: DbtBuildError) -> Exception:
    """What a failed build of an import says: the failed checks and the file's lines behind them
    (exit 2: the records are refused), or the failed nodes when no failing row is the file's (7)."""
    from benchcamp.pipeline import importer

    try:
        checks = importer.trace_failed_tests(con, built, exc.failed_tests)
    except Exception as trace_error:  # the message must not become a traceback: name the nodes
        nodes = [node for node in exc.failed_nodes if not node.startswith("(")] or [str(exc)]
        lines = [f"error: the figures could not be built: {node}" for node in nodes]
        return _BuildRefused(
            [*lines, f"(failing rows not traced: {trace_error})", "nothing was loaded"],
            ExitCode.ANALYSIS_FAILED,
        )
    others = [
        node
        for node in exc.failed_nodes
        if not node.startswith("(") and not any(node.startswith(f"{test}:") for test, _ in exc.failed_tests)
    ]
    lines = importer.describe_failed_checks(checks, path)
    lines += [f"error: the figures could not be built: {node}" for node in others]
    if checks and not others and all(check.from_file for check in checks):
        return _BuildRefused(
            [*lines, "error: the records fail the marts' checks above; nothing was loaded"],
            ExitCode.BAD_INPUT,
        )
    return _BuildRefused([*lines, "nothing was loaded"], ExitCode.ANALYSIS_FAILED)


def cmd_report(args: argparse.Namespace) -> int:
    from benchcamp.core.spec import SpecError, load_spec
    from benchcamp.pipeline.warehouse import WarehouseBusy
    from benchcamp.presentation import report

    try:
        spec = load_spec(args.study)
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    beside = args.beside
    if beside == "baseline":
        beside = next((each.name for each in spec.environments if each.baseline), spec.environments[0].name)
    names = [each.name for each in spec.environments]
    if beside is not None and beside not in names:
        print(
            f"error: --beside {beside}: not an environment of {args.study} ({', '.join(names)})",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    if beside is not None and args.format != "table":
        print("error: --beside prints a table: leave out --format or use --format table", file=sys.stderr)
        return ExitCode.BAD_INPUT
    target = _warehouse(args)
    if not target.exists():
        print(
            f"error: no warehouse at {target} (run a campaign or `benchcamp import` first)", file=sys.stderr
        )
        return ExitCode.BAD_INPUT
    try:
        if beside is not None:  # instead of the campaign's own tables
            from benchcamp.presentation.beside import render_beside

            campaign = args.campaign or report.latest_campaign(target, args.study)
            text = render_beside(target, args.study, campaign, beside)
        elif args.format == "html":
            from benchcamp.presentation.results_page import static_report

            text = static_report(target, args.study, args.campaign)
        else:
            text = report.render(
                report.read_tables(target, args.study, args.campaign), args.format, args.study
            )
    except report.ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except WarehouseBusy as exc:  # a writer held it for the whole wait
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.BUSY
    note = report.build_note(target)  # the latest dbt build failed: the figures are older
    if note and args.format == "table":
        text = f"NOTE: {note}\n\n{text}"
    elif note:  # CSV, JSON and HTML stay as readers parse them
        print(f"NOTE: {note}", file=sys.stderr)
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        print(text)
    return ExitCode.OK


def cmd_spec_check(args: argparse.Namespace) -> int:
    """Check study specs as the DAG factory loads them; print every problem as `file:line: key: message`.

    Without files, the bundled studies. Exit 2 when any spec has a problem.
    """
    from benchcamp.core.claims import CLAIMS_FILE, ClaimError, parse_claims
    from benchcamp.core.spec import SpecError, load_spec_file, spec_files

    paths = [Path(name) for name in args.files] or list(spec_files())
    failed = problems = 0
    for path in paths:
        try:
            spec = load_spec_file(path)
        except SpecError as exc:
            lines = str(exc).splitlines()
            print("\n".join(lines))
            failed, problems = failed + 1, problems + len(lines)
            continue
        claims = path.parent / CLAIMS_FILE  # the study's published claims, checked against its spec
        if claims.is_file():
            try:
                text = claims.read_text(encoding="utf-8")
                parse_claims(text, str(claims), set(spec.workloads), set(spec.axes))
            except ClaimError as exc:
                lines = str(exc).splitlines()
                print("\n".join(lines))
                failed, problems = failed + 1, problems + len(lines)
                continue
        cells = len(spec.cells(spec.default_ladder))
        print(f"{path}: ok ({spec.study}: {cells} cells at the default ladder, {spec.default_ladder})")
    if failed:
        print(f"{problems} problem(s) in {failed} of {len(paths)} spec(s)", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return ExitCode.OK


def cmd_lab(args: argparse.Namespace) -> int:
    from benchcamp.ops import lab
    from benchcamp.ops.lab.services import LabBusy

    if getattr(args, "stores", False):
        os.environ["BENCHCAMP_LAB_STORES"] = "1"
    if args.action == "cluster":
        return cmd_lab_cluster(args.cluster_action or "status", args.stores)
    if args.cluster_action:
        raise SystemExit(f"benchcamp lab {args.action}: unexpected '{args.cluster_action}'")
    try:
        if args.action == "up":
            print(lab.lab_up().format())
        elif args.action == "down":
            lab.lab_down()
            print("lab stopped")
        else:
            print(lab.lab_status().format())
    except LabBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.BUSY
    return ExitCode.OK


def cmd_lab_cluster(action: str, stores: bool = False) -> int:
    """`lab cluster up|status|down|reformat`: the five-host cluster in network namespaces
    (ops/lab/cluster.py; `up --stores`: a Cassandra ring and HBase too); `reformat` is the
    storage protocol studies with `reformat_storage` run from the gateway (lab/bin/lab-cluster).
    Exit 1 when it cannot start (the message names the
    host, the daemon and its log) or, for `status`, when a daemon is not healthy."""
    from benchcamp.ops.lab import LabError, cluster

    try:
        if action == "up":
            print(cluster.cluster_up(stores=stores).format())
        elif action == "down":
            cluster.cluster_down()
            print("lab cluster stopped")
        elif action == "reformat":
            print("\n".join(cluster.reformat()))
        else:
            status = cluster.cluster_status()
            print(status.format())
            return ExitCode.OK if status.healthy else ExitCode.INTERNAL_ERROR
    except LabError as exc:
        print(f"benchcamp lab cluster {action}: {exc}", file=sys.stderr)
        return ExitCode.INTERNAL_ERROR
    return ExitCode.OK


def cmd_up(args: argparse.Namespace) -> int:
    from benchcamp.ops import stack
    from benchcamp.ops.lab.services import LabBusy

    try:
        print(stack.up())
    except stack.StackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INTERNAL_ERROR
    except LabBusy as exc:  # another's `lab up`/`lab down` still held the lab after the wait
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.BUSY
    return ExitCode.OK


def cmd_down(args: argparse.Namespace) -> int:
    from benchcamp.ops import stack

    stack.down(keep_lab=args.keep_lab)
    print("Airflow stopped (the lab still runs)" if args.keep_lab else "Airflow and the lab stopped")
    return ExitCode.OK


def cmd_status(args: argparse.Namespace) -> int:
    from benchcamp.ops import lab, stack

    print(stack.format_status(stack.status()))
    print()
    print(lab.lab_status().format())
    return ExitCode.OK


ADMIN_PASSWORD_ENV = "BENCHCAMP_ADMIN_PASSWORD"


def write_login(passwords_file: Path, password: str) -> str:
    """Give SimpleAuthManager's one configured user `password`; return the user's name.

    The api-server generates (and prints) a password for a user missing from its passwords file;
    a deployment whose password comes from its own secrets writes the file first (mode 600).
    """
    from airflow.api_fastapi.auth.managers.simple.simple_auth_manager import SimpleAuthManager

    users = SimpleAuthManager.get_users()
    if len(users) != 1:
        raise ValueError(f"expected one SimpleAuthManager user, found {[user.username for user in users]}")
    passwords_file.parent.mkdir(parents=True, exist_ok=True)
    passwords_file.unlink(missing_ok=True)
    descriptor = os.open(passwords_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({users[0].username: password}) + "\n")
    return users[0].username


def cmd_airflow_init(args: argparse.Namespace) -> int:
    """docker-compose.yaml's airflow-init: what `make up` prepares, in the container's Airflow home.

    The metadata DB migrated and the pools created (`prepare_airflow`, so the pools are defined
    once), then the login written from $BENCHCAMP_ADMIN_PASSWORD to the passwords file
    SimpleAuthManager reads.
    """
    from airflow.api_fastapi.auth.managers.simple.simple_auth_manager import SimpleAuthManager

    password = os.environ.get(ADMIN_PASSWORD_ENV, "")
    if not password:
        print(f"error: {ADMIN_PASSWORD_ENV} is empty: set the admin password in .env", file=sys.stderr)
        return ExitCode.BAD_INPUT
    prepare_airflow({"AIRFLOW_HOME": str(airflow_home())}, log_to_file=False)
    user = write_login(Path(SimpleAuthManager.get_generated_password_file()), password)
    print(f"metadata DB migrated, pools created, login {user!r} written")
    return ExitCode.OK


class Interrupted(BaseException):
    """SIGINT or SIGTERM reached `benchcamp run`: raised in the main thread to stop the campaign.

    A BaseException, so that no `except Exception` on the way swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


def cmd_run(args: argparse.Namespace) -> int:
    """Start the lab, run one study DAG through Airflow, print its tables, stop the lab.

    The one-host lab starts only for its own targets, the lab cluster only for `lab_cluster`; at
    the end each is stopped if this run started it (unless --keep-lab), and left as it was if not.

    A campaign runs on one environment: --environment names one, several (comma-separated) or
    `all` (every environment of the study on the one-host lab; the lab cluster's only by name),
    each getting its own campaign, one after the other (named `<campaign>_<environment>` when
    there are several), so a study comparing lab targets (e.g. two storage devices) runs whole.
    Default: the study's first one-host lab environment.
    The exit code is the most severe of the campaigns' (`core.outcomes`).
    """
    from benchcamp.core.spec import load_spec
    from benchcamp.core.study import study_plugin
    from benchcamp.ops import lab
    from benchcamp.ops.lab.services import STORE_SERVICES, LabBusy
    from benchcamp.pipeline import target_lock
    from benchcamp.pipeline.attempts import ArchiveClash, check_archive_owner
    from benchcamp.pipeline.campaign.conf import CampaignConfError, check_conf, resolve_campaign

    spec = load_spec(args.study)
    lab_connections = lab.lab_ssh_connection_ids()
    lab_targets = [env.name for env in spec.environments if env.transport.connection in lab_connections]
    one_host = [  # `all`: the one-host lab's environments; the lab cluster is named to be used
        name
        for name in lab_targets
        if spec.environment(name).transport.connection != lab.CLUSTER_CONNECTION_ID
    ]
    named = [name for name in (args.environment or "").split(",") if name]
    chosen = one_host if named == ["all"] else named or (one_host or lab_targets)[:1]
    unknown = [name for name in chosen if name not in {env.name for env in spec.environments}]
    if unknown or (named == ["all"] and not chosen):
        known = ", ".join(env.name for env in spec.environments)
        missing = ", ".join(unknown) or "on the lab"
        print(f"error: no environment {missing} in {args.study} (known: {known})", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if (args.order or spec.order) == "interleaved":  # one campaign per interleave group named
        chosen = list(dict.fromkeys((spec.interleave_group(name) or [name])[0] for name in chosen))
    targets: list[str | None] = [*chosen] or [None]
    base = args.campaign or f"run_{_now_tag()}"
    try:  # bad input is refused before the lab starts: the name, then the whole conf
        campaigns = [
            resolve_campaign({"campaign": base if len(targets) == 1 else f"{base}_{target}"}, "")
            for target in targets
        ]
        confs = [_conf(args, target, campaign) for target, campaign in zip(targets, campaigns, strict=True)]
        for conf, campaign in zip(confs, campaigns, strict=True):
            checked = check_conf(spec, {key: value for key, value in conf.items() if value is not None})
            _check_budget(spec, checked, campaign)
        for campaign in campaigns:
            check_archive_owner(spec.study, campaign)
    except (CampaignConfError, ArchiveClash) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    previous = {
        number: signal.signal(number, _raise_interrupted) for number in (signal.SIGINT, signal.SIGTERM)
    }
    locks: dict[str, target_lock.TargetLock] = {}  # one per connection: environments may share one
    started_lab = False
    started_cluster = False  # this run started the lab cluster (not running before): it stops it too
    try:
        planned = [
            (name, campaign)
            for target, campaign, conf in zip(targets, campaigns, confs, strict=True)
            for name in _campaign_targets(spec, target or spec.environments[0].name, conf)
        ]
        for environment, campaign in planned:
            connection = spec.environment(environment).transport.connection
            if connection in locks:
                continue
            try:
                locks[connection] = target_lock.acquire(
                    environment,
                    connection,
                    {"study": args.study, "campaign": campaign, "command": "benchcamp run"},
                    wait_s=args.wait,
                    on_wait=lambda text: print(text, flush=True),
                )
            except target_lock.TargetBusy as exc:
                print(f"error: {exc}", file=sys.stderr)
                return ExitCode.BUSY
            holder = _stack_run_on(connection)
            if holder:
                print(
                    f"error: target {environment} is busy: the Airflow stack runs {holder} on it; wait for it "
                    "to end (the stack's pools keep its own runs apart, not a benchcamp run beside them)",
                    file=sys.stderr,
                )
                return ExitCode.BUSY
        stores = bool(study_plugin(spec.study).lab_services & {service.name for service in STORE_SERVICES})
        if stores:
            os.environ["BENCHCAMP_LAB_STORES"] = "1"  # the study measures the lab's data stores
        used = {
            spec.environment(target or spec.environments[0].name).transport.connection for target in targets
        }
        # the one-host lab's targets (and its stores); a real cluster's connection starts no lab,
        # and its campaign leaves a lab the user has up alone
        if used & (lab_connections - {lab.CLUSTER_CONNECTION_ID}):
            started_lab = True
            try:
                print(lab.lab_up().format())
            except LabBusy as exc:  # another's `lab up`/`lab down` holds the lab: nothing here to stop
                started_lab = False
                print(f"error: {exc}", file=sys.stderr)
                return ExitCode.BUSY
        if lab.CLUSTER_CONNECTION_ID in used:  # the lab cluster's gateway
            from benchcamp.ops.lab.cluster import cluster_running, cluster_up

            started_cluster = not cluster_running()
            print(cluster_up(stores=stores).format())  # with the stores: Cassandra, HBase
        env = airflow_environment(lab.airflow_connection_env())
        prepare_airflow(env)
        codes: list[ExitCode] = []
        for target, conf in zip(targets, confs, strict=True):
            connections = [
                spec.environment(name).transport.connection
                for name in _campaign_targets(spec, target or spec.environments[0].name, conf)
            ]
            # its DAG run may use the targets (an interleaved campaign's: every one of its group)
            env[target_lock.TOKEN_ENV] = ",".join(dict.fromkeys(locks[name].token for name in connections))
            codes.append(_run_campaign(args, env, target, conf))
        return worst(codes)
    except Interrupted as stop:
        print(f"\n{stop}: stopped before the campaign started", file=sys.stderr)
        return for_signal(stop.signum)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if (started_lab or started_cluster) and not args.keep_lab:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the lab goes down whatever is pressed now
            if started_lab:
                lab.lab_down()
                print("lab stopped")
            if started_cluster:  # as it was before: a cluster the user had up stays up
                from benchcamp.ops.lab.cluster import cluster_down

                cluster_down()
                print("lab cluster stopped")
            signal.signal(signal.SIGINT, previous[signal.SIGINT])
        for lock in locks.values():
            lock.release()


def _budget(text: str) -> float:
    from benchcamp.pipeline.budget import BudgetError, parse_budget

    try:
        return parse_budget(text)
    except BudgetError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _check_budget(spec: StudySpec, conf: CampaignConf, campaign: str) -> None:
    """A budget the planned repetitions exceed, at an earlier campaign's times, is refused here,
    before the lab starts; without one to go by, the console says the budget is not checked."""
    if conf.budget_s is None:
        return
    from benchcamp.core.records import cell_key
    from benchcamp.pipeline.budget import check_plan_fits, earlier_costs
    from benchcamp.pipeline.campaign.conf import CampaignConfError
    from benchcamp.pipeline.campaign.plan import plan_units

    planned = plan_units(spec, conf, campaign)
    problem = check_plan_fits(spec.study, campaign, conf.budget_s, planned)
    if problem:
        raise CampaignConfError(problem)
    for environment, units in planned.items():
        keys = {cell_key(unit["workload"], unit["params"]) for unit in units}
        if units and earlier_costs(spec.study, environment, keys, campaign) is None:
            print(
                f"note: no earlier campaign of {spec.study} on {environment} timed these cells: the "
                "budget is not checked against the planned repetitions (they run whatever it is); "
                "it bounds the adaptive ones",
                flush=True,
            )


def _campaign_targets(spec: StudySpec, environment: str, conf: dict[str, object]) -> list[str]:
    """The environments one campaign runs on: its own, or its whole interleave group."""
    if (conf.get("order") or spec.order) == "interleaved":
        return spec.interleave_group(environment) or [environment]
    return [environment]


def _stack_run_on(connection: str) -> str | None:
    """A queued or running DAG run of the Airflow stack (`make up`) on the target reached through
    `connection`, named, or None: its preflight would remove what that run measures."""
    from benchcamp.core.spec import SpecError, load_spec, study_names
    from benchcamp.ops import lab, metadb

    studies = set(study_names())
    for dag_id, run_id, conf in metadb.active_runs():
        if dag_id not in studies:
            continue
        spec = load_spec(dag_id)
        default = spec.default_environment(lab.lab_ssh_connection_ids())  # the stack's form default
        try:
            environment = spec.environment(str(conf.get("environment") or default))
        except SpecError:
            continue
        if environment.transport.connection == connection:
            return f"{dag_id} run {run_id} (environment {environment.name})"
    return None


def _conf(args: argparse.Namespace, target: str | None, campaign: str) -> dict[str, object]:
    """The DAG run's conf from `benchcamp run`'s arguments (the trigger form's parameters)."""
    conf: dict[str, object] = {"ladder": args.ladder, "fail_on_validation": args.fail_on_validation}
    if args.repetitions:
        conf["repetitions"] = args.repetitions
    if args.workloads:
        conf["workloads"] = args.workloads.split(",")
    if target:
        conf["environment"] = target
    if args.cells:
        conf["cells"] = args.cells.split(",")
    if args.warmups is not None:
        conf["warmup_repetitions"] = args.warmups
    if args.order:
        conf["order"] = args.order
    if args.order_seed is not None:
        conf["order_seed"] = args.order_seed
    if args.target_ci_pct is not None:
        conf["target_ci_pct"] = args.target_ci_pct
    if args.max_repetitions is not None:
        conf["max_repetitions"] = args.max_repetitions
    if args.budget is not None:
        conf["budget_s"] = args.budget
    conf["campaign"] = campaign
    conf["resume"] = not args.restart  # a campaign name run before keeps its ok repetitions
    return conf


STOP_GRACE_S = 3.0  # `airflow dags test` answers SIGTERM by failing the task and going on


def _run_campaign(
    args: argparse.Namespace, env: dict[str, str], target: str | None, conf: dict[str, object]
) -> ExitCode:
    """One campaign of `benchcamp run` on one environment (None: the DAG's default).

    Airflow runs in a session of its own, so that a signal stops all of it (its task processes
    too) and nothing is orphaned: on SIGINT/SIGTERM the Airflow process group gets SIGTERM, then
    SIGKILL after STOP_GRACE_S; the campaign's jobs on the target are stopped, the DAG run is
    marked failed in the metadata database and the repetitions in flight interrupted in the
    archive, and only then does the command exit (130/143).
    """
    from benchcamp.pipeline import archive, attempts, outcome
    from benchcamp.presentation.progress_display import follow_campaign

    campaign = str(conf["campaign"])
    campaign_dir = archive.campaign_dir(args.study, campaign)
    log = campaign_dir / attempts.LOGS_DIR / "airflow-dags-test.log"
    print(f"running {args.study} through Airflow (airflow dags test), conf {json.dumps(conf)}")
    print(f"Airflow's log: {log}", flush=True)
    started = datetime.now(UTC)
    process = start_airflow(["dags", "test", args.study, "--conf", json.dumps(conf)], env, log)
    try:  # the campaign's progress shown meanwhile, read from its archive (never fails the run)
        returncode = follow_campaign(process.poll, args.study, campaign, started)
    except Interrupted as stop:
        return _stop_campaign(args.study, campaign, target, env, process, stop.signum)
    report_file = campaign_dir / "report.txt"
    print()
    if report_file.exists():
        print(report_file.read_text(encoding="utf-8"))
    result = outcome.campaign_outcome(args.study, campaign, returncode, _analysis_failure(started))
    if result.code != ExitCode.OK:
        print("\n".join(result.lines), file=sys.stderr)
    if result.code == ExitCode.INTERNAL_ERROR:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-40:] if log.exists() else []
        print("\nthe end of Airflow's log:\n" + "\n".join(tail), file=sys.stderr)
    print(f"campaign:     {campaign}")
    print(f"warehouse:    {default_warehouse()}")
    print(f"raw archive:  {campaign_dir}")
    print(f"report again: .venv/bin/benchcamp report {args.study} --campaign {campaign}")
    print(result.summary(), flush=True)
    if args.summary_file:
        line = campaign_line(args.study, campaign, target, int(result.code), report_file)
        with Path(args.summary_file).open("a", encoding="utf-8") as summary:
            summary.write(line + "\n")
    return result.code


def campaign_line(study: str, campaign: str, target: str | None, code: int, report_file: Path) -> str:
    """One line for `make run`'s closing summary: what ran, its exit status, where its report
    is and the first sentence of its answer block (none when the figures were not built)."""
    where = f" on {target}" if target else ""
    line = f"{study}{where} (campaign {campaign}): exit {code}"
    if report_file.exists():
        line += f"; report {report_file}"
    try:
        from benchcamp.presentation.answer_section import answer_blocks
        from benchcamp.presentation.marts import read_tables

        answer = answer_blocks(read_tables(default_warehouse(), study, campaign), study)[0].items[0]
    except Exception as exc:  # noqa: BLE001  # a summary line never fails the run: it says why
        return line + f"; no answer ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    return line + f"; answer: {answer}"


def _analysis_failure(since: datetime) -> str | None:
    """Why the figures were not built: the warehouse's build since `since` failed (None otherwise)."""
    from benchcamp.pipeline.transform import last_build
    from benchcamp.pipeline.warehouse import WarehouseBusy

    try:
        build = last_build(default_warehouse())
    except WarehouseBusy as exc:
        return str(exc)
    if build is None or build.ok or build.finished_at < since:
        return None
    return build.stale_note()


def _stop_campaign(
    study: str,
    campaign: str,
    target: str | None,
    env: dict[str, str],
    process: subprocess.Popen[bytes],
    signum: int,
) -> ExitCode:
    """Stop everything a campaign started, then say so (see `_run_campaign`)."""
    from benchcamp.pipeline import outcome

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the stop runs to its end (bounded)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    name = signal.Signals(signum).name
    print(
        f"\n{name}: stopping campaign {campaign} (Airflow, then its jobs on the target) ...",
        file=sys.stderr,
        flush=True,
    )
    stop_process_group(process, STOP_GRACE_S)
    stopped = _stop_remote_jobs(study, campaign, target, name, env)
    marked = mark_run_failed(env, study, campaign)
    interrupted = outcome.mark_interrupted(study, campaign, name)
    print(
        f"{name}: Airflow stopped; {stopped}; DAG run {', '.join(marked) or '(none found)'} marked failed; "
        f"{len(interrupted)} repetition(s) marked interrupted in the archive. "
        f"Run the same command again to resume (--restart to redo all).",
        file=sys.stderr,
        flush=True,
    )
    return for_signal(signum)


def _stop_remote_jobs(
    study: str, campaign: str, target: str | None, signal_name: str, env: dict[str, str]
) -> str:
    """The campaign's jobs still running on the target, stopped (their process groups), and the
    repetitions they measured marked interrupted. The target is reached through the connections
    Airflow's process was given (`env`), as its tasks reached it."""
    from benchcamp.core.spec import load_spec
    from benchcamp.pipeline.campaign.target import stop_campaign

    os.environ.update({key: value for key, value in env.items() if key.startswith("AIRFLOW_CONN_")})
    spec = load_spec(study)
    # an interleaved campaign runs on its target's whole group: its jobs may be on any of them
    group = (spec.interleave_group(target) or [target]) if target else None
    unreached: list[str] = []
    jobs = stop_campaign(study, campaign, signal_name, group, unreached=unreached)
    parts = []
    if jobs:
        listed = ", ".join(f"{job.step} {job.cell} rep{job.repetition}" for job in jobs)
        parts.append(f"{len(jobs)} job(s) stopped on the target ({listed})")
    if unreached:
        parts.append(f"its jobs could not be stopped on {'; '.join(unreached)}: check the target for them")
    return "; ".join(parts) or "no job of the campaign was running on the target"


def _now_tag() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S")


def cmd_airflow_env(args: argparse.Namespace) -> int:
    """The Airflow CLI's environment; once `make up` made the stack's metadata database, its URL,
    so that `airflow backfill create` and the like act on the stack."""
    from benchcamp.ops import lab, metadb

    env = airflow_environment(lab.airflow_connection_env())
    if metadb.initialised():
        env.update(metadb.airflow_env())
    for name, value in env.items():
        print(f"export {name}={shlex.quote(value)}")
    return ExitCode.OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchcamp", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    importer = sub.add_parser(
        "import",
        help="load result records (JSONL or CSV), or HiBench / TestDFSIO / YCSB files, validate, build the marts",
    )
    importer.add_argument(
        "files", nargs="+", metavar="FILE", help="a record file, or native files/directories"
    )
    native = importer.add_argument_group("native files (docs/importing-native.md)")
    native.add_argument(
        "--from",
        dest="source_format",
        choices=["hibench-report", "testdfsio-log", "ycsb-output"],
        help="the files' format (default: told by their content)",
    )
    native.add_argument("--study", help="the study the runs belong to")
    native.add_argument("--campaign", help="the campaign they become")
    native.add_argument("--environment", help="the environment they ran on (one of the spec's)")
    native.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="an axis value the files do not say",
    )
    native.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME=WORKLOAD",
        help="map a tool's run name to a workload",
    )
    native.add_argument(
        "--skip", action="append", default=[], metavar="NAME", help="leave a tool's run name out"
    )
    native.add_argument(
        "--timezone", help="IANA zone of times printed without one (HiBench; TestDFSIO's CET, EDT, ...)"
    )
    importer.add_argument("--warehouse", help="DuckDB file (default $BENCHCAMP_WAREHOUSE or ./warehouse/)")
    importer.add_argument(
        "--strict-environment", action="store_true", help="require environments declared in the study spec"
    )
    importer.set_defaults(handler=cmd_import)

    reporter = sub.add_parser("report", help="print a study's marts")
    reporter.add_argument("study")
    reporter.add_argument("--campaign", help="campaign id (default: the latest)")
    reporter.add_argument(
        "--format",
        choices=["table", "csv", "json", "html"],
        default="table",
        help="html: the results page's tables and figures as one self-contained file",
    )
    reporter.add_argument("--output", help="write to this file instead of standard output")
    reporter.add_argument("--warehouse")
    reporter.add_argument(
        "--beside",
        metavar="ENVIRONMENT",
        help="instead of the campaign's tables, each of its cells' mean beside the same cell's on "
        "ENVIRONMENT (its latest campaign there), with the ratio; `baseline`: the study's baseline",
    )
    reporter.set_defaults(handler=cmd_report)

    spec_parser = sub.add_parser("spec", help="study specs")
    spec_actions = spec_parser.add_subparsers(dest="spec_action", required=True)
    checker = spec_actions.add_parser(
        "check", help="validate study specs: every problem with its key path and line (exit 2 on any)"
    )
    checker.add_argument("files", nargs="*", metavar="FILE", help="spec files (default: the bundled studies)")
    checker.set_defaults(handler=cmd_spec_check)

    lab_parser = sub.add_parser(
        "lab", help="the local lab on 127.0.0.1; `lab cluster up|status|down`: the five-host lab cluster"
    )
    lab_parser.add_argument("action", choices=["up", "down", "status", "cluster"])
    lab_parser.add_argument(
        "cluster_action",
        nargs="?",
        choices=["up", "down", "status", "reformat"],
        metavar="up|status|down|reformat",
    )
    lab_parser.add_argument(
        "--stores",
        action="store_true",
        help="also the YCSB stores: on the lab Cassandra and HBase (~1 GB, ~20 s more); on the lab "
        "cluster a Cassandra node on each worker (a three-node ring) and a distributed HBase (ZooKeeper "
        "and master on the master, a region server on each worker, its root on HDFS)",
    )
    lab_parser.set_defaults(handler=cmd_lab)

    runner = sub.add_parser("run", help="run a study campaign through Airflow on the local lab")
    runner.add_argument("study")
    runner.add_argument("--ladder", choices=["tiny", "small", "paper"], default="small")
    runner.add_argument("--repetitions", type=int)
    runner.add_argument("--workloads", help="comma-separated subset")
    runner.add_argument(
        "--environment",
        help="the study's environment to run on; several, comma-separated, or `all` (every one-host lab "
        "environment; the lab cluster's only by name): "
        "one campaign each, in turn (default: the study's first one-host lab environment)",
    )
    runner.add_argument("--cells", help="comma-separated cell keys (default: the whole matrix)")
    runner.add_argument(
        "--warmups",
        type=int,
        help="warm-up repetitions per cell (default: the study spec's warmup_repetitions)",
    )
    runner.add_argument(
        "--order",
        choices=("sequential", "randomised", "blocked", "interleaved"),
        help="run order of the measured repetitions (default: the study spec's order); interleaved: "
        "the environments of the target's interleave group in one campaign, in turns (ABBA)",
    )
    runner.add_argument("--order-seed", type=int, help="seed of a randomised or blocked order")
    runner.add_argument(
        "--target-ci-pct",
        type=float,
        help="adaptive repetitions: more per cell until the 95%% CI half-width of its mean is within "
        "this %% of the mean (default: the study spec's target_ci_pct, if any)",
    )
    runner.add_argument(
        "--max-repetitions", type=int, help="at most this many repetitions per cell with a target"
    )
    runner.add_argument(
        "--budget",
        type=_budget,
        metavar="DURATION",
        help="with a target: the campaign's wall time (e.g. 10m, 1h30m) the adaptive repetitions must "
        "fit in; the planned ones always run, and a budget an earlier campaign says they exceed is refused",
    )
    runner.add_argument(
        "--summary-file",
        metavar="FILE",
        help="append one line per campaign to FILE: what ran, its exit status, its report, its answer",
    )
    runner.add_argument("--campaign", help="campaign name (default: run_<UTC timestamp>)")
    runner.add_argument(
        "--keep-lab",
        action="store_true",
        help="leave the lab (and a lab cluster this run started) running after the campaign",
    )
    runner.add_argument(
        "--restart",
        action="store_true",
        help="with a campaign name run before: redo every repetition (default: keep those archived as ok)",
    )
    runner.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="when another campaign holds the target, wait up to this long for it (default: refuse at once)",
    )
    runner.add_argument(
        "--fail-on-validation",
        action="store_true",
        help="also mark the Airflow run failed when an expectation fails (the exit code is 3 either way)",
    )
    runner.set_defaults(handler=cmd_run)

    sub.add_parser("up", help="start the lab and Airflow (UI on 127.0.0.1, login required)").set_defaults(
        handler=cmd_up
    )
    stopper = sub.add_parser("down", help="stop Airflow and the lab")
    stopper.add_argument("--keep-lab", action="store_true", help="stop Airflow only")
    stopper.set_defaults(handler=cmd_down)
    sub.add_parser("status", help="Airflow's components and the lab's services").set_defaults(
        handler=cmd_status
    )

    sub.add_parser(
        "airflow-init",
        help="migrate Airflow, create the pools, write the login (docker compose's airflow-init)",
    ).set_defaults(handler=cmd_airflow_init)

    env_parser = sub.add_parser("airflow-env", help="print the Airflow environment as shell exports")
    env_parser.set_defaults(handler=cmd_airflow_env)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code = int(args.handler(args))
    if code:
        # A command that waited and gave up (a held warehouse) keeps its retried exceptions in
        # reference cycles that hold DuckDB objects; collected here (a quarter of a second), not in
        # interpreter shutdown, where DuckDB's bindings (nanobind) may be gone: "leaked instances".
        gc.collect()
    return code


if __name__ == "__main__":
    sys.exit(main())
