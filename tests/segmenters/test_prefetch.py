"""Hashing the segmenters' files in a background thread while a run starts."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from metaeval import segmenters
from metaeval.segmenters import _deps


def _slow(done: list[str], label: str, seconds: float = 0.3):  # noqa: ANN202
    def call() -> None:
        time.sleep(seconds)
        done.append(label)

    return call


def test_a_hash_here_waits_for_the_thread(tmp_path):
    done: list[str] = []
    (tmp_path / "model.bin").write_bytes(b"x" * 1000)
    _deps.prefetch([_slow(done, "described")])
    assert _deps._PREFETCH is not None and not done  # under way
    assert _deps.fingerprint(str(tmp_path / "model.bin")).startswith("model.bin:1000B:sha256=")
    assert done == ["described"] and _deps._PREFETCH is None


def _inherited(done: list[str]) -> None:
    raise SystemExit(0 if done == ["described"] else 1)


def test_no_fork_while_the_thread_runs():
    """A fork waits for the thread (``os.register_at_fork``), so a child never inherits a lock
    the thread held."""
    done: list[str] = []
    _deps.prefetch([_slow(done, "described")])
    child = multiprocessing.get_context("fork").Process(target=_inherited, args=(done,))
    child.start()
    child.join(10)
    assert child.exitcode == 0


def test_an_error_in_the_thread_is_left_to_the_caller_and_the_rest_still_runs():
    done: list[str] = []
    _deps.prefetch([lambda: 1 / 0, _slow(done, "after", 0.0)])
    _deps.wait_for_prefetch()
    assert done == ["after"]


def test_built_in_segmenters_are_described_ahead_with_the_same_signature(monkeypatch):
    pytest.importorskip("jieba")
    expected = segmenters.get("jieba").signature()
    _deps._fingerprint.cache_clear()
    _deps._files_fingerprint.cache_clear()
    described = []
    original = _deps.prefetch
    monkeypatch.setattr(_deps, "prefetch", lambda calls: original(described.extend(calls) or described))
    segmenters.prefetch_signatures(["jieba", "char:nfkc=true", "no-such-segmenter", "jieba:hmm=false", object()])
    _deps.wait_for_prefetch()
    assert [call.__self__.name for call in described] == ["jieba", "char", "jieba"]  # built-ins by name only
    assert _deps._fingerprint.cache_info().currsize > 0  # hashed in the thread
    assert segmenters.get("jieba").signature() == expected


def test_large_files_hash_as_before(tmp_path, monkeypatch):
    """Blocks of any size give the same digest (a file longer than one block here)."""
    import hashlib

    data = bytes(range(256)) * 40
    (tmp_path / "dict.txt").write_bytes(data)
    monkeypatch.setattr(_deps, "HASH_BLOCK", 1000)
    _deps._fingerprint.cache_clear()
    want = hashlib.sha256(data).hexdigest()[:12]
    assert _deps.fingerprint(str(tmp_path / "dict.txt")) == f"dict.txt:{len(data)}B:sha256={want}"
    _deps._fingerprint.cache_clear()
