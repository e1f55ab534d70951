"""MQM error annotations (WMT20-22 ``mqm_*.tsv``; Freitag et al. 2021) -> :class:`Judgments`
of kind ``mqm``, a weighted error count (lower is better).

Columns: ``system, doc, doc_id, seg_id, rater, source, target, category, severity``, one row
per error (a row with severity ``No-error`` marks a segment rated without errors). The
score of a (system, segment, rater) is the sum of its error weights (Freitag et al. 2021,
section 3.2, as in google/wmt-mqm-human-evaluation):

==================================  ======
Major, category ``Non-translation``  25
Major, any other category             5
Minor, ``Fluency/Punctuation``        0.1
Minor, any other category             1
Neutral, No-error                     0
==================================  ======

``seg_id`` (the global 1-based segment number of the test set) is the segment id; the text
columns are not used. An unknown severity is an error naming the line.
"""

from __future__ import annotations

from pathlib import Path

from metaeval.corpora.model import Judgments
from metaeval.errors import DataError

from ._io import read_table, where
from ._rows import JudgmentRows

MAJOR, MINOR, NON_TRANSLATION, MINOR_PUNCTUATION = 5.0, 1.0, 25.0, 0.1
ZERO_SEVERITIES = frozenset({"neutral", "no-error", "no error", "none"})


def mqm_weight(category: str, severity: str) -> float | None:
    """The weight of one error, or ``None`` for an unknown severity."""
    sev, cat = severity.strip().lower(), category.strip().lower()
    if sev == "major":
        return NON_TRANSLATION if cat.startswith("non-translation") else MAJOR
    if sev == "minor":
        return MINOR_PUNCTUATION if cat == "fluency/punctuation" else MINOR
    if sev in ZERO_SEVERITIES:
        return 0.0
    return None


def read_mqm_tsv(path: str | Path) -> Judgments:
    """Read an MQM TSV and sum error weights per (system, segment, rater)."""
    table = read_table(path, delimiter="\t")
    cols = table.require(["system", "seg_id", "rater", "category", "severity"])
    totals: dict[tuple[str, str, str], float] = {}
    first: dict[tuple[str, str, str], int] = {}
    for line, f in table.rows:
        key = (f[cols["seg_id"]].strip(), f[cols["system"]].strip(), f[cols["rater"]].strip())
        if not key[0] or not key[1]:
            raise DataError(f"{where(table.path, line)}: empty seg_id or system")
        weight = mqm_weight(f[cols["category"]], f[cols["severity"]])
        if weight is None:
            raise DataError(
                f"{where(table.path, line)}: unknown severity {f[cols['severity']]!r}; "
                "expected Major, Minor, Neutral or No-error"
            )
        totals[key] = totals.get(key, 0.0) + weight
        first.setdefault(key, line)
    rows = JudgmentRows(table.path)
    for (seg, system, rater), total in totals.items():
        rows.add(seg, system, rater, "mqm", round(total, 10), first[(seg, system, rater)])
    return rows.judgments()
