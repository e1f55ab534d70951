"""Rendering of a granularity sweep (:mod:`metaeval.sweep`): tables, Markdown and the figure.

``write_sweep`` writes, into one folder, each file atomically:

- ``curve.png``: one panel per (judgment kind, level, statistic, grouping); x = mean
  characters per token, y = the statistic, one line per metric with its 95% interval;
- ``summary.md``: the granularities, the curve as tables (rows by characters per token,
  a column per metric, ``value [ci_low, ci_high]``), the best granularity per metric, the
  spread across word segmenters against the word-character gap, boundary agreement and
  the Denoual & Lepage equivalence over the ladder, and the answer (char against the best word
  segmenter, chosen in each resample, with raw and adjusted p-values);
- ``answer.tsv`` (:func:`metaeval.answer.answer`), ``results.tsv`` (the ResultTable with ``family`` and ``chars_per_token``),
  ``granularities.tsv``, ``best.tsv``, ``spread.tsv``, ``boundaries.tsv``,
  ``equivalence.tsv``, ``signature.json``.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

from metaeval.errors import UsageError
from metaeval.report.equivalence import frame_section
from metaeval.report.files import write_atomic
from metaeval.report.plots import curve_panels
from metaeval.report.results import flatten_signature, fmt_ci, fmt_number, to_json
from metaeval.report.text import render_markdown
from metaeval.stats.adjust import CONTROLS
from metaeval.stats.defaults import ADJUST
from metaeval.sweep import SweepResult, best_granularities, dictionary_spread

PANEL_KEYS = ["judgment_kind", "level", "statistic", "grouping"]
FILES = (
    "curve.png", "summary.md", "answer.tsv", "results.tsv", "granularities.tsv", "best.tsv", "spread.tsv",
    "boundaries.tsv", "equivalence.tsv", "signature.json",
)  # fmt: skip


def _tsv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep="\t", index=False, float_format="%.10g", lineterminator="\n")
    return buffer.getvalue()


def _panel_title(key: tuple) -> str:
    kind, level, statistic, grouping = key
    where = "system" if level == "sys" else "segment"
    group = "" if grouping in ("-", "none", "segment", "") else f", by {grouping}"
    return f"{where} {statistic} ({kind}{group})"


def curve_tables(result: SweepResult) -> list[tuple[str, pd.DataFrame]]:
    """Per panel: granularities (sorted by characters per token) x metrics, ``value [lo, hi]``."""
    out = []
    for key, group in result.results.groupby(PANEL_KEYS, sort=True):
        cells = group.assign(cell=[f"{fmt_number(v)} {fmt_ci(lo, hi)}" for v, lo, hi in zip(group["value"], group["ci_low"], group["ci_high"])])
        wide = cells.pivot(index="segmenter", columns="metric", values="cell")
        order = result.granularities.set_index("name")
        wide = wide.loc[sorted(wide.index, key=lambda n: (order.at[n, "chars_per_token"], n))]
        wide.insert(0, "chars/token", [round(float(order.at[n, "chars_per_token"]), 3) for n in wide.index])
        wide.insert(0, "family", [order.at[n, "family"] for n in wide.index])
        out.append((_panel_title(key), wide.reset_index().rename(columns={"segmenter": "granularity"})))
    return out


def figure(result: SweepResult, path: "str | Path", overwrite: bool = False) -> Path:
    """``curve.png``: a panel per (kind, level, statistic, grouping), a line per metric."""
    panels = []
    for key, group in result.results.dropna(subset=["value"]).groupby(PANEL_KEYS, sort=True):
        series = {
            metric: (rows["chars_per_token"], rows["value"], rows["ci_low"].fillna(rows["value"]), rows["ci_high"].fillna(rows["value"]))
            for metric, rows in group.groupby("metric", sort=True)
        }
        panels.append((_panel_title(key), series))
    if not panels:
        raise UsageError(f"{result.dataset}: no defined statistic to draw")
    return curve_panels(
        panels, path, xlabel="mean characters per token", title=f"{result.dataset}: agreement with humans by granularity",
        overwrite=overwrite,
    )  # fmt: skip


def summary_markdown(result: SweepResult) -> str:
    """``summary.md``: every table of the sweep."""
    granularities = result.granularities.sort_values(["chars_per_token", "name"]).drop(columns="signature")
    sections = [frame_section("Granularities (mean characters per token over references and system outputs)", granularities)]
    if len(result.skipped):
        sections.append(frame_section("Segmenters that cannot run here", result.skipped))
    sections += [frame_section(f"Curve: {title}", table) for title, table in curve_tables(result)]
    best = best_granularities(result.results)
    if len(best):
        sections.append(frame_section("Best granularity per metric (highest value; 95% interval)", best))
    spread = dictionary_spread(result.results)
    if len(spread):
        sections.append(frame_section("Word segmenters among themselves against words against characters", spread))
    if len(result.boundaries):
        sections.append(frame_section("Boundary agreement (F1 of token boundaries, first reference)", boundary_matrix(result)))
    if len(result.equivalence):
        sections.append(frame_section("Denoual & Lepage equivalence over the ladder: character order M equivalent to N = 4", result.equivalence))
    if len(result.answer):
        sections.append(frame_section(answer_title(result.signature), result.answer[list(ANSWER_SHOWN)]))
    return render_markdown(f"Granularity sweep: {result.dataset}", flatten_signature(result.signature), sections)


#: The answer's columns in the summary (answer.tsv has them all).
ANSWER_SHOWN = (
    "judgment_kind", "level", "statistic", "grouping", "metric", "char_value", "word_segmenter", "word_value", "delta",
    "delta_ci_low", "delta_ci_high", "p_value", "p_adjusted", "metrics", "char_ahead", "char_significant", "word_significant",
)  # fmt: skip


def answer_title(signature: dict[str, Any]) -> str:
    """The heading of the answer: what is compared, and how the p-values are adjusted."""
    method = (signature.get("options") or {}).get("adjust", ADJUST)
    if method == "none":
        how = "the word segmenter best on the full sample; raw p-values"
    else:
        how = (f"the best word segmenter chosen in each bootstrap resample; p adjusted by {CONTROLS[method]}, "
               "over the metrics of each row, whose counts use it")
    return f"Character level against the best word segmenter, on the best metric of each statistic ({how})"


def boundary_matrix(result: SweepResult) -> pd.DataFrame:
    """Boundary F1 as a square table over the non-subword granularities (subwords in the TSV)."""
    names = [n for n, f in zip(result.granularities["name"], result.granularities["family"]) if f != "subwords"]
    f1 = {(a, b): v for a, b, v in result.boundaries.itertuples(index=False)}
    rows = []
    for a in names:
        row: dict[str, Any] = {"granularity": a}
        for b in names:
            row[b] = 1.0 if a == b else f1.get((a, b), f1.get((b, a), float("nan")))
        rows.append(row)
    return pd.DataFrame(rows)


def write_sweep(result: SweepResult, out: "str | Path", overwrite: bool = False) -> list[Path]:
    """Write every file of :data:`FILES` into ``out``; refuses to replace files unless ``overwrite``."""
    folder = Path(out)
    if not overwrite:
        existing = [name for name in FILES if (folder / name).exists()]
        if existing:
            raise UsageError(f"{folder / existing[0]} exists; pass --overwrite to replace the outputs in {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    written = [figure(result, folder / "curve.png", overwrite=overwrite)]
    texts = {
        "summary.md": summary_markdown(result),
        "answer.tsv": _tsv(result.answer),
        "results.tsv": _tsv(result.results),
        "granularities.tsv": _tsv(result.granularities),
        "best.tsv": _tsv(best_granularities(result.results)),
        "spread.tsv": _tsv(dictionary_spread(result.results)),
        "boundaries.tsv": _tsv(result.boundaries),
        "equivalence.tsv": _tsv(result.equivalence),
        "signature.json": to_json({**result.signature, "skipped": result.skipped.to_dict(orient="records")}, indent=1) + "\n",
    }
    for name, text in texts.items():
        written.append(write_atomic(folder / name, text, overwrite=overwrite))
    return written
