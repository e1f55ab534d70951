"""Rendering of a system leaderboard (:class:`metaeval.systemrank.board.SystemBoard`).

Human formats (``text``, ``markdown``, ``html``, ``latex``) show, per human score and metric:

- the leaderboard: one row per system in the humans' order, with the human score, rank range
  and cluster, then for each segmenter (in the sweep's order) the metric's score, its rank with
  the displacement from the human rank, and its cluster; the systems whose rank depends on the
  granularity are named below it, and HTML draws the bump chart (:mod:`metaeval.report.bump`)
  above it;
- the pairs each configuration orders against the humans, and how many of those the humans,
  and also the metric, separate significantly.

The methods (tests, level, resamples, seed, the cluster procedure) open the page, with the notes
(systems left out); the signature closes it (one line in text and Markdown, a collapsed table in
HTML, comments in LaTeX). Data formats: ``tsv`` and ``csv`` hold the leaderboard table
(every column, one row per system and column of the board), ``json`` every table with the
signature. Output depends on the board only.
"""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pandas as pd

from metaeval.errors import UsageError
from metaeval.report.bump import bump_chart, svg
from metaeval.report.headline import signature_line
from metaeval.report.html import render_html
from metaeval.report.latex import render_latex
from metaeval.report.layout import Section
from metaeval.report.results import flatten_signature, fmt_count, fmt_number, to_json
from metaeval.report.text import render_markdown, render_text
from metaeval.stats.adjust import CONTROLS
from metaeval.systemrank.board import SystemBoard

FORMATS = ("text", "markdown", "html", "latex", "csv", "tsv", "json")
#: Columns of the leaderboard table written as whole numbers.
INTEGER_COLUMNS = ("rank", "rank_low", "rank_high", "cluster", "human_rank", "displacement")
#: Extra CSS of the HTML page: wide tables scroll inside the page instead of widening it.
STYLE = """
table { display: block; max-width: 100%; overflow-x: auto; }
th, td, td.num { padding: 0.15em 0.35em; font-size: 90%; }
svg { display: block; max-width: 100%; height: auto; margin: 0.5em 0; }
""".strip()


def _signed(value: float) -> str:
    return "0" if value == 0 else f"{value:+.0f}"


def _rank_cell(rank: float, shift: float) -> str:
    if math.isnan(rank):
        return ""
    return f"{fmt_count(rank)} ({_signed(shift)})"


def _range_cell(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return ""
    return fmt_count(low) if low == high else f"{fmt_count(low)}-{fmt_count(high)}"


def _human_digits(scores: pd.Series) -> int:
    return 2 if (scores.abs() >= 10).any() else 3


def _segmenter_order(board: SystemBoard, rows: pd.DataFrame) -> list[str]:
    present = list(dict.fromkeys(rows["segmenter"]))
    order = [s for s in board.granularities["name"] if s in present]
    return order + [s for s in present if s not in order]


def moved_systems(board: SystemBoard, kind: str, metric: str) -> list[tuple[str, list[float]]]:
    """The systems whose rank under ``metric`` differs between two segmenters, with their
    ranks in the segmenters' order (the humans' order of systems)."""
    rows = board.table[(board.table["judgment_kind"] == kind) & (board.table["metric"] == metric) & (board.table["source"] == "metric")]
    segs = _segmenter_order(board, rows)
    out = []
    for system in dict.fromkeys(rows["system"]):
        ranks = rows[rows["system"] == system].set_index("segmenter")["rank"]
        values = [float(ranks.get(s, np.nan)) for s in segs]
        defined = [v for v in values if not math.isnan(v)]
        if defined and max(defined) > min(defined):
            out.append((system, values))
    return out


def separated_moves(board: SystemBoard, kind: str, metric: str) -> list[str]:
    """The systems whose rank ranges under ``metric`` (the WMT24 ranges of its significance
    tests) are disjoint for two segmenters: moves that the metric's own uncertainty does not cover."""
    rows = board.table[(board.table["judgment_kind"] == kind) & (board.table["metric"] == metric) & (board.table["source"] == "metric")]
    out = []
    for system in dict.fromkeys(rows["system"]):
        mine = rows[rows["system"] == system]
        if mine["rank_low"].notna().all() and len(mine) > 1 and mine["rank_low"].max() > mine["rank_high"].min():
            out.append(str(system))
    return out


def leaderboard_section(board: SystemBoard, kind: str, metric: str, digits: int = 3) -> Section:
    """One leaderboard: systems in the humans' order, the human columns, then per segmenter
    score, rank (displacement) and cluster."""
    table = board.table[board.table["judgment_kind"] == kind]
    human = table[table["source"] == "human"].set_index("system")
    rows = table[(table["source"] == "metric") & (table["metric"] == metric)]
    segs = _segmenter_order(board, rows)
    cells = {(r.segmenter, r.system): r for r in rows.itertuples(index=False)}
    columns = ["rank", "system", kind, "range", "cl."]
    for seg in segs:
        columns += [seg, f"{seg} rank", f"{seg} cl."]
    human_digits = _human_digits(human["score"])
    body = []
    for system, h in human.iterrows():
        line = [fmt_count(h["rank"]), str(system), fmt_number(h["score"], human_digits), _range_cell(h["rank_low"], h["rank_high"]),
                fmt_count(h["cluster"])]  # fmt: skip
        for seg in segs:
            r = cells.get((seg, system))
            line += ["", "", ""] if r is None else [fmt_number(r.score, digits), _rank_cell(r.rank, r.displacement), fmt_count(r.cluster)]
        body.append(tuple(line))
    numeric = (True, False, True, True, True) + (True, True, True) * len(segs)
    moved = moved_systems(board, kind, metric)
    notes = [
        "range and cl.: the humans' rank range and significance cluster; under each segmenter: the metric's score, "
        "its rank (displacement from the human rank; + means the metric ranks the system lower) and its cluster.",
    ]
    if len(segs) > 1:
        if moved:
            listing = "; ".join(f"{s} {' / '.join(fmt_count(v) or '-' for v in ranks)}" for s, ranks in moved)
            notes.append(f"Rank depends on the granularity ({' / '.join(segs)}): {listing}.")
            apart = separated_moves(board, kind, metric)
            if apart:
                notes.append(f"Rank ranges that do not overlap between two granularities: {', '.join(apart)}.")
        else:
            notes.append(f"No system changes rank between {', '.join(segs)}.")
    title = f"{board.dataset + ': ' if board.dataset else ''}{metric}, systems ranked by human {kind}"
    chart = svg(bump_chart(table, kind, metric, list(board.granularities["name"]), board.dataset))
    return Section((("dataset", title),), tuple(columns), tuple(body), numeric, notes=tuple(notes),
                   nowrap=tuple(range(len(columns))), figure=chart)  # fmt: skip


def grouped_pairs(pairs: str, marked: str = "") -> str:
    """``A > B; A > C; D > E`` as ``A > B, C; D > E``, with ``*`` after each pair of ``marked``."""
    if not pairs:
        return "-"
    starred = set(marked.split("; ")) if marked else set()
    groups: dict[str, list[str]] = {}
    for pair in pairs.split("; "):
        better, worse = pair.split(" > ", 1)
        groups.setdefault(better, []).append(worse + ("*" if pair in starred else ""))
    return "; ".join(f"{better} > {', '.join(worse)}" for better, worse in groups.items())


def pairs_section(board: SystemBoard, kind: str, metric: str) -> Section:
    """Per segmenter: how many pairs of systems the configuration orders against the humans, and which."""
    rows = board.pairs[(board.pairs["judgment_kind"] == kind) & (board.pairs["metric"] == metric)]
    order = _segmenter_order(board, rows)
    rows = rows.set_index("segmenter").loc[order].reset_index()
    columns = ("segmenter", "against humans", "humans significant", "both significant", "metric ties", "pairs (humans' better system first)")
    body = tuple(
        (r.segmenter, f"{r.inverted} of {r.pairs}", fmt_count(r.inverted_human_significant), fmt_count(r.inverted_both_significant),
         fmt_count(r.metric_ties), grouped_pairs(r.inverted_pairs, r.inverted_pairs_significant))
        for r in rows.itertuples(index=False)
    )  # fmt: skip
    notes = (
        "against humans: pairs of systems with different human scores that the metric orders the other way; humans "
        "significant: of those, pairs the human test separates; both significant: pairs the metric's test also "
        "separates, in its own direction. A > B, C: the humans put A first, the metric B (and C); *: both separate the pair.",
        f"Significant: {adjustment_text(board.signature)}.",
    )
    title = f"{board.dataset + ': ' if board.dataset else ''}{metric}, pairs ordered against human {kind}"
    return Section((("dataset", title),), columns, body, (False, True, True, True, True, False), notes=notes, nowrap=(1,))


def sections(board: SystemBoard, digits: int = 3) -> list[Section]:
    """Every section of the human formats, kind by kind and metric by metric."""
    out = []
    for kind in board.signature.get("kinds", []):
        metrics = board.table.loc[(board.table["judgment_kind"] == kind) & (board.table["source"] == "metric"), "metric"]
        for metric in dict.fromkeys(metrics):
            out += [leaderboard_section(board, kind, metric, digits), pairs_section(board, kind, metric)]
    return out


def adjustment_text(signature: dict[str, Any]) -> str:
    """How the p-values behind clusters and significant pairs were adjusted (from the board's signature)."""
    method = signature.get("adjust")
    alpha = signature.get("alpha")
    if method is None:
        return f"p < {alpha}, adjustment not recorded"
    if method == "none":
        return f"raw p < {alpha}, not adjusted for the ranking's many pairs (adjust none, as WMT24)"
    return f"p < {alpha} after adjusting each ranking's pairs by {CONTROLS.get(str(method), method)} (adjust {method})"


def methods(board: SystemBoard) -> list[str]:
    """The lines that say how the board was computed."""
    sig = board.signature
    resamples = f"{sig.get('n_bootstrap')} resamples, seed {sig.get('seed')}" if sig.get("n_bootstrap") else "no resamples"
    return [
        f"Human clusters: {sig.get('human_test')}; metric clusters: {sig.get('metric_test')} ({resamples}); "
        f"significance level {sig.get('alpha')}.",
        f"Clusters: {sig.get('clusters')}.",
        f"Significance of clusters and pairs: {adjustment_text(sig)}; the family: {sig.get('adjust_families', 'not recorded')}.",
        f"Segmenters in the order of the sweep: {sig.get('granularity_order')}.",
    ]


def _table_text(board: SystemBoard, delimiter: str) -> str:
    frame = board.table.copy()
    for column in INTEGER_COLUMNS:
        frame[column] = frame[column].round().astype("Int64")
    buffer = io.StringIO()
    frame.to_csv(buffer, sep=delimiter, index=False, lineterminator="\n", na_rep="")
    return buffer.getvalue()


def render_board(board: SystemBoard, format: str = "text", *, digits: int = 3, signature: bool = True) -> str:  # noqa: A002 - the CLI's --format
    """The board in ``format`` (one of :data:`FORMATS`) as text; ``signature=False`` leaves it out."""
    if format not in FORMATS:
        raise UsageError(f"unknown format {format!r}; known formats: {', '.join(FORMATS)}")
    if format in ("csv", "tsv"):
        return _table_text(board, "," if format == "csv" else "\t")
    sig: dict[str, Any] = dict(board.signature)
    if format == "json":
        document = {
            "signature": sig, "notes": board.notes, "granularities": board.granularities.to_dict(orient="records"),
            "leaderboard": board.table.to_dict(orient="records"), "pairs": board.pairs.to_dict(orient="records"),
            "comparisons": board.comparisons.to_dict(orient="records"),
        }  # fmt: skip
        return to_json(document, indent=1) + "\n"
    title = f"System leaderboard{': ' + board.dataset if board.dataset else ''}"
    parts = sections(board, digits)
    intro = methods(board) + list(board.notes)
    pairs = flatten_signature(sig) if signature else None
    if format == "html":
        return render_html(title, pairs, parts, digits, intro=intro, style=STYLE)
    if format == "latex":
        return render_latex(title, pairs, parts)
    renderer = render_text if format == "text" else render_markdown
    footer = [f"signature: {signature_line(sig)}", "(full signature: --format json)"] if signature else []
    return renderer(title, None, parts, intro=intro, footer=footer)


__all__ = ["FORMATS", "adjustment_text", "grouped_pairs", "leaderboard_section", "methods", "moved_systems", "pairs_section", "render_board", "sections",
           "separated_moves"]
