"""The content-addressed store: what it returns, and every way a file on disk can fail verification."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from metaeval.store import Store, text_digest


def _rewrite(path, mutate) -> None:  # noqa: ANN001
    """Load an entry's arrays, let ``mutate`` change them, and save them back without re-signing."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    mutate(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _header(arrays: dict) -> dict:
    return json.loads(arrays["__header__"].tobytes().decode("ascii"))


def _set_header(arrays: dict, header: object) -> None:
    arrays["__header__"] = np.frombuffer(json.dumps(header).encode("ascii"), dtype=np.uint8)


@pytest.fixture
def entry(tmp_path):
    store = Store(tmp_path / "store")
    store.put("stats", "bleu|char|abc", {"stats": np.arange(6.0).reshape(2, 3)}, {"metric": "bleu"})
    return store, store.path("stats", "bleu|char|abc")


def test_a_written_entry_reads_back_with_its_metadata(entry):
    store, path = entry
    got = store.get("stats", "bleu|char|abc")
    np.testing.assert_array_equal(got["stats"], [[0, 1, 2], [3, 4, 5]])
    assert got["meta"] == {"metric": "bleu"}
    assert (store.hits, store.misses, store.rejected) == (1, 0, 0)
    assert path.parent.parent.name == "stats" and path.name.startswith(path.parent.name)
    assert not list(path.parent.glob(".entry-*"))  # no temporary file left behind


def test_an_absent_entry_is_a_miss_not_a_rejection(tmp_path):
    store = Store(tmp_path)
    assert store.get("stats", "nothing") is None
    assert (store.hits, store.misses, store.rejected) == (0, 1, 0)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda a: a.__setitem__("stats", a["stats"] + 1), id="altered array"),
        pytest.param(lambda a: a.pop("__header__"), id="no header"),
        pytest.param(lambda a: a.__setitem__("__header__", a["__header__"].astype(np.int16)), id="header of another dtype"),
        pytest.param(lambda a: a.__setitem__("__header__", np.frombuffer(b"\xff\xfe", dtype=np.uint8)), id="header not UTF-8"),
        pytest.param(lambda a: a.__setitem__("__header__", np.frombuffer(b"{not json", dtype=np.uint8)), id="header not JSON"),
        pytest.param(lambda a: _set_header(a, [1, 2]), id="header not an object"),
        pytest.param(lambda a: _set_header(a, {**_header(a), "key": "another key"}), id="foreign key"),
        pytest.param(lambda a: _set_header(a, {**_header(a), "kind": "corr"}), id="another kind"),
        pytest.param(lambda a: _set_header(a, {**_header(a), "format": "metaeval-store-0"}), id="older format"),
        pytest.param(lambda a: _set_header(a, {**_header(a), "meta": {"metric": "ter"}}), id="altered metadata"),
    ],
)
def test_a_damaged_entry_is_rejected_and_counted(entry, damage):
    store, path = entry
    _rewrite(path, damage)
    assert store.get("stats", "bleu|char|abc") is None
    assert (store.hits, store.misses, store.rejected) == (0, 1, 1)


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 truncated", b"plain text"])
def test_a_file_that_is_not_an_archive_is_rejected(entry, content):
    store, path = entry
    path.write_bytes(content)
    assert store.get("stats", "bleu|char|abc") is None
    assert store.rejected == 1


def test_a_rewritten_entry_replaces_the_damaged_one(entry):
    store, path = entry
    path.write_bytes(b"garbage")
    store.put("stats", "bleu|char|abc", {"stats": np.ones(2)})
    np.testing.assert_array_equal(store.get("stats", "bleu|char|abc")["stats"], [1.0, 1.0])


@pytest.mark.parametrize("name", ["__header__", "meta"])
def test_reserved_array_names_are_refused(tmp_path, name):
    with pytest.raises(ValueError, match="reserved"):
        Store(tmp_path).put("stats", "k", {name: np.zeros(1)})


def test_a_failed_write_leaves_neither_entry_nor_temporary_file(tmp_path, monkeypatch):
    store = Store(tmp_path)

    def fail(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", fail)
    with pytest.raises(OSError, match="No space"):
        store.put("stats", "k", {"stats": np.zeros(3)})
    folder = store.path("stats", "k").parent
    assert list(folder.iterdir()) == []


def test_text_digest_separates_sequences_that_concatenate_alike():
    assert text_digest(["ab", "c"]) != text_digest(["a", "bc"])
    assert text_digest(["ab", "c"]) == text_digest(["ab", "c"])
    assert text_digest([]) != text_digest([""])
