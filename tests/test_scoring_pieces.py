"""Pieces of scoring used from Python: segmenting distinct texts in batches, a score table read
back into configurations, the store's digest of non-ASCII keys, the folder checks' wording and
the lazily compiled kernels' wrappers."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from metaeval.errors import DataError, FileSystemError


class Recording:
    """A segmenter that splits on spaces and records each batch it is given."""

    name = "words"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def segment_many(self, texts: list[str]) -> list[list[str]]:
        self.batches.append(list(texts))
        return [t.split() for t in texts]


def test_distinct_texts_are_segmented_once_in_batches_with_progress(monkeypatch):
    from metaeval import scoring

    monkeypatch.setattr(scoring, "SEGMENT_BATCH", 2)
    seg = Recording()
    calls: list[tuple[str, int, int]] = []
    texts = ["a b", "c", "a b", "d e f", "g", "c", "h"]
    out = scoring.segment_unique(seg, texts, progress=lambda *a: calls.append(a))
    assert out == {"a b": ["a", "b"], "c": ["c"], "d e f": ["d", "e", "f"], "g": ["g"], "h": ["h"]}
    assert seg.batches == [["a b", "c"], ["d e f", "g"], ["h"]]
    assert calls == [("segmenting words", 0, 5), ("segmenting words", 2, 5), ("segmenting words", 4, 5), ("segmenting words", 5, 5)]
    unnamed = type("Unnamed", (), {"segment_many": lambda self, texts: [[t] for t in texts]})()
    calls.clear()
    assert scoring.segment_unique(unnamed, ["x"], progress=lambda *a: calls.append(a)) == {"x": ["x"]}
    assert calls == [("segmenting texts", 0, 1), ("segmenting texts", 1, 1)]


def test_scoring_through_the_api_keeps_segmentations_in_the_cache_folder(tmp_path):
    from metaeval import api
    from tests.robustness._helpers import make_corpus

    corpus = make_corpus(tmp_path / "tiny")
    api.score(corpus, ["char"], ["bleu"], cache_dir=tmp_path / "cache")
    assert [p.name.startswith("seg-") and p.suffix == ".jsonl" for p in (tmp_path / "cache").iterdir() if p.is_file()] == [True]


# --- a score table read back ------------------------------------------------------------------


def table(rows: list[tuple], level: bool = False) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["metric", "segmenter", "system", "seg_id", "score"])
    if level:
        frame["level"] = np.where(frame["seg_id"].isna(), "sys", "seg")
    return frame


SEGMENT_ROWS = [(m, "char", s, str(g), v + (0.5 if m == "nist" else 0.0))
                for m in ("bleu", "nist") for s, base in (("s1", 0.1), ("s2", 0.2)) for g, v in ((1, base), (2, base + 0.01))]  # fmt: skip


@pytest.mark.parametrize("level", [False, True], ids=["by-empty-segment", "by-level"])
def test_given_system_rows_are_each_configurations_own(level):
    """System-level rows (no segment) of bleu and of nist for the same segmenter: each
    configuration takes its own, and its systems without one the mean of their segments."""
    from metaeval.api import configs_from_table

    rows = SEGMENT_ROWS + [("bleu", "char", "s1", None, 0.9), ("nist", "char", "s1", None, 7.0), ("nist", "char", "s2", None, 8.0)]
    bleu, nist = configs_from_table(table(rows, level))
    assert (bleu.metric, nist.metric) == ("bleu", "nist")
    assert bleu.sys_scores.tolist() == [0.9, pytest.approx(0.205)] and nist.sys_scores.tolist() == [7.0, 8.0]
    assert bleu.seg_ids == ["1", "2"] and bleu.seg_scores.shape == (2, 2)


def test_a_bad_score_is_named_by_metric_segmenter_system_and_segment():
    from metaeval.api import configs_from_table

    rows = [r if (r[0], r[2], r[3]) != ("nist", "s2", "2") else (*r[:4], "n/a") for r in SEGMENT_ROWS]
    with pytest.raises(DataError) as caught:
        configs_from_table(table(rows), source="scores.tsv")
    assert str(caught.value) == "scores.tsv: non-numeric or non-finite score for metric 'nist', segmenter 'char', system 's2', segment 2"
    with pytest.raises(DataError) as caught:
        configs_from_table(table(SEGMENT_ROWS + [("bleu", "char", "s1", None, float("inf"))]), source="scores.tsv")
    assert str(caught.value).endswith("metric 'bleu', segmenter 'char', system 's1', segment (system)")


def test_a_segment_a_system_lacks_is_named():
    from metaeval.api import configs_from_table

    rows = [r for r in SEGMENT_ROWS if (r[0], r[2], r[3]) != ("bleu", "s2", "1")]
    with pytest.raises(DataError, match=r"^scores: bleu/char: no score for system 's2', segment 1$"):
        configs_from_table(table(rows))


# --- store, folders, kernels ----------------------------------------------------------------------


def test_the_store_keeps_an_entry_whose_key_and_metadata_are_not_ascii(tmp_path):
    from metaeval.store import Store

    store = Store(tmp_path / "store")
    store.put("orders", "分词\n字", {"seg": np.arange(3.0)}, {"segmenter": "结巴"})
    entry = Store(tmp_path / "store").get("orders", "分词\n字")
    assert entry is not None and entry["meta"] == {"segmenter": "结巴"} and entry["seg"].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_folder_that_is_a_named_pipe_is_called_what_it_is(tmp_path):
    from metaeval.paths import check_writable_folder

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(FileSystemError) as caught:
        check_writable_folder(tmp_path / "pipe", "store")
    assert str(caught.value) == f"{tmp_path / 'pipe'}: store folder is a FIFO (named pipe), expected a folder"


def test_a_lazy_kernel_looks_like_its_function_until_numba_has_it():
    from metaeval.lazyjit import LazyKernel

    def add_one(x: int) -> int:
        """x + 1."""
        return x + 1

    kernel = LazyKernel(add_one, {"cache": False})
    assert (kernel.__name__, kernel.__doc__, kernel.__wrapped__) == ("add_one", "x + 1.", add_one)
    assert kernel.py_func is add_one and kernel.options == {"cache": False}
    assert not hasattr(kernel, "__array_interface__")  # dunder lookups never compile
    assert kernel._dispatcher is None
