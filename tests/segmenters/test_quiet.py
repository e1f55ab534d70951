"""In a fresh process, no built-in segmenter prints anything or writes any file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.timing import run

#: The checkout under test, so that the child process imports this code from any folder.
REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
from metaeval import segmenters
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
    env = {**os.environ, "TMPDIR": str(dirs["tmp"]), "HOME": str(dirs["home"]), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)}
    done = run(
        [sys.executable, "-c", SCRIPT], cwd=dirs["cwd"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    for name, folder in dirs.items():
        assert sorted(p.name for p in folder.rglob("*")) == [], name


EXTRA_SCRIPT = """
import socket, shutil

def _blocked(*args, **kwargs):
    raise OSError("network access attempted")

_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex
def _local_only(real):
    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _blocked()
        return real(self, address)
    return connect

# Internet sockets cannot connect or resolve names; local socket pairs still work.
socket.socket.connect = _local_only(_connect)
socket.socket.connect_ex = _local_only(_connect_ex)
socket.getaddrinfo = socket.create_connection = socket.gethostbyname = _blocked

from metaeval import segmenters
names = ["thulac", "janome", "nagisa", "mecab-ipadic", "mecab-jumandic", "sudachi-a", "sudachi-b", "sudachi-c"]
if shutil.which("chasen"):
    names.append("chasen")
texts = ["我们在北京大学学习自然语言处理。", "東京都に住んでいます。", "Hello, world!", ""]
for name in names:
    seg = segmenters.get(name)
    assert seg.segment_many(texts)[1], name
    seg.signature()
spm = segmenters.get("spm:vocab=40,type=bpe", training_text=texts * 3)
spm.segment_many(texts)
spm.signature()
segmenters.info()
"""


def test_extra_segmenters_are_quiet_offline_and_write_nothing(tmp_path: Path) -> None:
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("thulac", "janome", "nagisa", "ipadic", "jumandic", "sudachipy")):
        import pytest

        pytest.skip("the zh-extra/ja-extra packages are not installed (pip install 'metaeval[all]')")
    dirs = {name: tmp_path / name for name in ("tmp", "home", "cwd")}
    for folder in dirs.values():
        folder.mkdir()
    env = {**os.environ, "TMPDIR": str(dirs["tmp"]), "HOME": str(dirs["home"]), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)}
    done = run(
        [sys.executable, "-W", "always", "-c", EXTRA_SCRIPT], cwd=dirs["cwd"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    for name, folder in dirs.items():
        assert sorted(p.name for p in folder.rglob("*")) == [], name
