"""Study claims files (core/claims.py): the bundled ones load, and mistakes fail with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchcamp.core.claims import ClaimError, load_claims, parse_claims
from benchcamp.core.outcomes import ExitCode
from benchcamp.core.spec import load_spec
from benchcamp.core.study import study_folders
from benchcamp.ops.cli import main

HIBENCH = load_spec("hibench_dse")
WORKLOADS, AXES = set(HIBENCH.workloads), set(HIBENCH.axes)

LINEAR = """
claims:
  - id: wordcount_scales_linearly
    paper: "WordCount scales about linearly"
    kind: scaling
    workloads: [wordcount]
    axis: data_size_gb
    expect: within
    tolerance_pct: 5
"""


@pytest.mark.parametrize("study", list(study_folders()))
def test_every_bundled_claims_file_loads_against_its_spec(study: str) -> None:
    claims = load_claims(study)
    spec = load_spec(study)
    for claim in claims:
        assert claim.workloads_named() <= set(spec.workloads) and claim.axes_named() <= set(spec.axes)


def test_the_declared_claims() -> None:
    hibench = {claim.id: claim for claim in load_claims("hibench_dse")}
    assert list(hibench) == [
        "wordcount_scales_linearly",
        "hive_scales_linearly",
        "dfsio_above_linear_projection",
        "dfsio_write_slower_than_read",
        "dfsio_write_read_gap_narrows",
    ]
    assert hibench["wordcount_scales_linearly"].bounds == (0.95, 1.05)
    assert hibench["dfsio_above_linear_projection"].bounds == (1.0, float("inf"))
    assert hibench["dfsio_write_read_gap_narrows"].trend_axis == "data_size_gb"
    (ycsb,) = load_claims("ycsb_hbase_cassandra")
    assert (ycsb.kind, ycsb.metric, ycsb.axis, ycsb.expect) == (
        "levels",
        "read_avg_latency_us",
        "operationcount",
        "lower",
    )
    assert load_claims("mapreduce_ssd_hdd") == []  # no claims file: no scorecard rows


def test_a_valid_file_parses() -> None:
    (claim,) = parse_claims(LINEAR, "x.yaml", WORKLOADS, AXES)
    assert claim.metric == "duration_s" and claim.tolerance_pct == 5


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("tolerance_pct: 5", "tolerance_pct: 0"), "greater than 0"),
        (("    tolerance_pct: 5\n", ""), "`tolerance_pct` is required with expect: within"),
        (("expect: within", "expect: above"), "'higher', 'lower' or 'within'"),
        (("kind: scaling", "kind: ratio"), "a ratio claim needs `numerator` and `denominator`"),
        (("    axis: data_size_gb\n", ""), "a scaling claim needs `workloads` and `axis`"),
        (("axis: data_size_gb", "axis: data_size"), "axis 'data_size' is not in the study's spec"),
        (("[wordcount]", "[wordcont]"), "workload 'wordcont' is not in the study's spec"),
        (("    expect: within", "    expected: within"), "expected: Extra inputs are not permitted"),
        (("id: wordcount_scales_linearly", "id: WordCount"), "String should match pattern"),
    ],
)
def test_mistakes_fail_naming_the_file_and_claim(change: tuple[str, str], message: str) -> None:
    text = LINEAR.replace(*change)
    assert text != LINEAR
    with pytest.raises(ClaimError) as raised:
        parse_claims(text, "x.yaml", WORKLOADS, AXES)
    assert str(raised.value).startswith("x.yaml: ") and message in str(raised.value)
    if "id: WordCount" not in text:
        assert "claim 'wordcount_scales_linearly'" in str(raised.value)


def test_repeated_ids_and_empty_files_fail() -> None:
    twice = LINEAR + LINEAR.split("claims:\n", 1)[1]
    with pytest.raises(ClaimError, match="claim ids must be unique, repeated: wordcount_scales_linearly"):
        parse_claims(twice, "x.yaml")
    with pytest.raises(ClaimError, match="x.yaml: claims: Field required"):
        parse_claims("{}", "x.yaml")
    with pytest.raises(ClaimError, match="not YAML"):
        parse_claims("claims: [", "x.yaml")


def test_a_ratio_claim_needs_cells_on_both_sides() -> None:
    ratio = """
claims:
  - id: write_slower
    paper: "write is slower than read"
    kind: ratio
    numerator: {workload: dfsio_write}
    denominator: {}
    expect: higher
"""
    with pytest.raises(ClaimError, match="a side selects its cells by `workload`, `params` or both"):
        parse_claims(ratio, "x.yaml", WORKLOADS, AXES)
    (claim,) = parse_claims(ratio.replace("{}", "{workload: dfsio_read}"), "x.yaml", WORKLOADS, AXES)
    assert claim.numerator is not None and claim.numerator.workload == "dfsio_write"


def test_spec_check_checks_the_claims_beside_the_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "hibench_dse.yaml"  # a spec outside the package is named by its study id
    spec.write_text((study_folders()["hibench_dse"] / "spec.yaml").read_text())
    (tmp_path / "claims.yaml").write_text(LINEAR)
    assert main(["spec", "check", str(spec)]) == ExitCode.OK
    (tmp_path / "claims.yaml").write_text(LINEAR.replace("[wordcount]", "[wordcont]"))
    assert main(["spec", "check", str(spec)]) == ExitCode.BAD_INPUT
    assert (
        f"{tmp_path / 'claims.yaml'}: claim 'wordcount_scales_linearly': workload 'wordcont' is not in the study's spec"
        in capsys.readouterr().out
    )
