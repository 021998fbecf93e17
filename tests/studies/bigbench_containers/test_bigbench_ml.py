"""The ML queries' Spark step: its argv from params.yaml and the parser of its result files,
checked on results recorded from real runs (SF 0.01, embedded Hive 4, Spark 4.0.1 local[2])."""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from benchcamp.studies.bigbench_containers import ml, queries
from helpers.bigbench import RECORDED


def _recorded(query: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((RECORDED / f"{query}.json").read_text(encoding="utf-8"))
    return loaded


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _fake_module(tmp_path: Path) -> Path:
    module = tmp_path / "bigbench-ml"
    (module / "target" / "lib").mkdir(parents=True)
    (module / "target" / "bigbench-ml.jar").write_bytes(b"")
    (module / "target" / "lib" / "spark-mllib_2.13-4.0.1.jar").write_bytes(b"")
    return module


def test_recorded_kmeans_results_parse_to_their_exact_numbers() -> None:
    q20 = ml.parse_result("q20", RECORDED / "q20.json")
    assert isinstance(q20, ml.KMeansResult)
    assert (q20.rows, q20.k, q20.sizes) == (899, 4, (484, 376, 6, 33))
    assert q20.features == ("ticket_return_ratio", "item_return_ratio", "amount_return_ratio", "return_lines")
    assert q20.centres[0][0] == pytest.approx(0.7221349855371899)
    assert q20.numbers()["cluster_3_size"] == 33
    q25 = ml.parse_result("q25", RECORDED / "q25.json")
    assert isinstance(q25, ml.KMeansResult)
    assert (q25.rows, q25.sizes) == (945, (608, 1, 290, 46))
    q26 = ml.parse_result("q26", RECORDED / "q26.json")
    assert isinstance(q26, ml.KMeansResult)
    assert (q26.rows, q26.sizes) == (674, (539, 1, 5, 129))
    assert len(q26.features) == ml.BOOK_CLASS_COUNT


def test_recorded_classifier_results_parse_to_their_exact_numbers() -> None:
    q05 = ml.parse_result("q05", RECORDED / "q05.json")
    assert isinstance(q05, ml.ClassifierResult)
    assert (q05.model, q05.rows, q05.train_rows, q05.test_rows) == ("logreg", 924, 645, 279)
    assert q05.accuracy == pytest.approx(0.7275985663082437)
    assert q05.precision == pytest.approx(0.719626168224299)
    assert q05.recall == pytest.approx(0.6260162601626016)
    assert q05.auc == pytest.approx(0.8069105691056916)
    q28 = ml.parse_result("q28", RECORDED / "q28.json")
    assert isinstance(q28, ml.ClassifierResult)
    assert (q28.model, q28.rows, q28.test_rows, len(q28.confusion)) == ("naivebayes", 1071, 315, 3)
    assert q28.accuracy == pytest.approx(0.7714285714285715)
    assert q28.auc is None
    assert set(q28.numbers()) == {
        "rows",
        "train_rows",
        "test_rows",
        "accuracy",
        "precision",
        "recall",
        "spark_startup_s",
        "spark_model_s",
    }
    assert q28.timing == ml.SparkTiming(startup_s=7.978, model_s=17.591712779)


def test_recorded_commands_are_what_spark_command_builds_today(tmp_path: Path) -> None:
    """The recorded argv (paths replaced by $REPO / $WORK) still matches the builder's."""
    params = queries.load_parameters()
    module = _fake_module(tmp_path)
    for query in ml.ML_QUERIES:
        recorded = (RECORDED / f"{query}.argv").read_text(encoding="utf-8").split("\n")[:-1]
        built = ml.spark_command(
            query,
            params[query],
            f"$WORK/out/{query}",
            Path(f"$WORK/results/{query}.json"),
            module=module,
            java="/usr/bin/java",
        )
        assert [part.replace(str(module), "$REPO/lab/bigbench-ml") for part in built] == recorded, query


def test_each_ml_query_exports_the_columns_spark_is_told() -> None:
    """The Hive step's SELECT list has as many columns as ml.py names (q28: id, label, text)."""
    for query, spec in ml.ML_QUERIES.items():
        text = queries.hive_query(query, extra={"output_dir": "/tmp/out"}).text
        select = re.sub(r"--[^\n]*", "", text).split("SELECT", 1)[1]
        select_list = re.split(r"\bFROM\b", select, maxsplit=1)[0]
        depth, commas = 0, 0
        for character in select_list:
            depth += {"(": 1, ")": -1}.get(character, 0)
            commas += character == "," and depth == 0
        assert commas + 1 == (len(spec.columns) or 3), query


def test_spark_command_passes_the_models_options_and_not_hives(tmp_path: Path) -> None:
    module = _fake_module(tmp_path)
    command = ml.spark_command(
        "q26",
        {"category": "Books", "min_book_items": 5, "k": 3, "iterations": 7, "seed": 9},
        "hdfs://127.0.0.1:8020/out/q26",
        tmp_path / "q26.json",
        module=module,
        java="/usr/bin/java",
    )
    assert command[0] == "/usr/bin/java"
    assert "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED" in command
    tail = command[command.index(ml.MAIN_CLASS) + 1 :]
    assert tail[:5] == [
        "kmeans",
        "--input",
        "hdfs://127.0.0.1:8020/out/q26",
        "--output",
        str(tmp_path / "q26.json"),
    ]
    assert tail[5:] == [
        "--columns",
        ",".join(ml.ML_QUERIES["q26"].columns),
        "--k",
        "3",
        "--iterations",
        "7",
        "--seed",
        "9",
    ]
    q28 = ml.spark_command(
        "q28", {"reg_param": 1, "test_percent": 20}, "in", tmp_path / "o", module=module, java="j"
    )
    assert q28[-2:] == ["--test-percent", "20"] and "--reg-param" not in q28 and "--columns" not in q28


def test_spark_command_gives_the_master_and_the_properties_as_spark_submit_would(tmp_path: Path) -> None:
    """On YARN: the properties are the driver JVM's system properties (before its class path),
    booleans as Spark writes them; the master is the program's own option."""
    module = _fake_module(tmp_path)
    command = ml.spark_command(
        "q20",
        {"k": 4},
        "hdfs://nn:8020/out/q20",
        tmp_path / "o",
        module=module,
        java="j",
        master="yarn",
        conf={"spark.yarn.jars": "hdfs://nn:8020/apps/spark/*.jar", "spark.dynamicAllocation.enabled": False},
    )
    main = command.index(ml.MAIN_CLASS)
    assert command[main - 4 : main - 2] == [
        "-Dspark.dynamicAllocation.enabled=false",
        "-Dspark.yarn.jars=hdfs://nn:8020/apps/spark/*.jar",
    ]
    assert command[main - 2] == "-cp"
    tail = command[main + 1 :]
    assert tail[tail.index("--master") + 1] == "yarn"
    plain = ml.spark_command("q20", {"k": 4}, "in", tmp_path / "o", module=module, java="j")
    assert "--master" not in plain and not any(part.startswith("-Dspark.") for part in plain)


def test_spark_command_refuses_before_running(tmp_path: Path) -> None:
    with pytest.raises(ml.SparkUnavailableError, match="Spark MLlib.*missing.*mvn"):
        ml.spark_command("q20", {"k": 4}, "in", tmp_path / "o", module=tmp_path / "nothing", java="java")
    module = _fake_module(tmp_path)
    with pytest.raises(ValueError, match="lacks k"):
        ml.spark_command("q20", {"iterations": 4}, "in", tmp_path / "o", module=module, java="java")
    with pytest.raises(ValueError, match="must be a number"):
        ml.spark_command("q20", {"k": "4; rm -rf /"}, "in", tmp_path / "o", module=module, java="java")
    with pytest.raises(ValueError, match="not a machine-learning query"):
        ml.spark_command("q06", {}, "in", tmp_path / "o", module=module, java="java")


def test_spark_command_names_spark_when_java_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ml.SparkUnavailableError, match="Spark MLlib, which needs Java 17"):
        ml.spark_command("q20", {"k": 4}, "in", tmp_path / "o", module=_fake_module(tmp_path))


def _kmeans_broken(document: dict[str, Any]) -> None:
    document["clusters"][0]["size"] += 1


def _classifier_broken(document: dict[str, Any]) -> None:
    document["confusion"][0][0] += 1


@pytest.mark.parametrize(
    ("query", "change", "message"),
    [
        ("q20", lambda d: d.update(format="other/1"), "not a benchcamp-bigbench-ml/1 file"),
        ("q20", lambda d: d.update(model="logreg"), "holds a 'logreg' result, q20 runs kmeans"),
        ("q20", _kmeans_broken, "cluster sizes add up to 900, not the 899 rows"),
        ("q20", lambda d: d.update(k=5), "4 clusters for k = 5"),
        (
            "q20",
            lambda d: d["clusters"][1]["centre"].pop(),
            r"clusters\[1\] has 3 centre values for 4 features",
        ),
        ("q20", lambda d: d.pop("cost"), "no cost"),
        ("q20", lambda d: d.update(rows=-1), "rows = -1 is not a count"),
        ("q05", _classifier_broken, "counts 280 rows, not test_rows 279"),
        ("q05", lambda d: d.update(accuracy=1.5), "accuracy = 1.5 is outside"),
        ("q05", lambda d: d.update(train_rows=1), r"train_rows 1 \+ test_rows 279 != rows 924"),
        ("q28", lambda d: d.update(precision="high"), "precision = 'high' is not a finite number"),
        ("q28", lambda d: d["confusion"].pop(), "not square"),
    ],
)
def test_malformed_results_are_refused_naming_the_file(
    tmp_path: Path, query: str, change: Any, message: str
) -> None:
    document = _recorded(query)
    change(document)
    path = _write(tmp_path, document)
    with pytest.raises(ml.MlResultError, match=message) as error:
        ml.parse_result(query, path)
    assert str(path) in str(error.value)


def test_unreadable_or_non_json_results_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ml.MlResultError, match="cannot read"):
        ml.parse_result("q25", tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "benchcamp-bigbench-ml/1", ', encoding="utf-8")
    with pytest.raises(ml.MlResultError, match=f"{broken} is not JSON"):
        ml.parse_result("q25", broken)
    with pytest.raises(ml.MlResultError, match="not a JSON object"):
        ml.parse_result("q25", _write(tmp_path, [1, 2]))


def test_an_undefined_metric_is_none_not_a_number(tmp_path: Path) -> None:
    """Spark writes null for 0/0 (no positive prediction): kept as None, left out of numbers()."""
    document = _recorded("q05")
    document["precision"] = None
    result = ml.parse_result("q05", _write(tmp_path, document))
    assert isinstance(result, ml.ClassifierResult)
    assert result.precision is None and "precision" not in result.numbers()


def test_results_without_spark_times_still_parse(tmp_path: Path) -> None:
    """Files written before startup_s/model_s existed give None times, and no time in numbers()."""
    document = _recorded("q25")
    del document["startup_s"], document["model_s"]
    result = ml.parse_result("q25", _write(tmp_path, document))
    assert result.timing == ml.SparkTiming(None, None)
    assert not any(name.startswith("spark_") for name in result.numbers())


def test_the_class_sharing_archive_is_passed_with_the_log_that_shows_its_use(tmp_path: Path) -> None:
    module = _fake_module(tmp_path)
    archive = ml.cds_archive(tmp_path, module)
    reading = ml.spark_command(
        "q20", {"k": 4}, "in", tmp_path / "o", module=module, java="j", archive=archive
    )
    assert f"-XX:SharedArchiveFile={archive}" in reading and ml.CDS_LOG in reading and ml.SPARK_JIT in reading
    making = ml.spark_command(
        "q20", {"k": 4}, "in", tmp_path / "o", module=module, java="j", archive_out=archive
    )
    assert f"-XX:ArchiveClassesAtExit={archive}" in making and ml.CDS_LOG not in making
    assert not any(part.startswith("-XX:SharedArchiveFile") for part in making)
    plain = ml.spark_command("q20", {"k": 4}, "in", tmp_path / "o", module=module, java="j")
    assert not any("Archive" in part or part == ml.CDS_LOG for part in plain)
    # another build of the module gets another archive
    (module / "target" / "bigbench-ml.jar").write_bytes(b"rebuilt")
    assert ml.cds_archive(tmp_path, module) != archive
    assert ml.cds_archive(tmp_path, module, tag="container") != ml.cds_archive(tmp_path, module)
    # and another Java build (a package update replaces its libjvm.so)
    home = tmp_path / "jdk"
    (home / "lib" / "server").mkdir(parents=True)
    (home / "lib" / "server" / "libjvm.so").write_bytes(b"17.0.15")
    (runtime,) = ml.jvm_libraries(home)
    with_java = ml.cds_archive(tmp_path, module, runtime=[runtime])
    assert with_java != ml.cds_archive(tmp_path, module)
    runtime.write_bytes(b"17.0.16+1")
    assert ml.cds_archive(tmp_path, module, runtime=[runtime]) != with_java
    assert ml.jvm_libraries(tmp_path / "no-jdk") == []


def test_the_jvm_log_tells_a_mapped_archive_from_one_it_could_not_use(tmp_path: Path) -> None:
    """A real JVM: an archive made by one run is mapped by the next; a missing one is not, and the
    JVM says nothing else about it (the reason the step's log is read)."""
    source = tmp_path / "Hello.java"
    source.write_text(
        'public class Hello { public static void main(String[] a) { System.out.println("hi"); } }'
    )
    subprocess.run(["javac", "-d", str(tmp_path / "classes"), str(source)], check=True)
    jar = tmp_path / "hello.jar"  # an archive's class path holds jars (a non-empty directory is refused)
    with zipfile.ZipFile(jar, "w") as out:
        out.write(tmp_path / "classes" / "Hello.class", "Hello.class")
    archive = tmp_path / "hello.jsa"
    java = ["java", "-cp", str(jar)]
    subprocess.run([*java[:1], f"-XX:ArchiveClassesAtExit={archive}", *java[1:], "Hello"], check=True)

    def run(path: Path) -> subprocess.CompletedProcess[str]:
        command = [java[0], f"-XX:SharedArchiveFile={path}", ml.CDS_LOG, *java[1:], "Hello"]
        return subprocess.run(command, capture_output=True, text=True, check=True)

    assert ml.used_class_sharing(run(archive).stdout)
    missing = run(tmp_path / "missing.jsa")
    assert missing.stdout.splitlines()[-1] == "hi" and not ml.used_class_sharing(missing.stdout)
