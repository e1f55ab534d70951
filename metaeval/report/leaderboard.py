"""Leaderboards: select results, then render them as text, Markdown, CSV, TSV, JSON or HTML.

    >>> page = render(results, signature, "html", layout="table", title="IWSLT'08 zh")

Human formats (``text``, ``markdown``, ``html``, ``latex``) open with the answer (character level
against the best word level, :mod:`metaeval.answer`), then draw one section per ranking
group in the chosen layout (:mod:`metaeval.report.layout`); a ranking whose every value is
undefined takes one line with the reason. Data formats (``csv``, ``tsv``, ``json``) hold
every column of every row in ranking order, whatever the layout, and read back with
:func:`metaeval.report.load_results`. The signature, unless ``signature=False``: one line at
the end of text and Markdown, a collapsed table at the end of HTML, the ``signature`` key in
JSON; CSV/TSV are plain tables and :func:`metaeval.report.data.write_results` puts the
signature beside them.

Output is a function of the content only: rows and names are sorted with explicit
tie-breaks, floats have a fixed format, and nothing depends on the clock unless a
``timestamp`` is passed.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pandas as pd

from metaeval.answer import answer as compute_answer
from metaeval.errors import UsageError
from metaeval.report.data import render_delimited, render_json
from metaeval.report.headline import adjustment, answer_legend, answer_section, context_line, signature_line
from metaeval.report.html import render_html
from metaeval.report.latex import render_latex
from metaeval.report.layout import LAYOUTS, sections
from metaeval.report.results import flatten_signature, normalise, order_rows
from metaeval.report.text import render_markdown, render_text

FORMATS = ("text", "markdown", "csv", "tsv", "json", "html", "latex")
#: Columns :func:`select` filters on, by keyword.
SELECTABLE = ("dataset", "metric", "segmenter", "config", "judgment_kind", "level", "statistic", "grouping", "tie_policy")


def select(results: pd.DataFrame, **criteria: "str | Iterable[str] | None") -> pd.DataFrame:
    """Rows of ``results`` matching every criterion, e.g. ``select(r, level="seg", metric=["bleu", "nist"])``.

    Each keyword is a column of :data:`SELECTABLE`; its value is one name or several
    (``None`` means any). A criterion matching nothing raises :class:`UsageError` listing
    the values present. The result is normalised (see :func:`metaeval.report.results.normalise`).
    """
    table = normalise(results)
    for column, wanted in criteria.items():
        if column not in SELECTABLE:
            raise UsageError(f"cannot select on {column!r}; known columns: {', '.join(SELECTABLE)}")
        if wanted is None:
            continue
        names = [wanted] if isinstance(wanted, str) else [str(w) for w in wanted]
        present = sorted(set(table[column]))
        unknown = [n for n in names if n not in present]
        if unknown:
            listing = ", ".join(repr(p) for p in present) or "(none)"
            raise UsageError(f"no results with {column} {', '.join(map(repr, unknown))}; present: {listing}")
        table = table[table[column].isin(names)]
    return table.reset_index(drop=True)


def render(
    results: pd.DataFrame,
    signature: "Mapping[str, Any] | bool | None" = None,
    format: str = "text",
    layout: str = "ranked",
    *,
    title: str | None = None,
    digits: int = 3,
    timestamp: str | None = None,
    answer: pd.DataFrame | None = None,
    tie_free: pd.DataFrame | None = None,
) -> str:
    """The leaderboard of ``results`` in ``format`` (one of :data:`FORMATS`) as text.

    Args:
        results: a ResultTable (DataFrame; see :mod:`metaeval.report.results`).
        signature: the run's signature dict; ``False`` (or ``None``) omits it.
        format: ``text``, ``markdown``, ``csv``, ``tsv``, ``json``, ``html`` or ``latex``.
        layout: ``ranked`` or ``table`` (human formats only).
        title: heading; defaults to the dataset name(s), or the signature's ``dataset``.
        digits: decimals shown in human formats (data formats keep full precision).
        timestamp: text added to the signature as ``generated`` (never added by itself).
        answer: the answer of :func:`metaeval.answer.answer` with intervals and p-values
            (from the run's bootstrap samples); when omitted, human formats derive it from
            ``results`` without them.
        tie_free: the tie-free reference of each ranking (columns judgment_kind, level,
            statistic, grouping, tie_free; :func:`metaeval.stats.evaluate.tie_free_references`):
            a note of each section of the human formats, the ``tie_free`` key of JSON, and the
            line of html charts whose results have no chance levels. The chance levels
            themselves are columns of ``results``.
    """
    if format not in FORMATS:
        raise UsageError(f"unknown format {format!r}; known formats: {', '.join(FORMATS)}")
    if layout not in LAYOUTS:
        raise UsageError(f"unknown layout {layout!r}; known layouts: {', '.join(LAYOUTS)}")
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 12:
        raise UsageError(f"digits must be an integer from 0 to 12, got {digits!r}")
    if signature is True or (signature is not None and signature is not False and not isinstance(signature, Mapping)):
        raise UsageError(f"signature must be a dict, False or None, got {type(signature).__name__}")
    table = order_rows(normalise(results))
    sig = dict(signature) if isinstance(signature, Mapping) else None
    if timestamp is not None:
        sig = {**(sig or {}), "generated": timestamp}
    if format in ("csv", "tsv"):
        return render_delimited(table, sig, "," if format == "csv" else "\t")
    if format == "json":
        return render_json(table, sig, answer, tie_free)
    heading = title if title is not None else _default_title(table, sig)
    if answer is None:
        answer = compute_answer(table)
    lead = [s for s in (answer_section(answer, digits),) if s is not None]
    intro = [line for line in (context_line(sig, table),) if line]
    parts = sections(table, layout, digits, adjustment(sig), tie_free)
    if format == "latex":
        pairs = flatten_signature(sig) if sig is not None else None
        return render_latex(heading, pairs, parts)
    if format == "html":
        pairs = flatten_signature(sig) if sig is not None else None
        return render_html(heading, pairs, parts, digits, intro=intro, lead=lead, lead_notes=answer_legend(answer, sig), tie_free=tie_free)
    footer = []
    if sig is not None:
        footer = [f"signature: {signature_line(sig)}", "(full signature: --format json, or signature.json in --out)"]
    renderer = render_text if format == "text" else render_markdown
    return renderer(heading, None, parts, intro=intro, lead=lead, lead_notes=answer_legend(answer, sig), footer=footer)


def _default_title(table: pd.DataFrame, signature: Mapping[str, Any] | None) -> str:
    datasets = sorted(d for d in set(table["dataset"]) if d)
    if not datasets and signature and signature.get("dataset"):
        datasets = [str(signature["dataset"])]
    return "metaeval leaderboard" + (": " + ", ".join(datasets) if datasets else "")
