"""Environment facts of a target, captured over SSH next to every repetition.

The facts script prints sections (`### name` then raw text) using only POSIX
tools, so it runs on any Linux node; the parser here is pure. The fingerprint
hashes the hardware-relevant facts only (CPU, cores, memory, disks), so a kernel
upgrade does not split time series but a new disk does.
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ElementTree
from datetime import datetime
from pathlib import Path
from typing import Any

from benchcamp.core.records import EnvironmentSnapshot
from benchcamp.core.steps import RunContext
from benchcamp.core.study import effective_settings
from benchcamp.platforms.hive import HiveStatement

FACTS_SCRIPT = r"""
section() { printf '\n### %s\n' "$1"; }
section hostname; hostname 2>/dev/null || cat /etc/hostname
section cpu_model; grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'
section cpu_cores; nproc
section mem_total_kb; awk '/^MemTotal:/ {print $2}' /proc/meminfo
section kernel; uname -sr
section os; . /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"
section disks
listed=$(command -v lsblk >/dev/null 2>&1 && lsblk -d -n -b -o NAME,ROTA,SIZE,TYPE 2>/dev/null | awk '$4 == "disk"')
if [ -n "$listed" ]; then
  echo "$listed"
else  # no util-linux, or a container without device nodes: the kernel's own list, no virtual devices
  for d in /sys/block/*; do
    case "${d##*/}" in loop*|ram*|zram*|dm-*|sr*|md*|nbd*) continue ;; esac
    [ -r "$d/size" ] && echo "${d##*/} $(cat "$d/queue/rotational" 2>/dev/null || echo 0) $(( $(cat "$d/size") * 512 )) disk"
  done
fi
section work_mount; df -P "$WORK" 2>/dev/null | tail -n 1
section java_version; java -version 2>&1 | head -n 3
section hadoop_client_opts; printf '%s\n' "${HADOOP_CLIENT_OPTS:-}"
section hadoop_version; HADOOP_VERSION_CMD
section hadoop_site
for f in "${HADOOP_CONF_DIR:-${HADOOP_HOME:-/etc/hadoop}/etc/hadoop}"/*-site.xml; do
  [ -f "$f" ] && { printf '<!-- %s -->\n' "$f"; cat "$f"; }
done
section drop_caches_permitted; [ -w /proc/sys/vm/drop_caches ] && echo yes || echo no
"""
HARDWARE_FACTS = ("cpu_model", "cpu_cores", "mem_total_gib", "disks")
# facts_command's output just before and just after a timed step (`recheck_facts`), in its folder
FACTS_BEFORE = "facts_before.txt"
FACTS_AFTER = "facts_after.txt"


def recheck_line(ctx: RunContext, file: str) -> str:
    """The shell line that writes facts_command's output to `file` in the job folder, around a
    timed step of an environment with `recheck_facts` (empty otherwise); never fails the step."""
    transport = ctx.environment.transport
    if not (transport.recheck_facts and transport.facts_command):
        return ""
    return f'( {transport.facts_command}\n) > "$JOB"/{file} 2>&1 || echo "facts_command exited $?" >> "$JOB"/{file}'


def write_facts_around(directory: Path, before: str, after: str) -> None:
    """facts_command's outputs around a timed step that the wrapper did not run, beside its archive."""
    (directory / FACTS_BEFORE).write_text(before, encoding="utf-8")
    (directory / FACTS_AFTER).write_text(after, encoding="utf-8")


def hardware_change(names: tuple[str, ...], before: str, after: str) -> str:
    """The hardware facts that differ between two outputs of facts_command, as `name a → b`
    (`?` where one was not printed), joined; empty when none did."""
    old, new = parse_target_facts(before), parse_target_facts(after)
    changed = [name for name in names if old.get(name) != new.get(name) or name not in old]
    return ", ".join(f"{name} {old.get(name, '?')} → {new.get(name, '?')}" for name in changed)


def facts_script(ctx: RunContext) -> str:
    hadoop = " ".join(ctx.environment.hadoop.command.split())
    script = FACTS_SCRIPT.replace("HADOOP_VERSION_CMD", f"{hadoop} version 2>&1 | head -n 1")
    command = ctx.environment.transport.facts_command
    if command:
        # the environment's own facts; a failing command fails the capture (its facts are wanted)
        script += f'section target_facts\n( {command}\n) || {{ echo "facts_command failed (exit $?)" >&2; exit 9; }}\n'
    return script


def parse_target_facts(text: str) -> dict[str, str]:
    """facts_command's `name=value` lines (other lines, e.g. progress, are ignored)."""
    facts: dict[str, str] = {}
    for line in text.splitlines():
        name, equals, value = line.partition("=")
        if equals and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name.strip()):
            facts[name.strip()] = value.strip()
    return facts


def parse_sections(text: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("### "):
            current = line[4:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def parse_site_properties(xml_text: str) -> dict[str, str]:
    """Hadoop `*-site.xml` name/value pairs (several concatenated documents allowed)."""
    properties: dict[str, str] = {}
    for document in re.findall(r"<configuration.*?</configuration>", xml_text, flags=re.S):
        try:
            root = ElementTree.fromstring(document)
        except ElementTree.ParseError:
            continue
        for prop in root.iter("property"):
            name = prop.findtext("name")
            if name:
                properties[name.strip()] = (prop.findtext("value") or "").strip()
    return properties


def parse_facts(text: str) -> dict[str, Any]:
    """Structured facts from the facts script's output."""
    sections = parse_sections(text)
    disks = []
    for line in sections.get("disks", "").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            disks.append({"name": parts[0], "rotational": parts[1] == "1", "size_bytes": int(parts[2])})
    mem_kb = sections.get("mem_total_kb", "")
    cores = sections.get("cpu_cores", "")
    return {
        "hostname": sections.get("hostname", ""),
        "cpu_model": sections.get("cpu_model", ""),
        "cpu_cores": int(cores) if cores.isdigit() else None,
        "mem_total_gib": round(int(mem_kb) / 1024**2, 1) if mem_kb.isdigit() else None,
        "kernel": sections.get("kernel", ""),
        "os": sections.get("os", ""),
        "disks": sorted(disks, key=lambda disk: disk["name"]),
        "work_mount": sections.get("work_mount", ""),
        "java_version": sections.get("java_version", "").splitlines()[0]
        if sections.get("java_version")
        else "",
        "hadoop_version": sections.get("hadoop_version", ""),
        # the client JVMs' options (the JIT, the heap): they move a short job's time
        "hadoop_client_opts": sections.get("hadoop_client_opts", "").strip(),
        "hadoop_settings": parse_site_properties(sections.get("hadoop_site", "")),
        "drop_caches_permitted": sections.get("drop_caches_permitted") == "yes",
        "target": parse_target_facts(sections.get("target_facts", "")),
    }


def hive_fact_statements() -> list[HiveStatement]:
    """Hive's version and the effective value of each setting a study asks for (`Study.effective_settings`)."""
    statements = [HiveStatement("hive_version", "SELECT version()", fetch=True)]
    statements += [
        HiveStatement(f"set_{index}", f"SET {name}", fetch=True)
        for index, name in enumerate(effective_settings())
    ]
    return statements


def parse_hive_facts(results: dict[str, list[list[Any]]]) -> dict[str, Any]:
    """Hive's version and the effective settings from the rows of `hive_fact_statements`."""
    version_rows = results.get("hive_version") or [[""]]
    settings: dict[str, str] = {}
    for label, rows in results.items():
        if label.startswith("set_") and rows and rows[0]:
            name, _, value = str(rows[0][0]).partition("=")
            if not value.endswith(" is undefined"):
                settings[name] = value
    return {
        "hive_version": str(version_rows[0][0]).split()[0] if version_rows[0] else "",
        "effective_settings": settings,
    }


REQUIRED_FACTS = ("hostname", *HARDWARE_FACTS)


def missing_facts(facts: dict[str, Any]) -> list[str]:
    """The facts a snapshot needs (host and every fingerprinted fact) that the capture lacks:
    a fingerprint of missing facts would later look like a hardware change."""
    return [name for name in REQUIRED_FACTS if facts.get(name) in (None, "", [])]


def fingerprint(facts: dict[str, Any]) -> str:
    hardware = {name: facts.get(name) for name in HARDWARE_FACTS}
    if facts.get("target_hardware"):  # only when the environment names some (older hashes stay)
        hardware["target_hardware"] = facts["target_hardware"]
    digest = hashlib.sha256(json.dumps(hardware, sort_keys=True).encode()).hexdigest()
    return digest[:16]


def snapshot(ctx: RunContext, facts: dict[str, Any], captured_at: datetime) -> EnvironmentSnapshot:
    return EnvironmentSnapshot(
        study=ctx.spec.study,
        campaign=ctx.campaign,
        environment=ctx.environment.name,
        host=str(facts["hostname"]),
        fingerprint=fingerprint(facts),
        facts=facts,
        captured_at=captured_at,
    )
