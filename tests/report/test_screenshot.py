"""The HTML leaderboard as a browser draws it: a headless Chromium screenshot of the page
(skipped, with the reason, where Chromium is not installed: apt-get install chromium)."""

from __future__ import annotations

import shutil
import struct
import tempfile

import pytest

from metaeval.report import render
from tests.timing import run

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (apt-get install chromium)")
def test_headless_screenshot_of_the_html_page(tmp_path, results, signature):
    page = tmp_path / "board.html"
    page.write_text(render(results, signature, "html", layout="ranked"), encoding="utf-8")
    shot = tmp_path / "board.png"
    profile = tempfile.mkdtemp(dir=tmp_path)
    done = run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and shot.is_file(), done.stderr[-500:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1200, 1600)
    assert len(data) > 20_000  # a drawn page, not a blank one


def wide_results():
    """Six metrics by four segmenters under three statistics, values with intervals: the shape of
    a WMT24 en-zh run, whose tables were wider than a 1280-pixel window."""
    import numpy as np
    import pandas as pd

    from tests.report.conftest import result_row

    rng = np.random.default_rng(7)
    rows = []
    for statistic, level, grouping in (("consistency", "seg", "segment"), ("acc_eq", "seg", "item"), ("pearson", "sys", "")):
        for metric in ("1-ter", "bleu", "chrf", "gtm", "meteor", "nist"):
            for segmenter in ("char", "cjk-char", "jieba", "pkuseg"):
                value = float(rng.uniform(0.4, 0.6))
                rows.append(result_row(metric, segmenter, statistic, value, (value - 0.011, value + 0.012), 634,
                                       level=level, kind="esa_z", grouping=grouping, dataset="wmt24-esa"))  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (apt-get install chromium)")
def test_the_page_fits_1280_pixels_and_has_a_table_of_contents(tmp_path):
    """Drawn at 1280 pixels wide, the page does not scroll sideways and no table is wider than its
    box (measured by the browser); its table of contents has one link per section."""
    import re

    from metaeval.answer import answer

    results = wide_results()
    full = answer(results)  # every column of the answer filled, as a run with bootstrap samples has it
    full = full.assign(delta_ci_low=-0.0912, delta_ci_high=0.0003, p_value=0.0, p_adjusted=0.0, n_samples=1000)
    page = render(results, {"n_bootstrap": 1000, "segments": 634, "systems": 12}, "html", layout="table", answer=full)
    probe = (
        "<script>const wide = [...document.querySelectorAll('table')].filter("
        "t => t.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).length;"
        "document.body.setAttribute('data-measure', document.documentElement.scrollWidth + ' ' + wide);</script>"
    )
    (tmp_path / "board.html").write_text(page.replace("</body>", probe + "</body>"), encoding="utf-8")
    profile = tempfile.mkdtemp(dir=tmp_path)
    done = run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         "--window-size=1280,1000", "--dump-dom", (tmp_path / "board.html").as_uri()],
        capture_output=True, timeout=120, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-500:]
    scroll_width, wide_tables = map(int, re.search(r'data-measure="(\d+) (\d+)"', done.stdout).groups())
    assert scroll_width <= 1280 and wide_tables == 0, (scroll_width, wide_tables)
    sections = re.findall(r'<section id="([^"]+)"', page)
    links = re.findall(r'<nav class="toc">.*?</nav>', page, re.S)[0]
    assert re.findall(r'<a href="#([^"]+)"', links) == sections and len(sections) == 3 + 1 + 1 + 1 + 1  # verdict, answer, 3 rankings, glossary, signature

