"""LaTeX renderings of report sections (for papers): one ``table`` float per section.

Tables use ``booktabs`` rules (``\\toprule``, ``\\midrule``, ``\\bottomrule``); numeric
columns are right-aligned, the best cell of a column is bold, and every string from the data
is escaped so that it prints as written. The signature comes first as ``%`` comment lines,
so a table pasted into a paper still carries what produced its numbers.
"""

from __future__ import annotations

import re
from typing import Sequence

import pandas as pd

from metaeval.report.layout import Section
from metaeval.report.text import one_line

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip
_PATTERN = re.compile("|".join(re.escape(k) for k in _SPECIAL))


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, on one line."""
    return _PATTERN.sub(lambda m: _SPECIAL[m.group(0)], one_line(text))


def _table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool],
           marked: frozenset = frozenset(), notes: Sequence[str] = (), marked_as: str = "best in column") -> list[str]:  # fmt: skip
    spec = "".join("r" if n else "l" for n in numeric)
    lines = [r"\begin{table}[ht]", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & ".join(tex_escape(c) for c in columns) + r" \\")
    lines.append(r"\midrule")
    for i, row in enumerate(rows):
        cells = [tex_escape(c) for c in row]
        cells = [rf"\textbf{{{c}}}" if (i, j) in marked else c for j, c in enumerate(cells)]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    caption = tex_escape(title)
    if marked:
        caption += f" Bold: {tex_escape(marked_as)}."
    if notes:
        caption += " " + " ".join(tex_escape(n) for n in notes)
    lines += [rf"\caption{{{caption}}}", r"\end{table}", ""]
    return lines


def render_latex(title: str, signature: Sequence[tuple[str, str]] | None, sections: Sequence[Section]) -> str:
    """A LaTeX fragment: the title and signature as comments, one table per section."""
    lines = [f"% {one_line(title)}"]
    if signature is not None:
        lines += [f"% {one_line(k)}: {one_line(v)}" for k, v in signature]
    lines.append("% needs \\usepackage{booktabs}")
    lines.append("")
    for section in sections:
        lines += _table(section.title, section.columns, section.rows, section.numeric, section.marked, section.notes, section.marked_as)
    return "\n".join(lines).rstrip("\n") + "\n"


def latex_table(frame: pd.DataFrame, caption: str = "", digits: int = 4) -> str:
    """Any DataFrame as one LaTeX table (floats with ``digits`` decimals, NaN empty)."""
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns]

    def cell(value: object, is_number: bool) -> str:
        if is_number:
            number = float(value)  # type: ignore[arg-type]
            if number != number:
                return ""
            return str(int(number)) if number.is_integer() and abs(number) > 1 else f"{number:.{digits}f}"
        return str(value)

    rows = [[cell(v, n) for v, n in zip(row, numeric)] for row in frame.itertuples(index=False)]
    return "\n".join(["% needs \\usepackage{booktabs}", *_table(caption, [str(c) for c in frame.columns], rows, numeric)])


__all__ = ["latex_table", "render_latex", "tex_escape"]
