"""IWSLT-style rank judgments (Li, Zong & Ng 2011, IWSLT'08) -> :class:`Judgments` of kind ``rank``.

Two shapes, TSV or CSV (the delimiter is taken from the header line):

- long: ``seg_id, judge, system, rank`` (one row per ranked output; other columns ignored);
- wide: ``seg_id, judge, <system>, <system>, ...`` (one row per ranking; an empty cell
  means the system was not ranked in it).

Rank 1 is best; ties share a rank; fractional ranks (averaged ties) are accepted. A rank
must be a positive finite number.
"""

from __future__ import annotations

from pathlib import Path

from metaeval.corpora.model import Judgments
from metaeval.errors import DataError

from ._io import parse_float, read_table, where
from ._rows import JudgmentRows

RANK_DIRECTIONS = {"rank": -1}


def _rank(text: str, path: str, line: int, what: str) -> float:
    value = parse_float(text, path, line, what)
    if value <= 0:
        raise DataError(f"{where(path, line)}: {what} {text!r} must be positive (rank 1 is best)")
    return value


def read_iwslt_ranks(path: str | Path) -> Judgments:
    """Read long or wide IWSLT-style ranks (shape detected from the header)."""
    table = read_table(path)
    cols = table.require(["seg_id", "judge"])
    rows = JudgmentRows(table.path)
    if "system" in table.header and "rank" in table.header:
        cols.update(table.require(["system", "rank"]))
        for line, f in table.rows:
            seg, system = f[cols["seg_id"]].strip(), f[cols["system"]].strip()
            if not seg or not system:
                raise DataError(f"{where(table.path, line)}: empty seg_id or system")
            value = _rank(f[cols["rank"]], table.path, line, "rank")
            rows.add(seg, system, f[cols["judge"]].strip(), "rank", value, line)
    else:
        systems = [(j, h) for j, h in enumerate(table.header) if h not in ("seg_id", "judge")]
        if not systems:
            raise DataError(f"{where(table.path, 1)}: no system columns; expected seg_id, judge, <system>...")
        for line, f in table.rows:
            seg = f[cols["seg_id"]].strip()
            if not seg:
                raise DataError(f"{where(table.path, line)}: empty seg_id")
            for j, system in systems:
                if f[j].strip():
                    value = _rank(f[j], table.path, line, f"rank of {system!r}")
                    rows.add(seg, system, f[cols["judge"]].strip(), "rank", value, line)
    return rows.judgments(directions=RANK_DIRECTIONS)
