"""An environment of a spec: a named target, its options validated one concern per model.

The generic concerns are `Environment`'s fields (transport, Hadoop, Hive, JobHistory); a study
adds its own (`Study.environment_options`). A spec writes every key flat under the environment.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    StringConstraints,
    ValidationError,
    model_validator,
)

from benchcamp.core.spec_problems import NAME, Problem, Strict, refuse, validation_problems
from benchcamp.core.study import study_plugins


def _plain_words(value: str) -> str:
    """Words a command line is built from, never a shell fragment: a spec cannot inject `; rm`."""
    if not all(re.fullmatch(r"[A-Za-z0-9_./=:+-]+", word) for word in value.split()):
        raise ValueError("must be plain words (letters, digits, _ . / = : + -), e.g. 'dse hadoop'")
    return value


PlainWords = Annotated[str, AfterValidator(_plain_words)]
HttpAddress = Annotated[str, StringConstraints(pattern=r"^https?://[A-Za-z0-9.-]+(:\d+)?/?$")]


class EnvironmentOptions(Strict):
    """One concern of an environment, validated on its own, read from the environment's flat keys.

    The generic concerns are `Environment`'s fields; a study adds its own (`Study.environment_options`,
    e.g. where its tool finds the target's stores), which every environment takes, read by spec key
    (`environment.option("ycsb_properties")`).

    A field's alias is its spec key (`hadoop_command` for `HadoopOptions.command`), so an error
    names the key the user wrote; code may also give the field's own name.
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    @classmethod
    def spec_keys(cls) -> tuple[str, ...]:
        """The environment keys this model takes: each field's alias, or its name."""
        return tuple(info.alias or name for name, info in cls.model_fields.items())


class TransportOptions(EnvironmentOptions):
    """How the target is reached and its machines treated, whatever platform runs there."""

    connection: str = Field(min_length=1, description="Airflow SSH connection id")
    work_dir: str | None = Field(
        default=None,
        description="scratch directory on the target; default $BENCHCAMP_WORK_DIR or ~/benchcamp",
    )
    nodes: int = Field(
        default=1,
        ge=1,
        description="the target's worker nodes: HiBench's maps and reduces are per node, and an "
        "axis with `environment_key: nodes` (BigBench's cluster_nodes) takes this value",
    )
    drop_caches: bool = Field(default=True, description="try to drop the page cache before each repetition")
    reformat_command: str | None = Field(
        default=None,
        min_length=1,
        description="for studies with reformat_storage: a shell command, run on the target by the "
        "campaign's preflight, that stops the target's storage (e.g. HDFS), formats it and starts it "
        "again; its output is archived and its time recorded in the environment facts",
    )
    facts_command: str | None = Field(
        default=None,
        min_length=1,
        description="a shell command run on the target with every environment capture, printing "
        "`name=value` lines: facts only the environment knows (the storage device an install is on, "
        "a measured link rate), kept under the facts' `target`",
    )
    controller_setup: tuple[str, ...] = Field(
        default=(),
        description="a program and its arguments (no shell) run where Airflow's task runs, not over "
        "SSH, by the campaign's preflight before it reaches the target: it brings up a target that "
        "machine hosts itself (e.g. the lab's container); a relative program path is the project's "
        "(lab/bin/...); its output is archived and a non-zero exit fails the preflight",
    )
    hardware_facts: tuple[str, ...] = Field(
        default=(),
        description="names among facts_command's facts that are hardware (e.g. storage_disk, "
        "storage_model): they join the fingerprint, so a change of them splits the time series",
    )
    recheck_facts: bool = Field(
        default=False,
        description="run facts_command again just before and just after every timed step (untimed; "
        "it must be cheap, e.g. a cluster's live workers from its ResourceManager): a repetition "
        "over which a hardware fact changed (a worker lost mid-job) is failed naming the change "
        "(never counted, whether the job survived or not); a change since the "
        "campaign's capture captures the environment again, so the fingerprint follows",
    )

    @model_validator(mode="after")
    def _recheck_needs_hardware_facts(self) -> Self:
        if self.recheck_facts and not (self.facts_command and self.hardware_facts):
            raise ValueError("recheck_facts needs a facts_command and the hardware_facts it compares")
        return self


class HadoopOptions(EnvironmentOptions):
    """Hadoop on the target: its command, jars, where jobs keep data, HDFS and MapReduce modes."""

    command: PlainWords = Field(
        default="hadoop", min_length=1, alias="hadoop_command", description="e.g. hadoop, yarn, dse hadoop"
    )
    data_root: str | None = Field(
        default=None,
        description="where jobs read and write data as Hadoop sees it (e.g. an HDFS path); default: "
        "a 'data' folder in the repetition's scratch directory (right for file:/// local mode)",
    )
    examples_jar: str | None = Field(
        default=None, description="path of hadoop-mapreduce-examples.jar; default: found under $HADOOP_HOME"
    )
    tests_jar: str | None = Field(
        default=None,
        description="path of hadoop-mapreduce-client-jobclient-*-tests.jar (TestDFSIO); default: under $HADOOP_HOME",
    )
    mapreduce_local: bool = Field(
        default=False,
        description="MapReduce runs in local mode (LocalJobRunner), which forces one map per job "
        "whatever mapreduce.job.maps says; generators then write their data with one map",
    )
    safemode_wait_s: float | None = Field(
        default=None,
        gt=0,
        description="HDFS: before a campaign, wait up to this long for the NameNode to leave safe mode "
        "(`dfsadmin -safemode get`); unset for file systems without safe mode",
    )
    webhdfs_url: HttpAddress | None = Field(
        default=None,
        description="the NameNode's HTTP address as the target reaches it (e.g. http://nn:9870): "
        "repetition data under data_root is deleted and checked through WebHDFS with curl instead of "
        "starting `hadoop fs` JVMs; the target's BENCHCAMP_WEBHDFS_URL, if set, wins",
    )


class HiveOptions(EnvironmentOptions):
    """HiveServer2 as the target's Hive workloads reach it."""

    connection: str | None = Field(
        default=None, alias="hive_connection", description="Airflow HiveServer2 connection id"
    )


class JobHistoryOptions(EnvironmentOptions):
    """The MapReduce JobHistory server, for per-task phase times."""

    url: HttpAddress | None = Field(
        default=None,
        alias="jobhistory_url",
        description="MapReduce JobHistory server as the target reaches it (e.g. http://jhs:19888): "
        "after every MapReduce job its per-task phase times are fetched from the REST API",
    )
    via: PlainWords = Field(
        default="",
        alias="jobhistory_via",
        description="command prefix on the target to reach the JobHistory server (the lab: "
        "'ip netns exec benchcamp-yarn'); empty on real clusters",
    )


class Environment(Strict):
    """A named target. Specs name Airflow connections, never hosts.

    Its options are validated by one model per concern (transport, Hadoop, Hive, JobHistory, and
    each study's own: `study_option_models`) and code reads them by concern (`environment.hadoop.command`), but a spec writes them flat
    under the environment (`hadoop_command`, `hive_connection`, `jobhistory_url`, ...). Why: an
    environment sets a handful of options, most concerns one or two of them, and one short block per
    target reads better than a nest of one-key mappings; the platform's keys name it already; and
    it is the form every spec has had, so no spec changes and `benchcamp spec check` points at the
    same lines. The flat keys are routed to their model before validation and an error names the
    key as written (`environments[2].hadoop_command`), on its line. A nested mapping
    (`hadoop: {command: ...}`) is refused, naming the flat keys to write instead: one form only.
    """

    name: str = Field(pattern=NAME)
    description: str = ""
    baseline: bool = False
    transport: TransportOptions
    hadoop: HadoopOptions = Field(default_factory=HadoopOptions)
    hive: HiveOptions = Field(default_factory=HiveOptions)
    jobhistory: JobHistoryOptions = Field(default_factory=JobHistoryOptions)
    # the studies' own concerns (`study_option_models`), each validated, defaults included
    study_options: tuple[EnvironmentOptions, ...] = ()

    @classmethod
    def option_parts(cls) -> dict[str, type[EnvironmentOptions]]:
        """The fields holding an options model, by name: where each flat key goes."""
        parts: dict[str, type[EnvironmentOptions]] = {}
        for name, info in cls.model_fields.items():
            if isinstance(info.annotation, type) and issubclass(info.annotation, EnvironmentOptions):
                parts[name] = info.annotation
        return parts

    @model_validator(mode="wrap")
    @classmethod
    def _from_flat_keys(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """Route a spec's flat keys to their options models; report errors at the flat key."""
        if not isinstance(data, dict):
            return handler(data)
        parts = cls.option_parts()
        owner = {key: part for part, model in parts.items() for key in model.spec_keys()}
        studies = study_option_models()
        study_owner = {key: model for model in studies for key in model.spec_keys()}
        grouped: dict[str, Any] = {part: {} for part in parts}
        study_keys: dict[type[EnvironmentOptions], dict[str, Any]] = {model: {} for model in studies}
        given: dict[str, Any] = {}
        problems: list[Problem] = []
        for key, value in data.items():
            if key == "study_options":
                continue  # only ever built here, from the flat keys
            if key in owner:
                grouped[owner[key]][key] = value
            elif key in study_owner:
                study_keys[study_owner[key]][key] = value
            elif key in parts:
                given[key] = value  # an options model passed by code, or a nested mapping
            else:
                grouped[key] = value
        study_options, study_problems = [], []
        for model, written in study_keys.items():
            try:
                study_options.append(model.model_validate(written))
            except ValidationError as exc:
                study_problems += list(validation_problems(exc))
        grouped["study_options"] = tuple(study_options)
        for part, value in given.items():
            if not isinstance(value, parts[part]):
                keys = ", ".join(parts[part].spec_keys())
                problems.append(Problem((part,), f"unknown key: write its options flat here ({keys})"))
            elif grouped[part]:
                problems.append(Problem((part,), f"give either '{part}' or its keys, not both"))
            else:
                grouped[part] = value

        def as_written(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
            return loc[1:] if len(loc) > 1 and loc[0] in parts else loc

        environment = None
        try:
            environment = handler(grouped)
        except ValidationError as exc:
            problems += [Problem(as_written(item.loc), item.message) for item in validation_problems(exc)]
        refuse([*problems, *study_problems])
        assert environment is not None
        return environment

    def flat_keys(self) -> dict[str, Any]:
        """The environment as a spec writes it: every key flat."""
        keys: dict[str, Any] = {"name": self.name, "description": self.description, "baseline": self.baseline}
        for part in self.option_parts():
            keys.update(getattr(self, part).model_dump())
        for options in self.study_options:
            keys.update(options.model_dump())
        return keys

    def option(self, key: str) -> Any:
        """A study's own option by its spec key (`ycsb_properties`): its value, or its default."""
        for options in self.study_options:
            for name, info in type(options).model_fields.items():
                if (info.alias or name) == key:
                    return getattr(options, name)
        raise KeyError(f"no study declares the environment key '{key}'")

    def replace(self, **keys: Any) -> Environment:
        """This environment with some spec keys changed (flat, as a spec writes them), validated again:
        for what-if plans and tests, which then cannot build an environment no spec could."""
        return Environment.model_validate({**self.flat_keys(), **keys})


def study_option_models() -> tuple[type[EnvironmentOptions], ...]:
    """Every study's own environment options (`Study.environment_options`), in study order."""
    models = tuple(model for plugin in study_plugins() for model in plugin.environment_options)
    for model in models:
        if not (isinstance(model, type) and issubclass(model, EnvironmentOptions)):
            raise TypeError(f"{model!r} is no EnvironmentOptions model (core.spec)")
    return models
