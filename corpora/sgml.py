"""A safe tokenizer for NIST MT SGML/XML files (``srcset``/``refset``/``tstset``).

It is a hand-written scanner, not an XML parser, so nothing can ever be fetched or
expanded: a DOCTYPE that declares entities (the XXE and "billion laughs" attacks) is
refused, and only the five standard named entities (``amp lt gt quot apos``) and
numeric character references are decoded; any other ``&name;`` is an error.

It accepts the SGML variants that mteval-v13a accepts: tag and attribute names in any
case, attribute values quoted with ``"`` or ``'`` or unquoted, an optional ``<mteval>``
wrapper and ignorable wrappers such as ``<p>``/``<hl>`` around segments. Inside a
``<seg>``, anything that is not ``</seg>`` is text (so a system output containing
``<unk>`` survives), as in mteval's ``<seg ...>(.*?)</seg>`` match. Like mteval, it
requires ``</seg>``: a segment left open is an error naming the line where it began.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from metaeval.errors import DataError

from ._io import read_text, where

SET_TAGS = ("srcset", "refset", "tstset")
NAMED_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}

_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)((?:[^<>\"']|\"[^\"]*\"|'[^']*')*)>")
_ATTR = re.compile(r"([A-Za-z_][\w.:-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+))")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9._-]*);")
_DOCTYPE = re.compile(r"<!DOCTYPE\b[^\[>]*(\[.*?\])?\s*>", re.S | re.I)


@dataclass
class Segment:
    seg_id: str
    text: str
    line: int


@dataclass
class Document:
    doc_id: str
    attrs: dict[str, str]
    line: int
    segments: dict[str, Segment] = field(default_factory=dict)


@dataclass
class SgmlSet:
    """One ``srcset``/``refset``/``tstset`` with its documents in file order."""

    tag: str
    attrs: dict[str, str]
    path: str
    line: int
    docs: dict[str, Document] = field(default_factory=dict)


class _Lines:
    def __init__(self, text: str) -> None:
        self.breaks = [m.start() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_left(self.breaks, offset) + 1


def decode_entities(text: str, path: str, line: int) -> str:
    """Decode the five standard named entities and numeric references; others are errors.
    A bare ``&`` that does not form a reference is kept as is (common in old SGML)."""

    def repl(m: re.Match) -> str:
        name = m.group(1)
        if name.startswith("#"):
            try:
                code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
                if code == 0 or 0xD800 <= code <= 0xDFFF:
                    raise ValueError
                return chr(code)
            except (ValueError, OverflowError):
                raise DataError(f"{where(path, line)}: invalid character reference &{name};") from None
        if name in NAMED_ENTITIES:
            return NAMED_ENTITIES[name]
        raise DataError(
            f"{where(path, line)}: undefined entity &{name}; (only &amp; &lt; &gt; &quot; &apos; "
            "and numeric references are decoded)"
        )

    return _ENTITY.sub(repl, text) if "&" in text else text


def _attrs(raw: str, path: str, line: int) -> dict[str, str]:
    return {
        m.group(1).lower(): decode_entities(next(g for g in m.groups()[1:] if g is not None), path, line)
        for m in _ATTR.finditer(raw)
    }


def parse_sgml(path: str) -> list[SgmlSet]:
    """All sets of a NIST SGML/XML file, validated for structure (unclosed or stray tags,
    duplicate documents or segments, missing ``docid``/``id``)."""
    path = str(path)
    text = read_text(path)
    line_of = _Lines(text)
    sets: list[SgmlSet] = []
    cur_set: SgmlSet | None = None
    cur_doc: Document | None = None
    seg_start: tuple[int, int, dict[str, str]] | None = None  # (text offset, line, attrs)
    pos = 0
    while True:
        i = text.find("<", pos)
        if i < 0:
            break
        line = line_of(i)
        if seg_start is not None:
            if text.startswith("</", i):
                m = _TAG.match(text, i)
                if m and m.group(2).lower() == "seg":
                    _close_seg(text[seg_start[0]:i], seg_start, cur_doc, path)  # type: ignore[arg-type]
                    seg_start = None
                    pos = m.end()
                    continue
            m = _TAG.match(text, i)
            if m and m.group(2).lower() in ("seg", "doc") + SET_TAGS:
                raise DataError(f"{where(path, seg_start[1])}: <seg> not closed before line {line} (expected </seg>)")
            pos = i + 1
            continue
        if text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            if end < 0:
                raise DataError(f"{where(path, line)}: unclosed comment")
            pos = end + 3
            continue
        if text.startswith("<!", i):
            m = _DOCTYPE.match(text, i)
            if m is None:
                raise DataError(f"{where(path, line)}: unsupported or malformed declaration {text[i:i + 20]!r}")
            if m.group(1) and re.search(r"<!ENTITY", m.group(1), re.I):
                raise DataError(
                    f"{where(path, line)}: DOCTYPE declares entities; refused (entities are never expanded)"
                )
            pos = m.end()
            continue
        if text.startswith("<?", i):
            end = text.find("?>", i + 2)
            if end < 0:
                raise DataError(f"{where(path, line)}: unclosed processing instruction")
            pos = end + 2
            continue
        m = _TAG.match(text, i)
        if m is None:
            raise DataError(f"{where(path, line)}: malformed or unclosed tag {text[i:i + 30]!r}")
        pos = m.end()
        closing, name = m.group(1) == "/", m.group(2).lower()
        attrs = _attrs(m.group(3), path, line)
        if name in SET_TAGS:
            if not closing:
                if cur_set is not None:
                    raise DataError(f"{where(path, line)}: <{name}> inside <{cur_set.tag}> opened at line {cur_set.line}")
                cur_set = SgmlSet(tag=name, attrs=attrs, path=path, line=line)
            else:
                if cur_set is None or cur_set.tag != name:
                    raise DataError(f"{where(path, line)}: </{name}> without a matching <{name}>")
                if cur_doc is not None:
                    raise DataError(f"{where(path, cur_doc.line)}: <doc> not closed before </{name}> at line {line}")
                sets.append(cur_set)
                cur_set = None
        elif name == "doc":
            if not closing:
                if cur_set is None:
                    raise DataError(f"{where(path, line)}: <doc> outside a srcset/refset/tstset")
                if cur_doc is not None:
                    raise DataError(f"{where(path, cur_doc.line)}: <doc> not closed before line {line}")
                doc_id = attrs.get("docid")
                if not doc_id:
                    raise DataError(f"{where(path, line)}: <doc> without docid")
                if doc_id in cur_set.docs:
                    raise DataError(
                        f"{where(path, line)}: document {doc_id!r} appears twice in this set "
                        f"(first at line {cur_set.docs[doc_id].line})"
                    )
                cur_doc = Document(doc_id=doc_id, attrs=attrs, line=line)
                if m.group(3).rstrip().endswith("/"):
                    cur_set.docs[doc_id] = cur_doc
                    cur_doc = None
            else:
                if cur_doc is None:
                    raise DataError(f"{where(path, line)}: </doc> without a matching <doc>")
                cur_set.docs[cur_doc.doc_id] = cur_doc  # type: ignore[union-attr]
                cur_doc = None
        elif name == "seg":
            if closing:
                raise DataError(f"{where(path, line)}: </seg> without a matching <seg>")
            if cur_doc is None:
                raise DataError(f"{where(path, line)}: <seg> outside a <doc>")
            seg_start = (m.end(), line, attrs)
        # Any other tag (mteval, p, hl, headline...) is structure that carries no text.
    if seg_start is not None:
        raise DataError(f"{where(path, seg_start[1])}: <seg> never closed (expected </seg>)")
    if cur_doc is not None:
        raise DataError(f"{where(path, cur_doc.line)}: <doc> never closed (expected </doc>)")
    if cur_set is not None:
        raise DataError(f"{where(path, cur_set.line)}: <{cur_set.tag}> never closed (expected </{cur_set.tag}>)")
    if not sets:
        raise DataError(f"{path}: no srcset, refset or tstset found")
    return sets


def _close_seg(raw: str, start: tuple[int, int, dict[str, str]], doc: Document, path: str) -> None:
    _, line, attrs = start
    seg_id = attrs.get("id")
    if not seg_id:
        raise DataError(f"{where(path, line)}: <seg> without id")
    if seg_id in doc.segments:
        raise DataError(
            f"{where(path, line)}: segment id {seg_id!r} appears twice in document {doc.doc_id!r} "
            f"(first at line {doc.segments[seg_id].line})"
        )
    doc.segments[seg_id] = Segment(seg_id=seg_id, text=decode_entities(raw, path, line), line=line)
