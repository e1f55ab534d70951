"""Plain-text and Markdown renderings of leaderboard sections.

Text tables are aligned for a terminal (wide CJK characters count as two columns); the
best cell of a column is followed by ``*``. Markdown tables are GitHub-flavoured; the
best cell is bold, and every string from the data is escaped so that it shows as
written. A page is: the title, an optional introduction (``intro`` lines and ``lead``
sections such as the answer, with ``lead_notes``), the signature as ``key: value`` lines
when given, the sections, one line per section whose values are all undefined, and
``footer`` lines (e.g. the signature in one line).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from metaeval.report.layout import UNDEFINED, Section

BEST_MARK = "*"


def one_line(text: str) -> str:
    """Control characters (newlines, tabs...) replaced by spaces, so a cell stays one line."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)


def display_width(text: str) -> int:
    """Terminal columns of ``text``: East Asian wide/full-width characters take two."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _pad(text: str, width: int, right: bool) -> str:
    space = " " * (width - display_width(text))
    return space + text if right else text + space


def render_text(
    title: str,
    signature: Sequence[tuple[str, str]] | None,
    sections: Sequence[Section],
    *,
    intro: Sequence[str] = (),
    lead: Sequence[Section] = (),
    lead_notes: Sequence[str] = (),
    footer: Sequence[str] = (),
) -> str:
    """Aligned plain-text tables, one per section, after the title and the introduction."""
    lines = [one_line(title), "=" * max(display_width(one_line(title)), 1), ""]
    if intro:
        lines += [one_line(t) for t in intro] + [""]
    for section in lead:
        lines += _text_table(section)
    if lead:
        lines += [one_line(n) for n in lead_notes] + [""]
    if signature is not None:
        lines.append("signature:")
        lines += [f"  {one_line(k)}: {one_line(v)}" for k, v in signature] or ["  (empty)"]
        lines.append("")
    for section in sections:
        if not section.undefined:
            lines += _text_table(section)
            lines.append("")
    undefined = [s for s in sections if s.undefined]
    if undefined:
        lines.append(f"{UNDEFINED} everywhere (every configuration undefined):")
        lines += [f"  {one_line(s.title)}: {one_line(s.undefined)}" for s in undefined]
        lines.append("")
    lines += [one_line(f) for f in footer]
    return "\n".join(lines).rstrip("\n") + "\n"


def _text_table(section: Section) -> list[str]:
    cells = [
        [one_line(c) + (BEST_MARK if (i, j) in section.marked else "") for j, c in enumerate(row)]
        for i, row in enumerate(section.rows)
    ]
    if section.marked:
        # Keep unmarked numbers aligned with marked ones: pad them by the mark's width.
        cells = [[c if (i, j) in section.marked or not section.numeric[j] or not c else c + " " for j, c in enumerate(r)]
                 for i, r in enumerate(cells)]  # fmt: skip
    header = [one_line(c) + (" " if section.marked and section.numeric[j] else "") for j, c in enumerate(section.columns)]
    widths = [max([display_width(header[j])] + [display_width(r[j]) for r in cells]) for j in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(_pad(c, w, section.numeric[j]) for j, (c, w) in enumerate(zip(row, widths))).rstrip()

    title = one_line(section.title)
    out = [title, "-" * display_width(title), line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    if section.marked:
        out.append(f"{BEST_MARK} {section.marked_as}")
    out += [one_line(n) for n in section.notes]
    return out


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#~])")


def md_escape(text: str) -> str:
    """Markdown-safe text: HTML characters as entities, Markdown punctuation backslashed."""
    text = one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def render_markdown(
    title: str,
    signature: Sequence[tuple[str, str]] | None,
    sections: Sequence[Section],
    *,
    intro: Sequence[str] = (),
    lead: Sequence[Section] = (),
    lead_notes: Sequence[str] = (),
    footer: Sequence[str] = (),
) -> str:
    """GitHub-flavoured Markdown: a heading, the introduction, the signature in a code block
    when given, one table per section, one bullet per all-undefined section, the footer."""
    lines = [f"# {md_escape(title)}", ""]
    if intro:
        lines += [md_escape(t) for t in intro] + [""]
    for section in lead:
        lines += _md_table(section)
    if lead:
        lines += [md_escape(n) for n in lead_notes] + [""] if lead_notes else []
    if signature is not None:
        lines += ["Signature:", "", *_code_block([f"{one_line(k)}: {one_line(v)}" for k, v in signature] or ["(empty)"]), ""]
    for section in sections:
        if not section.undefined:
            lines += _md_table(section)
    undefined = [s for s in sections if s.undefined]
    if undefined:
        lines += [f"## {UNDEFINED} everywhere", ""]
        lines += [f"- {md_escape(s.title)}: {md_escape(s.undefined)}" for s in undefined]
        lines.append("")
    if footer:
        lines += [md_escape(text) + "  " for text in footer] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _code_block(body: Sequence[str]) -> list[str]:
    longest = max((len(run) for b in body for run in re.findall(r"`+", b)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *body, fence]


def _md_table(section: Section) -> list[str]:
    lines = [f"## {md_escape(section.title)}", ""]
    lines.append("| " + " | ".join(md_escape(c) for c in section.columns) + " |")
    lines.append("|" + "|".join("---:" if n else ":---" for n in section.numeric) + "|")
    for i, row in enumerate(section.rows):
        cells = [md_escape(c) for c in row]
        cells = [f"**{c}**" if (i, j) in section.marked else c for j, c in enumerate(cells)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if section.marked:
        lines += [f"Bold: {md_escape(section.marked_as)}.", ""]
    lines += [f"- {md_escape(n)}" for n in section.notes]
    if section.notes:
        lines.append("")
    return lines
