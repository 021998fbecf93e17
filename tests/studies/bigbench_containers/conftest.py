"""bigbench_containers' shared fixtures: its unit modules and its jars' module read the same
generated reviews (a fixture here, not one test module importing another's)."""

from __future__ import annotations

import pytest
from benchcamp.studies.bigbench_containers.datagen.writing import generate


@pytest.fixture(scope="module")
def generated_reviews(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, int, str]]:
    """(review key, rating, text) of the generator's reviews at its smallest scale (~1000)."""
    data_dir = tmp_path_factory.mktemp("bigbench_reviews")
    generate(data_dir, 0.001, 7, processes=1, tables=["product_reviews"])
    reviews = []
    for path in sorted((data_dir / "product_reviews").glob("part-*.dat")):
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split("|")
            reviews.append((fields[0], int(fields[3]), fields[7]))
    return reviews
