"""Rendering of the Denoual–Lepage equivalence analysis (:mod:`metaeval.equivalence`).

The analysis (layer 5) returns an :class:`~metaeval.equivalence.EquivalenceResult` of
DataFrames; this module turns it into report sections, text, Markdown and JSON.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from metaeval.equivalence import EquivalenceResult
from metaeval.errors import UsageError
from metaeval.report.layout import Section
from metaeval.report.results import flatten_signature, fmt_number, plain, to_json
from metaeval.report.latex import render_latex
from metaeval.report.text import render_markdown, render_text

FORMATS = ("text", "markdown", "json", "latex")


def frame_section(title: str, frame: pd.DataFrame) -> Section:
    """A DataFrame as a report section: numbers to 4 decimals, missing values as ``-``."""

    def cell(value: Any) -> str:
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            return "-"
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        if isinstance(value, (int, np.integer)):
            return str(int(value))
        if isinstance(value, (float, np.floating)):
            return fmt_number(value, 4) if not float(value).is_integer() or abs(value) <= 1 else str(int(value))
        return str(value)

    numeric = tuple(
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns
    )
    rows = tuple(tuple(cell(v) for v in row) for row in frame.astype(object).itertuples(index=False))
    return Section(key=(("dataset", title),), columns=tuple(str(c) for c in frame.columns), rows=rows, numeric=numeric)


def equivalence_dict(result: EquivalenceResult) -> dict[str, Any]:
    """JSON-able data: the signature and every table as a list of records."""
    tables = {name: getattr(result, name).to_dict(orient="records") for name, _ in result.TABLES}
    return plain({"signature": result.signature, "tables": tables})


def equivalence_sections(result: EquivalenceResult, names: Sequence[str] | None = None) -> list[Section]:
    """The tables as report sections, in the order of ``result.TABLES``."""
    wanted = [n for n, _ in result.TABLES] if names is None else list(names)
    titles = dict(result.TABLES)
    return [frame_section(titles[n], result.table(n)) for n in wanted]


def render_equivalence(
    result: EquivalenceResult, fmt: str, title: str | None = None, names: Sequence[str] | None = None
) -> str:
    """``text``, ``markdown``, ``json`` or ``latex``."""
    if fmt == "json":
        return to_json(equivalence_dict(result), indent=1) + "\n"
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    renderer = {"markdown": render_markdown, "latex": render_latex}.get(fmt, render_text)
    return renderer(title or result.title(), flatten_signature(result.signature), equivalence_sections(result, names))
