"""Where a command's CPU goes, by kind of process: how `make test` was found CPU-bound and where.

Polls /proc every 0.4 s and keeps each process's last user + system time, so a process that
lives a second or more (a `hadoop fs` JVM, an Airflow task) is counted; when the command ends,
prints the CPU seconds per kind (a JVM by its main class, and the jar and tool for `RunJar`; a
Python process by its script and first arguments; anything else by its name), busiest first.
Every process on the machine is counted, not only the command's, so run it on a quiet machine.
It also prints the CPU seconds per test module: a process started while pytest ran a test carries
that test in its environment (PYTEST_CURRENT_TEST, which pytest sets for each test and children
inherit), and one without it takes its parent's module. A daemon counts toward the module that
started it (the shared lab toward the test that brought it up); a pytest process's own work (its
in-process dbt builds, imports, parsing) toward its session, named by its --basetemp. A process
that starts with a clean environment (what runs over SSH on a target, what a container runs)
is under "-". Last, module and kind together: which module starts the `hadoop fs` JVMs.

Usage: python3 benchmarks/cpu_by_process.py [--top 60] -- COMMAND [ARGS...]
e.g.   python3 benchmarks/cpu_by_process.py -- .ci/run
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

K = TypeVar("K")

TICK = os.sysconf("SC_CLK_TCK")


def arguments(pid: str) -> list[str]:
    """A process's command line, empty when it has gone or has none (a kernel thread)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []
    return [arg.decode(errors="replace") for arg in raw if arg]


def kind(args: list[str], comm: str) -> str:
    """A process's kind, from its command line."""
    if not args:
        return comm
    exe = os.path.basename(args[0])
    if exe == "java" or comm == "java":
        main = next(
            (a for a in args[1:] if not a.startswith("-") and "." in a and not set("/=:") & set(a)), "?"
        )
        if main.endswith("RunJar") and len(args) > args.index(main) + 1:
            at = args.index(main)
            return f"java {main} {os.path.basename(args[at + 1])} {' '.join(args[at + 2 : at + 3])}"
        return f"java {main}"
    if "python" in exe:
        script = next((a for a in args[1:] if not a.startswith("-")), "?")
        rest = args[args.index(script) + 1 :][:2] if script in args else []
        return f"py {os.path.basename(script)} {' '.join(rest)}"
    return f"{comm} {' '.join(os.path.basename(a) for a in args[1:2])}"


def module_of(pid: str, args: list[str], parent_module: str | None) -> str:
    """The test module a process works for: its own PYTEST_CURRENT_TEST, else its parent's."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        environ = []
    for entry in environ:
        if entry.startswith(b"PYTEST_CURRENT_TEST="):
            return entry.split(b"=", 1)[1].decode(errors="replace").split("::")[0]
    if any(os.path.basename(arg) == "pytest" for arg in args[:2]):
        temp = next((a.split("=", 1)[1] for a in args if a.startswith("--basetemp=")), "?")
        return f"pytest session {os.path.basename(temp)} (in-process)"
    return parent_module or "-"


def scan(seen: dict[tuple[int, str], list[object]], module_by_pid: dict[int, str]) -> None:
    """Each live process's kind, CPU seconds so far and test module, keyed by pid and start time
    (`module_by_pid`: the module of the latest process seen with each pid, for its children)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        key = (int(name), fields[19])
        if key not in seen or seen[key][2] != comm:  # new, or exec'd into another program
            args = arguments(name)
            module = module_of(name, args, module_by_pid.get(int(fields[1])))
            seen[key] = [kind(args, comm), cpu, comm, module]
            module_by_pid[int(name)] = module
        else:
            seen[key][1] = cpu


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("give the command to measure after --")
    seen: dict[tuple[int, str], list[object]] = {}
    module_by_pid: dict[int, str] = {}
    scan(seen, module_by_pid)
    baseline = {key: float(str(value[1])) for key, value in seen.items()}
    child = subprocess.Popen(command)
    while child.poll() is None:
        time.sleep(0.4)
        scan(seen, module_by_pid)
    totals: defaultdict[str, float] = defaultdict(float)  # CPU-seconds: floats, not a Counter's ints
    counts: Counter[str] = Counter()
    modules: defaultdict[str, float] = defaultdict(float)
    pairs: defaultdict[tuple[str, str], float] = defaultdict(float)
    for key, (name, cpu, _, module) in seen.items():
        spent = float(str(cpu)) - baseline.get(key, 0.0)
        if spent > 0:
            totals[str(name)] += spent
            counts[str(name)] += 1
            modules[str(module)] += spent
            pairs[(str(module), str(name))] += spent
    print(f"CPU by kind of process: {sum(totals.values()):.0f} s in all", file=sys.stderr)

    def most(spent: Mapping[K, float]) -> list[tuple[K, float]]:
        return sorted(spent.items(), key=lambda item: -item[1])[: options.top]

    for name, spent in most(totals):
        print(f"{spent:8.1f} s {counts[name]:5d}  {name[:160]}", file=sys.stderr)
    print("CPU by test module (processes started during its tests, and their children):", file=sys.stderr)
    for module, spent in most(modules):
        print(f"{spent:8.1f} s  {module[:160]}", file=sys.stderr)
    print("CPU by test module and kind of process (where a JVM or a tool is started from):", file=sys.stderr)
    for (module, name), spent in most(pairs):
        print(f"{spent:8.1f} s  {module[:70]}  {name[:100]}", file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
