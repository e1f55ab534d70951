"""Assemble a :class:`Corpus`: line-aligned text files in, missing-segment policy applied."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from metaeval.corpora.model import Corpus, apply_missing_policy

from ._io import read_aligned, read_lines


def build_corpus(
    *,
    seg_ids: Sequence[str],
    sources: Sequence[str],
    references: Mapping[str, Sequence[str]],
    systems: Mapping[str, Sequence[str | None]],
    doc_ids: Sequence[str],
    missing: str,
    origin: Mapping[str, str],
    source_lang: str,
    target_lang: str,
    name: str,
) -> Corpus:
    """A Corpus in which hypotheses that are ``None`` were resolved by ``missing``
    (``error``, ``skip`` or ``empty``; see :func:`corpora.model.apply_missing_policy`)."""
    keep, completed = apply_missing_policy(seg_ids, systems, missing, origin)
    return Corpus(
        seg_ids=tuple(seg_ids[i] for i in keep),
        sources=tuple(sources[i] for i in keep),
        references={k: tuple(v[i] for i in keep) for k, v in references.items()},
        systems={name: tuple(hyps) for name, hyps in completed.items()},
        doc_ids=tuple(doc_ids[i] for i in keep) if doc_ids else (),
        source_lang=source_lang,
        target_lang=target_lang,
        name=name,
        origin=origin,
    )


@dataclass(frozen=True)
class LineAligned:
    """Texts of one-segment-per-line files, checked to have as many lines as the source."""

    sources: list[str]
    references: dict[str, list[str]]
    systems: dict[str, list[str | None]]
    origin: dict[str, str]

    @property
    def seg_ids(self) -> list[str]:
        """1-based line numbers as strings."""
        return [str(i + 1) for i in range(len(self.sources))]


def read_line_aligned(src: Path, ref_files: Mapping[str, Path], sys_files: Mapping[str, Path]) -> LineAligned:
    """Read a source file and its line-aligned reference and system files (name -> path)."""
    sources = read_lines(src)
    n = len(sources)
    origin = {"src": str(src)}
    origin.update({f"ref:{k}": str(p) for k, p in ref_files.items()})
    origin.update({f"sys:{k}": str(p) for k, p in sys_files.items()})
    return LineAligned(
        sources=sources,
        references={k: read_aligned(p, n, src) for k, p in ref_files.items()},
        systems={k: list(read_aligned(p, n, src)) for k, p in sys_files.items()},
        origin=origin,
    )
