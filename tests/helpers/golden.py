"""hibench_dse's published tables (Tables 9 and 17 of the DSE paper) as records: the golden data
the study's marts, the scorecard, the results page and the study contract are checked on."""

from __future__ import annotations

from pathlib import Path

CAMPAIGN = "published_dse_2016"
TEMPLATE = (
    Path(__file__).resolve().parents[2]
    / "include"
    / "benchcamp"
    / "studies"
    / "hibench_dse"
    / "published"
    / "template.csv"
)


def published_records() -> list[dict[str, object]]:
    """The study's published/template.csv: Tables 9 and 17, each cell as m − σ, m, m + σ."""
    from benchcamp.core.records import read_csv_numbered

    records = read_csv_numbered(TEMPLATE.read_text(encoding="utf-8"), str(TEMPLATE))
    return [
        {name: value for name, value in record.to_json_dict().items() if value is not None}
        for _, record in records
    ]
