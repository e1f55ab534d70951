"""The answer of a study: per ranking, the best configuration, and character level against the
best word level, with the size of the difference, its interval and its significance.

For each ranking of a ResultTable (same dataset, judgment kind, level, statistic, grouping and
tie policy, and any further key the rows are grouped by):

- **best**: the configuration with the highest value among the metrics whose value depends on
  segmentation (the left-out ones below; among all metrics when every one is left out), so that
  a granularity-free metric cannot be named best by a rounding-level difference;
- **compared metric**: the metric of the best configuration among the metrics whose value
  depends on segmentation (a metric with the same value at every segmenter says nothing about
  granularity and is left out, as is one that sees characters only, such as chrF, which
  ignores spaces, even where segmenters keep different characters);
- **character vs best word level** on that metric, as Li, Zong & Ng (2011) compare them:
  ``delta = value(char) - value(best word-level segmenter)``, the 95% percentile interval of
  the paired bootstrap differences, and the two-sided paired bootstrap p-value (Koehn 2004;
  :func:`metaeval.stats.significance.paired_bootstrap_test`, the test behind significance
  clusters). The best word-level segmenter is chosen on the same data it is compared on, so the
  comparison is selection-aware: in each bootstrap resample char is compared with the best
  word-level segmenter of that resample (the maximum over them), and the interval and p-value
  include the choice (:func:`char_against_best_word`). With ``adjust="none"`` the word
  segmenter is the one chosen on the full sample, as a single paired test;
- **tally** over every segmentation-dependent metric: for how many char is ahead of the best
  word level, and how many differences are significant (adjusted p <= alpha) each way. The
  metrics of one ranking are one family: their p-values are adjusted together
  (:mod:`metaeval.stats.adjust`, Holm by default), ``p_value`` is the compared metric's raw
  p-value and ``p_adjusted`` its adjusted one. A p-value of 0 (no resample crossed) is
  written as the bound 1/(B+1), with ``p_bound`` true;
- **at or below chance**: whether the best, the character-level and the word-level
  configuration's interval is not above its chance band (:func:`metaeval.stats.chance.at_or_below`);
- **how much data** the compared difference needs (:mod:`metaeval.stats.power`): ``delta_se``,
  the standard deviation of the resampled differences; ``mde``, the smallest difference this
  test set detects at level ``mde_alpha`` (two-sided, unadjusted: 0.05) with 80% power, and
  ``mde_adjusted`` at ``alpha_adjusted``, the level at which the comparison is significant after
  the family's adjustment whatever the other p-values (``alpha / m`` for Holm and
  Benjamini-Hochberg with ``m`` metrics in the family; ``alpha`` with ``none``); ``n_needed``,
  the units (``n_unit``: segments, documents, or systems when the bootstrap resamples systems)
  at which the observed delta would be detected with 80% power at ``mde_alpha``. At system
  level with segments resampled only, the number of systems is n/a (the note says why).

With ``--by`` (:mod:`metaeval.subsets`) the results carry a ``subset`` column and every ranking
is answered once per subset.

Character level is the segmenter ``char`` (every non-whitespace character). Word level is any
other segmenter except the mixed and subword ones of :data:`NOT_WORD_LEVEL`. The function is
generic over statistics: every statistic is higher-better, and the bootstrap samples of any two
rows of a run are paired (one set of segment resamples per run).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from metaeval.stats.adjust import adjust_p_values, check_adjustment
from metaeval.stats.chance import at_or_below
from metaeval.stats.defaults import ADJUST, ALPHA
from metaeval.stats.power import detectable_difference, standard_error, units_needed
from metaeval.stats.resampling import percentile_ci
from metaeval.stats.result import Correlation
from metaeval.stats.significance import paired_bootstrap_test
from metaeval.subsets import SUBSET

#: The character-level segmenter of the studies.
CHARACTER_LEVEL = "char"
#: Segmenters that are neither character level nor word level: ``cjk-char`` keeps Latin words
#: whole among CJK characters; ``spm`` splits into learnt subwords; ``byte`` is below characters.
NOT_WORD_LEVEL = ("byte", "char", "cjk-char", "spm")
RANKING_KEYS = ("dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy")
ANSWER_COLUMNS = RANKING_KEYS + (
    "best_metric", "best_segmenter", "best_value", "best_ci_low", "best_ci_high",
    "metric", "char_value", "word_segmenter", "word_value", "delta", "delta_ci_low", "delta_ci_high",
    "p_value", "p_adjusted", "p_bound", "n_samples", "metrics", "char_ahead", "char_significant", "word_significant", "left_out", "note",
    "best_at_chance", "char_at_chance", "word_at_chance",
) + ("delta_se", "mde", "mde_alpha", "mde_adjusted", "alpha_adjusted", "n_needed", "n_unit")  # fmt: skip
#: The units each level's bootstrap resamples, as ``n_unit`` names them.
UNITS = {"seg": "segments", "doc": "documents", "sys": "systems"}
#: Why a system-level answer has no number of systems.
SYSTEMS_NOT_RESAMPLED = "systems needed: n/a, the bootstrap resamples segments only (--resample systems or both)"


def ranking_keys(table: pd.DataFrame) -> list[str]:
    """The columns that make a ranking of ``table``: :data:`RANKING_KEYS`, and the subset of a
    run with ``--by`` right after the dataset."""
    keys = list(RANKING_KEYS)
    if SUBSET in table.columns:
        keys.insert(1, SUBSET)
    return keys


def is_word_level(segmenter: str) -> bool:
    """Whether ``segmenter`` (a name, possibly with options) splits into words."""
    base = segmenter.split(":")[0]
    return base not in NOT_WORD_LEVEL


def characters_only(metrics: Iterable[str]) -> set[str]:
    """The metric specs among ``metrics`` whose statistics depend on the characters of a
    segment alone, not on where it is split (``reuse_key() == "chars"``: chrF, which ignores
    spaces; not chrF++). Their values can still differ between segmenters that keep different
    characters (``char`` drops invisible format characters), which says nothing about
    granularity. A spec that names no known metric is not counted."""
    from metaeval.errors import UsageError
    from metaeval.metrics import get_metric

    out = set()
    for spec in metrics:
        try:
            if get_metric(spec).reuse_key() == "chars":
                out.add(spec)
        except UsageError:
            continue
    return out


def granularity_free(configs: Sequence[Any]) -> list[str]:
    """Metrics that say nothing about granularity, from
    :class:`~metaeval.scoretable.ConfigScores`: those whose segment scores are identical under
    every segmenter scored, and those that see characters only (:func:`characters_only`)."""
    by_metric: dict[str, list[np.ndarray]] = {}
    for config in configs:
        by_metric.setdefault(config.metric, []).append(np.asarray(config.seg_scores))
    identical = {m for m, scores in by_metric.items() if len(scores) > 1 and all(np.array_equal(scores[0], s) for s in scores[1:])}
    return sorted(identical | characters_only(by_metric))


def _constant_metrics(table: pd.DataFrame) -> list[str]:
    """Without the scores: metrics with one value across segmenters in every ranking, and
    those that see characters only (:func:`characters_only`)."""
    out = set()
    for metric, rows in table[table["value"].notna()].groupby("metric", sort=True):
        spread = rows.groupby(ranking_keys(table), dropna=False)["value"].agg(["nunique", "size"])
        if (spread["size"] > 1).any() and (spread["nunique"] == 1).all():
            out.add(str(metric))
    return sorted(out | characters_only(str(m) for m in table["metric"].unique()))


def answer(
    results: pd.DataFrame,
    samples: "np.ndarray | None" = None,
    alpha: float = ALPHA,
    left_out: Sequence[str] | None = None,
    adjust: str = ADJUST,
    *,
    sizes: Mapping[tuple[str, str], int] | None = None,
    resample: str = "segments",
) -> pd.DataFrame:
    """One row per ranking of ``results`` that has a defined value (see the module docstring).

    ``samples`` (``[len(results), n_bootstrap]``, as returned by
    ``evaluate(..., return_samples=True)``) gives intervals and p-values; without it those
    columns are NaN. ``left_out``: metrics that do not depend on segmentation (default: those
    with one value across segmenters in every ranking; :func:`granularity_free` finds them
    from the scores). ``adjust``: how the p-values of a ranking's metrics are adjusted
    (``holm``, ``bh`` or ``none``; :mod:`metaeval.stats.adjust`). Rankings whose every value is
    undefined are left out: reports show them as one line each with the reason. ``sizes``: the
    units each level's bootstrap resampled, by ``(subset, level)`` (subset ``""`` without
    ``--by``; ``seg``: segments, ``doc``: documents), for ``n_needed``; at system level the
    systems of each row count, when ``resample`` (the run's setting) resamples them. ``alpha``
    is also the level of ``mde``.
    """
    check_adjustment(adjust)
    rows = []
    table = results.reset_index(drop=True)
    constant = list(left_out) if left_out is not None else _constant_metrics(table)
    keys = ranking_keys(table)
    for key, group in table.groupby(keys, sort=True, dropna=False):
        defined = group[group["value"].notna()]
        if defined.empty:
            continue
        named = dict(zip(keys, key))
        size = _size(named, defined, sizes or {}, resample)
        rows.append(_ranking_answer(named, defined, samples, alpha, constant, adjust, size))
    columns = list(ANSWER_COLUMNS[: len(RANKING_KEYS)])
    if SUBSET in keys:
        columns.insert(1, SUBSET)
    return pd.DataFrame(rows, columns=columns + list(ANSWER_COLUMNS[len(RANKING_KEYS) :]))


def _size(key: Mapping[str, Any], rows: pd.DataFrame, sizes: Mapping[tuple[str, str], int], resample: str) -> int | str:
    """The units the ranking's bootstrap resampled, or why there is no such number."""
    level = str(key["level"])
    if level == "sys":
        if resample == "segments":
            return SYSTEMS_NOT_RESAMPLED
        return int(rows["n"].max()) if rows["n"].notna().any() else "systems needed: n/a, no number of systems"
    return sizes.get((str(key.get(SUBSET, "")), level), "")


def _ranking_answer(
    key: dict[str, Any], group: pd.DataFrame, samples: "np.ndarray | None", alpha: float, constant: Sequence[str], adjust: str,
    size: int | str = "",
) -> dict:
    ordered = group.sort_values(["value", "metric", "segmenter"], ascending=[False, True, True], kind="mergesort")
    compared = ordered[~ordered["metric"].isin(list(constant))]
    best = (compared if not compared.empty else ordered).iloc[0]
    row: dict[str, Any] = {c: math.nan for c in ANSWER_COLUMNS}
    row.update(key)
    row.update(
        best_metric=best["metric"], best_segmenter=best["segmenter"], best_value=float(best["value"]),
        best_ci_low=float(best["ci_low"]), best_ci_high=float(best["ci_high"]),
        metric="", word_segmenter="", note="", left_out="", n_unit="",
    )  # fmt: skip
    row["left_out"] = ", ".join(m for m in constant if m in set(group["metric"]))
    row.update(best_at_chance=_at_chance(best), char_at_chance=False, word_at_chance=False)
    tests = {}
    for metric, rows in _rows_by_metric(group).items():
        if metric in constant:
            continue
        test = _char_vs_word(rows, samples, selection=adjust != "none")
        if test is not None:
            tests[metric] = test
    for test in tests.values():
        _p_floor(test)
    if not tests:
        has_char = (group["segmenter"] == CHARACTER_LEVEL).any()
        row["note"] = "no word-level segmenter to compare with" if has_char else f"no {CHARACTER_LEVEL!r} configuration"
        row.update(metrics=0, char_ahead=0, char_significant=0, word_significant=0)
        return row
    adjusted = adjust_p_values([t["p_value"] for t in tests.values()], adjust)
    for test, p in zip(tests.values(), adjusted):
        test["p_adjusted"] = float(p)
    compared = next(m for m in ordered["metric"] if m in tests)
    row.update(tests[compared], metric=compared)
    family = sum(math.isfinite(t["p_value"]) for t in tests.values())
    row.update(_power(row["delta"], row["delta_se"], size, alpha, family_level(alpha, family, adjust)))
    row["n_unit"] = UNITS.get(str(key["level"]), "")
    if isinstance(size, str) and size and math.isfinite(row["delta_se"]):
        row["note"] = size
    row["metrics"] = len(tests)
    row["char_ahead"] = sum(t["delta"] > 0 for t in tests.values())
    row["char_significant"] = sum(t["delta"] > 0 and t["p_adjusted"] <= alpha for t in tests.values())
    row["word_significant"] = sum(t["delta"] < 0 and t["p_adjusted"] <= alpha for t in tests.values())
    return row


def family_level(alpha: float, size: int, adjust: str) -> float:
    """The level at which one comparison of a family of ``size`` is significant after the
    adjustment whatever the other p-values: ``alpha / size`` for Holm (its first step) and for
    Benjamini-Hochberg (its smallest threshold), ``alpha`` for ``none`` or a family of one or none."""
    return alpha / size if adjust != "none" and size > 1 else alpha


def _power(delta: float, se: float, size: int | str, alpha: float, adjusted: float) -> dict[str, float]:
    """The answer's columns of :mod:`metaeval.stats.power` for one comparison."""
    n = size if isinstance(size, int) else 0
    return {
        "mde": detectable_difference(se, alpha), "mde_alpha": alpha, "mde_adjusted": detectable_difference(se, adjusted),
        "alpha_adjusted": adjusted, "n_needed": units_needed(delta, se, n, alpha),
    }  # fmt: skip


def _p_floor(test: dict[str, Any]) -> None:
    """A p-value of 0 (no resample of B crossed) becomes the bound 1/(B+1), the smallest a
    bootstrap of B resamples can support (Davison & Hinkley 1997, Monte Carlo tests), with ``p_bound`` true."""
    n = test.get("n_samples") or 0
    test["p_bound"] = bool(n > 0 and test["p_value"] == 0.0)
    if test["p_bound"]:
        test["p_value"] = 1.0 / (n + 1)


def _at_chance(row: "pd.Series | Mapping[str, Any]") -> bool:
    """Whether a results row's interval is not above its chance band (False without one)."""
    return bool(at_or_below(row["value"], row.get("ci_low", math.nan), row.get("chance_high", math.nan)))


def char_against_best_word(
    char: Correlation, words: "dict[str, Correlation]", selection: bool = True, level: float = 0.95
) -> dict[str, Any]:
    """``char`` against the best of the word-level ``words`` (by segmenter name) on one metric
    and statistic, all measured on the same bootstrap resamples.

    The best word-level segmenter is the one with the highest value (ties: the first name).
    ``delta = char - best``. With bootstrap samples on every side, the interval (at ``level``)
    and the two-sided p-value (:func:`~metaeval.stats.significance.paired_bootstrap_test`) are
    those of the resampled differences: with ``selection``, char minus the maximum over the
    word segmenters in each resample (those undefined in a resample left out of its maximum), so
    that choosing the best word segmenter on the data is part of what is tested; without it,
    char minus the segmenter chosen on the full sample. Keys: ``char_value``,
    ``word_segmenter``, ``word_value``, ``delta``, ``delta_ci_low``, ``delta_ci_high``,
    ``p_value``, ``n_samples``, and ``delta_se``, the standard deviation of the resampled
    differences (NaN and 0 without samples).
    """
    if not words:
        raise ValueError("char_against_best_word needs at least one word-level segmenter")
    name = sorted(words, key=lambda s: (-words[s].value, s))[0]
    best = words[name]
    out = {
        "char_value": char.value, "word_segmenter": name, "word_value": best.value, "delta": char.value - best.value,
        "delta_ci_low": math.nan, "delta_ci_high": math.nan, "p_value": math.nan, "n_samples": 0, "delta_se": math.nan,
    }  # fmt: skip
    if char.samples is None or any(w.samples is None for w in words.values()) or len(char.samples) == 0:
        return out
    if selection:
        stacked = np.stack([np.asarray(w.samples, float) for w in words.values()])
        opponent = np.fmax.reduce(stacked, axis=0)  # NaN only where every word segmenter is
    else:
        opponent = np.asarray(best.samples, float)
    test = paired_bootstrap_test(Correlation(char.value, samples=char.samples), Correlation(best.value, samples=opponent))
    differences = np.asarray(char.samples, float) - opponent
    low, high = percentile_ci(differences, level)
    out.update(delta_ci_low=low, delta_ci_high=high, p_value=test.p_value, n_samples=test.n_samples,
               delta_se=standard_error(differences))  # fmt: skip
    return out


def _rows_by_metric(group: pd.DataFrame) -> dict[Any, list[dict[str, Any]]]:
    """The rows of one ranking as plain records (with ``row``, their position in the results
    table), per metric in sorted order, each metric's in table order. Plain records rather than
    a data frame per metric: a ranking has a handful of rows, and pandas' per-call overhead was
    most of the answer's time."""
    columns = [c for c in ("metric", "segmenter", "value", "ci_low", "chance_high") if c in group.columns]
    by_metric: dict[Any, list[dict[str, Any]]] = {}
    for position, record in zip(group.index, group[columns].to_dict("records")):
        if not pd.isna(record["metric"]):
            record["row"] = position
            by_metric.setdefault(record["metric"], []).append(record)
    return {metric: by_metric[metric] for metric in sorted(by_metric)}


def _char_vs_word(rows: Sequence[Mapping[str, Any]], samples: "np.ndarray | None", selection: bool) -> dict | None:
    """``char`` against the best word-level segmenter of one metric (its rows from
    :func:`_rows_by_metric`), or None if either is absent."""
    chars = [r for r in rows if r["segmenter"] == CHARACTER_LEVEL]
    words = [r for r in rows if is_word_level(r["segmenter"])]
    if not chars or not words:
        return None
    with_samples = samples is not None and samples.shape[1] > 0

    def result(r: Mapping[str, Any]) -> Correlation:
        return Correlation(float(r["value"]), samples=samples[r["row"]] if with_samples else None)  # type: ignore[index]

    out = char_against_best_word(result(chars[0]), {str(r["segmenter"]): result(r) for r in words}, selection)
    word = next(r for r in words if str(r["segmenter"]) == out["word_segmenter"])
    out.update(char_at_chance=_at_chance(chars[0]), word_at_chance=_at_chance(word))
    return out


__all__ = [
    "ANSWER_COLUMNS", "CHARACTER_LEVEL", "NOT_WORD_LEVEL", "SYSTEMS_NOT_RESAMPLED", "UNITS", "answer", "char_against_best_word",
    "characters_only", "family_level", "granularity_free", "is_word_level", "ranking_keys",
]  # fmt: skip
