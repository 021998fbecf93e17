"""The BigBench study's own jars, run for real (their pure parts are unit-tested beside them in
test_bigbench_ml.py and test_bigbench_text.py, whose recorded results and generated reviews these
reuse through tests/helpers/bigbench.py and this folder's conftest.py): the ML queries' Spark step
over a recorded export, and the text UDFs over the generator's reviews. They need Java and the jars
`make setup` builds (missing, they fail saying so), but no service: no integration mark, so the
unit lane of `make test` runs them, not an integration stream (the Spark step about 10 s of CPU,
40 s on the loaded machine; the UDF jar 3 s)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from benchcamp.studies.bigbench_containers import ml, queries
from benchcamp.studies.bigbench_containers import text_reference as tr
from helpers.bigbench import RECORDED, TRICKY_REVIEWS

REPO = Path(__file__).resolve().parents[3]
UDF_MODULE = REPO / "lab" / "bigbench-udf"
UDF_JAR = UDF_MODULE / "target" / "bigbench-udf.jar"


def test_the_spark_step_reproduces_the_recorded_q20_result(
    tmp_path: Path, made_by_setup: Callable[..., None]
) -> None:
    """The real Spark step (lab/bigbench-ml built, local[2]) over the recorded q20 export gives
    the recorded clusters again: same export and seed, same result. About 20-50 s on 2 cores; the
    timeout only guards a hang: at the unit lane's lower priority on a loaded CI machine the step
    took over 120 s."""
    target = ml.module_dir() / "target"
    made_by_setup(target / "bigbench-ml.jar", target / "lib" / "spark-mllib_*.jar", "java")
    output = tmp_path / "q20.json"
    command = ml.spark_command("q20", queries.load_parameters()["q20"], str(RECORDED / "q20-export"), output)
    finished = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert finished.returncode == 0, finished.stderr[-2000:]
    result = ml.parse_result("q20", output)
    recorded = ml.parse_result("q20", RECORDED / "q20.json")
    assert isinstance(result, ml.KMeansResult) and isinstance(recorded, ml.KMeansResult)
    assert result.sizes == recorded.sizes
    for centre, recorded_centre in zip(result.centres, recorded.centres, strict=True):
        assert centre == pytest.approx(recorded_centre)
    assert result.cost == pytest.approx(recorded.cost)


def test_the_udf_jar_gives_the_reference_rows(
    generated_reviews: list[tuple[str, int, str]],
    made_by_setup: Callable[..., None],
) -> None:
    """Sentences (OpenNLP's model vs our rule), tokens, sentiment and names agree row for row."""
    made_by_setup(UDF_JAR, UDF_MODULE / "target" / "cli-lib" / "*.jar", "java")
    reviews = [(key, text) for key, _, text in generated_reviews]
    reviews += [(f"tricky{index}", text) for index, text in enumerate(TRICKY_REVIEWS)]
    expected_words = [
        (key, str(row.sentence_no), row.sentence, row.polarity, row.word, str(row.negated).lower())
        for key, text in reviews
        for row in tr.sentiment_words(text)
    ]
    expected_sentences = [
        (key, str(row.sentence_no), row.sentence, row.polarity, str(row.score))
        for key, text in reviews
        for row in tr.review_sentences(text)
    ]
    expected_names = [
        (key, str(row.sentence_no), row.sentence, row.name)
        for key, text in reviews
        for row in tr.competitor_mentions(text)
    ]
    assert len(expected_words) > 1000 and len(expected_names) > 50
    assert _jar_rows("sentiment-words", reviews) == expected_words
    assert _jar_rows("sentences", reviews) == expected_sentences
    assert _jar_rows("competitors", reviews) == expected_names


def _jar_rows(mode: str, reviews: list[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The jar's rows for `reviews` (key, text) through its TextCli, without Hive."""
    stdin = "".join(f"{key}\t{text}\n" for key, text in reviews)
    classpath = f"{UDF_JAR}:{UDF_MODULE / 'target' / 'cli-lib' / '*'}"
    result = subprocess.run(
        ["java", "-cp", classpath, "benchcamp.bigbench.text.TextCli", mode],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return [tuple(line.split("\t")) for line in result.stdout.splitlines()]
