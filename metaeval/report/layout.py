"""Leaderboard layouts: a ResultTable turned into titled tables of text cells.

Two layouts, both one section per ranking group (dataset, judgment kind, level,
statistic, grouping, tie policy):

- ``ranked``: configurations (metric x segmenter) sorted by value, best first, undefined
  values last with their reason; columns rank, cluster, metric, segmenter, value, 95% CI,
  chance band, n, plus C/D/ties for pair-counting statistics and a note column when any row
  has one.
- ``table``: the layout of Li, Zong & Ng 2011 (Tables 2-5): rows are segmenters, columns
  metrics, cells ``value [ci_low, ci_high]``; the best cell of each column is marked, and
  with significance clusters every cell in the same cluster as it (not told apart from it at
  p <= 0.05 after the adjustment of the ranking's pairs).

In both, a value at or below chance (its interval not above the configuration's chance band,
:func:`metaeval.stats.chance.at_or_below`) carries :data:`AT_CHANCE` and the section says so;
the tie-free reference of the ranking, when given, is one note of its section.

A ranking whose every value is undefined becomes a section without rows that states the
reason (``undefined``), drawn as one line. :func:`answer_section` lays out the answer
(:mod:`metaeval.answer`) that reports put first.

Renderers (text, Markdown, HTML) only draw :class:`Section` objects, so every format shows
the same cells. Names are sorted, so the output depends on the content only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metaeval.errors import DataError
from metaeval.stats.chance import at_or_below
from metaeval.report.results import (
    COUNTED_STATISTICS,
    GROUP_KEYS,
    competition_ranks,
    fmt_ci,
    fmt_count,
    fmt_epsilon,
    fmt_number,
    order_rows,
)

LAYOUTS = ("ranked", "table")
#: Shown in a value cell whose statistic is undefined.
UNDEFINED = "n/a"
#: Follows a value at or below chance.
AT_CHANCE = "°"
#: Says what :data:`AT_CHANCE` means.
AT_CHANCE_NOTE = (
    f"{AT_CHANCE} at or below chance: the 95% interval (the value, without bootstrap) is not above the chance band, "
    "the central 95% of the statistic over permutations of the configuration's metric scores"
)
_TITLE_LABELS = {"judgment_kind": "kind", "tie_policy": "ties"}


@dataclass(frozen=True)
class Bar:
    """One configuration in a section's chart (NaN value: drawn as undefined)."""

    label: str
    value: float
    ci_low: float
    ci_high: float
    chance: float = float("nan")
    chance_low: float = float("nan")
    chance_high: float = float("nan")


@dataclass(frozen=True)
class Section:
    """One titled table: header, rows of text cells, marked (best) cells, notes, chart bars."""

    key: tuple[tuple[str, str], ...]
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]
    marked: frozenset[tuple[int, int]] = frozenset()
    notes: tuple[str, ...] = ()
    bars: tuple[Bar, ...] = field(default=(), repr=False)
    #: when every value of the ranking is undefined: why (the section then has no rows)
    undefined: str = ""
    #: columns whose cells must not wrap (intervals)
    nowrap: tuple[int, ...] = ()
    #: a drawing HTML shows above the table (inline SVG markup), ignored by the other formats
    figure: str = field(default="", repr=False)
    #: what a marked (bold) cell is
    marked_as: str = "best in column"

    @property
    def statistic(self) -> str:
        return dict(self.key).get("statistic", "")

    @property
    def title(self) -> str:
        """``wmt24, kind=esa, level=seg, statistic=pearson, grouping=none, ties=exclude``."""
        parts = []
        for name, value in self.key:
            if value:
                parts.append(value if name == "dataset" else f"{_TITLE_LABELS.get(name, name)}={value}")
        return ", ".join(parts) or "results"


def sections(
    results: pd.DataFrame, layout: str = "ranked", digits: int = 3, adjust: str | None = None, tie_free: pd.DataFrame | None = None
) -> list[Section]:
    """The sections of ``layout`` for normalised ``results`` (see :mod:`metaeval.report.results`);
    ``adjust``: the p-value adjustment of the clusters (:mod:`metaeval.stats.adjust`; None when
    not known, and the notes then refer to the signature); ``tie_free``: the tie-free reference
    of each ranking (:func:`metaeval.stats.evaluate.tie_free_references`)."""
    table = order_rows(results)
    out = []
    for key, rows in table.groupby(list(GROUP_KEYS), sort=False, dropna=False):
        named = tuple(zip(GROUP_KEYS, map(str, key)))
        if rows["value"].isna().all():
            out.append(Section(named, (), (), (), undefined=_reasons(rows)))
            continue
        rows = rows.reset_index(drop=True)
        section = _ranked(named, rows, digits, adjust) if layout == "ranked" else _matrix(named, rows, digits, adjust)
        reference = tie_free_reference(dict(named), tie_free)
        if not np.isnan(reference):
            note = f"tie-free reference (a metric with no ties and no information): {fmt_number(reference, digits)}"
            section = dataclasses.replace(section, notes=section.notes + (note,))
        out.append(section)
    return out


#: The columns that name a ranking in a table of tie-free references.
TIE_FREE_KEYS = ("judgment_kind", "level", "statistic", "grouping")


def tie_free_reference(key: dict[str, str], tie_free: pd.DataFrame | None) -> float:
    """The tie-free reference of the ranking ``key`` in ``tie_free`` (NaN when it is not there)."""
    if tie_free is None or not len(tie_free):
        return float("nan")
    match = tie_free
    for column in TIE_FREE_KEYS:
        match = match[match[column].astype(str) == str(key.get(column, ""))]
    return float(match["tie_free"].iloc[0]) if len(match) else float("nan")


def _at_chance(rows: pd.DataFrame) -> np.ndarray:
    """Which rows are at or below chance (none for tables without chance columns)."""
    if "chance_high" not in rows.columns:
        return np.zeros(len(rows), dtype=bool)
    return np.atleast_1d(at_or_below(rows["value"], rows["ci_low"], rows["chance_high"]))


def _reasons(rows: pd.DataFrame) -> str:
    """Why every value of a ranking is undefined: its distinct reasons, most frequent first."""
    counts = rows["note"].replace("", "undefined").value_counts(sort=False)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(reason for reason, _ in ordered)


#: How p-values of a ranking's pairs are adjusted, by the settings' ``adjust`` (None: not known).
_ADJUSTED = {
    "holm": "Holm-adjusted over the ranking's pairs",
    "bh": "Benjamini-Hochberg-adjusted over the ranking's pairs",
    "none": "not adjusted",
    None: "adjusted over the ranking's pairs as the signature's adjust says",
}


def cluster_note(adjust: str | None) -> str:
    """How significance clusters are formed (:func:`metaeval.stats.significance.significance_clusters`)."""
    return (
        "cluster: configurations in one cluster do not differ significantly from each other "
        f"(two-sided paired bootstrap, p > 0.05, p-values {_ADJUSTED.get(adjust, _ADJUSTED[None])}); a new cluster "
        "starts at the first configuration significantly worse than a member of the current one"
    )


def _bars(rows: pd.DataFrame) -> tuple[Bar, ...]:
    nan = float("nan")
    return tuple(
        Bar(f"{r.metric} / {r.segmenter}", float(r.value), float(r.ci_low), float(r.ci_high), float(getattr(r, "chance", nan)),
            float(getattr(r, "chance_low", nan)), float(getattr(r, "chance_high", nan)))
        for r in rows.itertuples(index=False)
    )  # fmt: skip


def _display_ranks(rows: pd.DataFrame) -> np.ndarray:
    computed = competition_ranks(rows["value"].to_numpy(float))
    given = rows["rank"].to_numpy(float) if "rank" in rows.columns else np.full(len(rows), np.nan)
    return np.where(np.isnan(given), computed, given)


def _ranked(key: tuple[tuple[str, str], ...], rows: pd.DataFrame, digits: int, adjust: str | None) -> Section:
    counted = rows["statistic"].isin(COUNTED_STATISTICS).any() or rows["concordant"].notna().any()
    has_note = (rows["note"] != "").any()
    has_epsilon = "epsilon" in rows.columns and rows["epsilon"].notna().any()
    has_chance = "chance" in rows.columns and rows["chance"].notna().any()
    at_chance = _at_chance(rows)
    columns = ["rank", "cluster", "metric", "segmenter", "value", "95% CI", "n"]
    numeric = [True, True, False, False, True, False, True]
    if has_chance:
        columns.insert(6, "chance band")
        numeric.insert(6, False)
    if has_epsilon:
        columns.insert(5, "epsilon")
        numeric.insert(5, True)
    if counted:
        columns += ["C", "D", "metric ties", "human ties"]
        numeric += [True] * 4
    if has_note:
        columns.append("note")
        numeric.append(False)
    cluster = rows["cluster"] if "cluster" in rows.columns else pd.Series([""] * len(rows))
    body = []
    for i, (r, rank) in enumerate(zip(rows.itertuples(index=False), _display_ranks(rows))):
        undefined = np.isnan(r.value)
        cells = [
            fmt_count(rank),
            cluster.iloc[i],
            r.metric,
            r.segmenter,
            UNDEFINED if undefined else fmt_number(r.value, digits) + (AT_CHANCE if at_chance[i] else ""),
            fmt_ci(r.ci_low, r.ci_high, digits),
            fmt_count(r.n),
        ]
        if has_chance:
            cells.insert(6, fmt_ci(r.chance_low, r.chance_high, digits))
        if has_epsilon:
            cells.insert(5, fmt_epsilon(r.epsilon))
        if counted:
            cells += [fmt_count(r.concordant), fmt_count(r.discordant), fmt_count(r.metric_ties), fmt_count(r.human_ties)]
        if has_note:
            cells.append(f"undefined: {r.note}" if undefined and r.note else r.note)
        body.append(tuple(cells))
    notes = ((cluster_note(adjust),) if cluster.astype(str).ne("").any() else ()) + ((AT_CHANCE_NOTE,) if at_chance.any() else ())
    nowrap = tuple(k for k, c in enumerate(columns) if c in ("95% CI", "chance band"))
    return Section(key, tuple(columns), tuple(body), tuple(numeric), notes=notes, bars=_bars(rows), nowrap=nowrap)


def _matrix(key: tuple[tuple[str, str], ...], rows: pd.DataFrame, digits: int, adjust: str | None) -> Section:
    dup = rows.duplicated(["metric", "segmenter"], keep=False)
    if dup.any():
        bad = rows[dup].iloc[0]
        raise DataError(
            f"results: {_describe(key)}: several rows for metric {bad['metric']!r}, segmenter "
            f"{bad['segmenter']!r} (configs differ); use layout 'ranked' or select one config"
        )
    metrics = sorted(set(rows["metric"]))
    segmenters = sorted(set(rows["segmenter"]))
    at_chance = dict(zip(zip(rows["segmenter"], rows["metric"]), _at_chance(rows)))
    cell = {(r.segmenter, r.metric): r for r in rows.itertuples(index=False)}
    best, best_clusters = {}, {}
    clustered = "cluster" in rows.columns and rows["cluster"].astype(str).ne("").any()
    for metric in metrics:
        values = rows.loc[rows["metric"] == metric, "value"]
        best[metric] = values.max() if values.notna().any() else np.nan
        if clustered:
            top = rows[(rows["metric"] == metric) & (rows["value"] == best[metric])]
            best_clusters[metric] = {str(c) for c in top["cluster"] if str(c)}
    body, marked = [], set()
    undefined: dict[str, list[str]] = {}
    for i, segmenter in enumerate(segmenters):
        cells = [segmenter]
        for j, metric in enumerate(metrics, start=1):
            r = cell.get((segmenter, metric))
            if r is None:
                cells.append("")
            elif np.isnan(r.value):
                cells.append(UNDEFINED)
                undefined.setdefault(r.note or "undefined", []).append(f"{metric} / {segmenter}")
            else:
                mark = AT_CHANCE if at_chance[(segmenter, metric)] else ""
                cells.append(f"{fmt_number(r.value, digits)}{mark} {fmt_ci(r.ci_low, r.ci_high, digits)}".rstrip())
                if r.value == best[metric] or (clustered and str(r.cluster) in best_clusters[metric]):
                    marked.add((i, j))
        body.append(tuple(cells))
    columns = ("segmenter", *metrics)
    numeric = (False,) + (True,) * len(metrics)
    notes = tuple(f"{UNDEFINED}: {', '.join(where)}: {reason}" for reason, where in undefined.items())
    if "chance" in rows.columns and rows["chance"].notna().any():
        low, high = rows["chance"].min(), rows["chance"].max()
        span = fmt_number(low, digits) if fmt_number(low, digits) == fmt_number(high, digits) else f"{fmt_number(low, digits)} to {fmt_number(high, digits)}"
        notes += (f"chance level (each configuration's metric scores permuted, its own ties kept): {span}",)
    if any(at_chance.values()):
        notes += (AT_CHANCE_NOTE,)
    nowrap = tuple(range(1, len(columns)))
    marked_as = "best in column"
    if clustered:
        marked_as = (
            "best in column, and every cell of its column in the same significance cluster as it "
            f"(not told apart from it: paired bootstrap, p > 0.05, p-values {_ADJUSTED.get(adjust, _ADJUSTED[None])})"
        )
    return Section(key, columns, tuple(body), numeric, frozenset(marked), notes, _bars(rows), nowrap=nowrap, marked_as=marked_as)


def _describe(key: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{k}={v}" for k, v in key if v)
