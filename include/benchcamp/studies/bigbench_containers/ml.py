"""The Spark MLlib step of the machine-learning queries (q05, q20, q25, q26, q28).

Each of these queries runs in two steps: its HiveQL (`queries/qNN.hql`) exports the model's
input as `|`-separated files with `INSERT OVERWRITE DIRECTORY '${hivevar:output_dir}'`, then
the project's Spark program (`lab/bigbench-ml`, Spark in `local[2]`) fits the model over those
files and writes a small JSON file: that file is the query's result. This module says, for each
query, which model and columns the export holds and which of its parameters (`params.yaml`)
Spark takes; it builds the Spark step's argv and parses its result file into numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, NoReturn

from benchcamp.core.paths import repo_root
from benchcamp.ops.toolkit import java17_options

__all__ = [
    "ML_QUERIES",
    "MAIN_CLASS",
    "RESULT_FORMAT",
    "ClassifierResult",
    "SparkTiming",
    "KMeansResult",
    "MlQuery",
    "MlResultError",
    "SparkUnavailableError",
    "CDS_LOG",
    "cds_archive",
    "jvm_libraries",
    "module_dir",
    "parse_result",
    "spark_command",
    "used_class_sharing",
]

MAIN_CLASS: Final = "benchcamp.bigbenchml.BigBenchML"
RESULT_FORMAT: Final = "benchcamp-bigbench-ml/1"
SPARK_DRIVER_MEMORY: Final = "-Xmx1g"
"""local[2] runs the whole job in the driver JVM; the exports are a few MB even at SF 1."""
SPARK_JIT: Final = "-XX:TieredStopAtLevel=1"
"""The client compiler only: a Spark step lives 5 to 20 s, mostly in code that runs a few times
(start-up, planning, one small job per iteration), where C2's compilations cost two shared cores
more than they return (measured side by side: benchmarks/bigbench_spark_jvm.py)."""

# Spark's options per model, as params.yaml names them (`reg_param` becomes `--reg-param`)
_SPARK_OPTIONS: Final = MappingProxyType(
    {
        "kmeans": ("k", "iterations", "seed"),
        "logreg": ("iterations", "reg_param", "test_percent", "seed"),
        "naivebayes": ("smoothing", "num_features", "test_percent", "seed"),
    }
)
_REQUIRED: Final = MappingProxyType({"kmeans": ("k",), "logreg": (), "naivebayes": ()})


class SparkUnavailableError(RuntimeError):
    """Java or the Spark jars of lab/bigbench-ml are missing: the ML queries cannot run."""


class MlResultError(ValueError):
    """A Spark step's result file is missing, malformed or not the model expected."""


@dataclass(frozen=True)
class MlQuery:
    """What one ML query's Hive step exports and which Spark model reads it."""

    query: str
    model: str
    columns: tuple[str, ...]
    """The export's columns in order, the row id first (for logreg the 0/1 label second);
    empty for naivebayes, whose export is always `id|label|text`."""


def _class_columns(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}_{number:02d}" for number in range(1, count + 1))


CATEGORY_COUNT: Final = 10
"""Categories 1..10 (q05's click features); must match the generator's item categories."""
BOOK_CLASS_COUNT: Final = 8
"""Sub-categories (i_class_id 1..8, the generator's classes) of the book category (q26's features)."""

ML_QUERIES: Final = MappingProxyType(
    {
        "q05": MlQuery(
            "q05",
            "logreg",
            ("customer_sk", "interested", *_class_columns("clicks_category", CATEGORY_COUNT))
            + ("male", "education_rank", "dependants"),
        ),
        "q20": MlQuery(
            "q20",
            "kmeans",
            (
                "customer_sk",
                "ticket_return_ratio",
                "item_return_ratio",
                "amount_return_ratio",
                "return_lines",
            ),
        ),
        "q25": MlQuery("q25", "kmeans", ("customer_sk", "recency_days", "frequency", "monetary")),
        "q26": MlQuery("q26", "kmeans", ("customer_sk", *_class_columns("books_class", BOOK_CLASS_COUNT))),
        "q28": MlQuery("q28", "naivebayes", ()),
    }
)


def module_dir() -> Path:
    """lab/bigbench-ml: its jar in target/, Spark's jars in target/lib/ (copied at `mvn package`)."""
    return repo_root() / "lab" / "bigbench-ml"


CDS_LOG: Final = "-Xlog:cds=info"
"""A JVM that cannot use a class-data-sharing archive (another Java build, a changed class path)
says nothing and loads the classes from the jars: slower, and in a bare vs container comparison
that would silently favour one side. With this flag its log says whether it mapped the archive."""


def used_class_sharing(stdout: str) -> bool:
    """Whether a Spark step run with `CDS_LOG` mapped its archive's classes (HotSpot 17+'s log)."""
    return "Mapped dynamic region" in stdout


def cds_archive(
    directory: Path, module: Path | None = None, tag: str = "", runtime: Sequence[Path] = ()
) -> Path:
    """The Spark step's class-data-sharing archive for this build of the module and of Java: in
    `directory`, named by the jars' paths, sizes and times and by the Java runtime's files
    (`runtime`, `jvm_libraries`), so a rebuilt module, another Spark or an updated Java gets a new
    one. Made by one untimed run with `archive_out` (run.py), then read by every Spark step with
    `archive`: the JVM maps the ~25,000 classes Spark loads instead of reading and verifying them
    from 190 jars. A JVM that cannot use it loads them as before and says so only in `CDS_LOG`."""
    module = module_dir() if module is None else module
    digest = hashlib.sha1(tag.encode(), usedforsecurity=False)
    jars = [module / "target" / "bigbench-ml.jar", *sorted((module / "target" / "lib").glob("*.jar"))]
    for path in [*jars, *runtime]:
        found = path.stat()
        digest.update(f"{path} {found.st_size} {found.st_mtime_ns}\n".encode())
    return directory / f"bigbench-ml-{digest.hexdigest()[:12]}.jsa"


def jvm_libraries(java_home: Path) -> list[Path]:
    """The JVM library of a Java installation (`<home>/lib/server/libjvm.so`): what an archive
    depends on; a package update replaces it."""
    return sorted(java_home.glob("lib/server/libjvm.so"))


def spark_command(
    query: str,
    params: Mapping[str, object],
    input_dir: str,
    output_file: Path,
    *,
    module: Path | None = None,
    java: str | None = None,
    archive: Path | None = None,
    archive_out: Path | None = None,
    master: str | None = None,
    conf: Mapping[str, object] | None = None,
) -> list[str]:
    """The argv of `query`'s Spark step over the Hive export in `input_dir` (a local path or an
    hdfs:// URI), writing its JSON result to `output_file`.

    `params` is the query's entry of params.yaml: the keys Spark takes for this model are passed,
    the Hive-only ones are not. `master` is the Spark master (the program's default, local[2],
    when None); `conf` are Spark properties, given to the driver's JVM as -Dname=value (Spark
    reads its settings from system properties, as `spark-submit --conf` passes them). Raises
    SparkUnavailableError when Java or the jars are missing, before anything runs, so the query
    fails naming Spark."""
    spec = _spec(query)
    missing = [name for name in _REQUIRED[spec.model] if name not in params]
    if missing:
        raise ValueError(f"{query}: params.yaml lacks {', '.join(missing)} for Spark's {spec.model}")
    module = module_dir() if module is None else module
    jar = module / "target" / "bigbench-ml.jar"
    lib = module / "target" / "lib"
    if not jar.is_file() or not any(lib.glob("spark-mllib_*.jar")):
        raise SparkUnavailableError(
            f"{query} needs Spark MLlib: {jar} or Spark's jars in {lib} are missing; build them with "
            f"`mvn -q -B -f {module / 'pom.xml'} package -DskipTests` (downloads Spark from Maven Central)"
        )
    java_path = java if java is not None else shutil.which("java")
    if java_path is None:
        raise SparkUnavailableError(f"{query} needs Spark MLlib, which needs Java 17: no `java` on PATH")
    # the JVM's cds log on stdout says whether it mapped the archive (`used_class_sharing`)
    sharing = [f"-XX:SharedArchiveFile={archive}", CDS_LOG] if archive is not None else []
    if archive_out is not None:
        sharing = [f"-XX:ArchiveClassesAtExit={archive_out}"]
    command = [
        java_path,
        SPARK_DRIVER_MEMORY,
        SPARK_JIT,
        *sharing,
        *java17_options(),
        *(f"-D{name}={_conf_text(value)}" for name, value in sorted((conf or {}).items())),
        "-cp",
        f"{jar}:{lib}/*",
        MAIN_CLASS,
    ]
    command += [spec.model, "--input", input_dir, "--output", str(output_file)]
    if master is not None:
        command += ["--master", master]
    if spec.columns:
        command += ["--columns", ",".join(spec.columns)]
    for name in _SPARK_OPTIONS[spec.model]:
        if name in params:
            command += ["--" + name.replace("_", "-"), _option_text(query, name, params[name])]
    return command


def _conf_text(value: object) -> str:
    """A Spark property's value as Spark reads it: booleans lower case, as in spark-defaults."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class SparkTiming:
    """Seconds from the JVM's start to a running Spark session, and then to the written result:
    on two shared cores the start-up is a good part of an ML query's time. None when the result
    file predates these fields."""

    startup_s: float | None
    model_s: float | None

    def numbers(self) -> dict[str, float]:
        return {
            f"spark_{name}": value
            for name, value in (("startup_s", self.startup_s), ("model_s", self.model_s))
            if value is not None
        }


@dataclass(frozen=True)
class KMeansResult:
    """Cluster sizes and centres (in the export's units, one value per feature)."""

    query: str
    rows: int
    k: int
    cost: float
    features: tuple[str, ...]
    sizes: tuple[int, ...]
    centres: tuple[tuple[float, ...], ...]
    timing: SparkTiming

    def numbers(self) -> dict[str, float]:
        """Flat metrics for the run's records: rows, k, cost, each cluster's size, Spark's times."""
        values: dict[str, float] = {"rows": self.rows, "k": self.k, "cost": self.cost}
        values.update({f"cluster_{index}_size": size for index, size in enumerate(self.sizes)})
        return values | self.timing.numbers()


@dataclass(frozen=True)
class ClassifierResult:
    """Test-part metrics of a classifier (logreg: the positive class; naivebayes: weighted by
    class support). None where a metric is undefined (no positive prediction, no test row)."""

    query: str
    model: str
    rows: int
    train_rows: int
    test_rows: int
    accuracy: float | None
    precision: float | None
    recall: float | None
    auc: float | None
    confusion: tuple[tuple[int, ...], ...]
    timing: SparkTiming

    def numbers(self) -> dict[str, float]:
        """Flat metrics for the run's records (undefined ones left out) and Spark's times."""
        values: dict[str, float] = {
            "rows": self.rows,
            "train_rows": self.train_rows,
            "test_rows": self.test_rows,
        }
        for name in ("accuracy", "precision", "recall", "auc"):
            value = getattr(self, name)
            if value is not None:
                values[name] = value
        return values | self.timing.numbers()


def parse_result(query: str, path: Path) -> KMeansResult | ClassifierResult:
    """The JSON result file of `query`'s Spark step, checked against the model the query uses.

    Refuses (MlResultError naming the file) a missing or empty file, bad JSON, another format or
    model, and numbers that do not add up (cluster sizes vs rows, confusion vs test rows)."""
    spec = _spec(query)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise MlResultError(f"{query}: cannot read the Spark result {path}: {error}") from error
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise MlResultError(f"{query}: the Spark result {path} is not JSON: {error}") from error
    reader = _Reader(query, path, document)
    if reader.text("format") != RESULT_FORMAT:
        raise MlResultError(
            f"{query}: {path} is not a {RESULT_FORMAT} file (format {document.get('format')!r})"
        )
    if reader.text("model") != spec.model:
        raise MlResultError(
            f"{query}: {path} holds a {document['model']!r} result, {query} runs {spec.model}"
        )
    rows = reader.count("rows")
    if spec.model == "kmeans":
        return _kmeans(reader, rows)
    return _classifier(reader, spec.model, rows)


def _kmeans(reader: _Reader, rows: int) -> KMeansResult:
    k = reader.count("k")
    features = tuple(reader.strings("features"))
    clusters = reader.items("clusters")
    if len(clusters) != k:
        reader.fail(f"{len(clusters)} clusters for k = {k}")
    sizes = []
    centres = []
    for index, cluster in enumerate(clusters):
        entry = _Reader(reader.query, reader.path, cluster, f"clusters[{index}].")
        if entry.count("cluster") != index:
            reader.fail(f"clusters[{index}] is numbered {cluster.get('cluster')!r}")
        sizes.append(entry.count("size"))
        centre = tuple(entry.floats("centre"))
        if len(centre) != len(features):
            reader.fail(f"clusters[{index}] has {len(centre)} centre values for {len(features)} features")
        centres.append(centre)
    if sum(sizes) != rows:
        reader.fail(f"cluster sizes add up to {sum(sizes)}, not the {rows} rows")
    if rows == 0:
        reader.fail("no rows: the Hive export was empty")
    return KMeansResult(
        reader.query, rows, k, reader.number("cost"), features, tuple(sizes), tuple(centres), reader.timing()
    )


def _classifier(reader: _Reader, model: str, rows: int) -> ClassifierResult:
    train_rows = reader.count("train_rows")
    test_rows = reader.count("test_rows")
    if train_rows + test_rows != rows:
        reader.fail(f"train_rows {train_rows} + test_rows {test_rows} != rows {rows}")
    if rows == 0:
        reader.fail("no rows: the Hive export was empty")
    confusion = tuple(tuple(_as_count(reader, value) for value in line) for line in reader.items("confusion"))
    if any(len(line) != len(confusion) for line in confusion) or len(confusion) < 2:
        reader.fail("the confusion matrix is not square with at least 2 classes")
    if sum(map(sum, confusion)) != test_rows:
        reader.fail(f"the confusion matrix counts {sum(map(sum, confusion))} rows, not test_rows {test_rows}")
    metrics = {name: reader.metric(name) for name in ("accuracy", "precision", "recall")}
    auc = reader.metric("auc") if model == "logreg" else None
    return ClassifierResult(
        reader.query,
        model,
        rows,
        train_rows,
        test_rows,
        metrics["accuracy"],
        metrics["precision"],
        metrics["recall"],
        auc,
        confusion,
        reader.timing(),
    )


def _as_count(reader: _Reader, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        reader.fail(f"confusion matrix entry {value!r} is not a count")
    return value


class _Reader:
    """Typed access to one JSON object of a result file; every refusal names the file."""

    def __init__(self, query: str, path: Path, document: object, where: str = "") -> None:
        self.query = query
        self.path = path
        self.where = where
        if not isinstance(document, dict):
            self.fail("not a JSON object")
        self.document: dict[str, Any] = document

    def fail(self, message: str) -> NoReturn:
        raise MlResultError(f"{self.query}: malformed Spark result {self.path}: {message}")

    def _get(self, name: str) -> object:
        if name not in self.document:
            self.fail(f"no {self.where}{name}")
        return self.document[name]

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            self.fail(f"{self.where}{name} is not a string")
        return str(value)

    def count(self, name: str) -> int:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(f"{self.where}{name} = {value!r} is not a count")
        return value

    def number(self, name: str) -> float:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            self.fail(f"{self.where}{name} = {value!r} is not a finite number")
        return float(value)

    def metric(self, name: str) -> float | None:
        """A rate in [0, 1], or None (JSON null) where it is undefined."""
        if self._get(name) is None:
            return None
        value = self.number(name)
        if not 0.0 <= value <= 1.0:
            self.fail(f"{self.where}{name} = {value} is outside [0, 1]")
        return value

    def timing(self) -> SparkTiming:
        startup, model = (
            self.number(name) if name in self.document else None for name in ("startup_s", "model_s")
        )
        return SparkTiming(startup, model)

    def items(self, name: str) -> list[Any]:
        value = self._get(name)
        if not isinstance(value, list):
            self.fail(f"{self.where}{name} is not a list")
        return value

    def strings(self, name: str) -> list[str]:
        values = self.items(name)
        if not values or not all(isinstance(value, str) for value in values):
            self.fail(f"{self.where}{name} is not a list of names")
        return values

    def floats(self, name: str) -> list[float]:
        values = self.items(name)
        if not all(
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            for value in values
        ):
            self.fail(f"{self.where}{name} holds a value that is not a finite number")
        return [float(value) for value in values]


def _spec(query: str) -> MlQuery:
    try:
        return ML_QUERIES[query]
    except KeyError:
        raise ValueError(f"{query!r} is not a machine-learning query ({', '.join(ML_QUERIES)})") from None


def _option_text(query: str, name: str, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{query}: Spark parameter {name} must be a number, got {value!r}")
    return str(value)
