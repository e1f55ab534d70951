"""What a report shows before its tables and after them: the answer, the data in one line,
and the signature in one line.

- :func:`answer_section`: the answer of :func:`metaeval.answer.answer` as a table with one
  row per ranking (human score, level, statistic): the best configuration, then character
  level against the best word level on one metric with delta, 95% interval, p-value and
  adjusted p-value, and the tally over metrics. :func:`answer_legend` says how to read it,
  naming the family and the adjustment (:func:`adjustment`, from the signature).
- :func:`context_line`: dataset size from the signature.
- :func:`signature_line`: the signature in one line (the full one is in JSON and ``--out``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import pandas as pd

from metaeval.report.layout import AT_CHANCE, AT_CHANCE_NOTE, Section
from metaeval.stats.adjust import ADJUSTMENTS, CONTROLS
from metaeval.report.results import fmt_number, plain

ANSWER_TITLE = "Answer: character level (char) against the best word level"
#: Groupings that need no mention next to the statistic (the default ones).
_PLAIN_GROUPINGS = ("", "-", "none", "segment", "segment+judge")


def _signed(value: float, digits: int) -> str:
    if value is None or not math.isfinite(value):
        return ""
    text = fmt_number(value, digits)
    return text if text.startswith("-") or float(text) == 0.0 else "+" + text


def _p_text(p: float, n_samples: float) -> str:
    if p is None or not math.isfinite(p):
        return ""
    floor = 1.0 / n_samples if n_samples and math.isfinite(n_samples) and n_samples > 0 else 0.001
    if p < floor or p == 0.0:
        return f"<{floor:.3g}"
    return f"{p:.3f}"


def _flag(value: Any) -> bool:
    """A flag of the answer (a missing one, from an earlier file, is off)."""
    try:
        return bool(value) and not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _value(value: float, digits: int, at_chance: Any) -> str:
    return fmt_number(value, digits) + (AT_CHANCE if _flag(at_chance) else "")


def answer_section(answer: pd.DataFrame, digits: int = 3) -> Section | None:
    """The answer as one table; None when there is nothing to show."""
    if answer is None or answer.empty:
        return None
    columns = ("human", "level", "statistic", "best configuration", "char vs best word level", "delta", "95% CI", "p",
               "p adjusted", "char ahead", "significant char:word")  # fmt: skip
    numeric = (False, False, False, False, False, True, False, True, True, True, True)
    rows = []
    for r in answer.itertuples(index=False):
        statistic = r.statistic if r.grouping in _PLAIN_GROUPINGS else f"{r.statistic} ({r.grouping})"
        flags = {name: getattr(r, name, False) for name in ("best_at_chance", "char_at_chance", "word_at_chance")}
        best = f"{r.best_metric} / {r.best_segmenter} {_value(r.best_value, digits, flags['best_at_chance'])}"
        if r.metric:
            versus = (f"{r.metric}: char {_value(r.char_value, digits, flags['char_at_chance'])}, "
                      f"{r.word_segmenter} {_value(r.word_value, digits, flags['word_at_chance'])}")
            ci = ""
            if math.isfinite(r.delta_ci_low) and math.isfinite(r.delta_ci_high):
                ci = f"[{_signed(r.delta_ci_low, digits)}, {_signed(r.delta_ci_high, digits)}]"
            tally = f"{int(r.char_ahead)} of {int(r.metrics)}"
            significant = f"{int(r.char_significant)}:{int(r.word_significant)}" if math.isfinite(r.p_value) else ""
            adjusted = _p_text(r.p_adjusted, r.n_samples) if "p_adjusted" in answer.columns else ""
            cells = (versus, _signed(r.delta, digits), ci, _p_text(r.p_value, r.n_samples), adjusted, tally, significant)
        else:
            cells = (r.note, "", "", "", "", "", "")
        rows.append((r.judgment_kind, r.level, statistic, best) + cells)
    return Section((("dataset", ANSWER_TITLE),), columns, tuple(rows), numeric, nowrap=(3, 4, 5, 6))


def adjustment(signature: Mapping[str, Any] | None) -> str | None:
    """The p-value adjustment a signature records (:mod:`metaeval.stats.adjust`): its
    ``statistics.adjust``; ``none`` for statistics recorded before adjustments existed (their
    p-values were raw); None without a signature of statistics."""
    statistics = (signature or {}).get("statistics")
    if not isinstance(statistics, Mapping):
        return None
    method = statistics.get("adjust", "none")
    return method if method in ADJUSTMENTS else None


def answer_legend(answer: pd.DataFrame, signature: Mapping[str, Any] | None) -> list[str]:
    """How to read the answer table, in a few lines: the test, whether the best word-level
    segmenter is chosen in each resample, the family of the adjusted p-values and the adjustment."""
    if answer is None or answer.empty:
        return []
    n = (signature or {}).get("n_bootstrap")
    method = adjustment(signature)
    resamples = f"{n} paired bootstrap resamples of segments" if n else "paired bootstrap resamples of segments"
    chosen = (
        "the word-level segmenter is the one best on the full sample" if method == "none" else
        "the best word-level segmenter is chosen in each resample (the maximum over them), so the interval and p "
        "include that choice"
    )  # fmt: skip
    how = (
        f"adjusted by {CONTROLS[method]}" if method in ("holm", "bh") else "not adjusted (p adjusted = p)" if method == "none"
        else "adjusted as the signature's adjust says"
    )  # fmt: skip
    lines = [
        "delta = char - best word-level segmenter, on the metric of the best configuration whose value "
        f"depends on segmentation; 95% CI and two-sided p from {resamples}; {chosen}.",
        "p adjusted: the family is the row's metrics that depend on segmentation (those of 'char ahead', one "
        f"human score, level, statistic and grouping), {how}.",
        "char ahead: metrics where char beats the best word level; significant: how many of those differences "
        "have adjusted p <= 0.05, for char : for words.",
    ]
    left_out = sorted({m for text in answer["left_out"].fillna("") for m in str(text).split(", ") if m})
    if left_out:
        lines.append(f"Left out: {', '.join(left_out)} (its value does not depend on where the text is split).")
    flagged = [c for c in ("best_at_chance", "char_at_chance", "word_at_chance") if c in answer.columns]
    if any(_flag(v) for c in flagged for v in answer[c]):
        lines.append(AT_CHANCE_NOTE + ".")
    return lines


def context_line(signature: Mapping[str, Any] | None, results: pd.DataFrame) -> str:
    """``12 systems, 634 segments, reference refA; human scores: esa, esa_z``."""
    sig = signature or {}
    parts = []
    if sig.get("systems") is not None:
        parts.append(f"{sig['systems']} systems")
    if sig.get("segments") is not None:
        parts.append(f"{sig['segments']} segments")
    refs = sig.get("references")
    if isinstance(refs, (list, tuple)) and refs:
        parts.append(("reference " if len(refs) == 1 else "references ") + ", ".join(map(str, refs)))
    kinds = sorted({k for k in results["judgment_kind"] if k}) if "judgment_kind" in results else []
    text = ", ".join(parts)
    if kinds:
        text += ("; " if text else "") + "human scores: " + ", ".join(kinds)
    return text


def signature_line(signature: Mapping[str, Any] | None) -> str:
    """The signature in one line, sacrebleu style (``key:value|...``): plain values as they
    are, lists joined by commas, nested tables by their keys, package versions by
    metaeval's own. The full signature is in JSON output and in ``--out``."""
    if not signature:
        return ""
    values = plain(dict(signature))
    parts = []
    for key in sorted(values):
        value = values[key]
        if key == "versions" and isinstance(value, dict):
            value = value.get("metaeval", "")
            key = "metaeval"
        elif isinstance(value, dict):
            value = ",".join(sorted(map(str, value)))
        elif isinstance(value, list):
            value = ",".join(map(str, value))
        elif value is None:
            value = "-"
        parts.append(f"{key}:{value}")
    return "|".join(parts)


__all__ = ["ANSWER_TITLE", "adjustment", "answer_legend", "answer_section", "context_line", "signature_line"]
