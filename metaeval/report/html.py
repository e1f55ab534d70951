"""One self-contained HTML page: the answer first, then per ranking an inline SVG chart and a
table, the rankings that are undefined everywhere in one line each, and the signature last,
collapsed (``<details>``).

The page needs no external asset and no JavaScript. Charts are SVG written here rather
than by matplotlib: the markup is a few kilobytes per chart, its bytes depend only on the
results (no font or version metadata), and it scales with the page. Each chart shows one
row per configuration: a point at the value and a line over its 95% confidence interval,
its chance band behind them, on an axis fitted to the data with the chance level (or the
tie-free reference) marked by a line labelled at the line and drawn over the rows
(:mod:`metaeval.report.scale`), and ``n/a`` for an undefined value. Every string from the data or the signature is
HTML-escaped, so names such as ``<script>`` show as text.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Sequence

from metaeval.report.layout import UNDEFINED, Bar, Section, tie_free_reference
from metaeval.report.results import fmt_ci, fmt_number
from metaeval.report.scale import CHART_PIXELS, Axis, ChartScale, chart_scale, label_anchor, own_reference
from metaeval.report.text import display_width, one_line

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 80em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, td.nowrap { white-space: nowrap; }
td.best { font-weight: bold; background: #eef6ee; }
table.answer th, table.answer td { font-size: 90%; padding: 0.2em 0.4em; }
table.signature td { font-family: monospace; font-size: 90%; }
svg text { font-family: monospace; font-size: 12px; }
.notes, .context { color: #555; font-size: 90%; }
details { margin-top: 2em; }
""".strip()

ROW_HEIGHT = 20
CHAR_WIDTH = 7.3
BAR_AREA = CHART_PIXELS
CHANCE_COLOUR = "#c0392b"


def esc(text: str) -> str:
    """HTML text for any string (quotes included, so it is safe in attributes too)."""
    return escape(one_line(str(text)), quote=True)


def render_html(
    title: str,
    signature: Sequence[tuple[str, str]] | None,
    sections: Sequence[Section],
    digits: int = 3,
    *,
    intro: Sequence[str] = (),
    lead: Sequence[Section] = (),
    lead_notes: Sequence[str] = (),
    tie_free: Any = None,
    style: str = "",
) -> str:
    """The whole page as text (UTF-8, ``\\n`` line ends); ``tie_free``: the tie-free reference
    of each ranking, marked on charts whose results have no chance levels; ``style``: CSS rules
    added to the page's."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{_STYLE}\n{style}\n</style>" if style else f"<style>\n{_STYLE}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
    ]
    out += [f'<p class="context">{esc(t)}</p>' for t in intro]
    for section in lead:
        out.append('<section class="answer">')
        out.append(f"<h2>{esc(section.title)}</h2>")
        out += _table(section, "answer")
        out += [f'<p class="notes">{esc(n)}</p>' for n in lead_notes]
        out.append("</section>")
    for section in sections:
        if section.undefined:
            continue
        out.append("<section>")
        out.append(f"<h2>{esc(section.title)}</h2>")
        if section.figure:
            out.append(section.figure)
        if section.bars:
            reference = tie_free_reference(dict(section.key), tie_free)
            out.append(chart(section.bars, section.title, digits, statistic=section.statistic,
                             reference=reference if math.isfinite(reference) else None))
        out += _table(section)
        if section.marked:
            out.append(f'<p class="notes">Bold: {esc(section.marked_as)}.</p>')
        if section.notes:
            out.append('<ul class="notes">')
            out += [f"<li>{esc(n)}</li>" for n in section.notes]
            out.append("</ul>")
        out.append("</section>")
    undefined = [s for s in sections if s.undefined]
    if undefined:
        out.append(f"<h2>{UNDEFINED} everywhere</h2>")
        out.append('<ul class="notes">')
        out += [f"<li>{esc(s.title)}: {esc(s.undefined)}</li>" for s in undefined]
        out.append("</ul>")
    if signature is not None:
        out.append("<details>")
        out.append("<summary>Signature (options and versions behind every number)</summary>")
        out.append('<table class="signature">')
        out += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in signature]
        out.append("</table>")
        out.append("</details>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def _table(section: Section, css: str = "") -> list[str]:
    out = [f'<table class="{css}">' if css else "<table>", "<tr>" + "".join(f"<th>{esc(c)}</th>" for c in section.columns) + "</tr>"]
    for i, row in enumerate(section.rows):
        cells = []
        for j, cell in enumerate(row):
            flags = (("num", section.numeric[j]), ("nowrap", j in section.nowrap), ("best", (i, j) in section.marked))
            classes = [name for name, on in flags if on]
            attr = f' class="{" ".join(classes)}"' if classes else ""
            text = f"<strong>{esc(cell)}</strong>" if (i, j) in section.marked else esc(cell)
            cells.append(f"<td{attr}>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return out


def scale_of(bars: Sequence[Bar], statistic: str = "", reference: float | None = None) -> ChartScale:
    """The axis and marks of a chart (:func:`metaeval.report.scale.chart_scale`); ``reference``:
    the tie-free reference, default the statistic's own where it does not depend on the data."""
    return chart_scale(bars, own_reference(statistic) if reference is None else reference, BAR_AREA)


def axis(bars: Sequence[Bar], statistic: str = "", reference: float | None = None) -> Axis:
    """The fitted axis of a chart: every value and interval bound, and the chance level (see :func:`scale_of`)."""
    return scale_of(bars, statistic, reference).axis


def chart(bars: Sequence[Bar], title: str, digits: int = 3, statistic: str = "", reference: float | None = None) -> str:
    """Inline SVG: per configuration a point at its value, a line over its 95% interval and its
    chance band behind them; the chance level as one dashed line labelled at the line, drawn
    over the rows (see :func:`scale_of`)."""
    marks = scale_of(bars, statistic, reference)
    scale = marks.axis
    label_w = max(80.0, min(360.0, CHAR_WIDTH * max(display_width(one_line(b.label)) for b in bars) + 10))
    left, top = label_w, 34.0
    value_x = left + BAR_AREA + 10
    width = value_x + CHAR_WIDTH * (2 * digits + 14) + 8
    height = top + ROW_HEIGHT * len(bars) + 8

    def x(v: float) -> str:
        return f"{left + scale.fraction(min(max(v, scale.low), scale.high)) * BAR_AREA:.1f}"

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{esc(title)}">'
    ]
    for v in scale.ticks():
        out.append(f'<line x1="{x(v)}" y1="{top - 4:.1f}" x2="{x(v)}" y2="{height - 8:.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x(v)}" y="{top - 8:.1f}" text-anchor="middle">{scale.label(v)}</text>')
    for i, bar in enumerate(bars):
        y = top + i * ROW_HEIGHT
        mid = y + ROW_HEIGHT / 2
        defined = math.isfinite(bar.value)
        shown = fmt_number(bar.value, digits) if defined else UNDEFINED
        interval = fmt_ci(bar.ci_low, bar.ci_high, digits)
        tip = f"{bar.label}: {shown} {interval}".rstrip()
        if marks.bands and math.isfinite(bar.chance):
            tip += f"; chance {fmt_number(bar.chance, digits)} {fmt_ci(bar.chance_low, bar.chance_high, digits)}".rstrip()
        out.append(f"<g><title>{esc(tip)}</title>")
        if i % 2 == 0:
            out.append(f'<rect x="0" y="{y:.1f}" width="{width:.0f}" height="{ROW_HEIGHT}" fill="#f7f7f7"/>')
        out.append(f'<text x="{left - 6:.1f}" y="{mid + 4:.1f}" text-anchor="end">{esc(bar.label)}</text>')
        if marks.bands and bar.chance_low <= scale.high and bar.chance_high >= scale.low:  # False for NaN
            lo, hi = float(x(bar.chance_low)), float(x(bar.chance_high))
            out.append(f'<rect class="chance-band" x="{lo:.1f}" y="{y + 3:.1f}" width="{max(hi - lo, 1.0):.1f}" '
                       f'height="{ROW_HEIGHT - 6}" fill="{CHANCE_COLOUR}" fill-opacity="0.18"/>')
            if not marks.shared and math.isfinite(bar.chance):
                out.append(f'<line class="chance" x1="{x(bar.chance)}" y1="{y + 3:.1f}" x2="{x(bar.chance)}" '
                           f'y2="{y + ROW_HEIGHT - 3:.1f}" stroke="{CHANCE_COLOUR}" stroke-width="2"/>')
        if math.isfinite(bar.ci_low) and math.isfinite(bar.ci_high):
            lo_x, hi_x = x(bar.ci_low), x(bar.ci_high)
            out.append(f'<line x1="{lo_x}" y1="{mid:.1f}" x2="{hi_x}" y2="{mid:.1f}" stroke="#4c78a8" stroke-width="2"/>')
            for end in (lo_x, hi_x):
                out.append(f'<line x1="{end}" y1="{mid - 4:.1f}" x2="{end}" y2="{mid + 4:.1f}" stroke="#4c78a8" stroke-width="2"/>')
        if defined:
            out.append(f'<circle cx="{x(bar.value)}" cy="{mid:.1f}" r="4" fill="#1f3b5c"/>')
        out.append(f'<text x="{value_x:.1f}" y="{mid + 4:.1f}">{esc(f"{shown} {interval}".rstrip())}</text>')
        out.append("</g>")
    if math.isfinite(marks.line):  # after the rows, so that their shading does not hide it
        cx = x(marks.line)
        out.append(f'<line class="chance" x1="{cx}" y1="{top - 4:.1f}" x2="{cx}" y2="{height - 8:.1f}" '
                   f'stroke="{CHANCE_COLOUR}" stroke-dasharray="4 3"/>')
        anchor = label_anchor(scale.fraction(marks.line))
        out.append(f'<text x="{cx}" y="12" text-anchor="{anchor}" fill="{CHANCE_COLOUR}">{esc(marks.label)}</text>')
    elif marks.label:
        anchor, tx = ("start", left) if scale.chance_side == "left" else ("end", left + BAR_AREA)
        out.append(f'<text x="{tx:.1f}" y="12" text-anchor="{anchor}" fill="{CHANCE_COLOUR}">{esc(marks.label)}</text>')
    out.append("</svg>")
    return "\n".join(out)
