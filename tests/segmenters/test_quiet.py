"""In a fresh process, no built-in segmenter prints anything or writes any file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import segmenters
for name in ("char", "cjk-char", "whitespace", "13a", "intl", "sacrebleu-zh", "jieba", "jieba-nohmm", "pkuseg", "mecab"):
    seg = segmenters.get(name)
    seg.segment_many(["我来到北京清华大学。", "私は東京に行きました。", "Hello, world!"])
    seg.signature()
segmenters.info()
"""


def test_builtins_print_nothing_and_write_no_file(tmp_path: Path) -> None:
    dirs = {name: tmp_path / name for name in ("tmp", "home", "cwd")}
    for folder in dirs.values():
        folder.mkdir()
    env = {**os.environ, "TMPDIR": str(dirs["tmp"]), "HOME": str(dirs["home"]), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=dirs["cwd"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    for name, folder in dirs.items():
        assert sorted(p.name for p in folder.rglob("*")) == [], name
