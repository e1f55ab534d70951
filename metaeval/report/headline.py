"""What a report shows before its tables and after them: the answer, the data in one line,
and the signature in one line.

- :func:`answer_section`: the answer of :func:`metaeval.answer.answer` as a table with one
  row per ranking (human score, level, statistic; per subset with ``--by``): the best
  configuration, then character level against the best word level on one metric with delta,
  95% interval, p-value and adjusted p-value, how much data that difference needs, and the
  tally over metrics. :func:`answer_legend` says how to read it, naming the family and the
  adjustment (:func:`adjustment`, from the signature).
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
from metaeval.report.verdict import adjusted_p_text, p_text as _p_text, signed as _signed
from metaeval.subsets import SUBSET

ANSWER_TITLE = "Answer: character level (char) against the best word level"
#: Groupings that need no mention next to the statistic (the default ones).
_PLAIN_GROUPINGS = ("", "-", "none", "segment", "segment+judge")


def _flag(value: Any) -> bool:
    """A flag of the answer (a missing one, from an earlier file, is off)."""
    try:
        return bool(value) and not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _value(value: float, digits: int, at_chance: Any) -> str:
    return fmt_number(value, digits) + (AT_CHANCE if _flag(at_chance) else "")


def answer_section(answer: pd.DataFrame, digits: int = 3, subset_label: str = "subset") -> Section | None:
    """The answer as one table; None when there is nothing to show. With ``--by`` the first
    column is the subset, headed ``subset_label`` (the column the subsets come from)."""
    if answer is None or answer.empty:
        return None
    columns: tuple[str, ...] = ("human", "level", "statistic", "best configuration", "char vs best word level", "delta",
                                "95% CI", "p", "p adjusted", "MDE", "char ahead",
                                "significant char:word")  # fmt: skip
    numeric: tuple[bool, ...] = (False, False, False, False, False, True, False, True, True, True, True, True)
    by = SUBSET in answer.columns
    if by:
        columns, numeric = (subset_label, *columns), (False, *numeric)
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
            adjusted = adjusted_p_text(r._asdict()) if "p_adjusted" in answer.columns else ""
            power = ("",)
            if "mde" in answer.columns and math.isfinite(r.mde):
                power = (fmt_number(r.mde, digits),)
            cells = (versus, _signed(r.delta, digits), ci, _p_text(r.p_value, r.n_samples), adjusted, *power, tally, significant)
        else:
            cells = (r.note, "", "", "", "", "", "", "")
        row = (r.judgment_kind, r.level, statistic, best) + cells
        rows.append((str(getattr(r, SUBSET)), *row) if by else row)
    nowrap = tuple(i + by for i in (3, 4, 5, 6))
    return Section((("dataset", ANSWER_TITLE),), columns, tuple(rows), numeric, nowrap=nowrap)


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
    if "mde" in answer.columns and answer["mde"].notna().any():
        lines.append(
            "MDE: the smallest |delta| this test set detects with 80% power at alpha = 0.05 (two-sided, unadjusted): "
            "(1.96 + 0.84) x the bootstrap standard error of delta. answer.tsv adds mde_adjusted, the same at the family's "
            "level alpha / m (m metrics in the row; alpha without adjustment), and n_needed: the segments (documents; "
            "systems when systems are resampled) at which the observed delta would be detected with 80% power, "
            "n x (MDE / delta)^2, the standard error taken to shrink as 1/sqrt(n) (normal approximation)."
        )
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


def sacrebleu_bleu_signature(metric: str, segmenter: str, segmenter_signature: str, nrefs: int) -> str:
    """A BLEU signature as sacrebleu prints it, ``nrefs:1|case:mixed|eff:no|tok:char|smooth:mteval|
    version:metaeval-0.1.0`` (``|n:N`` added when N is not 4), from metaeval's own (``bleu|n:4|
    smooth:mteval|version:0.1.0``, which stays the key of stored results); ``tok`` is the segmenter,
    ``case:lc`` when it lowercases (``norm:`` with ``lower``). For display only."""
    fields = dict(part.split(":", 1) for part in metric.split("|")[1:] if ":" in part)
    normalisation = dict(part.split(":", 1) for part in segmenter_signature.split("|")[1:] if ":" in part).get("norm", "")
    case = "lc" if "lower" in normalisation else "mixed"
    smooth = fields.get("smooth", "") + (f",k:{fields['k']}" if "k" in fields else "")
    text = (f"nrefs:{nrefs}|case:{case}|eff:{fields.get('eff', 'no')}|tok:{segmenter}|smooth:{smooth}"
            f"|version:metaeval-{fields.get('version', '')}")  # fmt: skip
    return text + (f"|n:{fields['n']}" if fields.get("n", "4") != "4" else "")


def sacrebleu_lines(signature: Mapping[str, Any] | None) -> list[str]:
    """One line per BLEU spec of a run's signature: its sacrebleu-style signature per segmenter."""
    sig = signature or {}
    metrics, segmenters = sig.get("metrics"), sig.get("segmenters")
    if not isinstance(metrics, Mapping) or not isinstance(segmenters, Mapping):
        return []
    refs = sig.get("references")
    nrefs = len(refs) if isinstance(refs, (list, tuple)) and refs else 1
    lines = []
    for spec, metric in sorted(metrics.items()):
        if isinstance(metric, str) and metric.startswith("bleu|"):
            shown = ", ".join(sacrebleu_bleu_signature(metric, str(name), str(segmenters[name]), nrefs) for name in sorted(segmenters))
            lines.append(f"{spec} (sacrebleu style): {shown}")
    return lines


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


__all__ = ["ANSWER_TITLE", "adjustment", "sacrebleu_bleu_signature", "sacrebleu_lines", "answer_legend", "answer_section", "context_line", "signature_line"]
