"""Bump charts of a system leaderboard (:mod:`metaeval.systemrank.board`): one line per system
through its rank under the humans, then under each granularity in the sweep's order
(characters, subwords, words), so that a system the unit moves stands out.

Systems whose metric rank is the same under every granularity are drawn in grey, the others
in colour; each column stacks the systems by rank (ties in the human order), labelled with
their rank and name at both ends. :func:`svg` draws one chart as inline SVG for the HTML page
(its bytes depend only on the board), :func:`png` draws every chart of a board as panels of
one PNG (matplotlib, deterministic as :mod:`metaeval.report.plots`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from metaeval.errors import UsageError
from metaeval.report.html import CHAR_WIDTH, esc
from metaeval.report.plots import _figure, _save
from metaeval.report.results import fmt_count
from metaeval.report.text import display_width, one_line

#: Line colours of the systems that move (tab10), in the humans' order; the others are grey.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
STEADY = "#c8c8c8"
ROW = 22.0
TOP = 48.0
#: Widest chart drawn in the HTML page, in pixels (it fits a 1280-pixel window with the margins).
MAX_WIDTH = 1150.0


@dataclass(frozen=True)
class Bump:
    """One chart: ``ranks[s, c]`` is system s's rank in column c (column 0: the humans)."""

    title: str
    columns: tuple[str, ...]
    families: tuple[str, ...]
    systems: tuple[str, ...]
    ranks: np.ndarray

    def moving(self) -> np.ndarray:
        """Per system: whether its metric rank differs between two granularities."""
        metric = self.ranks[:, 1:]
        if metric.shape[1] < 2:
            return np.zeros(len(self.systems), dtype=bool)
        low, high = np.nanmin(metric, axis=1), np.nanmax(metric, axis=1)
        return np.asarray(high > low)

    def slots(self) -> np.ndarray:
        """``slots[s, c]``: the place (0 = top) of system s in column c: by rank, ties in the
        humans' order (the row order), undefined ranks last."""
        out = np.zeros(self.ranks.shape, dtype=int)
        for c in range(self.ranks.shape[1]):
            key = np.where(np.isnan(self.ranks[:, c]), np.inf, self.ranks[:, c])
            out[np.argsort(key, kind="stable"), c] = np.arange(len(self.systems))
        return out


def bump_chart(table: pd.DataFrame, kind: str, metric: str, order: Sequence[str], dataset: str = "") -> Bump:
    """The chart of ``metric`` against human ``kind`` from a board's ``table``; segmenters in
    ``order`` (those not in it after them)."""
    rows = table[table["judgment_kind"] == kind]
    human = rows[rows["source"] == "human"]
    systems = tuple(human["system"])
    part = rows[(rows["source"] == "metric") & (rows["metric"] == metric)]
    present = list(dict.fromkeys(part["segmenter"]))
    segs = [s for s in order if s in present] + [s for s in present if s not in order]
    ranks = np.full((len(systems), 1 + len(segs)), np.nan)
    ranks[:, 0] = human["rank"].to_numpy(float)
    for c, seg in enumerate(segs, start=1):
        by_system = part[part["segmenter"] == seg].set_index("system")["rank"]
        ranks[:, c] = [float(by_system.get(s, np.nan)) for s in systems]
    families = part.drop_duplicates("segmenter").set_index("segmenter")["family"]
    title = f"{dataset + ': ' if dataset else ''}{metric}, rank by granularity against human {kind}"
    return Bump(title, (f"human {kind}", *segs), ("", *(str(families.get(s, "")) for s in segs)), systems, ranks)


def bumps(table: pd.DataFrame, order: Sequence[str], dataset: str = "") -> list[Bump]:
    """One chart per (judgment kind, metric) of a board's ``table`` (:func:`bump_chart`)."""
    out = []
    for kind in dict.fromkeys(table["judgment_kind"]):
        metrics = table.loc[(table["judgment_kind"] == kind) & (table["source"] == "metric"), "metric"]
        out += [bump_chart(table, kind, metric, order, dataset) for metric in dict.fromkeys(metrics)]
    return out


def header_lines(name: str) -> list[str]:
    """A column's name on lines of their own at each option (``spm:vocab=3430,`` / ``type=bpe``)."""
    parts = one_line(name).split(",")
    return [part + ("," if i < len(parts) - 1 else "") for i, part in enumerate(parts)]


def _label(rank: float, system: str) -> str:
    return f"{fmt_count(rank) or '-'} {one_line(system)}"


def svg(bump: Bump) -> str:
    """The chart as inline SVG markup (module docstring)."""
    n_sys, n_cols = bump.ranks.shape
    label_w = CHAR_WIDTH * max(display_width(_label(r, s)) for s, r in zip(bump.systems, bump.ranks[:, 0])) + 12
    right_w = CHAR_WIDTH * max(display_width(_label(r, s)) for s, r in zip(bump.systems, bump.ranks[:, -1])) + 12
    headers = [header_lines(c) + ([f] if f else []) for c, f in zip(bump.columns, bump.families)]
    head_w = CHAR_WIDTH * max(display_width(line) for lines in headers for line in lines)
    step = 0.0 if n_cols == 1 else max(head_w * 0.6, min(130.0, (MAX_WIDTH - label_w - right_w) / (n_cols - 1)))
    step = max(step, 44.0) if n_cols > 1 else 0.0
    width = label_w + step * (n_cols - 1) + right_w
    top = TOP + 14.0 * (max(len(lines) for lines in headers) - 2)
    height = top + ROW * n_sys + 8
    slots, moving = bump.slots(), bump.moving()

    def x(c: int) -> float:
        return label_w + step * c

    def y(slot: int) -> float:
        return top + ROW * slot + ROW / 2

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{esc(bump.title)}">'
    ]
    for c, (name, family) in enumerate(zip(bump.columns, bump.families)):
        out.append(f'<line x1="{x(c):.1f}" y1="{top - 4:.1f}" x2="{x(c):.1f}" y2="{height - 6:.1f}" stroke="#e4e4e4"/>')
        for n, line in enumerate(header_lines(name)):
            out.append(f'<text x="{x(c):.1f}" y="{14 + 14 * n}" text-anchor="middle">{esc(line)}</text>')
        if family:
            out.append(f'<text x="{x(c):.1f}" y="{14 + 14 * len(header_lines(name))}" text-anchor="middle" fill="#777">{esc(family)}</text>')
    colour = 0
    for s in sorted(range(n_sys), key=lambda s: moving[s]):  # coloured lines on top
        stroke = PALETTE[colour % len(PALETTE)] if moving[s] else STEADY
        colour += int(moving[s])
        defined = [c for c in range(n_cols) if not math.isnan(bump.ranks[s, c])]
        tip = ", ".join(f"{bump.columns[c]} {fmt_count(bump.ranks[s, c])}" for c in defined)
        out.append(f"<g><title>{esc(f'{bump.systems[s]}: {tip}')}</title>")
        points = " ".join(f"{x(c):.1f},{y(slots[s, c]):.1f}" for c in defined)
        out.append(f'<polyline points="{points}" fill="none" stroke="{stroke}" stroke-width="{2.5 if moving[s] else 1.5}"/>')
        out += [f'<circle cx="{x(c):.1f}" cy="{y(slots[s, c]):.1f}" r="3.5" fill="{stroke}"/>' for c in defined]
        out.append(f'<text x="{x(0) - 8:.1f}" y="{y(slots[s, 0]) + 4:.1f}" text-anchor="end">{esc(_label(bump.ranks[s, 0], bump.systems[s]))}</text>')
        if n_cols > 1:
            last = n_cols - 1
            out.append(f'<text x="{x(last) + 8:.1f}" y="{y(slots[s, last]) + 4:.1f}">{esc(_label(bump.ranks[s, last], bump.systems[s]))}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def png(charts: Sequence[Bump], path: "str | os.PathLike[str]", *, overwrite: bool = False) -> Path:
    """Every chart as a panel of one PNG at ``path`` (two panels a row)."""
    if not charts:
        raise UsageError("no bump chart to draw: the board has no configuration")
    columns = min(2, len(charts))
    rows = -(-len(charts) // columns)
    n_sys = max(len(b.systems) for b in charts)
    n_cols = max(len(b.columns) for b in charts)
    panel_w, panel_h = 2.4 + 0.9 * n_cols, 1.3 + 0.2 * n_sys
    figure = _figure((panel_w * columns, panel_h * rows))
    for index, bump in enumerate(charts):
        axes = figure.add_subplot(rows, columns, index + 1)
        slots, moving = bump.slots(), bump.moving()
        colour = 0
        for s in sorted(range(len(bump.systems)), key=lambda s: moving[s]):
            stroke = PALETTE[colour % len(PALETTE)] if moving[s] else STEADY
            colour += int(moving[s])
            defined = [c for c in range(len(bump.columns)) if not math.isnan(bump.ranks[s, c])]
            axes.plot(defined, [slots[s, c] for c in defined], marker="o", markersize=3, color=stroke,
                      linewidth=2.0 if moving[s] else 1.0, zorder=2 + int(moving[s]))  # fmt: skip
            axes.text(-0.08, slots[s, 0], _label(bump.ranks[s, 0], bump.systems[s]), ha="right", va="center", fontsize=6)
            last = len(bump.columns) - 1
            axes.text(last + 0.08, slots[s, last], _label(bump.ranks[s, last], bump.systems[s]), ha="left", va="center", fontsize=6)
        axes.set_xticks(range(len(bump.columns)), ["\n".join(header_lines(c) + ([f] if f else [])) for c, f in zip(bump.columns, bump.families)],
                        fontsize=6)  # fmt: skip
        axes.set_xlim(-1.4, len(bump.columns) + 0.4)
        axes.set_ylim(len(bump.systems) - 0.5, -0.5)
        axes.set_yticks([])
        for side in ("left", "right", "top"):
            axes.spines[side].set_visible(False)
        axes.set_title(bump.title, fontsize=8)
    figure.tight_layout()
    return _save(figure, path, overwrite)


__all__ = ["Bump", "bump_chart", "bumps", "header_lines", "png", "svg"]
