"""Run configuration checks and planning: bad input is refused before anything runs."""

from __future__ import annotations

import pytest
from benchcamp.campaign import CampaignConfError, campaign_id, check_conf, expected_cells, plan_units
from benchcamp.spec import load_spec

SPEC = load_spec("hibench_dse")


def test_defaults_plan_every_implemented_cell_times_repetitions() -> None:
    conf = check_conf(SPEC, {"ladder": "tiny"})
    units = plan_units(SPEC, conf, "c1")
    assert conf.workloads == ["wordcount", "dfsio_write", "dfsio_read", "hive_aggregation", "hive_join"]
    assert len(units["local_lab"]) == 15 * 3
    assert units["dse_cluster"] == []
    first_cell = units["local_lab"][:3]
    assert [unit["repetition"] for unit in first_cell] == [1, 2, 3]
    assert {(env, wl, reps) for env, wl, _, reps in expected_cells(units)} == {
        ("local_lab", "wordcount", 3),
        ("local_lab", "dfsio_write", 3),
        ("local_lab", "dfsio_read", 3),
        ("local_lab", "hive_aggregation", 3),
        ("local_lab", "hive_join", 3),
    }


def test_hive_workloads_need_a_hive_connection_on_the_target() -> None:
    with pytest.raises(CampaignConfError, match="names no hive_connection"):
        check_conf(SPEC, {"environment": "dse_cluster", "workloads": ["hive_join"]})


def test_cell_subset_and_environment() -> None:
    key = "dfsio_write|data_size_gb=0.012"
    conf = check_conf(
        SPEC,
        {
            "ladder": "tiny",
            "cells": [key],
            "repetitions": 2,
            "environment": "dse_cluster",
            "workloads": ["dfsio_write"],
        },
    )
    units = plan_units(SPEC, conf, "c1")
    assert [unit["repetition"] for unit in units["dse_cluster"]] == [1, 2]
    assert units["local_lab"] == []


@pytest.mark.parametrize(
    ("conf", "message"),
    [
        ({"ladder": "huge"}, "ladder 'huge'"),
        ({"repetitions": 0}, "repetitions must be an integer from 1"),
        ({"repetitions": -1}, "repetitions must be an integer from 1"),
        ({"repetitions": "3"}, "repetitions must be an integer"),
        ({"environment": "mars"}, "no environment 'mars'"),
        ({"workloads": ["sort"]}, "no workload 'sort'"),
        (
            {"cells": ["wordcount|data_size_gb=999"]},
            "cell 'wordcount|data_size_gb=999' is not in the small matrix",
        ),
        ({"repetitons": 3}, "unknown parameter 'repetitons'"),
    ],
)
def test_bad_conf_is_rejected_with_a_message_that_says_what_to_fix(
    conf: dict[str, object], message: str
) -> None:
    with pytest.raises(CampaignConfError, match=message):
        check_conf(SPEC, conf)


def test_campaign_id_is_path_and_sql_safe() -> None:
    assert campaign_id("manual__2026-11-22T10:00:00+00:00") == "manual__2026-11-22T10_00_00+00_00"
    assert "'" not in campaign_id("x'; drop table y; --")


def test_a_declared_but_unimplemented_workload_is_refused_by_name() -> None:
    spec = load_spec("ycsb_hbase_cassandra")
    with pytest.raises(CampaignConfError, match="not implemented yet"):
        check_conf(spec, {"workloads": [spec.workloads[0]]})
