"""Input graphs of the mapreduce_ssd_hdd study, as text edge lists for lab/graphmr.

Every graph is written the way graphmr reads it: one undirected edge per line, ``u<TAB>v`` with
``u < v``, non-negative integer node ids, no self-loops, no duplicates, ``#`` comment lines at the
top saying where the graph came from. Three sources:

* :func:`generate_power_law_graph`: a project-written Holme-Kim style generator (preferential
  attachment plus triad formation, so degrees follow a power law and triangles exist),
  deterministic by seed, optionally made of several disjoint components;
* :func:`write_karate`: Zachary's karate club (34 nodes, 78 edges, 45 triangles), for CI;
* :func:`import_edge_list`: a SNAP or KONECT edge-list file the user downloaded. Malformed lines
  are refused (:class:`EdgeListError` names the file, the line numbers and the problems);
  self-loops and duplicate undirected edges are dropped and counted.

Pure Python, no third-party imports. The import keeps the set of seen edges in memory (about
100 bytes per edge): fine for the study's graphs up to tens of millions of edges, not for Orkut's
117 M on a small machine.
"""

from __future__ import annotations

import gzip
import os
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, NamedTuple, cast

__all__ = [
    "KARATE_EDGES",
    "EdgeListError",
    "EdgeListImport",
    "GraphShape",
    "generate_power_law_graph",
    "generate_power_law_graph_for_shape",
    "import_edge_list",
    "write_edges",
    "write_karate",
]


class GraphShape(NamedTuple):
    """How big a written graph is: distinct nodes with an edge, distinct undirected edges."""

    nodes: int
    edges: int


# Zachary's karate club (W. W. Zachary, 1977), 0-based ids as networkx.karate_club_graph() numbers
# them: 34 nodes, 78 edges, 45 triangles, one component.
KARATE_EDGES: tuple[tuple[int, int], ...] = (
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 10), (0, 11), (0, 12),
    (0, 13), (0, 17), (0, 19), (0, 21), (0, 31), (1, 2), (1, 3), (1, 7), (1, 13), (1, 17),
    (1, 19), (1, 21), (1, 30), (2, 3), (2, 7), (2, 8), (2, 9), (2, 13), (2, 27), (2, 28), (2, 32),
    (3, 7), (3, 12), (3, 13), (4, 6), (4, 10), (5, 6), (5, 10), (5, 16), (6, 16), (8, 30),
    (8, 32), (8, 33), (9, 33), (13, 33), (14, 32), (14, 33), (15, 32), (15, 33), (18, 32),
    (18, 33), (19, 33), (20, 32), (20, 33), (22, 32), (22, 33), (23, 25), (23, 27), (23, 29),
    (23, 32), (23, 33), (24, 25), (24, 27), (24, 31), (25, 31), (26, 29), (26, 33), (27, 33),
    (28, 31), (28, 33), (29, 32), (29, 33), (30, 32), (30, 33), (31, 32), (31, 33), (32, 33),
)  # fmt: skip


def _atomic_writer(path: Path) -> tuple[Path, IO[str]]:
    """A temporary file beside path (renamed over it on success), so no half graph is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    return tmp, open(tmp, "w", encoding="ascii", newline="\n")


def write_edges(path: Path | str, edges: Iterable[tuple[int, int]], header: str = "") -> GraphShape:
    """Writes distinct undirected edges (any orientation, no self-loops) as ``u<TAB>v``, u < v.

    The caller guarantees the edges are distinct and loop-free (this writes in one pass and keeps
    only the node ids). ``header`` lines are written as ``#`` comments. Returns the shape.
    """
    target = Path(path)
    tmp, out = _atomic_writer(target)
    nodes: set[int] = set()
    count = 0
    try:
        with out:
            for line in header.splitlines():
                out.write(f"# {line}\n")
            chunk: list[str] = []
            for u, v in edges:
                if u == v:
                    raise ValueError(f"self-loop {u}-{v} passed to write_edges")
                a, b = (u, v) if u < v else (v, u)
                nodes.add(a)
                nodes.add(b)
                chunk.append(f"{a}\t{b}\n")
                count += 1
                if len(chunk) >= 65536:
                    out.write("".join(chunk))
                    chunk.clear()
            out.write("".join(chunk))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return GraphShape(nodes=len(nodes), edges=count)


def write_karate(path: Path | str) -> GraphShape:
    """Zachary's karate club as an edge list: GraphShape(nodes=34, edges=78)."""
    return write_edges(path, KARATE_EDGES, header="Zachary's karate club: 34 nodes, 78 edges, 45 triangles")


def _holme_kim(n: int, m: int, p: float, rng: random.Random) -> Iterator[tuple[int, int]]:
    """Edges of one Holme-Kim graph on nodes 0..n-1 (each new node brings m edges).

    Nodes 0..m-1 start unconnected; node m links to all of them. Every later node makes m links:
    the first by preferential attachment (a node drawn with probability proportional to its
    degree), each further one, with probability p, by triad formation (a random neighbour of the
    last preferential target, closing a triangle), otherwise by preferential attachment again.
    """
    adjacency: list[list[int]] = [[] for _ in range(n)]
    ends: list[int] = []  # every edge's two ends: a uniform draw is a degree-proportional one
    for new in range(m, n):
        if not ends:
            targets = list(range(m))
        else:
            targets = []
            chosen: set[int] = set()
            last = -1
            while len(targets) < m:
                target = -1
                if last >= 0 and rng.random() < p:
                    friends = adjacency[last]
                    for _ in range(4):
                        candidate = friends[rng.randrange(len(friends))]
                        if candidate not in chosen:
                            target = candidate
                            break
                if target < 0:
                    while True:
                        candidate = ends[rng.randrange(len(ends))]
                        if candidate not in chosen:
                            break
                    target = last = candidate
                chosen.add(target)
                targets.append(target)
        for t in targets:
            adjacency[t].append(new)
            adjacency[new].append(t)
            ends.append(t)
            ends.append(new)
            yield (t, new)


def generate_power_law_graph(
    path: Path | str,
    nodes: int,
    edges_per_node: int,
    *,
    triangle_probability: float = 0.5,
    seed: int = 0,
    components: int = 1,
    shuffle_ids: bool = True,
) -> GraphShape:
    """Writes a power-law graph with clustering (Holme-Kim style) and returns its shape.

    ``nodes`` are split as evenly as possible over ``components`` disjoint Holme-Kim graphs, each
    node bringing ``edges_per_node`` edges (so edges are about nodes x edges_per_node), each
    further edge closing a triangle with probability ``triangle_probability``. Ids are 0..nodes-1,
    shuffled unless ``shuffle_ids`` is false (then the hubs get the smallest ids). The same
    arguments write the same file.
    """
    if edges_per_node < 1:
        raise ValueError(f"edges_per_node must be >= 1, got {edges_per_node}")
    if not 0.0 <= triangle_probability <= 1.0:
        raise ValueError(f"triangle_probability must be within [0, 1], got {triangle_probability}")
    if components < 1:
        raise ValueError(f"components must be >= 1, got {components}")
    if nodes < components * (edges_per_node + 1):
        raise ValueError(
            f"{nodes} nodes cannot make {components} component(s) with {edges_per_node} edges per node: "
            f"each needs at least {edges_per_node + 1} nodes"
        )
    rng = random.Random(seed)
    ids = list(range(nodes))
    if shuffle_ids:
        rng.shuffle(ids)
    sizes = [nodes // components + (1 if i < nodes % components else 0) for i in range(components)]

    def edges() -> Iterator[tuple[int, int]]:
        offset = 0
        for size in sizes:
            for u, v in _holme_kim(size, edges_per_node, triangle_probability, rng):
                yield ids[offset + u], ids[offset + v]
            offset += size

    header = (
        f"Holme-Kim power-law graph: nodes={nodes} edges_per_node={edges_per_node} "
        f"triangle_probability={triangle_probability} seed={seed} components={components} "
        f"shuffle_ids={shuffle_ids}"
    )
    return write_edges(path, edges(), header=header)


def generate_power_law_graph_for_shape(
    path: Path | str, nodes: int, edges: int, *, seed: int = 0, triangle_probability: float = 0.5
) -> GraphShape:
    """A one-component power-law graph near a target shape (e.g. a SNAP graph's node/edge counts).

    Holme-Kim gives about ``edges_per_node`` edges per node, so that is edges / nodes rounded (at
    least 1); the written shape is returned (edges within one node's worth of links per node).
    """
    per_node = max(1, round(edges / nodes)) if nodes > 0 else 1
    return generate_power_law_graph(
        path, nodes, per_node, triangle_probability=triangle_probability, seed=seed
    )


class EdgeListError(ValueError):
    """An edge-list file with malformed lines: names the file, each line number and its problem."""

    def __init__(self, path: Path, problems: list[tuple[int, str]], total: int) -> None:
        self.path = path
        self.problems = problems  # the first malformed lines: (line number, problem)
        self.total = total  # how many malformed lines the file has
        self.line = problems[0][0]
        shown = "; ".join(f"{path}:{line}: {problem}" for line, problem in problems)
        more = f" (and {total - len(problems)} more malformed lines)" if total > len(problems) else ""
        super().__init__(f"malformed edge list, nothing imported: {shown}{more}")


@dataclass(frozen=True)
class EdgeListImport:
    """What :func:`import_edge_list` read and wrote."""

    source: Path
    destination: Path
    nodes: int
    edges: int
    lines: int  # lines in the source file
    comments: int  # comment and blank lines
    self_loops: int  # edge lines u u, dropped
    duplicates: int  # edge lines repeating an undirected edge (either direction), dropped
    header: bool = False  # the first line was the file's own 'nodes edges' counts, checked

    @property
    def shape(self) -> GraphShape:
        return GraphShape(nodes=self.nodes, edges=self.edges)


_ID = re.compile(r"[0-9]+\Z")
_MAX_ID = 2**63 - 1  # graphmr reads ids as Java longs
_SHOWN_PROBLEMS = 20


def _open_lines(path: Path) -> BinaryIO:
    if path.suffix == ".gz":
        return cast(BinaryIO, gzip.open(path, "rb"))
    return open(path, "rb")


def _parse_id(field: str) -> int:
    if not _ID.match(field):
        raise ValueError(f"node id {field!r} is not a non-negative integer")
    value = int(field)
    if value > _MAX_ID:
        raise ValueError(f"node id {field} is larger than 2^63-1")
    return value


def import_edge_list(
    source: Path | str, destination: Path | str, *, extra_columns: bool = False
) -> EdgeListImport:
    """Checks a SNAP/KONECT edge list and writes it in graphmr's form; returns what it found.

    Reads ``u v`` lines (tabs or spaces; ``.gz`` files decompressed), ``#`` (SNAP) and ``%``
    (KONECT) comment lines and blank lines skipped. Edges are undirected: ``v u`` after ``u v``
    is a duplicate. With ``extra_columns`` further columns (KONECT weights, timestamps) are
    ignored; otherwise a line must have exactly two fields. Any malformed line (wrong field
    count, an id that is not a non-negative integer, bytes that are not UTF-8) raises
    :class:`EdgeListError` naming the file, the line numbers and the problems, and nothing is
    written. Self-loops and duplicate edges are dropped and counted. The destination is written
    atomically (edges in first-seen order, smaller id first).

    Some edge lists start with a line of two numbers that are the graph's node and edge counts,
    not an edge: the first data line is taken as that header (and counted with the comments)
    only when both equal the counts of the lines after it (the edges after or before dropping
    duplicates and self-loops); any other first line is an edge, as before.
    """
    src = Path(source)
    dest = Path(destination)
    if not src.is_file():
        raise FileNotFoundError(f"edge list {src} does not exist or is not a file")
    problems: list[tuple[int, str]] = []
    malformed = 0
    seen: set[int] = set()
    nodes: set[int] = set()
    order: list[tuple[int, int]] = []
    lines = comments = self_loops = duplicates = edge_lines = 0
    first: tuple[int, int, int] | None = None  # (line, u, v): an edge, or the counts header

    def new_edge(u: int, v: int) -> tuple[int, int] | None:
        """The undirected edge (smaller id first), once: a self-loop or a repeat is counted, None."""
        nonlocal self_loops, duplicates
        if u == v:
            self_loops += 1
            return None
        a, b = (u, v) if u < v else (v, u)
        key = (a << 63) | b
        if key in seen:
            duplicates += 1
            return None
        seen.add(key)
        nodes.add(a)
        nodes.add(b)
        return a, b

    with _open_lines(src) as raw:
        for number, data in enumerate(raw, start=1):
            lines = number
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                malformed += 1
                if len(problems) < _SHOWN_PROBLEMS:
                    problems.append((number, f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
                continue
            stripped = text.strip()
            if not stripped or stripped[0] in "#%":
                comments += 1
                continue
            fields = stripped.split()
            try:
                if len(fields) < 2 or (len(fields) > 2 and not extra_columns):
                    hint = "" if len(fields) < 2 else " (extra_columns=True ignores weights/timestamps)"
                    raise ValueError(f"expected 2 fields 'u v', found {len(fields)}: {stripped[:60]!r}{hint}")
                u = _parse_id(fields[0])
                v = _parse_id(fields[1])
            except ValueError as exc:
                malformed += 1
                if len(problems) < _SHOWN_PROBLEMS:
                    problems.append((number, str(exc)))
                continue
            if malformed:
                continue  # the file is refused anyway: only collect further problems
            if first is None:
                first = (number, u, v)  # decided once the rest is read
                continue
            edge_lines += 1
            edge = new_edge(u, v)
            if edge is not None:
                order.append(edge)
    if malformed:
        raise EdgeListError(src, problems, malformed)
    is_header = False
    if first is not None:
        _, u, v = first
        nodes_match, edges_match = u == len(nodes), v in (len(order), edge_lines)
        if nodes_match and edges_match:
            is_header = True
            comments += 1
        elif (edge := new_edge(u, v)) is not None:
            order.insert(0, edge)
        elif u != v:  # a later line repeated it: the edge keeps its first-seen place, at the front
            edge = (min(u, v), max(u, v))
            order.remove(edge)
            order.insert(0, edge)
    header = (
        f"imported from {src.name}: nodes={len(nodes)} edges={len(order)} lines={lines} "
        f"self_loops_dropped={self_loops} duplicates_dropped={duplicates}"
    )
    shape = write_edges(dest, order, header=header)
    return EdgeListImport(
        source=src,
        destination=dest,
        nodes=shape.nodes,
        edges=shape.edges,
        lines=lines,
        comments=comments,
        self_loops=self_loops,
        duplicates=duplicates,
        header=is_header,
    )
