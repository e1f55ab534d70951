"""Collect judgment rows with their file lines, refusing duplicates with both line numbers."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from metaeval.corpora.model import JUDGMENT_COLUMNS, Judgments
from metaeval.errors import DataError

from ._io import where


class JudgmentRows:
    """Accumulates ``seg_id, system, judge, kind, value`` rows read from ``path``.

    A second row for the same (segment, system, judge, kind) is an error naming both
    lines, unless ``replace=True`` is passed to :meth:`add` (a later rating supersedes).
    """

    def __init__(self, path: str) -> None:
        self.path = str(path)
        self._rows: dict[tuple[str, str, str, str], float] = {}
        self._lines: dict[tuple[str, str, str, str], int] = {}

    def add(self, seg_id: str, system: str, judge: str, kind: str, value: float, line: int) -> None:
        key = (str(seg_id), str(system), str(judge), str(kind))
        if key in self._rows:
            raise DataError(
                f"{where(self.path, line)}: duplicate judgment for segment {key[0]}, system {key[1]!r}, "
                f"judge {key[2]!r}, kind {key[3]!r} (first at line {self._lines[key]})"
            )
        self._rows[key] = float(value)
        self._lines[key] = line

    def __len__(self) -> int:
        return len(self._rows)

    def frame(self) -> pd.DataFrame:
        records = [(*key, value) for key, value in self._rows.items()]
        return pd.DataFrame.from_records(records, columns=list(JUDGMENT_COLUMNS))

    def judgments(
        self,
        *,
        system_scores: pd.DataFrame | None = None,
        directions: Mapping[str, int] | None = None,
        allow_empty: bool = False,
    ) -> Judgments:
        if not self._rows and not allow_empty:
            raise DataError(f"{self.path}: no judgments found")
        return Judgments(
            table=self.frame(),
            system_scores=system_scores,
            directions=dict(directions or {}),
            source=self.path,
        )


def empty_table() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=object if c != "value" else float) for c in JUDGMENT_COLUMNS})
