"""The mapreduce_ssd_hdd study's graphs (graphs.py) and lab/graphmr's three algorithms.

The graph tests are pure Python. The algorithm tests run lab/graphmr/target/graphmr.jar through
the lab's `hadoop` command in Hadoop local mode (no service, file:/// file system, an empty
configuration directory of the test's own) on Zachary's karate club and on a generated graph of
four components fed through a messy copy (comments, spaces, a self-loop, duplicate edges), with
two reducers. Every answer is compared with networkx: exact triangle count, components and their
sizes, the mutual friends of every connected pair. They fail, not skip, when the jar, java or the
lab's Hadoop jars are missing (`make setup` builds and installs them).
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest
from benchcamp.ops.lab import CLIENT_JVM_OPTS
from benchcamp.studies.mapreduce_ssd_hdd.graphs import (
    KARATE_EDGES,
    EdgeListError,
    GraphShape,
    generate_power_law_graph,
    generate_power_law_graph_for_shape,
    import_edge_list,
    write_karate,
)

ROOT = Path(__file__).resolve().parents[3]
JAR = ROOT / "lab" / "graphmr" / "target" / "graphmr.jar"
HADOOP = ROOT / "lab" / "bin" / "hadoop"
HADOOP_LIB = ROOT / "lab" / "hadoop" / "lib"


def read_graph(path: Path) -> nx.Graph:
    return nx.read_edgelist(path, nodetype=int, comments="#")


def edge_lines(path: Path) -> list[tuple[int, int]]:
    out = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        u, v = line.split("\t")
        out.append((int(u), int(v)))
    return out


# ---------------------------------------------------------------------------------------------
# graphs.py


def test_generator_is_deterministic_by_seed(tmp_path: Path) -> None:
    a = generate_power_law_graph(tmp_path / "a.txt", 500, 3, seed=42)
    b = generate_power_law_graph(tmp_path / "b.txt", 500, 3, seed=42)
    c = generate_power_law_graph(tmp_path / "c.txt", 500, 3, seed=43)
    assert a == b
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
    assert (tmp_path / "a.txt").read_bytes() != (tmp_path / "c.txt").read_bytes()
    assert c.nodes == 500


def test_generator_shape_clustering_and_power_law(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    nodes, m = 3000, 4
    shape = generate_power_law_graph(path, nodes, m, triangle_probability=0.6, seed=5)
    assert isinstance(shape, GraphShape)
    # Holme-Kim: every node after the first m brings exactly m distinct edges.
    assert shape == (nodes, m * (nodes - m))
    edges = edge_lines(path)
    assert len(edges) == shape.edges
    assert all(u < v for u, v in edges), "u < v, so no self-loops"
    assert len(set(edges)) == len(edges), "no duplicates"
    graph = read_graph(path)
    assert (graph.number_of_nodes(), graph.number_of_edges()) == shape
    assert nx.is_connected(graph)
    assert nx.average_clustering(graph) > 0.1
    assert sum(nx.triangles(graph).values()) > 0
    degrees = [d for _, d in graph.degree()]
    assert max(degrees) > 10 * (sum(degrees) / len(degrees)), "hubs of a heavy-tailed degree law"
    assert min(degrees) >= m
    assert sorted(graph.nodes) == list(range(nodes))


def test_generator_components(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    shape = generate_power_law_graph(path, 103, 2, seed=1, components=4)
    graph = read_graph(path)
    sizes = sorted(len(c) for c in nx.connected_components(graph))
    assert sizes == [25, 26, 26, 26]
    assert shape == (103, sum(2 * (s - 2) for s in sizes))


def test_generator_for_shape_and_bad_arguments(tmp_path: Path) -> None:
    shape = generate_power_law_graph_for_shape(tmp_path / "g.txt", 5823, 21408, seed=3)
    assert shape.nodes == 5823
    assert abs(shape.edges - 21408) <= 0.1 * 21408
    with pytest.raises(ValueError, match="edges_per_node"):
        generate_power_law_graph(tmp_path / "x.txt", 10, 0)
    with pytest.raises(ValueError, match="triangle_probability"):
        generate_power_law_graph(tmp_path / "x.txt", 10, 2, triangle_probability=1.5)
    with pytest.raises(ValueError, match="each needs at least 3 nodes"):
        generate_power_law_graph(tmp_path / "x.txt", 5, 2, components=2)
    assert not (tmp_path / "x.txt").exists()


def test_karate_matches_networkx(tmp_path: Path) -> None:
    path = tmp_path / "karate.txt"
    assert write_karate(path) == (34, 78)
    reference = {tuple(sorted(e)) for e in nx.karate_club_graph().edges()}
    assert set(KARATE_EDGES) == reference
    assert set(edge_lines(path)) == reference
    assert sum(nx.triangles(read_graph(path)).values()) // 3 == 45


def test_import_snap_file_drops_and_counts_loops_and_duplicates(tmp_path: Path) -> None:
    src = tmp_path / "snap.txt"
    src.write_text(
        "# Directed graph (each unordered pair of nodes is saved once): example.txt\n"
        "# Nodes: 5 Edges: 7\n"
        "# FromNodeId\tToNodeId\n"
        "0\t1\n"
        "1\t0\n"  # the other direction: a duplicate of the undirected edge
        "1 2\n"
        "  2   3  \n"
        "3\t3\n"  # self-loop
        "\n"
        "0\t1\n"  # the same line again
        "40\t2\n"
    )
    dest = tmp_path / "out" / "snap.edges"
    result = import_edge_list(src, dest)
    assert result.shape == (5, 4)
    assert (result.lines, result.comments, result.self_loops, result.duplicates) == (11, 4, 1, 2)
    assert edge_lines(dest) == [(0, 1), (1, 2), (2, 3), (2, 40)]
    assert dest.read_text().startswith("# imported from snap.txt: nodes=5 edges=4")


def test_a_first_line_of_node_and_edge_counts_is_a_header_not_an_edge(tmp_path: Path) -> None:
    """Edge lists that open with their own 'nodes edges' line: the karate club's 34 and 78."""
    karate = tmp_path / "karate.txt"
    write_karate(karate)
    body = "".join(line + "\n" for line in karate.read_text().splitlines() if not line.startswith("#"))
    src = tmp_path / "with_header.txt"
    src.write_text("34 78\n" + body)
    result = import_edge_list(src, tmp_path / "out.txt")
    assert result.header and result.shape == (34, 78) and result.comments == 1
    assert "34\t78" not in (tmp_path / "out.txt").read_text()
    # counts that do not match the file: an edge like any other (here between two new nodes)
    src.write_text("34 77\n" + body)
    result = import_edge_list(src, tmp_path / "out.txt")
    assert not result.header and result.shape == (36, 79)
    # a first edge repeated later keeps its first-seen place, the repeat counted as a duplicate
    src.write_text("1 2\n3 4\n2 1\n")
    result = import_edge_list(src, tmp_path / "out.txt")
    assert (result.header, result.duplicates, result.shape) == (False, 1, (4, 2))
    edges = [line for line in (tmp_path / "out.txt").read_text().splitlines() if not line.startswith("#")]
    assert edges == ["1\t2", "3\t4"]


def test_import_konect_gzip_with_extra_columns(tmp_path: Path) -> None:
    src = tmp_path / "out.konect.gz"
    with gzip.open(src, "wt") as f:
        f.write("% sym unweighted\n% 3 3 3\n1 2 1 1136070000\n2 3 1 1136070001\n3 1 1 1136070002\n")
    with pytest.raises(EdgeListError, match="extra_columns=True"):
        import_edge_list(src, tmp_path / "k.txt")
    result = import_edge_list(src, tmp_path / "k.txt", extra_columns=True)
    assert result.shape == (3, 3)
    assert sum(nx.triangles(read_graph(tmp_path / "k.txt")).values()) // 3 == 1


def test_import_refuses_malformed_lines_naming_file_and_lines(tmp_path: Path) -> None:
    src = tmp_path / "bad.txt"
    src.write_bytes(
        b"# header\n"
        b"1 2\n"
        b"3\n"  # line 3: one field
        b"4 five\n"  # line 4: not an id
        b"6 -7\n"  # line 5: negative
        b"8,9\n"  # line 6: comma-separated
        b"10 11 12\n"  # line 7: extra column
        b"\xff\xfe 1\n"  # line 8: not UTF-8
        b"13 14\n"
    )
    dest = tmp_path / "never.txt"
    with pytest.raises(EdgeListError) as caught:
        import_edge_list(src, dest)
    error = caught.value
    assert error.path == src
    assert error.line == 3
    assert [line for line, _ in error.problems] == [3, 4, 5, 6, 7, 8]
    assert error.total == 6
    message = str(error)
    for line in (3, 4, 5, 6, 7, 8):
        assert f"{src}:{line}:" in message
    assert "'five' is not a non-negative integer" in message
    assert "'-7'" in message
    assert "expected 2 fields" in message
    assert "not UTF-8" in message
    assert not dest.exists()
    assert list(tmp_path.iterdir()) == [src], "no partial file left"
    with pytest.raises(FileNotFoundError):
        import_edge_list(tmp_path / "missing.txt", dest)


def test_import_error_lists_the_first_problems_and_counts_the_rest(tmp_path: Path) -> None:
    src = tmp_path / "many.txt"
    src.write_text("x y\n" * 30)
    with pytest.raises(EdgeListError, match=r"and 10 more malformed lines") as caught:
        import_edge_list(src, tmp_path / "d.txt")
    assert caught.value.total == 30
    assert len(caught.value.problems) == 20


# ---------------------------------------------------------------------------------------------
# graphmr through Hadoop local mode

SUMMARY = re.compile(r"^graphmr: (.+)$", re.MULTILINE)


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    out: Path

    @property
    def summary(self) -> dict[str, str]:
        found = SUMMARY.findall(self.stdout)
        assert len(found) == 1, f"one summary line expected on stdout:\n{self.stdout}\n{self.stderr[-3000:]}"
        return dict(item.split("=", 1) for item in found[0].split(" "))

    def parts(self, *sub: str) -> Iterator[list[str]]:
        folder = self.out.joinpath(*sub)
        files = sorted(folder.glob("part-*"))
        assert files, f"no part files in {folder}"
        for f in files:
            for line in f.read_text().splitlines():
                yield line.split("\t")


def run_graphmr(algorithm: str, source: Path, out: Path, conf_dir: Path, *options: str) -> Run:
    command = [
        str(HADOOP), "jar", str(JAR), algorithm,
        "-D", "fs.defaultFS=file:///",
        "-D", "mapreduce.framework.name=local",
        *options,
        str(source), str(out),
    ]  # fmt: skip
    # the lab's client JVM options, as its SSH sessions give them
    env = {**os.environ, "HADOOP_CONF_DIR": str(conf_dir), "HADOOP_OPTS": "-Xmx512m"}
    env["HADOOP_CLIENT_OPTS"] = CLIENT_JVM_OPTS
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    return Run(done.returncode, done.stdout, done.stderr, out)


@dataclass
class Case:
    graph: nx.Graph
    runs: dict[str, Run]


ALGORITHMS = ("mutual_friends", "triangles", "components")


@pytest.fixture(scope="module")
def graphmr(
    tmp_path_factory: pytest.TempPathFactory, made_by_setup: Callable[..., None]
) -> dict[str, Case | Run]:
    """All local-mode runs at once (three at a time): karate, the generated graph, a bad file."""
    made_by_setup(JAR, HADOOP_LIB / "hadoop-mapreduce-client-core-*.jar", "java")
    tmp = tmp_path_factory.mktemp("graphmr")
    conf_dir = tmp / "conf"  # empty: Hadoop's defaults, not the lab's HDFS configuration
    conf_dir.mkdir()
    karate = tmp / "karate.txt"
    write_karate(karate)
    generated = tmp / "generated.txt"
    generate_power_law_graph(generated, 150, 3, seed=11, components=4)
    messy = tmp / "messy.txt"  # what graphmr must tolerate: comments, spaces, a loop, duplicates
    first = edge_lines(generated)[:2]
    messy.write_text(
        generated.read_text()
        + "% a KONECT-style comment\n\n"
        + f"{first[0][1]}   {first[0][0]}\n{first[1][0]} {first[1][1]}\n7 7\n"
    )
    bad = tmp / "bad.txt"
    bad.write_text("0\t1\n1\t2\n2 x\n")
    jobs: dict[str, tuple[str, Path, tuple[str, ...]]] = {}
    for algorithm in ALGORITHMS:
        jobs[f"karate/{algorithm}"] = (algorithm, karate, ())
        jobs[f"generated/{algorithm}"] = (algorithm, messy, ("-D", "mapreduce.job.reduces=2"))
    jobs["bad"] = ("triangles", bad, ())
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {
            key: pool.submit(run_graphmr, algorithm, src, tmp / key.replace("/", "-"), conf_dir, *options)
            for key, (algorithm, src, options) in jobs.items()
        }
        runs = {key: future.result() for key, future in futures.items()}
    cases: dict[str, Case | Run] = {
        name: Case(read_graph(path), {a: runs[f"{name}/{a}"] for a in ALGORITHMS})
        for name, path in (("karate", karate), ("generated", generated))
    }
    cases["bad"] = runs["bad"]
    return cases


def case(graphmr: dict[str, Case | Run], name: str) -> Case:
    found = graphmr[name]
    assert isinstance(found, Case)
    return found


def ok(run: Run) -> Run:
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr[-5000:]}"
    return run


GRAPHS = ("karate", "generated")


@pytest.mark.parametrize("name", GRAPHS)
def test_triangles_exact(graphmr: dict[str, Case | Run], name: str) -> None:
    c = case(graphmr, name)
    run = ok(c.runs["triangles"])
    expected = sum(nx.triangles(c.graph).values()) // 3
    s = run.summary
    assert s["algorithm"] == "triangles" and s["jobs"] == "2"
    assert int(s["triangles"]) == expected
    assert (int(s["nodes"]), int(s["edges"])) == (c.graph.number_of_nodes(), c.graph.number_of_edges())
    assert sum(int(k) for _, _, k in run.parts("triangles")) == expected
    higher = [sum(1 for v in c.graph[u] if v > u) for u in c.graph]
    assert int(s["wedges"]) == sum(h * (h - 1) // 2 for h in higher)
    assert (run.out / "summary.txt").read_text().strip() == SUMMARY.search(run.stdout).group(0)  # type: ignore[union-attr]
    assert not (run.out / "wedges").exists(), "intermediate output removed"
    if name == "karate":
        assert expected == 45
    else:
        assert s["self_loops"] == "1"


@pytest.mark.parametrize("name", GRAPHS)
def test_components_match_networkx(graphmr: dict[str, Case | Run], name: str) -> None:
    c = case(graphmr, name)
    run = ok(c.runs["components"])
    expected = sorted((sorted(comp) for comp in nx.connected_components(c.graph)), key=lambda x: x[0])
    s = run.summary
    assert int(s["components"]) == len(expected) == (1 if name == "karate" else 4)
    assert int(s["largest"]) == max(len(comp) for comp in expected)
    iterations = int(s["iterations"])
    assert iterations >= 1
    assert int(s["jobs"]) == iterations + 2  # init, the iterations, sizes
    assert len(s["job_ids"].split(",")) == int(s["jobs"])
    labels = {int(node): int(label) for node, label in run.parts("components", "labels")}
    members: dict[int, list[int]] = defaultdict(list)
    for node, label in labels.items():
        members[label].append(node)
    found = sorted((sorted(m) for m in members.values()), key=lambda x: x[0])
    assert found == expected
    assert all(label == min(m) for label, m in members.items()), "each label is its component's min id"
    sizes = {int(label): int(size) for label, size in run.parts("components", "sizes")}
    assert sizes == {min(comp): len(comp) for comp in expected}
    assert not list(run.out.glob("iteration-*")), "intermediate iterations removed"


@pytest.mark.parametrize("name", GRAPHS)
def test_mutual_friends_for_every_connected_pair(graphmr: dict[str, Case | Run], name: str) -> None:
    c = case(graphmr, name)
    run = ok(c.runs["mutual_friends"])
    found: dict[tuple[int, int], list[int]] = {}
    for a, b, friends in run.parts("mutual_friends"):
        found[(int(a), int(b))] = [int(x) for x in friends.split(",")] if friends else []
    expected = {(min(u, v), max(u, v)): sorted(set(c.graph[u]) & set(c.graph[v])) for u, v in c.graph.edges()}
    assert found == expected
    s = run.summary
    assert int(s["pairs"]) == c.graph.number_of_edges()
    triangles = sum(nx.triangles(c.graph).values()) // 3
    assert int(s["mutual_friends"]) == 3 * triangles, "every triangle gives each of its edges one"


def test_malformed_line_fails_the_chain_naming_file_and_offset(graphmr: dict[str, Case | Run]) -> None:
    run = graphmr["bad"]
    assert isinstance(run, Run)
    assert run.returncode != 0
    assert "graphmr: algorithm=triangles failed after jobs=1" in run.stderr
    assert re.search(
        r"^graphmr: job graphmr triangles 1-wedges \(job_\S+\) failed: ", run.stderr, re.MULTILINE
    )
    # Local mode has no task diagnostics for the driver (on YARN the line above carries them):
    # the task's exception is in Hadoop's log.
    log = run.stdout + run.stderr
    assert "malformed edge line in file:" in log
    assert "bad.txt at byte offset 8: node id is not an integer: 'x'" in log
    assert not SUMMARY.search(run.stdout)
