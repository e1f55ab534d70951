"""SegmentationCache: each distinct text segmented once per signature; optional folder."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path

from metaeval import segmenters
from metaeval.segmenters import SegmentationCache
from metaeval.segmenters.cache import cache_file_name


class Counting:
    """A segmenter that records what it was asked to segment."""

    name = "counting"

    def __init__(self, tag: str = "v1") -> None:
        self.tag = tag
        self.seen: list[str] = []

    def __call__(self, text: str) -> list[str]:
        return text.split()

    def segment_many(self, texts: list[str]) -> list[list[str]]:
        self.seen.extend(texts)
        return [self(t) for t in texts]

    def signature(self) -> str:
        return f"counting|{self.tag}"


def test_each_distinct_text_is_segmented_once() -> None:
    cache, seg = SegmentationCache(), Counting()
    assert cache.segment(seg, ["a b", "c", "a b"]) == [["a", "b"], ["c"], ["a", "b"]]
    assert cache.segment(seg, ["c", "d e"]) == [["c"], ["d", "e"]]
    assert seg.seen == ["a b", "c", "d e"]
    assert cache.misses == 3 and len(cache) == 3


def test_keys_include_the_signature() -> None:
    cache = SegmentationCache()
    char, lower = segmenters.get("char"), segmenters.get("char", lowercase=True)
    assert cache.segment(char, ["Ab"]) == [["A", "b"]]
    assert cache.segment(lower, ["Ab"]) == [["a", "b"]]
    assert cache.misses == 2


def test_returned_lists_are_copies() -> None:
    cache = SegmentationCache()
    first = cache.segment(Counting(), ["a b"])
    first[0].append("x")
    assert cache.segment(Counting(), ["a b"]) == [["a", "b"]]


def test_persistent_folder_round_trip(tmp_path: Path) -> None:
    SegmentationCache(tmp_path).segment(Counting(), ["我 来", "b"])
    [file] = list(tmp_path.iterdir())
    assert file.name == cache_file_name("counting|v1") and file.name.startswith("seg-")
    data = json.loads(file.read_text(encoding="utf-8"))
    tokens = {"我 来": ["我", "来"], "b": ["b"]}
    canonical = json.dumps(["counting|v1", tokens], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert data == {"signature": "counting|v1", "sha256": digest, "tokens": tokens}

    again, seg = SegmentationCache(tmp_path), Counting()
    assert again.segment(seg, ["b", "c", "我 来"]) == [["b"], ["c"], ["我", "来"]]
    assert seg.seen == ["c"]
    other = Counting(tag="v2")
    SegmentationCache(tmp_path).segment(other, ["b"])
    assert other.seen == ["b"]  # a new signature does not reuse v1's tokens
    assert len(list(tmp_path.glob("seg-*.json"))) == 2
    assert list(tmp_path.glob(".seg-*")) == []  # no temporary file left behind


def test_corrupt_or_foreign_files_are_ignored_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / cache_file_name("counting|v1")
    path.write_text("{not json", encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a"]) == [["a"]]
    assert json.loads(path.read_text(encoding="utf-8"))["tokens"] == {"a": ["a"]}
    path.write_text(json.dumps({"signature": "someone else", "tokens": {"a": ["WRONG"]}}), encoding="utf-8")
    assert SegmentationCache(tmp_path).segment(Counting(), ["a"]) == [["a"]]


def test_altered_tokens_fail_the_checksum_and_are_segmented_again(tmp_path: Path) -> None:
    SegmentationCache(tmp_path).segment(Counting(), ["a b", "c"])
    path = tmp_path / cache_file_name("counting|v1")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tokens"]["a b"] = ["WRONG"]  # same shape, valid JSON, right signature: only the checksum tells
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a b", "c"]) == [["a", "b"], ["c"]]
    assert seg.seen == ["a b", "c"]
    assert json.loads(path.read_text(encoding="utf-8"))["tokens"]["a b"] == ["a", "b"]


def test_lookup_and_store_add_tokens_segmented_elsewhere(tmp_path: Path) -> None:
    cache, seg = SegmentationCache(tmp_path), Counting()
    assert cache.lookup(seg, ["x y"]) == {}
    cache.store(seg, {"x y": ["x", "y"]})
    again = SegmentationCache(tmp_path)
    assert again.lookup(seg, ["x y", "z"]) == {"x y": ("x", "y")}
    assert again.segment(seg, ["x y"]) == [["x", "y"]] and seg.seen == []


def _fill(args: tuple[str, int]) -> int:
    folder, worker = args
    cache = SegmentationCache(folder)
    for i in range(20):
        cache.segment(Counting(), [f"w{worker} t{i}", "shared text"])
    return worker


def test_two_processes_sharing_a_folder_never_corrupt_it(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert sorted(pool.map(_fill, [(str(tmp_path), 0), (str(tmp_path), 1)])) == [0, 1]
    [file] = list(tmp_path.glob("seg-*.json"))
    data = json.loads(file.read_text(encoding="utf-8"))  # complete, valid JSON
    assert data["signature"] == "counting|v1"
    # The last writer's entries are there; entries lost to a concurrent write only cost time.
    assert "shared text" in data["tokens"] and ({"w0 t19", "w1 t19"} & set(data["tokens"]))
    assert all(tokens == text.split() for text, tokens in data["tokens"].items())
    assert list(tmp_path.glob(".seg-*")) == []


def test_storing_only_known_texts_writes_nothing(tmp_path: Path) -> None:
    cache, seg = SegmentationCache(tmp_path), Counting()
    cache.store(seg, {"x y": ["x", "y"]})
    path = tmp_path / cache_file_name(seg.signature())
    before = path.stat().st_mtime_ns
    cache.store(seg, {"x y": ["x", "y"]})
    assert path.stat().st_mtime_ns == before and cache.misses == 1


def test_a_cache_without_folder_has_no_file_path() -> None:
    import pytest

    with pytest.raises(ValueError, match="no directory"):
        SegmentationCache()._path("counting|v1")


def test_an_entry_that_is_a_folder_is_one_error_naming_it(tmp_path: Path) -> None:
    import pytest

    from metaeval.errors import FileSystemError

    seg = Counting()
    (tmp_path / cache_file_name(seg.signature())).mkdir()
    with pytest.raises(FileSystemError, match=r"seg-[0-9a-f]{24}\.json: segmentation cache entry"):
        SegmentationCache(tmp_path).segment(seg, ["a b"])


def test_an_unwritable_cache_folder_is_one_error_naming_it(tmp_path: Path) -> None:
    import pytest

    from metaeval.errors import FileSystemError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(FileSystemError, match=r"file/sub/seg-[0-9a-f]{24}\.json: segmentation cache entry a path component is a file"):
        SegmentationCache(blocker / "sub").segment(Counting(), ["a b"])


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    import os

    import pytest

    from metaeval.errors import FileSystemError

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(FileSystemError, match=r"seg-[0-9a-f]{24}\.json: cannot write segmentation cache: no space left on device \(disk full\)"):
        SegmentationCache(tmp_path).segment(Counting(), ["a b"])
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    import os

    import pytest

    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        SegmentationCache(tmp_path).segment(Counting(), ["a b"])
    assert list(tmp_path.iterdir()) == []


def test_a_write_merges_what_another_cache_wrote_since_and_skips_reading_an_unchanged_file(tmp_path: Path, monkeypatch) -> None:
    seg = Counting()
    first, second = SegmentationCache(tmp_path), SegmentationCache(tmp_path)
    first.store(seg, {"a": ["a"]})
    second.store(seg, {"b": ["b"]})  # reads the file first wrote, then writes both
    first.store(seg, {"c": ["c"]})  # the file changed since first wrote it: merged again
    assert SegmentationCache(tmp_path).lookup(seg, ["a", "b", "c"]) == {"a": ("a",), "b": ("b",), "c": ("c",)}
    reads: list[str] = []
    read = SegmentationCache._read
    monkeypatch.setattr(SegmentationCache, "_read", lambda self, sig: reads.append(sig) or read(self, sig))
    first.store(seg, {"d": ["d"]})  # unchanged since first wrote it: written without reading it back
    assert reads == []
    assert SegmentationCache(tmp_path).lookup(seg, ["a", "b", "c", "d"]) == {t: (t,) for t in "abcd"}


def test_valid_tokens_is_the_definition() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from metaeval.segmenters.cache import _valid_tokens

    def by_definition(entry: object) -> bool:
        return isinstance(entry, list) and all(
            isinstance(t, str) and t != "" and not any(ch.isspace() for ch in t) for t in entry
        )

    alphabet = st.sampled_from(list("ab字\u3000\u00a0\u2028\u200b\x1c\t \n\ufeff") + [chr(0x85)])
    items = st.one_of(st.text(alphabet, max_size=4), st.integers(), st.none())

    @settings(max_examples=500, deadline=None)
    @given(st.one_of(st.lists(items, max_size=5), st.text(max_size=3), st.none()))
    def agree(entry: object) -> None:
        assert _valid_tokens(entry) == by_definition(entry)

    agree()


def test_the_digest_is_checked_on_the_files_bytes_and_older_layouts_still_read(tmp_path: Path, monkeypatch) -> None:
    from metaeval.segmenters import cache as cache_module

    SegmentationCache(tmp_path).segment(Counting(), ["a b", "c"])
    path = tmp_path / cache_file_name("counting|v1")
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{"signature":"counting|v1","sha256":"') and text.endswith('"tokens":{"a b":["a","b"],"c":["c"]}}')
    # Read back without encoding the tokens again ...
    encoded: list[object] = []
    canonical = cache_module._canonical
    monkeypatch.setattr(cache_module, "_canonical", lambda tokens: encoded.append(tokens) or canonical(tokens))
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a b", "c"]) == [["a", "b"], ["c"]] and seg.seen == []
    assert encoded == []
    # ... and one changed byte of the tokens is caught there.
    path.write_text(text.replace('["a","b"]', '["a","x"]'), encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a b", "c"]) == [["a", "b"], ["c"]] and seg.seen == ["a b", "c"]
    # A file of the earlier layout (spaces after separators, keys unsorted) is checked by encoding again.
    data = json.loads(text)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["c", "a b"]) == [["c"], ["a", "b"]] and seg.seen == []
