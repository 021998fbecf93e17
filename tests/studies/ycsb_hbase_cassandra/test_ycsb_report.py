"""The YCSB results table beside the intended latency: the column appears where a run under a
target measured it, and a note names every row whose intended p99 runs far above the p99 from
the actual start (the queue coordinated omission hides)."""

from __future__ import annotations

from typing import Any

from benchcamp.presentation.blocks import lines_of
from benchcamp.studies.ycsb_hbase_cassandra.plugin import latency_throughput, summary_blocks


def _row(op: str, p99: float, intended: float | None, **cell: Any) -> dict[str, Any]:
    return {
        "workload": "ycsb_c", "environment": "local_lab", "store": "cassandra", "operationcount": None,
        "target_ops": 1000, "threads": 16, "clients": 1, "op_type": op, "pair_params": "target_ops=1000|threads=16",
        "n": 3, "n_failed": 0, "n_warmup": 0, "throughput_ops_s": 600.0, "throughput_stddev_pct": 2.0,
        "avg_latency_us": 900.0, "p95_latency_us": p99 / 2, "p99_latency_us": p99,
        "intended_p99_latency_us": intended, "passed_validation": True, **cell,
    }  # fmt: skip


def test_intended_p99_sits_beside_p99_with_a_note_where_they_diverge() -> None:
    (block,) = summary_blocks([_row("read", 2000.0, 4_714_495.0), _row("update", 3000.0, 5000.0)])
    assert block.headers[-3:] == ("p99 (µs)", "Intended p99 (µs)", "Passed")
    text = "\n".join(lines_of([block]))
    assert "4714495.00" in text and "5000.00" in text
    (note,) = [note for note in block.notes if "intended start" in note]
    assert note.startswith("cassandra, target_ops=1000, threads=16, read: p99 4,714,495 µs from each call's")
    assert "coordinated omission" in note  # update's 5,000 against 3,000 is within 2x: no note


def test_runs_without_a_target_keep_the_table_as_it_was() -> None:
    (block,) = summary_blocks([_row("read", 2000.0, None, target_ops=None, operationcount=1000)])
    assert "Intended p99 (µs)" not in block.headers and block.headers[-2:] == ("p99 (µs)", "Passed")
    assert not [note for note in block.notes if "intended start" in note]


def test_runs_of_several_clients_show_the_served_rate_beside_ycsbs_throughput_once_per_condition() -> None:
    rows = [
        _row("read", 2000.0, None, clients=2, throughput_ops_s=149.6, served_throughput_ops_s=472.8),
        _row("update", 3000.0, None, clients=2, throughput_ops_s=149.6, served_throughput_ops_s=472.8),
    ]
    (block,) = summary_blocks(rows)
    assert block.headers[4:7] == ("Throughput (ops/s)", "σ%", "Served (ops/s)")
    first, second = (row.cells for row in block.rows)
    assert first[6].text == "472.80" and second[6].text == ""  # once per condition, as throughput
    (note,) = [note for note in block.notes if note.startswith("Served (ops/s)")]
    assert "start barrier" in note
    (single,) = summary_blocks([_row("read", 2000.0, None)])
    assert "Served (ops/s)" not in single.headers


def _point(target: int, throughput: float, served: float | None) -> dict[str, Any]:
    return {
        "store": "hbase", "op_type": "read", "target_ops": target, "threads": 16, "clients": 1, "n": 3,
        "throughput_ops_s": throughput, "served_throughput_ops_s": served, "avg_latency_us": 400.0 + target,
        "cell_key": f"ycsb_a|store=hbase|target_ops={target}|threads=16",
    }  # fmt: skip


def test_the_curve_is_drawn_on_the_served_rate_where_every_point_has_one() -> None:
    served = latency_throughput("ycsb_a", [_point(250, 180.0, 249.0), _point(500, 270.0, 493.0)], {})
    x = [value["throughput_ops_s"] for value in served.spec["data"]["values"]]
    assert (
        x == [249.0, 493.0]
        and served.spec["layer"][0]["encoding"]["x"]["title"] == "Served throughput (ops/s)"
    )
    mixed = latency_throughput("ycsb_a", [_point(250, 180.0, 249.0), _point(500, 270.0, None)], {})
    x = [value["throughput_ops_s"] for value in mixed.spec["data"]["values"]]
    assert (
        x == [180.0, 270.0]
        and mixed.spec["layer"][0]["encoding"]["x"]["title"] == "Achieved throughput (ops/s)"
    )


def test_each_comparison_line_shows_the_n_behind_its_own_test() -> None:
    """Welch's test of each figure runs on that figure's repetitions: YCSB's throughput on every ok
    run, the served rate only on runs whose clients wrote histogram logs, a latency only on runs
    that measured the operation. The n (H/C) column shows each line's own."""
    from benchcamp.studies.ycsb_hbase_cassandra.plugin import comparison_blocks

    row: dict[str, Any] = {
        "workload": "ycsb_a", "environment": "local_lab", "op_type": "read", "pair_params": "target_ops=500|threads=16",
        "hbase_n": 3, "cassandra_n": 3, "hbase_served_n": 2, "cassandra_served_n": 3,
        "hbase_latency_n": 3, "cassandra_latency_n": 1,
    }  # fmt: skip
    for figure, value in (("throughput", "throughput_ops_s"), ("served_throughput", "served_throughput_ops_s"),
                          *((f"{k}_latency", f"{k}_latency_us") for k in ("avg", "p95", "p99"))):  # fmt: skip
        row |= {f"hbase_{value}": 100.0, f"cassandra_{value}": 90.0, f"{figure}_ratio": 100 / 90}
        row |= {f"{figure}_p_value": 0.5, f"{figure}_verdict": "no significant difference"}
    (block,) = comparison_blocks([row])
    n_by_figure = {r.cells[2].text: r.cells[3].text for r in block.rows}
    assert n_by_figure == {
        "throughput (ops/s)": "3/3", "served (ops/s)": "2/3",
        "avg latency (µs)": "3/1", "p95 latency (µs)": "3/1", "p99 latency (µs)": "3/1",
    }  # fmt: skip
