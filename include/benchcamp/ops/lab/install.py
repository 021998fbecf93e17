"""Idempotent installation of what the lab runs: Debian packages and jars from Maven Central."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from html import escape
from pathlib import Path

from benchcamp.ops.lab.layout import (
    CASSANDRA_VERSION,
    HADOOP_VERSION,
    HBASE_VERSION,
    HIVE_EXEC_JAR,
    HIVE_VERSION,
    cassandra_home,
    hadoop_home,
    hbase_home,
    hive_exec_classes,
    hive_home,
    yarn_home,
    ycsb_home,
)
from benchcamp.ops.toolkit import apt_install

_MR_JARS = (
    f"hadoop-mapreduce-examples-{HADOOP_VERSION}.jar",
    f"hadoop-mapreduce-client-jobclient-{HADOOP_VERSION}-tests.jar",
)


def _copy_dependencies(
    home: Path,
    version: str,
    settings: Path | None = None,
    exclude: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> None:
    """`mvn dependency:copy-dependencies` into home/lib, marked with the version once complete."""
    lib = home / "lib"
    marker = lib / ".installed"
    if marker.exists() and marker.read_text().strip() == version:
        return
    if lib.exists():
        shutil.rmtree(lib)
    command = ["mvn", "-q", "-B", "-f", str(home / "pom.xml")]
    if settings is not None:
        command += ["-s", str(settings)]
    command += ["dependency:copy-dependencies", "-DoutputDirectory=lib"]
    if exclude:
        command.append("-DexcludeArtifactIds=" + ",".join(exclude))
    command += extra
    subprocess.run(command, check=True)
    marker.write_text(version)


def _stale(module: Path, jar: Path) -> bool:
    """The module's jar is missing or older than one of its sources or its pom."""
    sources = [path for path in (module / "src" / "main").rglob("*") if path.is_file()]
    newest = max([path.stat().st_mtime for path in sources + [module / "pom.xml"]], default=0.0)
    return not jar.exists() or jar.stat().st_mtime < newest


def _build_jars(modules: list[Path]) -> None:
    """`mvn package` of the given modules in one Maven reactor: one Maven start instead of one
    per module (a fresh clone builds all of them, about 15 s less on two cores)."""
    if not modules:
        return
    with tempfile.TemporaryDirectory(prefix="benchcamp-reactor-") as directory:
        # relative paths: Maven joins a module's path to the aggregator's directory
        entries = "".join(
            f"<module>{escape(os.path.relpath(module, directory))}</module>" for module in modules
        )
        pom = Path(directory) / "pom.xml"
        pom.write_text(
            '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
            "<groupId>benchcamp</groupId><artifactId>lab-tools</artifactId><version>1</version>"
            f"<packaging>pom</packaging><modules>{entries}</modules></project>",
            encoding="utf-8",
        )
        subprocess.run(["mvn", "-q", "-B", "-f", str(pom), "package", "-DskipTests"], check=True)


def ensure_installed() -> None:
    """openssh-server and Maven (apt), Hadoop (HDFS, YARN) and Hive jars (Maven Central), the project's Java tools."""
    if not Path("/usr/sbin/sshd").exists():
        apt_install("openssh-server")
    if shutil.which("mvn") is None:
        apt_install("maven")
    if shutil.which("ip") is None and not Path("/usr/sbin/ip").exists():
        apt_install("iproute2")  # `ip netns`: YARN runs in a loopback-only network namespace
    _copy_dependencies(hadoop_home(), HADOOP_VERSION)
    _copy_dependencies(yarn_home(), HADOOP_VERSION + "-dfsio")
    # where a Hadoop install keeps the MapReduce jars ($HADOOP_HOME/share/hadoop/mapreduce): the
    # workloads find them there on the lab (lab/hadoop) and on the lab cluster (lab/yarn) as on a
    # real cluster's gateway
    for home in (hadoop_home(), yarn_home()):
        share = home / "share" / "hadoop" / "mapreduce"
        share.mkdir(parents=True, exist_ok=True)
        for jar in _MR_JARS:
            link = share / jar
            if not link.exists():
                link.unlink(missing_ok=True)
                link.symlink_to(Path("../../../lib") / jar)
    # Hive logs through log4j2; a second SLF4J binding (reload4j, pulled in by Hadoop 3.3.6)
    # would win and silence the operation logs the Hive workloads read their timings from.
    _copy_dependencies(
        hive_home(),
        HIVE_VERSION + "-log4j2",
        settings=hive_home() / "settings.xml",
        exclude=("slf4j-reload4j", "reload4j"),
    )
    _unpack_hive_exec()
    _build_jars([module for module, tool_jar in project_tool_modules() if _stale(module, tool_jar)])


def _unpack_hive_exec() -> None:
    """hive-exec's classes as a directory (see `layout.hive_exec_classes`), redone when the jar changes."""
    jar = hive_home() / "lib" / HIVE_EXEC_JAR
    target = hive_exec_classes()
    marker = target / ".unpacked"
    stamp = f"{jar.name} {jar.stat().st_size} {jar.stat().st_mtime_ns}\n"
    if marker.exists() and marker.read_text() == stamp:
        return
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(jar) as archive:
        archive.extractall(partial)
    (partial / ".unpacked").write_text(stamp)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def project_tool_modules() -> list[tuple[Path, Path]]:
    """The project's own Java tools under lab/ (a `pom.xml` beside `src/main/java`: the data
    generators, the graph jobs), each with the jar it builds (`target/<finalName>.jar`).

    Found by their shape, so a study that adds a tool module needs no change here. The YCSB
    client is left to `ensure_stores_installed`: it needs the stores' downloads.
    """
    modules = []
    for pom in sorted(hadoop_home().parent.glob("*/pom.xml")):
        module = pom.parent
        if module == ycsb_home() or not (module / "src" / "main" / "java").is_dir():
            continue
        name = re.search(r"<finalName>([^<$]+)</finalName>", pom.read_text(encoding="utf-8"))
        if name:
            modules.append((module, module / "target" / f"{name.group(1)}.jar"))
    return modules


HIVESERVER2_CLASSPATH_PROPERTY = "<benchcamp.hiveserver2.classpath>true</benchcamp.hiveserver2.classpath>"


def hiveserver2_jars() -> list[Path]:
    """The project's tool jars HiveServer2 starts with on its own classpath: modules whose pom
    sets the property `benchcamp.hiveserver2.classpath` to true (Hive functions).

    Their queries still `ADD JAR` them (what a real cluster needs), but a session's jar class
    loader delegates to its parent first, so on the lab the classes come from the server's
    loader, which is never closed. Loaded only from the session's loader, a function running in
    a local MapReduce task lost its classes when another session closed the loader that had
    loaded them first (NoClassDefFoundError in BigBench's concurrent throughput streams).
    """
    return [
        jar
        for module, jar in project_tool_modules()
        if HIVESERVER2_CLASSPATH_PROPERTY in (module / "pom.xml").read_text(encoding="utf-8")
    ]


def ensure_stores_installed() -> None:
    """The YCSB stores and client (Maven Central): only labs started with stores download them (~200 MB)."""
    _copy_dependencies(cassandra_home(), CASSANDRA_VERSION)
    # log4j2 only (lab/hbase/pom.xml excludes the reload4j binding Hadoop brings)
    _copy_dependencies(hbase_home(), HBASE_VERSION + "-log4j2")
    home = ycsb_home()
    if _stale(home, home / "target" / "benchcamp-ycsb.jar"):
        _build_jars([home])
    _copy_dependencies(
        home, "0.17.0-1+hbase-shaded-client-2.6.4+HdrHistogram-2.1.12", extra=("-DincludeScope=runtime",)
    )
