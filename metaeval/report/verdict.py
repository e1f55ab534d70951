"""The answer in words: one sentence per human score and level, said before any table.

Each sentence reads the rows of the answer (:func:`metaeval.answer.answer`) of one human score
and level. It leads with one statistic (:data:`LEAD_STATISTICS`: the primary statistics of the
WMT23-24 metrics tasks, ``acc_eq`` at segment level and soft pairwise accuracy at system level,
then Li et al. 2011's), says whether character level agrees significantly better or worse than
the best word level on how many metrics, names the compared metric (the best configuration's)
with what it alone shows, which can differ from the tally, gives its delta, 95% interval and
adjusted p-value exactly as the answer table shows them, and then counts the other statistics
of the level. Where the data cannot carry the claim it says so in the sentence: fewer than
:data:`MIN_SEGMENTS` segments or :data:`MIN_SYSTEMS` systems, or an interval at or below the
chance band (:func:`chance_warning`).

:func:`glossary_lines` explains, one line each, every term a page uses: statistics from the
registry's own descriptions (:mod:`metaeval.stats.registry`), groupings, metrics, human scores
and the answer's columns.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from metaeval.report.layout import AT_CHANCE
from metaeval.report.results import fmt_number
from metaeval.stats.defaults import ALPHA

#: Too few segments or systems to carry a claim of agreement (said in the verdict).
MIN_SEGMENTS = 30
MIN_SYSTEMS = 4
#: The statistic each level's sentence leads with, first present wins.
LEAD_STATISTICS = {
    "seg": ("acc_eq", "consistency", "kendall_like", "pearson", "tau_eq"),
    "sys": ("soft_pairwise_accuracy", "pairwise_accuracy", "pearson", "kendall", "spearman"),
    "doc": ("acc_eq", "consistency", "kendall_like", "pearson"),
}
LEVEL_NAMES = {"seg": "Segment level", "sys": "System level", "doc": "Document level"}
#: ``chance_band(row)``: the chance band ``(low, high)`` of an answer row, or None.
ChanceBand = Callable[[Mapping[str, Any]], "tuple[float, float] | None"]


def signed(value: float, digits: int = 3) -> str:
    """``+0.015``, ``-0.091``; a bound that rounds to zero keeps the sign of its value
    (``-0.000``, ``+0.000``), so every bound of an interval carries one; ``""`` for NaN."""
    if value is None or not math.isfinite(value):
        return ""
    text = f"{abs(float(value)):.{digits}f}"
    return ("-" if value < 0 else "+") + text


def p_text(p: float, n_samples: float) -> str:
    """A bootstrap p-value: ``0.116``, or ``<0.000999`` (``< 1/(B+1)``) when no resample of
    ``n_samples`` crossed, the smallest p a bootstrap of B resamples can show; ``""`` for NaN."""
    if p is None or not math.isfinite(p):
        return ""
    floor = 1.0 / (n_samples + 1) if n_samples and math.isfinite(n_samples) and n_samples > 0 else 0.001
    if p <= floor * (1 + 1e-9) or p == 0.0:
        return f"<{floor:.3g}"
    return f"{p:.3f}"


def adjusted_p_text(row: Mapping[str, Any]) -> str:
    """The adjusted p-value of an answer row; ``<=x`` when the raw p-value is the bound 1/(B+1)
    (``p_bound``), for an adjustment of a bound is a bound too."""
    text = p_text(row.get("p_adjusted", math.nan), row.get("n_samples", math.nan))
    bound = row.get("p_bound")
    return f"<={text}" if text and not text.startswith("<") and isinstance(bound, (bool, np.bool_)) and bound else text


def _flag(value: Any) -> bool:
    """A flag of the answer (missing, from an earlier file: off)."""
    try:
        return bool(value) and not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def chance_warning(row: Mapping[str, Any], band: "tuple[float, float] | None" = None) -> str:
    """``""`` or a warning when an interval of ``row`` lies at or below its chance band: the
    answer's own flags (``best_at_chance``, ``char_at_chance``, ``word_at_chance``), or the best
    configuration's interval against ``band`` (``(low, high)``) when one is given."""
    flagged = [name for name, key in (("the best configuration", "best_at_chance"), ("char", "char_at_chance"),
                                      ("the best word level", "word_at_chance")) if _flag(row.get(key))]  # fmt: skip
    if flagged and band is None:
        return f"warning: the interval of {' and '.join(flagged)} is at or below chance ({AT_CHANCE})"
    if band is None:
        return ""
    high = row.get("best_ci_high", math.nan)
    if high is None or not math.isfinite(high) or high > band[1]:
        return ""
    return f"warning: even the best configuration's interval is at or below chance ({fmt_number(band[1])})"


def _size_warning(level: str, signature: Mapping[str, Any] | None) -> str:
    sig = signature or {}
    if level == "sys" and isinstance(sig.get("systems"), int) and sig["systems"] < MIN_SYSTEMS:
        return f"warning: only {sig['systems']} systems (fewer than {MIN_SYSTEMS}), too few to carry the claim"
    if level in ("seg", "doc") and isinstance(sig.get("segments"), int) and sig["segments"] < MIN_SEGMENTS:
        return f"warning: only {sig['segments']} segments (fewer than {MIN_SEGMENTS}), too few to carry the claim"
    return ""


def _size(level: str, signature: Mapping[str, Any] | None) -> str:
    sig = signature or {}
    if level == "sys" and sig.get("systems") is not None:
        return f"{sig['systems']} systems"
    if level == "seg" and sig.get("segments") is not None:
        return f"{sig['segments']} segments"
    return ""


def _lead_row(rows: pd.DataFrame, level: str) -> pd.Series:
    compared = rows[rows["metric"].fillna("") != ""]
    pool = compared if not compared.empty else rows
    for name in LEAD_STATISTICS.get(level, ()):
        match = pool[pool["statistic"] == name]
        if not match.empty:
            return match.iloc[0]
    return pool.iloc[0]


def _statistic_label(row: Mapping[str, Any]) -> str:
    grouping = str(row.get("grouping") or "")
    plain = grouping in ("", "-", "none", "segment", "segment+judge")
    return str(row["statistic"]) if plain else f"{row['statistic']} ({grouping})"


def _claim(row: Mapping[str, Any]) -> str:
    """What one answer row says, in words."""
    label = _statistic_label(row)
    n = int(row["metrics"])
    char, word = int(row["char_significant"]), int(row["word_significant"])
    has_p = math.isfinite(row["p_value"]) if row["p_value"] is not None else False
    if not has_p:
        return f"characters are ahead of the best word level for {int(row['char_ahead'])} of {n} metrics under {label} (no intervals)"
    if char and not word:
        return f"characters agree significantly better than the best word level for {char} of {n} metrics under {label}"
    if word and not char:
        return f"the best word level agrees significantly better than characters for {word} of {n} metrics under {label}"
    if word and char:
        return f"mixed under {label}: characters significantly better for {char} and word level for {word} of {n} metrics"
    return f"no significant difference between characters and the best word level under {label} (characters ahead for {int(row['char_ahead'])} of {n} metrics)"


def _outcome(row: Mapping[str, Any]) -> str:
    """What the compared metric alone shows: which side is significantly better at the answer's
    level (``mde_alpha``, the level of its tally) after the family's adjustment, or that neither
    is; ``""`` without a p-value. The tally counts every metric, so this can differ from it."""
    p, delta = row.get("p_adjusted"), row.get("delta")
    if p is None or delta is None or not (math.isfinite(p) and math.isfinite(delta)):
        return ""
    alpha = row.get("mde_alpha")
    alpha = float(alpha) if alpha is not None and math.isfinite(alpha) else ALPHA
    if p > alpha or delta == 0:
        return "not significant"
    return "characters significantly better" if delta > 0 else "word level significantly better"


def _numbers(row: Mapping[str, Any], digits: int) -> str:
    """The compared metric, named as the best configuration's, with what it alone shows
    (:func:`_outcome`), its delta, interval and adjusted p, as the answer table shows them."""
    char = fmt_number(row["char_value"], digits) + (AT_CHANCE if _flag(row.get("char_at_chance")) else "")
    word = fmt_number(row["word_value"], digits) + (AT_CHANCE if _flag(row.get("word_at_chance")) else "")
    outcome = _outcome(row)
    text = f"{row['metric']}, the best configuration's metric{f' ({outcome})' if outcome else ''}: "
    text += f"char {char} vs {row['word_segmenter']} {word}"
    text += f", delta {signed(row['delta'], digits)}"
    if math.isfinite(row["delta_ci_low"]) and math.isfinite(row["delta_ci_high"]):
        text += f" [{signed(row['delta_ci_low'], digits)}, {signed(row['delta_ci_high'], digits)}]"
    if "p_adjusted" in row and row["p_adjusted"] is not None and math.isfinite(row["p_adjusted"]):
        text += f", p adjusted {adjusted_p_text(row)}"
    return text


def _others(rows: pd.DataFrame, lead: pd.Series) -> str:
    rest = rows[(rows.index != lead.name) & (rows["metric"].fillna("") != "")]
    rest = rest[rest["p_value"].map(lambda p: p is not None and math.isfinite(p))]
    if rest.empty:
        return ""
    char = int((rest["char_significant"] > 0).sum())
    word = int((rest["word_significant"] > 0).sum())
    return (f"other statistics of this level: characters significantly better under {char} of {len(rest)}, "
            f"word level under {word}")  # fmt: skip


def verdict_lines(
    answer: pd.DataFrame | None,
    signature: Mapping[str, Any] | None = None,
    digits: int = 3,
    chance_band: ChanceBand | None = None,
    by_dataset: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[str]:
    """One sentence per (dataset when several,) human score and level of ``answer``; ``[]``
    without one. The sizes (segments, systems) are the ``signature``'s, or with ``by_dataset``
    (a study's datasets) each dataset's own. ``chance_band(row)`` gives a row's chance band for
    :func:`chance_warning`."""
    if answer is None or answer.empty:
        return []
    table = answer.reset_index(drop=True)
    several = table["dataset"].nunique() > 1
    lines = []
    for (dataset, kind, level), rows in table.groupby(["dataset", "judgment_kind", "level"], sort=True, dropna=False):
        lead = _lead_row(rows, str(level))
        if by_dataset is not None:
            signature = by_dataset.get(str(dataset), {})
        where = ", ".join(p for p in ((str(dataset) if several else ""), str(kind), _size(str(level), signature)) if p)
        head = f"{LEVEL_NAMES.get(str(level), f'Level {level}')} ({where}): "
        if not lead["metric"]:
            sentence = head + f"no comparison under {_statistic_label(lead)}: {lead['note']}"
        else:
            sentence = head + _claim(lead) + "; " + _numbers(lead, digits)
            others = _others(rows, lead)
            if others:
                sentence += "; " + others
        warnings = [_size_warning(str(level), signature)]
        warnings.append(chance_warning(lead, chance_band(lead) if chance_band else None))  # the answer's flags without a band
        sentence += "".join(f"; {w}" for w in warnings if w)
        lines.append(sentence + ".")
    return lines


# --------------------------------------------------------------------------- glossary

#: Terms of the answer and of every table, one line each.
ANSWER_TERMS = {
    "char": "character level: every non-whitespace character is a token",
    "best word level": "the word segmenter with the highest value on the compared metric (chosen again in each resample)",
    "delta": "char minus the best word level, on the metric of the best configuration whose value depends on segmentation",
    "95% CI": "the 2.5th to 97.5th percentiles of the paired bootstrap resamples of segments",
    "p": "two-sided paired bootstrap p-value (Koehn 2004); <x means no resample crossed zero, x = 1/(resamples + 1)",
    "p adjusted": "p adjusted over the metrics of one row (Holm by default)",
    "char ahead": "metrics on which char beats the best word level",
    "significant char:word": "metrics with adjusted p <= 0.05 in favour of char : of the word level",
    "best in column (* or bold)": "the best cell of a column and the cells not told apart from it (paired bootstrap)",
    "ties=exclude": "metric ties among the pairs are left out of the count (tie policy)",
}
#: Groupings of segment-level statistics (:mod:`metaeval.stats.grouping`).
GROUPING_TERMS = {
    "item": "grouping: the statistic per segment across systems, averaged over segments",
    "sys": "grouping: the statistic per system across segments, averaged over systems",
    "none": "grouping: one statistic over every (system, segment) score pooled",
}
#: Human score kinds, by stem; a ``_z`` suffix: z-normalised per annotator.
HUMAN_TERMS = {
    "esa": "Error Span Annotation score, 0-100 (Kocmi et al. 2024)",
    "mqm": "Multidimensional Quality Metrics error score (lower is better)",
    "da": "Direct Assessment score, 0-100",
    "rank": "relative ranking of systems (lower is better)",
    "fluency": "fluency judgment",
    "adequacy": "adequacy judgment",
}


def _human_term(kind: str) -> str | None:
    stem, _, suffix = kind.partition("_")
    text = HUMAN_TERMS.get(stem)
    if text is None:
        return None
    return text + (", z-normalised per annotator" if suffix == "z" else f" ({suffix})" if suffix else "")


def glossary_lines(results: pd.DataFrame, answer: pd.DataFrame | None = None) -> list[str]:
    """``term: meaning`` for every statistic, grouping, metric and human score the page shows,
    then the answer's terms; statistics and metrics described by their registries."""
    from metaeval.metrics import available_metrics
    from metaeval.stats.registry import REGISTRY

    def present(column: str) -> list[str]:
        values: Iterable[Any] = results[column] if column in results else ()
        return sorted({str(v) for v in values if isinstance(v, str) and v})

    lines = []
    for name in present("statistic"):
        if name in REGISTRY:
            lines.append(f"{name}: {REGISTRY[name].description} ({REGISTRY[name].citation})")
    lines += [f"{g}: {GROUPING_TERMS[g]}" for g in present("grouping") if g in GROUPING_TERMS]
    metrics = available_metrics()
    for spec in present("metric"):
        base = spec.split(":")[0]
        if base in metrics:
            lines.append(f"{spec}: {metrics[base]}")
    for kind in present("judgment_kind"):
        text = _human_term(kind)
        if text:
            lines.append(f"{kind}: {text}")
    lines += [f"{term}: {text}" for term, text in ANSWER_TERMS.items() if answer is not None and not answer.empty or term.startswith(("best", "ties"))]
    return lines


__all__ = [
    "LEAD_STATISTICS", "MIN_SEGMENTS", "MIN_SYSTEMS", "adjusted_p_text", "chance_warning", "glossary_lines",
    "p_text", "signed", "verdict_lines",
]  # fmt: skip
