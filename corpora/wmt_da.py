"""WMT direct-assessment segment scores (``ad-seg-scores-<src>-<tgt>.csv``, WMT17-21;
Graham et al. 2017) -> :class:`Judgments` of kinds ``da`` (raw 0-100) and ``da_z``.

The file is space-separated with a header such as ``SYS SID RAW.SCR Z.SCR N``: per (system,
segment), the mean raw score and the mean of the annotators' z-scores over ``N`` ratings
(the annotators are not named, so ``judge`` is empty). ``SID`` is kept as the segment id
(the 1-based line in the test set). Other columns (``SRC``, ``TRG``, ``N``) are ignored.
System names are kept as written (WMT21 appends a submission number, e.g. ``Facebook-AI.4``).
"""

from __future__ import annotations

from pathlib import Path

from metaeval.corpora.model import Judgments
from metaeval.errors import DataError

from ._io import parse_float, read_table, where
from ._rows import JudgmentRows

COLUMNS = {"RAW.SCR": "da", "Z.SCR": "da_z"}


def read_ad_seg_scores(path: str | Path) -> Judgments:
    """Read a WMT ``ad-seg-scores`` file."""
    table = read_table(path, delimiter=" ")
    cols = table.require(["SYS", "SID", *COLUMNS])
    rows = JudgmentRows(table.path)
    for line, f in table.rows:
        system, seg = f[cols["SYS"]], f[cols["SID"]]
        if not system or not seg:
            raise DataError(f"{where(table.path, line)}: empty SYS or SID")
        for column, kind in COLUMNS.items():
            rows.add(seg, system, "", kind, parse_float(f[cols[column]], table.path, line, column), line)
    return rows.judgments()
