"""The value axis of leaderboard charts, shared by the HTML charts and the PNG plots.

A chart shows each configuration as a point with its 95% interval, so the axis is fitted to
the values and intervals (not stretched to 0) and differences of a few thousandths stay
visible. The chance level is marked: the one computed with the results for each ranking
(:func:`metaeval.stats.evaluate.chance_levels`, from the human side), else the statistic's own
where it does not depend on the data (its registry entry: 0 for correlations, 0.5 for pairwise
consistency); a chance level that depends on the human ties and was not kept with the results is
not drawn. It is drawn inside the axis when it lies within one data span of the values;
otherwise the chart says on which side it lies. Ticks fall on 1, 2, 2.5 or 5 x 10^k and are labelled with as many
decimals as the step needs (0.025, never 0.03).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from metaeval.stats.registry import REGISTRY

#: Most tick intervals an axis gets.
MAX_TICKS = 6
#: The columns that name a ranking in a table of chance levels.
CHANCE_KEYS = ("judgment_kind", "level", "statistic", "grouping")


def chance_level(key: Mapping[str, str], chance: Any = None) -> float:
    """The chance level of the ranking ``key`` (``judgment_kind``, ``level``, ``statistic``,
    ``grouping``): from ``chance`` (a table with the columns of :data:`CHANCE_KEYS` and
    ``chance``) when it holds the ranking, else the statistic's own when it does not depend on
    the data; NaN when unknown."""
    if chance is not None and len(chance):
        match = chance
        for column in CHANCE_KEYS:
            match = match[match[column].astype(str) == str(key.get(column, ""))]
        if len(match):
            return float(match["chance"].iloc[0])
    entry = REGISTRY.get(str(key.get("statistic", "")))
    return entry.chance(None) if entry is not None else math.nan


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


__all__ = ["CHANCE_KEYS", "MAX_TICKS", "Axis", "chance_level", "decimals_for", "fit_axis", "nice_step"]
