"""The plain corpus folder (docs/design.md, "File formats read").

Layout::

    src.<src-lang>              one segment per line
    ref.<name>.<tgt-lang>       one file per reference, line-aligned with src
    systems/<name>.<tgt-lang>   one file per system, line-aligned with src
    docs.tsv                    optional: seg_id (or 0-based line_idx) -> doc_id
    judgments.tsv               optional: long form seg_id, system, judge, kind, value
    human_sys.tsv               optional: system + one numeric column per human score

Segment ids are 1-based line numbers, as strings. Language codes come from the file
suffixes; every reference and system must carry the same target language.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, UsageError

from ._build import build_corpus, read_line_aligned
from ._io import check_missing_policy, describe, parse_float, read_table, regular_files, where
from ._rows import JudgmentRows, empty_table

#: helper columns of ``human_sys.tsv`` that are counts or flags, not human scores.
HELPER_COLUMNS = frozenset({"has_output_file"})
HELPER_PREFIX = "n_"


def _split_name(path: Path, prefix: str | None) -> tuple[str, str]:
    """(name, lang) of ``[prefix.]name.lang``."""
    stem, dot, lang = path.name.rpartition(".")
    if not dot or not stem or not lang:
        raise DataError(f"{path}: expected a name with a language suffix, like <name>.zh")
    if prefix is not None:
        stem = stem[len(prefix) + 1:]
    return stem, lang


def _text_files(folder: Path, names: "Callable[[str], bool]" = lambda name: True) -> list[Path]:
    """Entries of ``folder`` (hidden ones aside) whose name ``names`` accepts; each must be a
    regular file (a folder, FIFO or dangling link is an error naming it, never dropped)."""
    return regular_files(sorted(p for p in folder.iterdir() if not p.name.startswith(".") and names(p.name)))


def _corpus_file_name(name: str) -> bool:
    """Names the plain-folder reader uses in the corpus root."""
    return name.startswith(("src.", "ref.")) or name in ("docs.tsv", "judgments.tsv", "human_sys.tsv")


def _select(kind: str, wanted: Iterable[str] | None, found: dict[str, Path], folder: Path) -> list[str]:
    if wanted is None:
        return list(found)
    wanted = list(wanted)
    unknown = [w for w in wanted if w not in found]
    if unknown:
        raise UsageError(f"{folder}: unknown {kind}(s) {describe(unknown)}; found: {describe(list(found), 50)}")
    return wanted



def read_corpus_folder(
    path: str | Path,
    missing: str = "error",
    systems: Iterable[str] | None = None,
    references: Iterable[str] | None = None,
) -> Corpus:
    """Read a plain corpus folder into a validated :class:`Corpus`.

    Every reference and system file must have exactly as many lines as ``src.<lang>``; a
    line-count mismatch cannot be resolved by a missing-segment policy (there is no way to
    tell which line is missing), so it is always an error. ``missing`` is validated and
    applied for uniformity with the other readers. ``systems``/``references`` select a
    subset by name (unknown names are a usage error).
    """
    check_missing_policy(missing)
    folder = Path(path)
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder")
    files = _text_files(folder, _corpus_file_name)
    srcs = [p for p in files if p.name.startswith("src.") and p.name.count(".") == 1]
    if not srcs:
        raise DataError(f"{folder}: no source file (expected src.<lang>, e.g. src.en)")
    if len(srcs) > 1:
        raise DataError(f"{folder}: several source files ({', '.join(p.name for p in srcs)}); expected one src.<lang>")
    src = srcs[0]
    _, source_lang = _split_name(src, "src")
    ref_files = {}
    for p in files:
        if p.name.startswith("ref.") and p.name.count(".") >= 2:
            name, _ = _split_name(p, "ref")
            ref_files[name] = p
    if not ref_files:
        raise DataError(f"{folder}: no reference file (expected ref.<name>.<lang>, e.g. ref.A.zh)")
    sys_dir = folder / "systems"
    if not sys_dir.is_dir():
        raise DataError(f"{folder}: no systems/ folder (expected systems/<name>.<lang>)")
    sys_files: dict[str, Path] = {}
    for p in _text_files(sys_dir):
        name, _ = _split_name(p, None)
        if name in sys_files:
            raise DataError(f"{p}: system {name!r} also in {sys_files[name].name}")
        sys_files[name] = p
    if not sys_files:
        raise DataError(f"{sys_dir}: no system files (expected <name>.<lang>)")
    langs: dict[str, list[str]] = {}
    for p in list(ref_files.values()) + list(sys_files.values()):
        langs.setdefault(p.name.rpartition(".")[2], []).append(p.name)
    if len(langs) > 1:
        listing = "; ".join(f"{lang}: {describe(names, 3)}" for lang, names in langs.items())
        raise DataError(f"{folder}: references and systems disagree on the target language ({listing})")
    target_lang = next(iter(langs))

    ref_names = _select("reference", references, ref_files, folder)
    sys_names = _select("system", systems, sys_files, folder)
    texts = read_line_aligned(src, {k: ref_files[k] for k in ref_names}, {k: sys_files[k] for k in sys_names})
    docs_path = folder / "docs.tsv"
    return build_corpus(
        seg_ids=texts.seg_ids,
        sources=texts.sources,
        references=texts.references,
        systems=texts.systems,
        doc_ids=read_docs(docs_path, texts.seg_ids) if os.path.lexists(docs_path) else (),
        missing=missing,
        source_lang=source_lang,
        target_lang=target_lang,
        name=f"{folder.resolve().parent.name}/{folder.resolve().name}",
        origin=texts.origin,
    )


def read_docs(path: str | Path, seg_ids: Sequence[str]) -> tuple[str, ...]:
    """Document id per segment from a TSV with ``doc_id`` and ``seg_id`` (1-based) or
    ``line_idx`` (0-based line index, as in the WMT24 extraction). Every segment must be
    listed exactly once."""
    table = read_table(path, delimiter="\t")
    by_seg = "seg_id" in table.header
    cols = table.require(["seg_id" if by_seg else "line_idx", "doc_id"])

    def seg_of(fields: Sequence[str]) -> str:
        if by_seg:
            return fields[cols["seg_id"]].strip()
        raw = fields[cols["line_idx"]].strip()
        return str(int(raw) + 1) if raw.isdigit() else f"line_idx {raw!r}"

    index = {s: i for i, s in enumerate(seg_ids)}
    docs: list[str | None] = [None] * len(seg_ids)
    first: dict[str, int] = {}
    for line, fields in table.rows:
        seg = seg_of(fields)
        if seg not in index:
            raise DataError(f"{where(path, line)}: segment {seg!r} is not in the corpus (1..{len(seg_ids)})")
        if seg in first:
            raise DataError(f"{where(path, line)}: segment {seg} listed twice (first at line {first[seg]})")
        first[seg] = line
        docs[index[seg]] = fields[cols["doc_id"]].strip()
    absent = [seg_ids[i] for i, d in enumerate(docs) if d is None]
    if absent:
        raise DataError(f"{path}: no doc_id for segment(s) {describe(absent)}")
    return tuple(docs)  # type: ignore[arg-type]


def read_segment_column(path: str | Path, column: str, seg_ids: Sequence[str]) -> tuple[str, ...]:
    """The value of ``column`` for each of ``seg_ids``, from a TSV of segments (``docs.tsv``:
    ``seg_id``, 1-based, or ``line_idx``, 0-based, and any other columns, e.g. ``domain``).
    Segments of the file that ``seg_ids`` lacks are left out; each of ``seg_ids`` must be listed
    once, with a value. A ``column`` the file does not have is a usage error naming the file and
    the columns it has."""
    table = read_table(path, delimiter="\t")
    _check_column(path, table.header, column)
    by_seg = "seg_id" in table.header
    cols = table.require(["seg_id" if by_seg else "line_idx", column])
    index = {s: i for i, s in enumerate(seg_ids)}
    values: list[str | None] = [None] * len(seg_ids)
    first: dict[str, int] = {}
    for line, fields in table.rows:
        raw = fields[cols["seg_id" if by_seg else "line_idx"]].strip()
        seg = raw if by_seg else (str(int(raw) + 1) if raw.isdigit() else f"line_idx {raw!r}")
        if seg in first:
            raise DataError(f"{where(path, line)}: segment {seg} listed twice (first at line {first[seg]})")
        first[seg] = line
        value = fields[cols[column]].strip()
        if seg in index:
            if not value:
                raise DataError(f"{where(path, line)}: segment {seg} has no value in column {column!r}")
            values[index[seg]] = value
    absent = [seg_ids[i] for i, v in enumerate(values) if v is None]
    if absent:
        raise DataError(f"{path}: no {column} for segment(s) {describe(absent)}")
    return tuple(values)  # type: ignore[arg-type]


def check_segment_column(path: str | Path, column: str) -> None:
    """A usage error naming the file and its columns unless the TSV of segments at ``path``
    (``docs.tsv``) has ``column``."""
    _check_column(path, read_table(path, delimiter="\t").header, column)


def _check_column(path: str | Path, header: Sequence[str], column: str) -> None:
    if column not in header or column in ("seg_id", "line_idx"):
        names = [name for name in header if name not in ("seg_id", "line_idx")]
        raise UsageError(f"{path}: no column {column!r} to group segments by; its columns: {', '.join(names) or '(none)'}")


def read_long_judgments(path: str | Path) -> Judgments:
    """``judgments.tsv``: long form ``seg_id, system, judge, kind, value`` (judge may be empty)."""
    table = read_table(path, delimiter="\t")
    cols = table.require(["seg_id", "system", "judge", "kind", "value"])
    rows = JudgmentRows(table.path)
    for line, f in table.rows:
        kind = f[cols["kind"]].strip()
        seg, system = f[cols["seg_id"]].strip(), f[cols["system"]].strip()
        if not seg or not system or not kind:
            raise DataError(f"{where(path, line)}: empty seg_id, system or kind")
        value = parse_float(f[cols["value"]], table.path, line, f"value of kind {kind!r}")
        rows.add(seg, system, f[cols["judge"]].strip(), kind, value, line)
    return rows.judgments()


def read_human_sys(path: str | Path) -> pd.DataFrame | None:
    """``human_sys.tsv``: a frame indexed by system with one float column per human score,
    or ``None`` when the file has a header but no rows (a pair without human scores).

    A column is a score when its first value is a number; it must then be a number on every
    row. Columns named ``n_*`` or ``has_output_file`` are counts and flags, not scores, and
    are left out, as are non-numeric columns such as ``cluster_rank``.
    """
    table = read_table(path, delimiter="\t")
    sys_col = table.require(["system"])["system"]
    if not table.rows:
        return None
    first = table.rows[0][1]
    score_cols = []
    for j, name in enumerate(table.header):
        if j == sys_col or name in HELPER_COLUMNS or name.startswith(HELPER_PREFIX):
            continue
        try:
            float(first[j])
        except ValueError:
            continue
        score_cols.append((j, name))
    seen: dict[str, int] = {}
    data: dict[str, list[float]] = {name: [] for _, name in score_cols}
    index = []
    for line, f in table.rows:
        system = f[sys_col].strip()
        if not system:
            raise DataError(f"{where(path, line)}: empty system name")
        if system in seen:
            raise DataError(f"{where(path, line)}: system {system!r} listed twice (first at line {seen[system]})")
        seen[system] = line
        index.append(system)
        for j, name in score_cols:
            data[name].append(parse_float(f[j], table.path, line, f"{name} of system {system!r}"))
    return pd.DataFrame(data, index=pd.Index(index, name="system"))


def read_system_judgments(path: str | Path) -> Judgments:
    """A ``human_sys.tsv``-style file alone: system-level scores and no segment judgments."""
    scores = read_human_sys(path)
    if scores is None or scores.empty or not len(scores.columns):
        raise DataError(f"{path}: no numeric system-level scores (expected system + score columns)")
    return Judgments(table=empty_table(), system_scores=scores, source=str(path))


def read_judgments_folder(path: str | Path) -> Judgments | None:
    """Judgments of a plain corpus folder (``judgments.tsv`` and/or ``human_sys.tsv``), or
    ``None`` when the folder has neither."""
    folder = Path(path)
    seg_path, sys_path = folder / "judgments.tsv", folder / "human_sys.tsv"
    system_scores = read_human_sys(sys_path) if os.path.lexists(sys_path) else None
    if not os.path.lexists(seg_path) and system_scores is None:
        return None
    if os.path.lexists(seg_path):
        seg = read_long_judgments(seg_path)
        table, source = seg.table, str(seg_path)
    else:
        table, source = empty_table(), str(sys_path)
    if system_scores is not None and os.path.lexists(seg_path):
        source = f"{seg_path} + {sys_path.name}"
    return Judgments(table=table, system_scores=system_scores, source=source)
