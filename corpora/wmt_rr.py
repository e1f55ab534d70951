"""WMT relative-ranking CSV (WMT10-16 manual evaluation) -> :class:`Judgments` of kind ``rank``.

Two layouts, both with a header (WMT12-16 READMEs):

- 5-way: ``srclang, trglang, srcIndex, documentId, segmentId, judgeId, system1Number,
  system1Id, ..., system5Id, system1rank, ..., system5rank``: one row per ranking task;
- pairwise: ``srclang, trglang, srcIndex, segmentId, judgeID, system1Id, system1rank,
  system2Id, system2rank, rankingID``: the pairs of one task share a ``rankingID``.

``srcIndex`` is the 1-based line of the source segment and becomes ``seg_id``. Rank 1 is
best, ties allowed; ``-1`` (left blank) is skipped. Each ranking task is one judge group,
``<judgeId>/<rankingID>`` (or ``<judgeId>/line<N>`` for 5-way rows without ``rankingID``),
so that pairwise comparisons are only made inside one task, as WMT did. A system given two
different ranks in the same task is an error naming both lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from metaeval.corpora.model import Judgments
from metaeval.errors import DataError

from ._io import parse_float, read_table, where
from ._rows import JudgmentRows

_SYS_ID = re.compile(r"^system(\d+)id$", re.I)
BLANK_RANK = -1.0


def read_wmt_rr_csv(path: str | Path) -> Judgments:
    """Read a WMT relative-ranking CSV (5-way or pairwise, detected from the header)."""
    table = read_table(path)
    lower = {h.lower(): j for j, h in enumerate(table.header)}
    slots = sorted(int(m.group(1)) for h in table.header if (m := _SYS_ID.match(h)))
    missing = [f"system{k}rank" for k in slots if f"system{k}rank" not in lower]
    seg_col = lower.get("srcindex", lower.get("segmentid"))
    judge_col = lower.get("judgeid")
    if len(slots) < 2 or missing or seg_col is None or judge_col is None:
        raise DataError(
            f"{where(table.path, 1)}: not a WMT ranking header; expected srcIndex, judgeId and "
            "system<k>Id/system<k>rank columns for k = 1..5 (or 1..2 with rankingID)"
        )
    task_col = lower.get("rankingid")
    rows = JudgmentRows(table.path)
    seen: dict[tuple[str, str, str], tuple[float, int]] = {}
    for line, f in table.rows:
        seg = f[seg_col].strip()
        task = f[task_col].strip() if task_col is not None else f"line{line}"
        judge = f"{f[judge_col].strip()}/{task}"
        for k in slots:
            system = f[lower[f"system{k}id"]].strip()
            rank = parse_float(f[lower[f"system{k}rank"]], table.path, line, f"system{k}rank")
            if rank == BLANK_RANK or not system:
                continue
            if rank <= 0:
                raise DataError(f"{where(table.path, line)}: system{k}rank {rank:g}; expected 1..5 or -1 (blank)")
            key = (seg, system, judge)
            if key in seen:
                if seen[key][0] != rank:
                    raise DataError(
                        f"{where(table.path, line)}: system {system!r} ranked {rank:g} in task {judge!r}, "
                        f"but {seen[key][0]:g} at line {seen[key][1]}"
                    )
                continue
            seen[key] = (rank, line)
            rows.add(seg, system, judge, "rank", rank, line)
    return rows.judgments(directions={"rank": -1})
