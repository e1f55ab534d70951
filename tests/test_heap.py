"""return_freed_memory: a collection, then glibc's malloc_trim where there is one."""

from __future__ import annotations

import gc
import sys

import pytest

from metaeval import heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim is Linux-only")
def test_freed_pages_go_back_on_linux(monkeypatch) -> None:
    calls: list[int] = []
    trim = heap._malloc_trim()
    assert trim is not None  # this machine's C library is glibc
    monkeypatch.setattr(heap, "_malloc_trim", lambda: lambda pad: calls.append(pad) or trim(pad))
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda: collected.append(1) or 0)
    assert heap.return_freed_memory() is True
    assert calls == [0] and collected == [1]


def test_without_malloc_trim_only_the_collection_happens(monkeypatch) -> None:
    monkeypatch.setattr(heap, "_malloc_trim", lambda: None)
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda: collected.append(1) or 0)
    assert heap.return_freed_memory() is False and collected == [1]


def test_no_trim_where_the_platform_is_not_linux(monkeypatch) -> None:
    heap._malloc_trim.cache_clear()
    monkeypatch.setattr(sys, "platform", "darwin")
    try:
        assert heap._malloc_trim() is None
    finally:
        heap._malloc_trim.cache_clear()
