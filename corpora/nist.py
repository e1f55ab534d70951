"""NIST MT evaluation files (mteval-v13a's ``-s src -r ref -t tst`` triple) -> :class:`Corpus`.

The source file holds one ``srcset``; each reference file one or more ``refset`` (named by
``refid``, else ``sysid``); each test file one or more ``tstset`` (named by ``sysid``).
Segment order is the source's. The set id, the source language, every document and every
segment id of references and systems must match the source; a mismatch is an error naming
``file:line``. References must be complete. A system lacking a document or segment follows
the missing-segment policy (``error`` by default).

Segment ids are the source's ``<seg id>`` values when they are unique over the whole set
(as in WMT files), else ``<docid>:<id>`` (NIST files number segments within documents).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from metaeval.corpora.model import Corpus
from metaeval.errors import DataError, UsageError

from ._build import build_corpus
from ._io import describe, where
from .sgml import SgmlSet, parse_sgml

PathLike = str | Path


def _as_list(value: PathLike | Sequence[PathLike]) -> list[str]:
    if isinstance(value, (str, Path)):
        return [str(value)]
    return [str(v) for v in value]


def _sets(paths: list[str], tag: str) -> list[SgmlSet]:
    out = []
    for path in paths:
        for s in parse_sgml(path):
            if s.tag != tag:
                raise DataError(f"{where(path, s.line)}: found <{s.tag}>, expected <{tag}> in this file")
            out.append(s)
    return out


def _name(s: SgmlSet, keys: tuple[str, ...]) -> str:
    for key in keys:
        if s.attrs.get(key):
            return s.attrs[key]
    raise DataError(f"{where(s.path, s.line)}: <{s.tag}> without {' or '.join(keys)}")


def _check_header(s: SgmlSet, src: SgmlSet) -> None:
    for key in ("setid", "srclang"):
        mine, theirs = s.attrs.get(key), src.attrs.get(key)
        if mine is not None and theirs is not None and mine != theirs:
            raise DataError(
                f"{where(s.path, s.line)}: {key} {mine!r} differs from the source's {theirs!r} "
                f"({where(src.path, src.line)})"
            )


def _texts(s: SgmlSet, src: SgmlSet, name: str, complete: bool) -> dict[tuple[str, str], str]:
    """(doc, seg) -> text for one ref/tst set, checked against the source's documents."""
    out = {}
    for doc in s.docs.values():
        if doc.doc_id not in src.docs:
            raise DataError(
                f"{where(s.path, doc.line)}: document {doc.doc_id!r} of {name!r} is not in the source {src.path}"
            )
        doc_sys = doc.attrs.get("sysid")
        if doc_sys and doc_sys != name:
            raise DataError(f"{where(s.path, doc.line)}: <doc sysid={doc_sys!r}> inside the set of {name!r}")
        src_segs = src.docs[doc.doc_id].segments
        for seg in doc.segments.values():
            if seg.seg_id not in src_segs:
                raise DataError(
                    f"{where(s.path, seg.line)}: segment {seg.seg_id!r} of document {doc.doc_id!r} "
                    f"is not in the source {src.path}"
                )
            out[(doc.doc_id, seg.seg_id)] = seg.text
    if complete:
        for doc in src.docs.values():
            if doc.doc_id not in s.docs:
                raise DataError(f"{where(s.path, s.line)}: {name!r} lacks document {doc.doc_id!r} of the source")
            absent = [k for k in doc.segments if (doc.doc_id, k) not in out]
            if absent:
                raise DataError(
                    f"{where(s.path, s.docs[doc.doc_id].line)}: {name!r} lacks segment(s) {describe(absent)} "
                    f"of document {doc.doc_id!r}"
                )
    return out


def read_nist_sgml(
    src: PathLike,
    refs: PathLike | Sequence[PathLike],
    tst: PathLike | Sequence[PathLike],
    missing: str = "error",
) -> Corpus:
    """Read a NIST SGML/XML source file, reference file(s) and test file(s) into a Corpus."""
    ref_paths, tst_paths = _as_list(refs), _as_list(tst)
    if not ref_paths:
        raise UsageError("read_nist_sgml: give at least one reference file")
    if not tst_paths:
        raise UsageError("read_nist_sgml: give at least one test (system) file")
    src_sets = _sets([str(src)], "srcset")
    if len(src_sets) != 1:
        raise DataError(f"{where(src, src_sets[1].line)}: a second <srcset>; expected one per source file")
    source = src_sets[0]
    order = [(d.doc_id, k) for d in source.docs.values() for k in d.segments]
    if not order:
        raise DataError(f"{where(src, source.line)}: the srcset has no segments")
    plain_ids = [k for _, k in order]
    seg_ids = plain_ids if len(set(plain_ids)) == len(plain_ids) else [f"{d}:{k}" for d, k in order]

    target_langs: dict[str, str] = {}
    references: dict[str, list[str]] = {}
    origin = {"src": str(src)}
    for s in _sets(ref_paths, "refset"):
        _check_header(s, source)
        name = _name(s, ("refid", "sysid"))
        if name in references:
            raise DataError(f"{where(s.path, s.line)}: reference {name!r} appears twice")
        texts = _texts(s, source, name, complete=True)
        references[name] = [texts[key] for key in order]
        origin[f"ref:{name}"] = s.path
        if s.attrs.get("trglang"):
            target_langs[f"{s.path}:{s.line}"] = s.attrs["trglang"]
    systems: dict[str, list[str | None]] = {}
    for s in _sets(tst_paths, "tstset"):
        _check_header(s, source)
        name = _name(s, ("sysid",))
        if name in systems:
            raise DataError(f"{where(s.path, s.line)}: system {name!r} appears twice")
        texts = _texts(s, source, name, complete=False)
        systems[name] = [texts.get(key) for key in order]
        origin[f"sys:{name}"] = s.path
        if s.attrs.get("trglang"):
            target_langs[f"{s.path}:{s.line}"] = s.attrs["trglang"]
    if len(set(target_langs.values())) > 1:
        listing = ", ".join(f"{lang} ({place})" for place, lang in target_langs.items())
        raise DataError(f"references and systems disagree on trglang: {describe(listing.split(', '), 6)}")
    return build_corpus(
        seg_ids=seg_ids,
        sources=[source.docs[doc].segments[seg].text for doc, seg in order],
        references=references,
        systems=systems,
        doc_ids=[doc for doc, _ in order],
        missing=missing,
        source_lang=source.attrs.get("srclang", ""),
        target_lang=next(iter(target_langs.values()), ""),
        name=source.attrs.get("setid", Path(src).stem),
        origin=origin,
    )
