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


def _block_digest(signature: str, tokens: dict[str, str]) -> str:
    canonical = json.dumps([signature, tokens], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_persistent_folder_round_trip(tmp_path: Path) -> None:
    SegmentationCache(tmp_path).segment(Counting(), ["我 来", "b"])
    [file] = list(tmp_path.iterdir())
    assert file.name == cache_file_name("counting|v1") and file.name.startswith("seg-") and file.name.endswith(".jsonl")
    [line] = file.read_text(encoding="utf-8").splitlines()
    tokens = {"我 来": "我 来", "b": "b"}
    assert json.loads(line) == {"signature": "counting|v1", "sha256": _block_digest("counting|v1", tokens), "tokens": tokens}

    again, seg = SegmentationCache(tmp_path), Counting()
    assert again.segment(seg, ["b", "c", "我 来"]) == [["b"], ["c"], ["我", "来"]]
    assert seg.seen == ["c"]
    assert len(file.read_text(encoding="utf-8").splitlines()) == 2  # "c" appended as a block of its own
    other = Counting(tag="v2")
    SegmentationCache(tmp_path).segment(other, ["b"])
    assert other.seen == ["b"]  # a new signature does not reuse v1's tokens
    assert len(list(tmp_path.glob("seg-*.jsonl"))) == 2
    assert list(tmp_path.glob(".seg-*")) == []  # no temporary file left behind


def test_an_append_costs_what_is_new_and_reads_nothing_back(tmp_path: Path, monkeypatch) -> None:
    cache, seg = SegmentationCache(tmp_path), Counting()
    cache.store(seg, {f"t{i}": [f"t{i}"] for i in range(1000)})
    path = tmp_path / cache_file_name(seg.signature())
    size = path.stat().st_size
    reads: list[str] = []
    read = SegmentationCache._read
    monkeypatch.setattr(SegmentationCache, "_read", lambda self, sig: reads.append(sig) or read(self, sig))
    cache.store(seg, {"new": ["new"]})
    assert reads == [] and path.stat().st_size - size < 200


def test_corrupt_or_foreign_files_are_ignored_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / cache_file_name("counting|v1")
    path.write_text("{not json", encoding="utf-8")
    seg = Counting()
    cache = SegmentationCache(tmp_path)
    assert cache.segment(seg, ["a"]) == [["a"]] and cache.rejected == [str(path)]
    [line] = path.read_text(encoding="utf-8").splitlines()  # rewritten without the bad block
    assert json.loads(line)["tokens"] == {"a": "a"}
    path.write_text(json.dumps({"signature": "someone else", "tokens": {"a": "WRONG"}}) + "\n", encoding="utf-8")
    assert SegmentationCache(tmp_path).segment(Counting(), ["a"]) == [["a"]]


def test_altered_tokens_fail_the_checksum_and_are_segmented_again(tmp_path: Path) -> None:
    SegmentationCache(tmp_path).segment(Counting(), ["a b", "c"])
    SegmentationCache(tmp_path).segment(Counting(), ["d"])
    path = tmp_path / cache_file_name("counting|v1")
    first, second = path.read_text(encoding="utf-8").splitlines()
    # same shape, valid JSON, right signature: only the checksum tells
    path.write_text(first.replace('"a b":"a b"', '"a b":"WRONG"') + "\n" + second + "\n", encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a b", "c", "d"]) == [["a", "b"], ["c"], ["d"]]
    assert seg.seen == ["a b", "c"]  # the other block is still trusted
    assert SegmentationCache(tmp_path).lookup(Counting(), ["a b", "c", "d"]) == {"a b": ("a", "b"), "c": ("c",), "d": ("d",)}
    assert "WRONG" not in path.read_text(encoding="utf-8")


def test_a_block_cut_short_is_dropped_and_the_next_block_starts_a_line_of_its_own(tmp_path: Path) -> None:
    seg = Counting()
    writer = SegmentationCache(tmp_path)
    writer.segment(seg, ["a", "b"])
    path = tmp_path / cache_file_name(seg.signature())
    path.write_bytes(path.read_bytes()[:-7])  # as if that write had stopped part-way
    writer.store(seg, {"c": ["c"]})  # appended after the torn block, by a cache that read the file before
    assert path.read_bytes().count(b"\n") == 2
    cache, again = SegmentationCache(tmp_path), Counting()
    assert cache.segment(again, ["a", "b", "c"]) == [["a"], ["b"], ["c"]]
    assert again.seen == ["a", "b"] and cache.rejected == [str(path)]
    lines = path.read_text(encoding="utf-8").splitlines()  # written again, without the torn block
    assert len(lines) == 1 and json.loads(lines[0])["tokens"] == {"a": "a", "b": "b", "c": "c"}


def test_tokens_with_whitespace_are_kept_in_memory_only(tmp_path: Path) -> None:
    cache, seg = SegmentationCache(tmp_path), Counting()
    cache.store(seg, {"x": ["x y"], "z": ["z"]})
    assert cache.lookup(seg, ["x", "z"]) == {"x": ("x y",), "z": ("z",)}
    assert SegmentationCache(tmp_path).lookup(seg, ["x", "z"]) == {"z": ("z",)}


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
    [file] = list(tmp_path.glob("seg-*.jsonl"))
    cache = SegmentationCache(tmp_path)
    texts = ["shared text"] + [f"w{w} t{i}" for w in (0, 1) for i in range(20)]
    # Both processes appended: every block is whole and every text of both is there.
    assert cache.lookup(Counting(), texts) == {text: tuple(text.split()) for text in texts}
    assert cache.rejected == [] and all(json.loads(line)["signature"] == "counting|v1" for line in file.read_text(encoding="utf-8").splitlines())
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
    with pytest.raises(FileSystemError, match=r"seg-[0-9a-f]{24}\.jsonl: segmentation cache entry"):
        SegmentationCache(tmp_path).segment(seg, ["a b"])


def test_an_unwritable_cache_folder_is_one_error_naming_it(tmp_path: Path) -> None:
    import pytest

    from metaeval.errors import FileSystemError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(FileSystemError, match=r"file/sub/seg-[0-9a-f]{24}\.jsonl: segmentation cache entry a path component is a file"):
        SegmentationCache(blocker / "sub").segment(Counting(), ["a b"])


def test_a_failed_write_is_one_error_naming_the_file_and_is_taken_back(tmp_path: Path, monkeypatch) -> None:
    import os

    import pytest

    from metaeval.errors import FileSystemError

    SegmentationCache(tmp_path).segment(Counting(), ["a"])
    path = tmp_path / cache_file_name("counting|v1")
    before = path.read_bytes()
    write = os.write

    def full(fd: int, data) -> int:  # noqa: ANN001
        if len(data) > 5:  # a short write: part of the block reaches the disk ...
            return write(fd, bytes(data[:5]))
        raise OSError(28, "No space left on device")  # ... and then the disk is full

    monkeypatch.setattr(os, "write", full)
    for folder in (tmp_path, tmp_path / "new"):
        with pytest.raises(FileSystemError, match=r"seg-[0-9a-f]{24}\.jsonl: cannot write segmentation cache: no space left on device \(disk full\)"):
            SegmentationCache(folder).segment(Counting(), ["a b"])
    assert path.read_bytes() == before  # cut back to what it held
    assert list((tmp_path / "new").iterdir()) == []  # created by the failed write: removed


def test_a_failed_rewrite_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    import os

    import pytest

    from metaeval.errors import FileSystemError

    path = tmp_path / cache_file_name("counting|v1")
    path.write_text("torn", encoding="utf-8")

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(FileSystemError, match=r"seg-[0-9a-f]{24}\.jsonl: cannot write segmentation cache: no space left on device \(disk full\)"):
        SegmentationCache(tmp_path).segment(Counting(), ["a b"])
    assert [p.name for p in tmp_path.iterdir()] == [path.name] and path.read_text(encoding="utf-8") == "torn"


def test_an_interrupted_rewrite_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    import os

    import pytest

    path = tmp_path / cache_file_name("counting|v1")
    path.write_text("torn", encoding="utf-8")

    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        SegmentationCache(tmp_path).segment(Counting(), ["a b"])
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_two_caches_appending_to_one_file_keep_both(tmp_path: Path) -> None:
    seg = Counting()
    first, second = SegmentationCache(tmp_path), SegmentationCache(tmp_path)
    first.store(seg, {"a": ["a"]})
    second.store(seg, {"b": ["b"]})
    first.store(seg, {"c": ["c"]})
    assert SegmentationCache(tmp_path).lookup(seg, ["a", "b", "c"]) == {"a": ("a",), "b": ("b",), "c": ("c",)}


def _by_definition(entry: object) -> bool:
    """What a segmenter may return: a list of non-empty strings without whitespace."""
    return isinstance(entry, list) and all(
        isinstance(t, str) and t != "" and not any(ch.isspace() for ch in t) for t in entry
    )


_ALPHABET = list("ab字\u3000\u00a0\u2028\u200b\x1c\t \n\ufeff") + [chr(0x85)]


def test_joined_keeps_exactly_what_a_segmenter_may_return() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from metaeval.segmenters.cache import _joined, _split_joined

    @settings(max_examples=500, deadline=None)
    @given(st.lists(st.text(st.sampled_from(_ALPHABET), max_size=4), max_size=5))
    def agree(tokens: list[str]) -> None:
        joined = _joined(tokens)
        assert (joined is not None) == _by_definition(tokens)
        if joined is not None:
            assert _split_joined(joined) == tuple(tokens)

    agree()


def test_split_joined_accepts_exactly_what_joined_writes() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from metaeval.segmenters.cache import _split_joined

    @settings(max_examples=500, deadline=None)
    @given(st.one_of(st.text(st.sampled_from(_ALPHABET), max_size=8), st.integers(), st.none()))
    def agree(joined: object) -> None:
        split = _split_joined(joined)
        if not isinstance(joined, str):
            assert split is None
            return
        tokens = joined.split(" ") if joined else []
        assert (split is not None) == _by_definition(tokens)
        if split is not None:
            assert list(split) == tokens

    agree()


def test_an_entry_no_segmenter_returns_is_segmented_again_and_written_out(tmp_path: Path) -> None:
    from metaeval.segmenters.cache import _block

    path = tmp_path / cache_file_name("counting|v1")
    path.write_text(_block("counting|v1", {"a b": "a  b", "c": "c"}), encoding="utf-8")  # right digest, empty token
    cache, seg = SegmentationCache(tmp_path), Counting()
    assert cache.segment(seg, ["a b", "c"]) == [["a", "b"], ["c"]]
    assert seg.seen == ["a b"] and cache.rejected == [str(path)]
    [line] = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["tokens"] == {"a b": "a b", "c": "c"}


def test_the_digest_is_checked_on_the_blocks_bytes(tmp_path: Path, monkeypatch) -> None:
    from metaeval.segmenters import cache as cache_module

    SegmentationCache(tmp_path).segment(Counting(), ["a b", "c"])
    path = tmp_path / cache_file_name("counting|v1")
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{"signature":"counting|v1","sha256":"') and text.endswith('"tokens":{"a b":"a b","c":"c"}}\n')
    # Read back without encoding the tokens again ...
    encoded: list[object] = []
    canonical = cache_module._canonical
    monkeypatch.setattr(cache_module, "_canonical", lambda tokens: encoded.append(tokens) or canonical(tokens))
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a b", "c"]) == [["a", "b"], ["c"]] and seg.seen == []
    assert encoded == []
    # ... and one changed byte of the tokens is caught there.
    path.write_text(text.replace('"a b":"a b"', '"a b":"a x"'), encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["a b", "c"]) == [["a", "b"], ["c"]] and seg.seen == ["a b", "c"]
    # A block laid out otherwise (spaces after separators) is not one this cache wrote.
    data = json.loads(text)
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    seg = Counting()
    assert SegmentationCache(tmp_path).segment(seg, ["c", "a b"]) == [["c"], ["a", "b"]] and seg.seen == ["c", "a b"]


def test_entries_are_held_joined_and_give_the_same_tokens() -> None:
    class Odd(Counting):
        def __call__(self, text: str) -> list[str]:
            return ["a\tb", "c"] if text == "odd" else text.split()  # a token holding a tab: not joinable

    cache, seg = SegmentationCache(), Odd()
    first = cache.segment(seg, ["a b", "odd", "c", "a b"])
    assert first == [["a", "b"], ["a\tb", "c"], ["c"], ["a", "b"]]
    entries = cache._tokens[seg.signature()]
    assert entries == {"a b": "a b", "odd": ("a\tb", "c"), "c": "c"}
    assert cache.segment(seg, ["a b", "odd", "c"]) == first[:3] and seg.seen == ["a b", "odd", "c"]
    cache.store(seg, {"d e": ["d", "e"], "a b": ["x"]})  # a text already held keeps its tokens
    assert cache.lookup(seg, ["a b", "d e", "x"]) == {"a b": ("a", "b"), "d e": ("d", "e")} and cache.rejected == []
    assert entries["d e"] == "d e"
