"""The HTML system leaderboard as a browser draws it at 1280 pixels: headless Chromium lays the
page out, a script added to a copy of it reports the widths, and a screenshot is taken
(skipped, with the reason, where Chromium is not installed: apt-get install chromium)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora.model import Judgments
from metaeval.report.systems import render_board
from metaeval.scoretable import ConfigScores
from metaeval.systemrank.board import build_board

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
SYSTEMS = ["GPT-4", "Unbabel-Tower70B", "Claude-3.5", "ONLINE-B", "CommandR-plus", "Gemini-1.5-Pro", "IOL-Research",
           "Aya23", "HW-TSC", "Llama3-70B", "IKUN", "IKUN-C"]  # fmt: skip
SEGMENTERS = ["char", "cjk-char", "pkuseg", "jieba"]
N_SEG = 40
WIDTH = 1280
#: written into the copy of the page: the page's width, and the widest table's own overflow
PROBE = """<script>
const tables = [...document.querySelectorAll('table')].filter(t => !t.closest('details'));
const overflow = Math.max(...tables.map(t => t.scrollWidth - t.clientWidth));
document.body.setAttribute('data-probe', document.documentElement.scrollWidth + ' ' + overflow + ' ' + tables.length);
</script>"""


def board():
    rng = np.random.default_rng(0)
    human = np.linspace(90, 80, len(SYSTEMS))[:, None] + rng.normal(0, 8, size=(len(SYSTEMS), N_SEG))
    rows = [(str(j + 1), s, "j", "esa", float(human[i, j])) for i, s in enumerate(SYSTEMS) for j in range(N_SEG)]
    judgments = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    configs = []
    for metric in ("bleu", "nist"):
        for segmenter in SEGMENTERS:
            seg = rng.uniform(0.2, 0.5, size=(len(SYSTEMS), 1)) + rng.normal(0, 0.05, size=(len(SYSTEMS), N_SEG))
            stats = np.stack([seg, np.ones_like(seg)], axis=-1)

            def score(s: np.ndarray) -> np.ndarray:
                return s[..., 0] / s[..., 1]

            configs.append(ConfigScores(metric, segmenter, f"{metric}+{segmenter}", list(SYSTEMS), [str(j + 1) for j in range(N_SEG)],
                                        seg, score(stats.sum(axis=1)), True, stats, score))  # fmt: skip
    order = pd.DataFrame({"name": SEGMENTERS, "family": ["characters"] * 2 + ["words"] * 2, "chars_per_token": [1.0, 1.06, 1.66, 1.68]})
    return build_board(configs, judgments, n_bootstrap=100, granularities=order, dataset="wmt24-esa/en-zh")


def chromium(page, *options: str) -> subprocess.CompletedProcess:
    profile = tempfile.mkdtemp(dir=page.parent)
    return subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--hide-scrollbars",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         f"--window-size={WIDTH},1600", *options, page.as_uri()],
        capture_output=True, timeout=120,
    )  # fmt: skip


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (apt-get install chromium)")
def test_the_page_fits_1280_pixels_and_draws(tmp_path):
    html = render_board(board(), "html")
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "\n</body>"), encoding="utf-8")
    done = chromium(probe, "--dump-dom")
    assert done.returncode == 0, done.stderr[-500:]
    match = re.search(rb'data-probe="(\d+) (-?\d+) (\d+)"', done.stdout)
    assert match, done.stdout[-500:]
    page_width, table_overflow, tables = map(int, match.groups())
    assert tables == 4  # a leaderboard and a pairs table per metric
    assert page_width <= WIDTH  # no horizontal scrolling of the page
    assert table_overflow <= 0  # and no table scrolls inside it: every column is in view

    page = tmp_path / "board.html"
    page.write_text(html, encoding="utf-8")
    shot = tmp_path / "board.png"
    done = chromium(page, f"--screenshot={shot}")
    assert done.returncode == 0 and shot.is_file(), done.stderr[-500:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, 1600)
    assert len(data) > 40_000  # a drawn page: charts and tables, not a blank one
