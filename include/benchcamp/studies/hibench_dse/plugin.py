"""The hibench_dse study's plugin: which runs of HiBench's own report are the study's workloads.

`benchcamp import --from hibench-report` reads a `hibench.report`; its Type column names the
run. The study measured HiBench 2.2's WordCount, Enhanced DFSIO and HiveBench on MapReduce, whose
report names them WORDCOUNT, DFSIOE-WRITE / -READ, HIVEAGGR and HIVEJOIN; HiBench 7 names the same
workloads HadoopWordcount, HadoopDfsioe-write / -read, HadoopAggregation and HadoopJoin. Anything
else (HadoopSort, a Spark run such as ScalaSparkWordcount, the HadoopPrepare* data generation) is
refused unless the import maps it explicitly (`--name TYPE=WORKLOAD`) or skips it (`--skip TYPE`).
"""

from __future__ import annotations

from benchcamp.core.study import Study

HIBENCH_TYPES = {
    "WORDCOUNT": "wordcount",
    "DFSIOE-WRITE": "dfsio_write",
    "DFSIOE-READ": "dfsio_read",
    "HIVEAGGR": "hive_aggregation",
    "HIVEJOIN": "hive_join",
    "HadoopWordcount": "wordcount",
    "HadoopDfsioe-write": "dfsio_write",
    "HadoopDfsioe-read": "dfsio_read",
    "HadoopAggregation": "hive_aggregation",
    "HadoopJoin": "hive_join",
}

STUDY = Study("hibench_dse", native_names={"hibench-report": HIBENCH_TYPES})
