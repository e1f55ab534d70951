"""Results per subset of the segments: ``--by COLUMN`` (``metaeval run``, ``correlate``, ``study``).

A column of ``docs.tsv`` (any but the segment id: ``domain``, ``doc_id``...) gives each segment
a value; every statistic is computed on the whole test set (subset :data:`ALL`) and again on
the segments of each value alone: the configurations and judgments restricted to those segments
(each system's score the metric of its summed statistics over them; system-level human scores
derived from their segment judgments, since given system scores cover the whole test set, and
kinds given only as system scores left out), and the bootstrap resampling the segments of the
value only, from the run's seed. Rows carry the value in the column :data:`SUBSET`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, UsageError
from metaeval.paths import check_input_file
from metaeval.scoretable import ConfigScores

#: The column of results, answers and comparisons that names the subset of a row.
SUBSET = "subset"
#: The subset of every segment.
ALL = "all"


@dataclass(frozen=True)
class Subsets:
    """The segments of each value of a column (values in sorted order; :data:`ALL` is not one)."""

    column: str
    members: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, column: str, values: Sequence[str], seg_ids: Sequence[str], source: str) -> Subsets:
        """From the value of ``column`` of each of ``seg_ids`` (read from ``source``)."""
        if ALL in values:
            raise DataError(f"{source}: column {column!r} has the value {ALL!r}, which names the whole test set in the outputs")
        members: dict[str, list[str]] = {}
        for seg, value in zip(seg_ids, values):
            members.setdefault(value, []).append(seg)
        return cls(column, {value: tuple(members[value]) for value in sorted(members)})

    def signature(self) -> dict[str, object]:
        return {"column": self.column, "segments": {value: len(segs) for value, segs in self.members.items()}}


def read_subsets(path: "str | Path", column: str, seg_ids: Sequence[str]) -> Subsets:
    """The segments of each value of ``column`` of a file of segments (``docs.tsv``: ``seg_id``
    or ``line_idx`` and any other columns), for ``by`` (CLI ``--by COLUMN``, ``--docs FILE``).
    A column the file lacks is a usage error naming the file and its columns."""
    from metaeval.corpora.folder import read_segment_column

    check_input_file(Path(path))
    return Subsets.of(column, read_segment_column(path, column, seg_ids), seg_ids, str(path))


def corpus_subsets(corpus: Any, corpus_obj: Corpus, by: str | None, docs: "str | Path | None") -> Subsets | None:
    """The subsets of ``by`` from ``docs``, else from the corpus folder's ``docs.tsv`` (None without ``by``)."""
    if by is None:
        return None
    path = Path(docs) if docs is not None else Path(corpus) / "docs.tsv" if isinstance(corpus, (str, Path)) else None
    if path is None or (docs is None and not path.is_file()):
        raise UsageError(
            f"--by {by}: {corpus_obj.name or 'the corpus'} has no docs.tsv to take the column from; "
            "give the file of segments with --docs FILE (docs= in Python)"
        )
    return read_subsets(path, by, corpus_obj.seg_ids)


def unit_sizes(subsets: Subsets | None, seg_ids: Sequence[str], doc_of: Mapping[str, str] | None = None) -> dict[tuple[str, str], int]:
    """The segments (and with ``doc_of``, the documents) each subset's bootstrap resamples, by
    ``(subset, level)`` as :func:`metaeval.answer.answer` takes them (subset ``""`` without ``--by``)."""
    groups = {"": tuple(seg_ids)} if subsets is None else {ALL: tuple(seg_ids), **subsets.members}
    sizes = {}
    for value, members in groups.items():
        sizes[(value, "seg")] = len(members)
        if doc_of:
            sizes[(value, "doc")] = len({doc_of[s] for s in members})
    return sizes


def restrict(configs: Sequence[ConfigScores], judgments: Judgments, seg_ids: Sequence[str]) -> tuple[list[ConfigScores], Judgments]:
    """``configs`` and ``judgments`` over ``seg_ids`` only; given system scores are dropped."""
    wanted = set(seg_ids)
    table = judgments.table[judgments.table["seg_id"].isin(wanted)].reset_index(drop=True)
    return [c.subset_segments(seg_ids) for c in configs], Judgments(table, None, judgments.directions, judgments.source)


Evaluation = Callable[[list[ConfigScores], Judgments, list[str]], tuple[pd.DataFrame, np.ndarray]]


def evaluate_subsets(
    subsets: Subsets, configs: Sequence[ConfigScores], judgments: Judgments, kinds: Sequence[str], evaluate: Evaluation
) -> list[tuple[str, pd.DataFrame, np.ndarray]]:
    """``(value, results, samples)`` of each subset: ``evaluate(configs, judgments, kinds)`` on
    its segments, with the kinds that have segment judgments there (a subset without any is left out)."""
    out = []
    for value, seg_ids in subsets.members.items():
        chosen, judged = restrict(configs, judgments, seg_ids)
        present = [k for k in kinds if k in set(judged.kinds)]
        if present:
            results, samples = evaluate(chosen, judged, present)
            out.append((value, results, samples))
    return out


def with_subsets(
    subsets: Subsets, configs: Sequence[ConfigScores], judgments: Judgments, kinds: Sequence[str], evaluate: Evaluation,
    results: pd.DataFrame, samples: np.ndarray,
) -> tuple[pd.DataFrame, np.ndarray]:
    """The whole test set's ``results`` and ``samples`` (subset :data:`ALL`) followed by those of
    each subset (:func:`evaluate_subsets`), every row labelled in the column :data:`SUBSET`."""
    parts = [(ALL, results, samples), *evaluate_subsets(subsets, configs, judgments, kinds, evaluate)]
    return joined([(value, table) for value, table, _ in parts]), np.concatenate([found for _, _, found in parts])


def evaluate_by(
    subsets: Subsets, configs: Sequence[ConfigScores], judgments: Judgments, kinds: Sequence[str] | None, settings: Any,
    **options: Any,
) -> Any:
    """:func:`metaeval.stats.evaluate.evaluate` on every segment and on those of each subset
    (:func:`with_subsets`), with its ``settings`` and ``options``; ``(table, samples)`` with
    ``return_samples=True``, else the table."""
    from metaeval.stats.evaluate import evaluate
    from metaeval.stats.human import resolve_kinds

    def evaluate_one(chosen: list[ConfigScores], judged: Judgments, present: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
        return evaluate(chosen, judged, present, settings, **{**options, "return_samples": True})

    present = resolve_kinds(judgments, kinds)
    table, samples = with_subsets(subsets, configs, judgments, present, evaluate_one, *evaluate_one(list(configs), judgments, present))
    return (table, samples) if options.get("return_samples") else table


def per_subset(
    subsets: Subsets | None, configs: Sequence[ConfigScores], judgments: Judgments, results: pd.DataFrame,
    compute: Callable[[list[ConfigScores], Judgments, pd.DataFrame], pd.DataFrame],
) -> pd.DataFrame:
    """``compute(configs, judgments, rows)`` for the rows of each subset of ``results`` (the
    whole of it without subsets), on the configurations and judgments of its segments, the
    outputs labelled and one after the other (paired comparisons of a run with ``--by``)."""
    if subsets is None or SUBSET not in results.columns:
        return compute(list(configs), judgments, results)
    parts = [(ALL, compute(list(configs), judgments, results[results[SUBSET] == ALL]))]
    for value, seg_ids in subsets.members.items():
        rows = results[results[SUBSET] == value]
        if len(rows):
            parts.append((value, compute(*restrict(configs, judgments, seg_ids), rows)))
    return joined(parts)


def labelled(frame: pd.DataFrame, value: str) -> pd.DataFrame:
    """``frame`` with the column :data:`SUBSET` set to ``value``, right after ``dataset``."""
    frame = frame.copy()
    if SUBSET in frame.columns:
        frame[SUBSET] = value
    else:
        frame.insert(1 if "dataset" in frame.columns else 0, SUBSET, value)
    return frame


def joined(parts: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """Tables of several subsets, labelled and one after the other."""
    frames = [labelled(frame, value) for value, frame in parts]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


__all__ = [
    "ALL", "SUBSET", "Evaluation", "Subsets", "corpus_subsets", "evaluate_by", "evaluate_subsets", "joined", "labelled", "per_subset", "read_subsets",
    "restrict", "unit_sizes", "with_subsets",
]  # fmt: skip
