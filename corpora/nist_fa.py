"""NIST-style fluency/adequacy judgments (NIST Open MT'08 human assessments, as used by Li,
Zong & Ng 2011) -> :class:`Judgments` of kinds ``fluency`` and ``adequacy``.

TSV or CSV with the columns ``system, doc_id, seg_id, judge, fluency, adequacy`` (others are
ignored), each score on the 1-5 scale (5 best). An empty score cell means that aspect was not
judged on that row. NIST numbers segments within documents; when a ``seg_id`` occurs in more
than one document, segment ids become ``<doc_id>:<seg_id>`` (the convention of
:func:`corpora.read_nist_sgml`). ``doc_scoped_ids`` forces one choice.
"""

from __future__ import annotations

from pathlib import Path

from metaeval.corpora.model import Judgments
from metaeval.errors import DataError

from ._io import parse_float, read_table, where
from ._rows import JudgmentRows

KINDS = ("fluency", "adequacy")
SCALE = (1.0, 5.0)


def read_nist_fa(path: str | Path, doc_scoped_ids: bool | None = None) -> Judgments:
    """Read NIST fluency/adequacy judgments; values outside 1-5 are an error with the line."""
    table = read_table(path)
    cols = table.require(["system", "doc_id", "seg_id", "judge", *KINDS])
    if doc_scoped_ids is None:
        docs_of: dict[str, set[str]] = {}
        for _, f in table.rows:
            docs_of.setdefault(f[cols["seg_id"]].strip(), set()).add(f[cols["doc_id"]].strip())
        doc_scoped_ids = any(len(d) > 1 for d in docs_of.values())
    rows = JudgmentRows(table.path)
    for line, f in table.rows:
        system, doc, seg = (f[cols[c]].strip() for c in ("system", "doc_id", "seg_id"))
        if not system or not seg:
            raise DataError(f"{where(table.path, line)}: empty system or seg_id")
        seg_key = f"{doc}:{seg}" if doc_scoped_ids else seg
        for kind in KINDS:
            raw = f[cols[kind]].strip()
            if not raw:
                continue
            value = parse_float(raw, table.path, line, kind)
            if not SCALE[0] <= value <= SCALE[1]:
                raise DataError(f"{where(table.path, line)}: {kind} {raw!r} outside the 1-5 scale")
            rows.add(seg_key, system, f[cols["judge"]].strip(), kind, value, line)
    return rows.judgments()
