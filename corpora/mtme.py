"""The mt-metrics-eval folder layout (google-research/mt-metrics-eval, one test set) ->
:class:`Corpus` and :class:`Judgments`.

Layout, for a language pair ``<lp>`` such as ``en-zh``::

    sources/<lp>.txt                     one segment per line
    references/<lp>.<ref>.txt            one file per reference
    system-outputs/<lp>/<system>.txt     one file per system (references may appear too)
    documents/<lp>.docs                  optional: "<domain> <doc>" per segment line
    human-scores/<lp>.<kind>.<level>.score
        level ``seg``: "<system> <score>" lines, each system's lines in segment order,
        ``None`` for an unscored segment; level ``sys``: one "<system> <score>" line per
        system. ``doc``/``domain`` levels are not read.

Segment ids are 1-based line numbers. ``kind`` is the file's name with ``-`` -> ``_``
(``wmt-z`` -> ``wmt_z``). mt-metrics-eval stores MQM as a negated penalty (higher is
better); it is negated back so that ``mqm`` keeps this project's meaning (an error
penalty, lower is better). By default a system output named like a reference is left out
(a reference scored against itself); ``include_references=True`` keeps it. System-level
scores are kept for the systems that every ``sys`` file scores.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, UsageError

from ._build import build_corpus, read_line_aligned
from ._io import check_missing_policy, describe, parse_float, read_aligned, read_table, where
from ._rows import JudgmentRows

LEVELS = ("seg", "sys", "doc", "domain")
NEGATED_KINDS = frozenset({"mqm"})


def _lp(folder: Path, lp: str | None) -> str:
    pairs = sorted(p.stem for p in (folder / "sources").glob("*.txt"))
    if lp is not None:
        if lp not in pairs:
            raise UsageError(f"{folder}: no sources/{lp}.txt; language pairs: {', '.join(pairs) or '(none)'}")
        return lp
    if len(pairs) != 1:
        raise UsageError(f"{folder}: choose a language pair (lp=...) among {', '.join(pairs) or '(none)'}")
    return pairs[0]



def _score_files(folder: Path, lp: str) -> list[tuple[Path, str, str]]:
    out = []
    for p in sorted((folder / "human-scores").glob(f"{lp}.*")):
        parts = p.name[len(lp) + 1:].split(".")
        parts = [x for x in parts if x != "score"]
        levels = [x for x in parts if x in LEVELS]
        kinds = [x for x in parts if x not in LEVELS]
        if len(levels) != 1 or len(kinds) != 1:
            raise DataError(f"{p}: expected a name <lp>.<kind>.<level>.score with level in {', '.join(LEVELS)}")
        out.append((p, kinds[0].replace("-", "_"), levels[0]))
    return out


def _score_lines(path: Path) -> list[tuple[int, str, str]]:
    table = read_table(path, delimiter=" ", header=False, n_columns=2)
    return [(line, f[0], f[1]) for line, f in table.rows]


def read_mtme_folder(
    path: str | Path,
    lp: str | None = None,
    missing: str = "error",
    include_references: bool = False,
) -> tuple[Corpus, Judgments | None]:
    """Read one language pair of an mt-metrics-eval test-set folder."""
    check_missing_policy(missing)
    folder = Path(path)
    if not (folder / "sources").is_dir():
        raise DataError(f"{folder}: no sources/ folder (not an mt-metrics-eval layout)")
    lp = _lp(folder, lp)
    source_lang, _, target_lang = lp.partition("-")
    src = folder / "sources" / f"{lp}.txt"
    ref_files = {p.name[len(lp) + 1:-len(".txt")]: p for p in sorted((folder / "references").glob(f"{lp}.*.txt"))}
    if not ref_files:
        raise DataError(f"{folder / 'references'}: no {lp}.<ref>.txt file")
    sys_dir = folder / "system-outputs" / lp
    sys_files = {p.stem: p for p in sorted(sys_dir.glob("*.txt"))} if sys_dir.is_dir() else {}
    if not include_references:
        sys_files = {k: v for k, v in sys_files.items() if k not in ref_files}
    if not sys_files:
        raise DataError(f"{sys_dir}: no system outputs (<system>.txt)")
    texts = read_line_aligned(src, ref_files, sys_files)
    seg_ids = texts.seg_ids
    docs_path = folder / "documents" / f"{lp}.docs"
    doc_ids: list[str] = []
    if docs_path.is_file():
        for i, line in enumerate(read_aligned(docs_path, len(seg_ids), src)):
            fields = line.split()
            if not fields:
                raise DataError(f"{where(docs_path, i + 1)}: empty line; expected '<domain> <doc>'")
            doc_ids.append(fields[-1])
    corpus = build_corpus(
        seg_ids=seg_ids,
        sources=texts.sources,
        references=texts.references,
        systems=texts.systems,
        doc_ids=doc_ids,
        missing=missing,
        source_lang=source_lang,
        target_lang=target_lang,
        name=f"{folder.name}/{lp}",
        origin=texts.origin,
    )
    return corpus, _read_scores(folder, lp, seg_ids, set(corpus.systems), set(corpus.seg_ids))


def _read_scores(folder: Path, lp: str, seg_ids: list[str], systems: set[str], kept: set[str]) -> Judgments | None:
    files = _score_files(folder, lp) if (folder / "human-scores").is_dir() else []
    rows = JudgmentRows(str(folder / "human-scores"))
    sys_scores: dict[str, dict[str, float]] = {}
    used = []
    for p, kind, level in files:
        sign = -1.0 if kind in NEGATED_KINDS else 1.0
        if level == "seg":
            used.append(p.name)
            counts: dict[str, int] = {}
            for line, system, raw in _score_lines(p):
                i = counts.get(system, 0)
                counts[system] = i + 1
                if i >= len(seg_ids):
                    raise DataError(f"{where(p, line)}: more than {len(seg_ids)} scores for system {system!r}")
                if raw == "None" or system not in systems or seg_ids[i] not in kept:
                    continue
                value = sign * parse_float(raw, str(p), line, f"score of {system!r}") + 0.0
                rows.add(seg_ids[i], system, "", kind, value, line)
            short = [s for s, c in counts.items() if c != len(seg_ids)]
            if short:
                raise DataError(f"{p}: system(s) {describe(short)} have {counts[short[0]]} scores, expected {len(seg_ids)}")
        elif level == "sys":
            used.append(p.name)
            for line, system, raw in _score_lines(p):
                if raw != "None":
                    sys_scores.setdefault(system, {})[kind] = sign * parse_float(raw, str(p), line, f"score of {system!r}")
    if not used:
        return None
    frame = pd.DataFrame.from_dict(sys_scores, orient="index") if sys_scores else None
    if frame is not None:
        # Judgments requires finite system scores: keep the systems scored by every kind.
        frame = frame.dropna(axis=0, how="any")
        frame.index.name = "system"
    table = rows.frame()
    return Judgments(table=table, system_scores=frame, source=f"{folder / 'human-scores'} ({', '.join(used)})")
