"""Digests of model files kept from one process to the next (metaeval.segmenters.digests)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from metaeval.segmenters import _deps, digests


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of kept digests, and files counted as settled as soon as they are written."""
    kept = tmp_path / "digests"
    monkeypatch.setenv(digests.DIGEST_CACHE_ENV, str(kept))
    monkeypatch.setattr(digests, "SETTLE_NS", 0)
    return kept


def counting(value: str) -> tuple[list[int], "object"]:
    calls = [0]

    def compute() -> str:
        calls[0] += 1
        return value

    return calls, compute


def model(tmp_path: Path, data: bytes = b"weights " * 1000) -> str:
    path = tmp_path / "model.bin"
    path.write_bytes(data)
    return str(path)


def test_a_digest_is_computed_once_for_the_same_files(tmp_path: Path, folder: Path) -> None:
    path = model(tmp_path)
    calls, compute = counting("abc")
    assert digests.kept_digest("k", (path,), compute) == "abc"
    assert digests.kept_digest("k", (path,), compute) == "abc"
    assert calls[0] == 1
    assert len(list(folder.glob("*.json"))) == 1


def test_a_digest_is_computed_again_once_a_file_is_written_even_with_its_size_and_time_put_back(tmp_path: Path, folder: Path) -> None:
    path = model(tmp_path)
    calls, compute = counting("abc")
    digests.kept_digest("k", (path,), compute)
    before = os.stat(path)
    Path(path).write_bytes(b"WEIGHTS " * 1000)  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the modification time put back
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns and os.stat(path).st_size == before.st_size
    digests.kept_digest("k", (path,), compute)
    assert calls[0] == 2


def test_another_kind_or_file_set_is_another_digest(tmp_path: Path, folder: Path) -> None:
    path = model(tmp_path)
    other = tmp_path / "other.bin"
    other.write_bytes(b"x")
    calls, compute = counting("abc")
    digests.kept_digest("k", (path,), compute)
    digests.kept_digest("another kind", (path,), compute)
    digests.kept_digest("k", (path, str(other)), compute)
    digests.kept_digest("k", (str(other), path), compute)
    assert calls[0] == 4


def test_a_file_changed_just_before_it_was_hashed_is_not_kept(tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digests, "SETTLE_NS", 60 * 10**9)
    path = model(tmp_path)
    calls, compute = counting("abc")
    digests.kept_digest("k", (path,), compute)
    digests.kept_digest("k", (path,), compute)
    assert calls[0] == 2 and not folder.exists()


@pytest.mark.parametrize("content", ["not json", '{"key": "another", "digest": "zzz"}', '{"digest": 12}', "[]"])
def test_a_damaged_entry_is_hashed_again(tmp_path: Path, folder: Path, content: str) -> None:
    path = model(tmp_path)
    calls, compute = counting("abc")
    digests.kept_digest("k", (path,), compute)
    [entry] = folder.glob("*.json")
    entry.write_text(content)
    assert digests.kept_digest("k", (path,), compute) == "abc"
    assert calls[0] == 2


def test_a_folder_that_cannot_be_written_only_means_hashing_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv(digests.DIGEST_CACHE_ENV, str(blocker / "digests"))
    monkeypatch.setattr(digests, "SETTLE_NS", 0)
    path = model(tmp_path)
    calls, compute = counting("abc")
    assert digests.kept_digest("k", (path,), compute) == "abc"
    assert digests.kept_digest("k", (path,), compute) == "abc"
    assert calls[0] == 2


def test_an_empty_setting_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(digests.DIGEST_CACHE_ENV, "")
    assert digests.digest_cache_dir() is None
    path = model(tmp_path)
    calls, compute = counting("abc")
    digests.kept_digest("k", (path,), compute)
    digests.kept_digest("k", (path,), compute)
    assert calls[0] == 2


def test_the_default_folder_is_the_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.delenv(digests.DIGEST_CACHE_ENV, raising=False)
    assert digests.digest_cache_dir() == Path(sys.prefix) / "share" / "metaeval" / "digests"


def test_a_missing_file_is_never_kept(tmp_path: Path, folder: Path) -> None:
    calls, compute = counting("missing")
    digests.kept_digest("k", (str(tmp_path / "none"),), compute)
    digests.kept_digest("k", (str(tmp_path / "none"),), compute)
    assert calls[0] == 2 and not folder.exists()


def hand_sha(*parts: bytes) -> str:
    return hashlib.sha256(b"".join(parts)).hexdigest()[:12]


def test_fingerprints_are_the_files_sha256_whether_hashed_or_kept(tmp_path: Path, folder: Path) -> None:
    a, b = tmp_path / "a.dic", tmp_path / "b.dic"
    a.write_bytes(b"alpha" * 300)
    b.write_bytes(b"beta" * 70)
    nul = b"\0"
    files_sha = hand_sha(b"a.dic" + nul, a.read_bytes(), nul, b"b.dic" + nul, b.read_bytes(), nul)
    content_sha = hand_sha(b"a.dic" + nul + b"1500" + nul, a.read_bytes(), b"b.dic" + nul + b"280" + nul, b.read_bytes())
    expected = {
        "fingerprint": f"a.dic:1500B:sha256={hand_sha(a.read_bytes())}",
        "files": f"dic:1780B:sha256={files_sha}",
        "content": f"sha256={content_sha}",
    }
    for _ in range(2):  # hashed, then read from the folder
        for function in (_deps.fingerprint, _deps.files_fingerprint, _deps.content_hash):
            function.cache_clear()
        assert _deps.fingerprint(str(a)) == expected["fingerprint"]
        assert _deps.files_fingerprint("dic", (str(a), str(b))) == expected["files"]
        assert _deps.content_hash((str(a), str(b))) == expected["content"]
    assert len(list(folder.glob("*.json"))) == 3
    for function in (_deps.fingerprint, _deps.files_fingerprint, _deps.content_hash):
        function.cache_clear()


def test_a_folder_is_not_a_file_to_keep_a_digest_of(tmp_path: Path, folder: Path) -> None:
    calls, compute = counting("abc")
    digests.kept_digest("k", (str(tmp_path),), compute)
    digests.kept_digest("k", (str(tmp_path),), compute)
    assert calls[0] == 2 and not folder.exists()


def test_an_entry_that_cannot_be_replaced_leaves_no_temporary_file(tmp_path: Path, folder: Path) -> None:
    path = model(tmp_path)
    calls, compute = counting("abc")
    digests.kept_digest("k", (path,), compute)
    [entry] = folder.glob("*.json")
    entry.unlink()
    entry.mkdir()  # a folder where the entry goes: moving the new entry into place fails
    assert digests.kept_digest("k", (path,), compute) == "abc"
    assert calls[0] == 2
    assert sorted(p.name for p in folder.iterdir()) == [entry.name]


def test_a_missing_file_is_named_in_the_fingerprint(tmp_path: Path, folder: Path) -> None:
    a = tmp_path / "a.dic"
    a.write_bytes(b"alpha")
    gone = str(tmp_path / "gone.dic")
    assert _deps.fingerprint(gone) == "gone.dic:missing"
    assert _deps.files_fingerprint("dic", (str(a), gone)) == "dic:missing:gone.dic"
    assert _deps.content_hash((str(a), gone)) == "missing:gone.dic"
    assert not folder.exists()
