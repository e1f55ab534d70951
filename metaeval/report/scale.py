"""The value axis of leaderboard charts and what they mark, shared by the HTML charts and the
PNG plots.

A chart shows each configuration as a point with its 95% interval, so the axis is fitted to
the values and intervals (not stretched to 0) and differences of a few thousandths stay
visible. Each configuration's chance band (the ``chance_low``..``chance_high`` columns of the
results, :mod:`metaeval.stats.chance`) is drawn in its row; where every configuration's chance
level is the same to the chart's resolution (:data:`CHART_PIXELS`), one line marks it, labelled
at the line. Results without chance levels mark the ranking's tie-free reference instead (given
with the results, else the statistic's own where it does not depend on the data: 0 for
correlations, 0.5 for pairwise consistency). The line is drawn inside the axis when it lies
within one data span of the values; otherwise the chart says on which side it lies. Ticks fall
on 1, 2, 2.5 or 5 x 10^k and are labelled with as many decimals as the step needs (0.025, never
0.03).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from metaeval.stats.registry import REGISTRY

if TYPE_CHECKING:
    from metaeval.report.layout import Bar

#: Most tick intervals an axis gets.
MAX_TICKS = 6
#: Width of a chart's value axis in pixels (the HTML chart's; the PNG's is about as wide): its resolution.
CHART_PIXELS = 360


def own_reference(statistic: str) -> float:
    """The tie-free reference of ``statistic`` where it does not depend on the data, else NaN."""
    entry = REGISTRY.get(statistic)
    return entry.reference(None) if entry is not None else math.nan


def nice_step(span: float, max_ticks: int = MAX_TICKS) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k giving at most ``max_ticks`` intervals over ``span``."""
    exponent = math.floor(math.log10(span / max_ticks))
    for base in (1.0, 2.0, 2.5, 5.0, 10.0):
        step = base * 10.0**exponent
        if span / step <= max_ticks + 1e-9:
            return step
    return 10.0 ** (exponent + 1)


def decimals_for(step: float) -> int:
    """Decimals that write every multiple of ``step`` exactly (0.025 -> 3, 0.05 -> 2, 1 -> 0)."""
    for digits in range(0, 10):
        if abs(round(step, digits) - step) < step * 1e-6:
            return digits
    return 10


@dataclass(frozen=True)
class Axis:
    """A value axis: ``[low, high]`` with ticks every ``step``; ``chance`` is the chance level,
    ``chance_side`` is ``""`` when it is inside the axis, else ``"left"`` or ``"right"``, or
    ``"unknown"`` when the chance level (NaN) is not known."""

    low: float
    high: float
    step: float
    chance: float
    chance_side: str

    @property
    def decimals(self) -> int:
        return decimals_for(self.step)

    def ticks(self) -> list[float]:
        count = int(round((self.high - self.low) / self.step))
        return [round(self.low + k * self.step, 12) for k in range(count + 1)]

    def label(self, value: float) -> str:
        text = f"{value:.{self.decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0.0 else text

    def fraction(self, value: float) -> float:
        """Position of ``value`` on the axis, 0 at ``low`` and 1 at ``high``."""
        return (value - self.low) / (self.high - self.low)

    @property
    def chance_text(self) -> str:
        if math.isnan(self.chance):
            return ""
        text = f"chance {self.chance:.3g}"
        return text if not self.chance_side else f"{text} ({'further left' if self.chance_side == 'left' else 'further right'})"


@dataclass(frozen=True)
class ChartScale:
    """What a chart draws besides its points: the ``axis``; ``line``, the value of the one
    vertical line (NaN: none inside the axis) and ``label``, its text (or where it lies when it
    is off the axis); ``bands``: each configuration's chance band is drawn in its row, with a
    mark at its own level unless the line ``shared`` it."""

    axis: Axis
    line: float
    label: str
    bands: bool
    shared: bool


def chart_scale(bars: Sequence[Bar], reference: float = math.nan, pixels: int = CHART_PIXELS) -> ChartScale:
    """The axis and marks of a chart of ``bars``: one line at the chance level where all
    configurations share it to the chart's resolution (one of ``pixels``), else each row's band
    alone; without chance levels, a line at the tie-free ``reference``. The axis holds the bands
    where it holds the chance level (within one data span of the values, :func:`fit_axis`)."""
    values = [v for b in bars for v in (b.value, b.ci_low, b.ci_high)]
    levels = [b.chance for b in bars if math.isfinite(b.chance)]
    if not levels:
        axis = fit_axis(values, reference)
        label = "" if math.isnan(reference) else f"tie-free reference {reference:.3g}"
        return _placed(ChartScale(axis, reference, label, False, False))
    level = sum(levels) / len(levels)
    axis = fit_axis(values, level)
    if not axis.chance_side:  # the chance level is on the axis: so are the bands
        axis = fit_axis(values + [v for b in bars for v in (b.chance_low, b.chance_high)], level)
    shared = max(levels) - min(levels) <= (axis.high - axis.low) / pixels
    if not shared:
        return ChartScale(axis, math.nan, "chance band of each configuration", True, False)
    return _placed(ChartScale(axis, level, f"chance {level:.3g}", True, True))


def _placed(scale: ChartScale) -> ChartScale:
    """``scale`` with its line left off, and its label saying where it lies, when it is off the axis."""
    side = scale.axis.chance_side
    if side in ("left", "right") and scale.label:
        where = "further left" if side == "left" else "further right"
        return ChartScale(scale.axis, math.nan, f"{scale.label} ({where})", scale.bands, scale.shared)
    return scale


def label_anchor(fraction: float) -> str:
    """How a label at the line is anchored so that it stays within the chart: at its start near
    the left edge, its end near the right one, else its middle (SVG ``text-anchor``)."""
    return "start" if fraction < 0.2 else "end" if fraction > 0.8 else "middle"


def fit_axis(values: Iterable[float], chance: float) -> Axis:
    """An axis holding every finite value (values and interval bounds), and the chance level
    when it lies within one data span of them; padded by 5% and rounded out to ticks."""
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not finite:
        finite = [chance if math.isfinite(chance) else 0.0]
    low, high = min(finite), max(finite)
    bounded = -1.0 <= low and high <= 1.0
    span = high - low
    side = ""
    if math.isnan(chance):
        side = "unknown"
    elif low - span <= chance <= high + span or span == 0:
        low, high = min(low, chance), max(high, chance)
    else:
        side = "left" if chance < low else "right"
    span = high - low
    if span <= 0:
        span = max(abs(high), 1.0) * 0.1
        low, high = low - span / 2, high + span / 2
    low, high = low - 0.05 * span, high + 0.05 * span
    if bounded:
        low, high = max(low, -1.0), min(high, 1.0)
    step = nice_step(high - low)
    low = math.floor(low / step + 1e-9) * step
    high = math.ceil(high / step - 1e-9) * step
    return Axis(low, high, step, chance, side)


__all__ = ["CHART_PIXELS", "MAX_TICKS", "Axis", "ChartScale", "chart_scale", "decimals_for", "fit_axis", "label_anchor", "nice_step", "own_reference"]
