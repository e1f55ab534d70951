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
