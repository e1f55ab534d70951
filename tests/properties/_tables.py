"""Generated judgment and score tables, and every statistic of the registry run on them through
the one dispatch (:func:`metaeval.stats.evaluate.evaluate`).

A table is a metric matrix and a human matrix ``[n_sys, n_seg]`` (NaN = unjudged) with the judge
of every judged cell. Values come from small grids, so that ties, constant groups and
constant sides are common, and one system or one segment happen; ``scale`` multiplies a side
(1e-300 and 1e300 included: any unit of judgments or scores is legal).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from metaeval.corpora.model import Judgments
from metaeval.scoretable import ConfigScores
from metaeval.stats.evaluate import evaluate
from metaeval.stats.registry import REGISTRY

#: Every property runs the same examples on every run (CI included): derandomized, no example
#: database, no deadline (the first example pays scipy's import).
PROPERTIES = settings(derandomize=True, database=None, deadline=None, max_examples=40,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
#: Magnitudes a side is multiplied by.
SCALES = (1.0, 1e300, 1e-300, 1e-5, 1e6)
#: Columns compared between two runs (``epsilon`` is compared where the metric is not rescaled).
NUMBERS = ("value", "ci_low", "ci_high")


def every_statistic() -> list[str]:
    """Every statistic of the registry at every level and grouping it takes, as ``LEVEL:NAME[@GROUPING]``."""
    specs = []
    for name, entry in REGISTRY.items():
        for level in entry.levels:
            groupings = entry.groupings if level == "seg" and entry.groupings else ("",)
            specs += [f"{level}:{name}" + (f"@{g}" if g else "") for g in groupings]
    return specs


@dataclass(frozen=True)
class Table:
    """``metric``, ``human`` ``[n_sys, n_seg]`` (human NaN = unjudged) and ``judges`` (0 or 1 per cell)."""

    metric: np.ndarray
    human: np.ndarray
    judges: np.ndarray
    human_kind: str = "esa"
    metric_higher: bool = True

    @property
    def shape(self) -> tuple[int, int]:
        return self.human.shape  # type: ignore[return-value]

    def scaled(self, metric: float = 1.0, human: float = 1.0) -> Table:
        return replace(self, metric=self.metric * metric, human=self.human * human)


@st.composite
def tables(draw: st.DrawFn, max_sys: int = 5, max_seg: int = 6, unjudged: bool = True, min_sys: int = 1) -> Table:
    """A table of 1..max_sys systems and 1..max_seg segments with values on small grids
    (quarters, so that differences are exact); some cells unjudged, at least one judged."""
    n_sys = draw(st.integers(min_sys, max_sys))
    n_seg = draw(st.integers(1, max_seg))
    shape = (n_sys, n_seg)
    human_levels = draw(st.integers(1, 5))  # 1: every judgment equal
    metric_levels = draw(st.sampled_from([1, 2, 3, 8, 64]))
    human = draw(arrays(np.float64, shape, elements=st.integers(0, human_levels - 1).map(float)))
    metric = draw(arrays(np.float64, shape, elements=st.integers(0, metric_levels - 1).map(lambda v: v / 4.0)))
    if unjudged and draw(st.booleans()):
        judged = draw(arrays(np.bool_, shape, elements=st.booleans()))
        if not judged.any():
            judged.flat[draw(st.integers(0, judged.size - 1))] = True
        human = np.where(judged, human, np.nan)
    judges = draw(arrays(np.int8, shape, elements=st.integers(0, 1)))
    return Table(metric, human, judges)


def judgments_of(table: Table, systems: list[str], seg_ids: list[str], order: np.ndarray | None = None) -> Judgments:
    """The judgments of ``table`` as rows (in ``order``: a permutation of the rows)."""
    rows = [(seg_ids[j], systems[i], f"judge{table.judges[i, j]}", table.human_kind, table.human[i, j])
            for i in range(table.shape[0]) for j in range(table.shape[1]) if not np.isnan(table.human[i, j])]  # fmt: skip
    if order is not None:
        rows = [rows[k] for k in order[: len(rows)]]
    return Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))


def config_of(table: Table, systems: list[str], seg_ids: list[str]) -> ConfigScores:
    """The metric side: segment scores, system scores their mean (resampled as the mean)."""
    return ConfigScores("m", "char", "m+char", systems, seg_ids, table.metric, table.metric.mean(axis=1),
                        higher_is_better=table.metric_higher)  # fmt: skip


def names(table: Table) -> tuple[list[str], list[str]]:
    return [f"s{i}" for i in range(table.shape[0])], [str(j + 1) for j in range(table.shape[1])]


def run(table: Table, statistics: list[str] | None = None, *, systems: list[str] | None = None,
        seg_ids: list[str] | None = None, order: np.ndarray | None = None, samples: bool = False,
        **options: object) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:  # fmt: skip
    """The ResultTable of ``table`` for ``statistics`` (default: every statistic at every level and
    grouping), 1000 resamples unless ``n_bootstrap`` says otherwise. Any warning fails."""
    default_systems, default_segments = names(table)
    systems, seg_ids = systems or default_systems, seg_ids or default_segments
    options.setdefault("n_bootstrap", 1000)
    # chance levels on 20 permutations: the same code path as the default 200 (every permutation is
    # one more row of the same computation), at a tenth of the cost of every example
    options.setdefault("chance_permutations", 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return evaluate([config_of(table, systems, seg_ids)], judgments_of(table, systems, seg_ids, order),
                        statistics=statistics or every_statistic(), return_samples=samples, **options)  # fmt: skip


def keyed(result: pd.DataFrame) -> pd.DataFrame:
    """Rows by (level, statistic, grouping)."""
    return result.set_index(["level", "statistic", "grouping"])


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    """Equal to a relative ``rel`` (both NaN counts as equal)."""
    if np.isnan(a) or np.isnan(b):
        return bool(np.isnan(a) and np.isnan(b))
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def differences(a: pd.DataFrame, b: pd.DataFrame, columns: tuple[str, ...] = NUMBERS, rel: float = 1e-9,
                skip: tuple[str, ...] = ()) -> list[str]:  # fmt: skip
    """Rows of ``a`` and ``b`` (same keys) whose ``columns`` differ beyond ``rel``, as text."""
    a, b = keyed(a), keyed(b)
    assert list(a.index) == list(b.index)
    out = []
    for key in a.index:
        if key[1] in skip:
            continue
        for column in columns:
            x, y = float(a.loc[key, column]), float(b.loc[key, column])
            if not close(x, y, rel):
                out.append(f"{':'.join(key)} {column}: {x!r} != {y!r} ({a.loc[key, 'note']} | {b.loc[key, 'note']})")
    return out
