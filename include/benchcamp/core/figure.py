"""A figure as the report, the results page and a study's plugin hand it around: data, not a drawing.

It lives in core because the study plugin contract (`core.study.FigureMaker`) returns it; making
figures from marts is `presentation.figures`'. Rendering imports vl-convert only when asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """One figure: a stable id (its download name), a title and its Vega-Lite specification."""

    id: str
    title: str
    spec: dict[str, Any]
    notes: tuple[str, ...] = ()  # shown under the figure (e.g. the anomalies it marks)

    def svg(self) -> str:
        import vl_convert

        return str(vl_convert.vegalite_to_svg(self.spec))

    def png(self, scale: float = 2.0) -> bytes:
        import vl_convert

        return bytes(vl_convert.vegalite_to_png(self.spec, scale=scale))
