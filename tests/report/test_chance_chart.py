"""The chance level drawn on a run's charts is the one the run computed: read back from the SVG of
``leaderboard.html`` through the chart's own tick labels, never from the code that draws it."""

from __future__ import annotations

import re

import pytest

from tests.test_cli import ZH, small_corpus

pytestmark = pytest.mark.skipif(not ZH.is_dir(), reason=f"shared data folder not found: {ZH}")


def _axis(svg: str) -> tuple[float, float, float]:
    """The first tick's pixel and value and the value of one pixel, from the chart's tick labels."""
    ticks = [(float(px), float(label)) for px, label in re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">([-\d.]+)</text>', svg)]
    (x0, v0), (x1, v1) = ticks[0], ticks[-1]
    return x0, v0, (v1 - v0) / (x1 - x0)


def _key(title: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in title.split(", ") if "=" in part)


def test_the_line_of_each_chart_is_the_computed_chance_level(tmp_path):
    from metaeval import api

    study = api.run(small_corpus(tmp_path, n=20), segmenters=["char"], metrics=["bleu"], bootstrap=50, chance_permutations=60,
                    kinds=["esa"], permutations=100)  # fmt: skip
    html = study.leaderboard("html")
    charts = re.findall(r"<h2>([^<]*)</h2>\s*(<svg.*?</svg>)", html, flags=re.S)
    results = study.results
    checked = 0
    for title, svg in charts:
        key = _key(title)
        rows = results[(results.statistic == key.get("statistic")) & (results.level == key.get("level"))
                       & (results.grouping.astype(str) == key.get("grouping", results.grouping.astype(str)))]  # fmt: skip
        if len(rows) != 1 or rows.chance.isna().all():
            continue
        row = rows.iloc[0]
        x0, v0, per_pixel = _axis(svg)
        off = re.search(r'fill="#c0392b">chance ([-\d.e]+) \(further (left|right)\)</text>', svg)
        if off:  # too far from the values to be drawn: the chart says on which side, and it is there
            assert float(off.group(1)) == pytest.approx(row.chance, abs=5e-4 + abs(row.chance) * 1e-3), title
            assert (row.chance < v0) if off.group(2) == "left" else (row.chance > v0), title
            continue
        line = re.search(r'<line class="chance" x1="([\d.]+)" y1="[\d.]+" x2="\1"', svg)
        label = re.search(r'fill="#c0392b">chance ([-\d.e]+)</text>', svg)
        assert line and label, title  # one configuration: its level is the chart's one line
        assert float(label.group(1)) == pytest.approx(row.chance, abs=5e-4 + abs(row.chance) * 1e-3), title  # 3 significant digits
        assert v0 + (float(line.group(1)) - x0) * per_pixel == pytest.approx(row.chance, abs=abs(per_pixel)), title  # to a pixel
        band = re.search(r'<rect class="chance-band" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)
        assert band, title
        low, width = float(band.group(1)), float(band.group(2))
        assert v0 + (low - x0) * per_pixel == pytest.approx(row.chance_low, abs=abs(per_pixel)), title
        assert v0 + (low + width - x0) * per_pixel == pytest.approx(row.chance_high, abs=abs(per_pixel)), title
        checked += 1
    assert checked >= 4, [t for t, _ in charts]
