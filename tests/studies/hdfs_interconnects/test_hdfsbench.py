"""The hdfs_interconnects study's parser of lab/hdfsbench output (hdfsbench.py), and the jar itself.

The parser tests read the outputs recorded from real runs of lab/hdfsbench/target/hdfsbench.jar on
the local file system (``recorded/<bench>.txt``, each one run's standard output as printed, Hadoop's
log line included) and check the values recorded, then the refusals. The last test runs ``swl`` and
``srt`` through the lab's ``hadoop jar`` on the local file system (an empty configuration directory
of its own, ``-D fs.defaultFS=file:///``, no service) and parses what they print; it fails, not
skips, when the jar, java or the lab's Hadoop jars are missing (``make setup`` makes them).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.studies.hdfs_interconnects.hdfsbench import (
    MB,
    FileSettings,
    HdfsBenchOutputError,
    RandomRead,
    RandomReadMean,
    SequentialLatency,
    Throughput,
    parse_hdfsbench_file,
    parse_hdfsbench_output,
)

ROOT = Path(__file__).resolve().parents[3]
RECORDED = ROOT / "include" / "benchcamp" / "studies" / "hdfs_interconnects" / "recorded"
JAR = ROOT / "lab" / "hdfsbench" / "target" / "hdfsbench.jar"
HADOOP = ROOT / "lab" / "bin" / "hadoop"
HADOOP_LIB = ROOT / "lab" / "hadoop" / "lib"

SETTINGS = FileSettings(block_size=1048576, replication=1, buffer=65536)


# ---------------------------------------------------------------------------------------------
# recorded outputs


def test_swl_recorded() -> None:
    out = parse_hdfsbench_file(RECORDED / "swl.txt")
    assert out.bench == "swl"
    assert out.latencies == (
        SequentialLatency("swl", 1048576, 0.046505, 21.503, SETTINGS, line=2),
        SequentialLatency("swl", 4194304, 0.014962, 267.341, SETTINGS, line=3),
        SequentialLatency("swl", 16777216, 0.017116, 934.806, SETTINGS, line=4),
    )
    assert (out.done.measurements, out.done.seconds, out.done.fs, out.done.line) == (
        3,
        0.097789,
        "file:///",
        5,
    )
    for m in out.latencies:  # mb_s is size / 2^20 / seconds (seconds printed rounded to 1 µs)
        assert m.mb_s == pytest.approx(m.size_bytes / MB / m.seconds, rel=1e-3)


def test_srl_recorded() -> None:
    out = parse_hdfsbench_file(RECORDED / "srl.txt")
    assert out.bench == "srl"
    assert [(m.size_bytes, m.seconds, m.mb_s) for m in out.latencies] == [
        (1048576, 0.005452, 183.404),
        (4194304, 0.002375, 1684.535),
        (16777216, 0.005030, 3181.200),
    ]
    assert all(m.bench == "srl" and m.settings == SETTINGS for m in out.latencies)
    assert out.done.measurements == 3


def test_rrl_recorded() -> None:
    out = parse_hdfsbench_file(RECORDED / "rrl.txt")
    assert out.bench == "rrl"
    assert len(out.random_reads) == 20
    assert out.random_reads[0] == RandomRead(1048576, 1, 67241, 4096, 0.002099, line=2)
    assert out.random_reads[-1] == RandomRead(4194304, 10, 3590502, 4096, 0.000510, line=22)
    # the same seed gives the same offsets sequence for every file (bounded by its size)
    assert [r.read for r in out.random_reads] == list(range(1, 11)) * 2
    assert all(r.offset + r.read_bytes <= r.size_bytes for r in out.random_reads)
    assert out.random_read_means == (
        RandomReadMean(1048576, 10, 4096, 0.001578, 0.000650, 0.002336, 7, SETTINGS, line=12),
        RandomReadMean(4194304, 10, 4096, 0.001012, 0.000376, 0.002476, 7, SETTINGS, line=23),
    )
    for mean in out.random_read_means:
        reads = [r.seconds for r in out.random_reads if r.size_bytes == mean.size_bytes]
        assert mean.seconds == pytest.approx(sum(reads) / len(reads), abs=2e-6)
        assert (mean.min_seconds, mean.max_seconds) == (min(reads), max(reads))
    assert out.done.measurements == 22 and out.done.line == 24


def test_swt_srt_recorded() -> None:
    swt = parse_hdfsbench_file(RECORDED / "swt.txt")
    srt = parse_hdfsbench_file(RECORDED / "srt.txt")
    assert swt.throughputs == (
        Throughput("swt", 4, 33554432, 0.094249, 339.526, 0.081260, 0.086460, SETTINGS, line=2),
    )
    assert srt.throughputs == (
        Throughput("srt", 4, 33554432, 0.017006, 1881.637, 0.009092, 0.013501, SETTINGS, line=2),
    )
    for out in (swt, srt):
        (t,) = out.throughputs
        assert t.aggregate_mb_s == pytest.approx(t.total_bytes / MB / t.seconds, rel=1e-3)
        assert t.min_client_seconds <= t.max_client_seconds <= t.seconds
        assert out.done.measurements == 1


# ---------------------------------------------------------------------------------------------
# refusals

GOOD_SWL = "hdfsbench: bench=swl size_bytes=1048576 seconds=0.5 mb_s=2.000 block_size=1048576 replication=1 buffer=65536"
DONE_SWL = "hdfsbench: done bench=swl measurements=1 seconds=0.6 fs=file:///"


def refused(text: str) -> HdfsBenchOutputError:
    with pytest.raises(HdfsBenchOutputError) as info:
        parse_hdfsbench_output(text)
    return info.value


def test_minimal_output_with_log_lines_and_extra_fields() -> None:
    text = f"log4j:WARN something\n{GOOD_SWL} future_field=x\n\nINFO more\n{DONE_SWL}\n"
    out = parse_hdfsbench_output(text)
    assert out.latencies[0].line == 2 and out.done.line == 5


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (f"{GOOD_SWL.replace('bench=swl', 'bench=sxl')}\n{DONE_SWL}", 1, "unknown bench 'sxl'"),
        (f"x\n{GOOD_SWL.replace(' mb_s=2.000', '')}\n{DONE_SWL}", 2, "missing field 'mb_s'"),
        (f"{GOOD_SWL.replace('bench=swl ', '')}\n{DONE_SWL}", 1, "missing field 'bench'"),
        (f"{GOOD_SWL.replace('seconds=0.5', 'seconds=nan')}\n{DONE_SWL}", 1, "seconds='nan'"),
        (f"{GOOD_SWL.replace('seconds=0.5', 'seconds=inf')}\n{DONE_SWL}", 1, "finite non-negative"),
        (f"{GOOD_SWL.replace('seconds=0.5', 'seconds=1e999')}\n{DONE_SWL}", 1, "finite non-negative"),
        (f"{GOOD_SWL.replace('seconds=0.5', 'seconds=-0.5')}\n{DONE_SWL}", 1, "finite non-negative"),
        (f"{GOOD_SWL.replace('size_bytes=1048576', 'size_bytes=-1')}\n{DONE_SWL}", 1, "non-negative integer"),
        (f"{GOOD_SWL.replace('size_bytes=1048576', 'size_bytes=1.5')}\n{DONE_SWL}", 1, "non-negative integer"),
        (f"{GOOD_SWL} seconds=0.7\n{DONE_SWL}", 1, "repeated"),
        (f"{GOOD_SWL} junk\n{DONE_SWL}", 1, "'junk' is not key=value"),
        (f"a\nb\n{GOOD_SWL}\n", 4, "no 'hdfsbench: done' line"),
        (f"{GOOD_SWL}", 2, "no 'hdfsbench: done' line"),
        ("", 1, "no 'hdfsbench: done' line"),
        (f"{GOOD_SWL}\n{DONE_SWL}\n{GOOD_SWL}", 3, "after the done line"),
        (f"{GOOD_SWL}\n{DONE_SWL.replace('measurements=1', 'measurements=2')}", 2, "measurements=2"),
        (f"{GOOD_SWL}\n{DONE_SWL.replace('bench=swl', 'bench=srl')}", 2, "bench 'srl' in the output of bench 'swl'"),
        (f"{DONE_SWL.replace('measurements=1', 'measurements=0')}", 1, "no measurement"),
        (f"{GOOD_SWL}\n{DONE_SWL.replace(' fs=file:///', '')}", 2, "missing field 'fs'"),
        ("hdfsbench: bench=rrl kind=avg size_bytes=1\nhdfsbench: done bench=rrl measurements=1 seconds=1 fs=x", 1,
         "unknown rrl kind 'avg'"),
        ("hdfsbench: bench=swt clients=4 total_bytes=8 seconds=1 aggregate_mb_s=1 min_client_seconds=1\n", 1,
         "missing field 'max_client_seconds'"),
    ],
)  # fmt: skip
def test_refusals_name_the_line(text: str, line: int, words: str) -> None:
    error = refused(text)
    assert error.line == line
    assert f"line {line}:" in str(error)
    assert words in str(error)


def test_rrl_mean_must_match_its_reads() -> None:
    lines = (RECORDED / "rrl.txt").read_text().splitlines()
    del lines[4]  # a read line of the first file: its mean (line 11 now) says reads=10 after 9
    lines[-1] = lines[-1].replace("measurements=22", "measurements=21")
    error = refused("\n".join(lines))
    assert error.line == 11 and "reads=10 follows 9 read lines" in str(error)
    cut = (RECORDED / "rrl.txt").read_text().splitlines()[:5]
    cut.append("hdfsbench: done bench=rrl measurements=4 seconds=1 fs=file:///")
    error = refused("\n".join(cut))
    assert error.line == 6 and "without their mean line" in str(error)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "swl.txt"
    bad.write_text(GOOD_SWL + "\n")
    with pytest.raises(HdfsBenchOutputError, match=rf"{bad}, line 2: no 'hdfsbench: done' line"):
        parse_hdfsbench_file(bad)


# ---------------------------------------------------------------------------------------------
# the jar through the lab's hadoop command, local file system


def run_hdfsbench(tmp: Path, bench: str, *options: str) -> subprocess.CompletedProcess[str]:
    conf_dir = tmp / "conf"  # empty: Hadoop's defaults, not the lab's HDFS configuration
    conf_dir.mkdir(exist_ok=True)
    command = [
        str(HADOOP), "jar", str(JAR), bench,
        "-D", "fs.defaultFS=file:///", "-D", "dfs.replication=1",
        "--dir", str(tmp / f"bench-{bench}"), "--buffer", "64k", "--block-size", "1m",
        *options,
    ]  # fmt: skip
    env = {**os.environ, "HADOOP_CONF_DIR": str(conf_dir), "HADOOP_OPTS": "-Xmx256m"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)


def test_jar_swl_and_srt_on_the_local_file_system(tmp_path: Path, made_by_setup: Callable[..., None]) -> None:
    made_by_setup(JAR, HADOOP_LIB / "hadoop-hdfs-client-*.jar", "java")
    swl = run_hdfsbench(tmp_path, "swl", "--sizes", "64k,1m")
    assert swl.returncode == 0, swl.stderr
    out = parse_hdfsbench_output(swl.stdout)
    assert [m.size_bytes for m in out.latencies] == [65536, 1048576]
    assert all(m.settings == SETTINGS and m.seconds > 0 for m in out.latencies)

    srt = run_hdfsbench(tmp_path, "srt", "--total", "8m", "--clients", "2")
    assert srt.returncode == 0, srt.stderr
    (t,) = parse_hdfsbench_output(srt.stdout).throughputs
    assert (t.bench, t.clients, t.total_bytes) == ("srt", 2, 8 << 20)
    assert t.seconds > 0 and t.aggregate_mb_s > 0
    assert not (tmp_path / "bench-swl").exists() and not (tmp_path / "bench-srt").exists()

    # a total beyond the free space is refused before anything is written
    huge = run_hdfsbench(tmp_path, "swt", "--total", "1000000t", "--clients", "2")
    assert huge.returncode == 2
    assert "refused: swt needs" in huge.stderr and "nothing written" in huge.stderr
    assert "hdfsbench: bench=" not in huge.stdout
    assert not (tmp_path / "bench-swt").exists()
