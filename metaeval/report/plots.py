"""Small matplotlib plots for experiments and leaderboards, saved as PNG atomically and
deterministically.

:func:`forest` draws one ranking of a leaderboard as the HTML chart does: a point and a 95%
interval per configuration on an axis fitted to the data, each configuration's chance band
behind them and the chance level (or the tie-free reference) marked by a line labelled at the
line (:mod:`metaeval.report.scale`).

Figures are drawn on the Agg canvas directly (no pyplot, so no global state and no
display), and saved without the ``Software`` PNG text chunk, so the same data give the
same bytes with the same matplotlib and fonts.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from metaeval.errors import MissingDependencyError, UsageError
from metaeval.report.files import write_bytes_atomic

if TYPE_CHECKING:
    from metaeval.report.layout import Bar

DPI = 100
SIZE = (6.4, 4.0)
CHANCE_COLOUR = "#c0392b"


def _figure(size: tuple[float, float] = SIZE):  # -> matplotlib.figure.Figure
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError("plots need matplotlib: pip install matplotlib") from None
    figure = Figure(figsize=size, dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def _save(figure, path: "str | os.PathLike[str]", overwrite: bool) -> Path:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return write_bytes_atomic(path, buffer.getvalue(), overwrite=overwrite)


def _vector(values: Sequence[float], name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise UsageError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array


def scatter(
    x: Sequence[float],
    y: Sequence[float],
    path: "str | os.PathLike[str]",
    *,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    diagonal: bool = False,
    overwrite: bool = False,
) -> Path:
    """Scatter plot of ``y`` against ``x`` (array-like of shape (n,)) saved as PNG at ``path``.

    ``diagonal`` draws the line y = x (e.g. BLEUcM against BLEUw(N-1)).
    """
    xs, ys = _vector(x, "x"), _vector(y, "y")
    if xs.shape != ys.shape:
        raise UsageError(f"x and y must have the same length, got [{len(xs)}, {len(ys)}]")
    figure = _figure()
    axes = figure.add_subplot()
    axes.scatter(xs, ys, s=6, alpha=0.5, linewidths=0)
    if diagonal and xs.size:
        finite = np.concatenate([xs[np.isfinite(xs)], ys[np.isfinite(ys)]])
        if finite.size:
            low, high = float(finite.min()), float(finite.max())
            axes.plot([low, high], [low, high], color="0.4", linewidth=0.8)
    axes.set(xlabel=xlabel, ylabel=ylabel, title=title)
    figure.tight_layout()
    return _save(figure, path, overwrite)


def line(
    xs: Sequence[float],
    ys: "Mapping[str, Sequence[float]] | Sequence[float]",
    path: "str | os.PathLike[str]",
    *,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    hline: float | None = None,
    overwrite: bool = False,
) -> Path:
    """Line plot of one series (a sequence) or several (name -> sequence) over ``xs``, saved as PNG.

    ``hline`` draws a horizontal reference line (e.g. the 90% threshold of Denoual & Lepage 2005).
    Series are drawn in the mapping's order, with a legend when there are several.
    """
    x = _vector(xs, "xs")
    series = dict(ys) if isinstance(ys, Mapping) else {"": ys}
    figure = _figure()
    axes = figure.add_subplot()
    for name, values in series.items():
        y = _vector(values, f"series {name!r}" if name else "ys")
        if y.shape != x.shape:
            raise UsageError(f"{f'series {name!r}' if name else 'ys'} has {len(y)} values, xs has {len(x)}")
        axes.plot(x, y, marker="o", markersize=3, linewidth=1, label=str(name) if name else None)
    if hline is not None:
        axes.axhline(hline, color="0.4", linewidth=0.8, linestyle="--")
    if len(series) > 1:
        axes.legend(fontsize="small")
    axes.set(xlabel=xlabel, ylabel=ylabel, title=title)
    figure.tight_layout()
    return _save(figure, path, overwrite)


#: One line of a panel: x, y and the interval (ci_low, ci_high), arrays of shape (n,).
Curve = tuple[Sequence[float], Sequence[float], Sequence[float], Sequence[float]]


def curve_panels(
    panels: Sequence[tuple[str, Mapping[str, Curve]]],
    path: "str | os.PathLike[str]",
    *,
    xlabel: str = "",
    title: str = "",
    columns: int = 2,
    overwrite: bool = False,
) -> Path:
    """A grid of panels, each with one line per series drawn through its points sorted by x
    and a shaded band between ``ci_low`` and ``ci_high``; saved as PNG at ``path``.

    ``panels`` is a sequence of (panel title, {series name: (x, y, ci_low, ci_high)}).
    """
    if not panels:
        raise UsageError("curve_panels needs at least one panel")
    columns = max(1, min(columns, len(panels)))
    rows = -(-len(panels) // columns)
    figure = _figure((5.2 * columns, 3.4 * rows + 0.4))
    for index, (name, series) in enumerate(panels):
        axes = figure.add_subplot(rows, columns, index + 1)
        for label, (x, y, low, high) in series.items():
            xs, ys, lo, hi = (_vector(v, label) for v in (x, y, low, high))
            if not xs.shape == ys.shape == lo.shape == hi.shape:
                raise UsageError(f"series {label!r}: x, y, ci_low and ci_high differ in length")
            order = np.argsort(xs, kind="stable")
            drawn = axes.plot(xs[order], ys[order], marker="o", markersize=3, linewidth=1, label=str(label))
            axes.fill_between(xs[order], lo[order], hi[order], alpha=0.15, color=drawn[0].get_color(), linewidth=0)
        axes.set_title(name, fontsize="medium")
        axes.set_xlabel(xlabel, fontsize="small")
        axes.tick_params(labelsize="small")
        axes.grid(True, linewidth=0.3, color="0.85")
        if index == 0:
            axes.legend(fontsize="x-small")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return _save(figure, path, overwrite)


def forest(
    bars: Sequence["Bar"],
    path: "str | os.PathLike[str]",
    *,
    title: str = "",
    statistic: str = "",
    reference: float | None = None,
    overwrite: bool = False,
) -> Path:
    """One ranking as a PNG: per configuration (best first) a point at its value, a line over
    its 95% interval and its chance band behind them; the axis fitted to the data, the chance
    level shared by every configuration (or, without chance levels, the tie-free ``reference``,
    default the statistic's own where it does not depend on the data) as a dashed line labelled
    at the line, drawn over the rows (:func:`metaeval.report.scale.chart_scale`)."""
    from metaeval.report.scale import chart_scale, label_anchor, own_reference

    marks = chart_scale(bars, own_reference(statistic) if reference is None else reference)
    scale = marks.axis
    figure = _figure()
    figure.set_size_inches(SIZE[0], max(2.0, 1.1 + 0.24 * len(bars)))
    axes = figure.add_subplot()
    ys = np.arange(len(bars))[::-1]
    for y, bar in zip(ys, bars):
        if marks.bands and bar.chance_low <= scale.high and bar.chance_high >= scale.low:
            low, high = max(bar.chance_low, scale.low), min(bar.chance_high, scale.high)
            axes.fill_betweenx([y - 0.35, y + 0.35], low, high, color=CHANCE_COLOUR, alpha=0.18, linewidth=0, zorder=1)
            if not marks.shared and np.isfinite(bar.chance):
                axes.plot([bar.chance, bar.chance], [y - 0.35, y + 0.35], color=CHANCE_COLOUR, linewidth=1.5, zorder=2)
        if np.isfinite(bar.ci_low) and np.isfinite(bar.ci_high):
            axes.errorbar([bar.value if np.isfinite(bar.value) else (bar.ci_low + bar.ci_high) / 2], [y],
                          xerr=[[max(0.0, (bar.value if np.isfinite(bar.value) else bar.ci_low) - bar.ci_low)],
                                [max(0.0, bar.ci_high - (bar.value if np.isfinite(bar.value) else bar.ci_high))]],
                          fmt="none", ecolor="#4c78a8", elinewidth=2, capsize=3, zorder=3)  # fmt: skip
        if np.isfinite(bar.value):
            axes.plot([bar.value], [y], "o", color="#1f3b5c", markersize=5, zorder=4)
        else:
            axes.text(scale.low, y, " n/a", va="center", fontsize="small", color="0.4")
    axes.set_yticks(ys, [b.label for b in bars], fontsize="small")
    axes.set_xlim(scale.low, scale.high)
    ticks = scale.ticks()
    axes.set_xticks(ticks, [scale.label(t) for t in ticks])
    axes.set_ylim(-0.7, len(bars) - 0.3)
    axes.grid(axis="x", color="0.9")
    axes.set_axisbelow(True)
    if np.isfinite(marks.line):
        axes.axvline(marks.line, color=CHANCE_COLOUR, linestyle="--", linewidth=1, zorder=5)
        axes.text(marks.line, len(bars) - 0.3, marks.label, transform=axes.transData, ha={"start": "left", "end": "right"}.get(
            label_anchor(scale.fraction(marks.line)), "center"), va="bottom", fontsize="x-small", color=CHANCE_COLOUR)
    axes.set_title(title, fontsize="small", pad=14)
    note = "" if np.isfinite(marks.line) else marks.label
    axes.set_xlabel(f"{statistic or 'value'} (95% interval)" + (f"; {note}" if note else ""), fontsize="small", color="0.2")
    figure.tight_layout()
    return _save(figure, path, overwrite)
