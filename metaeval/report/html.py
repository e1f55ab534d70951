"""One self-contained HTML page: signature, and per section an inline SVG chart and a table.

The page needs no external asset and no JavaScript. Charts are SVG written here rather
than by matplotlib: the markup is a few kilobytes per chart, its bytes depend only on the
results (no font or version metadata), and it scales with the page. Each chart shows one
horizontal bar per configuration, with the 95% confidence interval as a whisker, and
``n/a`` for an undefined value. Every string from the data or the signature is
HTML-escaped, so names such as ``<script>`` show as text.
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

from metaeval.report.layout import UNDEFINED, Bar, Section
from metaeval.report.results import fmt_ci, fmt_number
from metaeval.report.text import display_width, one_line

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { font-weight: bold; background: #eef6ee; }
table.signature td { font-family: monospace; font-size: 90%; }
svg text { font-family: monospace; font-size: 12px; }
.notes { color: #555; font-size: 90%; }
""".strip()

ROW_HEIGHT = 20
CHAR_WIDTH = 7.3
BAR_AREA = 360


def esc(text: str) -> str:
    """HTML text for any string (quotes included, so it is safe in attributes too)."""
    return escape(one_line(str(text)), quote=True)


def render_html(
    title: str, signature: Sequence[tuple[str, str]] | None, sections: Sequence[Section], digits: int = 3
) -> str:
    """The whole page as text (UTF-8, ``\\n`` line ends)."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{_STYLE}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
    ]
    if signature is not None:
        out.append("<h2>Signature</h2>")
        out.append('<table class="signature">')
        out += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in signature]
        out.append("</table>")
    for section in sections:
        out.append("<section>")
        out.append(f"<h2>{esc(section.title)}</h2>")
        if section.bars:
            out.append(chart(section.bars, section.title, digits))
        out += _table(section)
        if section.marked:
            out.append('<p class="notes">Bold: best in column.</p>')
        if section.notes:
            out.append('<ul class="notes">')
            out += [f"<li>{esc(n)}</li>" for n in section.notes]
            out.append("</ul>")
        out.append("</section>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def _table(section: Section) -> list[str]:
    out = ["<table>", "<tr>" + "".join(f"<th>{esc(c)}</th>" for c in section.columns) + "</tr>"]
    for i, row in enumerate(section.rows):
        cells = []
        for j, cell in enumerate(row):
            classes = [name for name, on in (("num", section.numeric[j]), ("best", (i, j) in section.marked)) if on]
            attr = f' class="{" ".join(classes)}"' if classes else ""
            text = f"<strong>{esc(cell)}</strong>" if (i, j) in section.marked else esc(cell)
            cells.append(f"<td{attr}>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return out


def _nice_step(span: float) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k giving at most 10 intervals over ``span``."""
    exponent = math.floor(math.log10(span / 10))
    for base in (1.0, 2.0, 2.5, 5.0, 10.0):
        step = base * 10.0**exponent
        if span / step <= 10 + 1e-9:
            return step
    return 10.0 ** (exponent + 1)


def axis(bars: Sequence[Bar]) -> tuple[float, float, float]:
    """``(low, high, step)``: a domain holding 0, every value and every CI bound, on ticks."""
    finite = [v for b in bars for v in (b.value, b.ci_low, b.ci_high) if math.isfinite(v)]
    low, high = min(finite + [0.0]), max(finite + [0.0])
    if high - low <= 0:
        high = low + 1.0
    step = _nice_step(high - low)
    low = math.floor(low / step + 1e-9) * step
    high = math.ceil(high / step - 1e-9) * step
    return low, high, step


def chart(bars: Sequence[Bar], title: str, digits: int = 3) -> str:
    """Inline SVG: one horizontal bar per configuration with its CI whisker."""
    low, high, step = axis(bars)
    label_w = max(80.0, min(360.0, CHAR_WIDTH * max(display_width(one_line(b.label)) for b in bars) + 10))
    left, top = label_w, 24.0
    value_x = left + BAR_AREA + 8
    width = value_x + CHAR_WIDTH * (digits + 3) + 8
    height = top + ROW_HEIGHT * len(bars) + 8

    def x(v: float) -> str:
        return f"{left + (v - low) / (high - low) * BAR_AREA:.1f}"

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{esc(title)}">'
    ]
    ticks = int(round((high - low) / step))
    for k in range(ticks + 1):
        v = low + k * step
        out.append(f'<line x1="{x(v)}" y1="{top - 4:.1f}" x2="{x(v)}" y2="{height - 8:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x(v)}" y="{top - 8:.1f}" text-anchor="middle">{fmt_number(v, 2)}</text>')
    out.append(f'<line x1="{x(0.0)}" y1="{top - 4:.1f}" x2="{x(0.0)}" y2="{height - 8:.1f}" stroke="#888"/>')
    for i, bar in enumerate(bars):
        y = top + i * ROW_HEIGHT
        mid = y + ROW_HEIGHT / 2
        defined = math.isfinite(bar.value)
        shown = fmt_number(bar.value, digits) if defined else UNDEFINED
        tip = f"{bar.label}: {shown} {fmt_ci(bar.ci_low, bar.ci_high, digits)}".rstrip()
        out.append(f"<g><title>{esc(tip)}</title>")
        out.append(f'<text x="{left - 6:.1f}" y="{mid + 4:.1f}" text-anchor="end">{esc(bar.label)}</text>')
        if defined:
            a, b = sorted((float(x(0.0)), float(x(bar.value))))
            out.append(f'<rect x="{a:.1f}" y="{y + 3:.1f}" width="{b - a:.1f}" height="{ROW_HEIGHT - 6}" fill="#4c78a8"/>')
        if math.isfinite(bar.ci_low) and math.isfinite(bar.ci_high):
            lo, hi = x(bar.ci_low), x(bar.ci_high)
            out.append(f'<line x1="{lo}" y1="{mid:.1f}" x2="{hi}" y2="{mid:.1f}" stroke="#222"/>')
            for end in (lo, hi):
                out.append(f'<line x1="{end}" y1="{mid - 5:.1f}" x2="{end}" y2="{mid + 5:.1f}" stroke="#222"/>')
        out.append(f'<text x="{value_x:.1f}" y="{mid + 4:.1f}">{esc(shown)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
