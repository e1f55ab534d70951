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


# --- more of scoring --------------------------------------------------------------------------


def test_a_store_holding_some_systems_completes_the_others(tmp_path):
    """Scored first without its last system, then whole with the same store: the stored systems
    are read back, the others computed, and every number is that of a fresh run."""
    from metaeval import api
    from metaeval.corpora.model import Corpus  # noqa: F401 (the type subset returns)
    from tests.robustness._helpers import make_corpus

    corpus, _ = api.read_corpus(make_corpus(tmp_path / "tiny"))
    first = list(corpus.systems)[:-1]
    api.score(corpus.subset(systems=first), ["char"], ["bleu", "chrf"], cache_dir=tmp_path / "cache")
    whole = api.score(corpus, ["char"], ["bleu", "chrf"], cache_dir=tmp_path / "cache")
    fresh = api.score(corpus, ["char"], ["bleu", "chrf"])
    pd.testing.assert_frame_equal(whole, fresh)


def test_progress_over_no_texts_says_none():
    from metaeval import segmenters
    from metaeval.scoring import _segment_with_progress

    calls: list[tuple[str, int, int]] = []
    assert _segment_with_progress(segmenters.get("char"), "char", [], 1, None, lambda *a: calls.append(a)) == []
    assert calls == [("segmenting char", 0, 0), ("segmenting char", 0, 0)]


def test_a_quick_segmenter_does_not_fork_for_the_rest(monkeypatch):
    """Past the probe, the rest is forked for only when the probe projects it to be slow."""
    from metaeval import segmenters, segmenting

    monkeypatch.setattr(segmenting, "process_pool", lambda *a, **k: pytest.fail("forked for a quick segmenter"))
    texts = [f"文本{i}" for i in range(segmenting.PROBE_TEXTS * 3)]
    assert segmenting.segment_texts(segmenters.get("char"), "char", texts, jobs=2) == [list(t) for t in texts]


def test_a_segmenter_or_metric_given_twice_is_named_once():
    from metaeval import segmenters
    from metaeval.errors import UsageError
    from metaeval.scoring import MetricChoice, check_distinct

    char = segmenters.get("char")
    with pytest.raises(UsageError) as caught:
        check_distinct([char, segmenters.get("char")], [MetricChoice.of("bleu")])
    assert str(caught.value) == "segmenter 'char' given twice; give each segmenter once"
    with pytest.raises(UsageError) as caught:
        check_distinct([char], [MetricChoice.of("bleu"), MetricChoice.of("bleu:n=4")])
    assert str(caught.value) == "metric 'bleu:n=4' given twice (as 'bleu', same signature); give each metric once"


def test_a_metric_object_without_a_name_is_known_by_its_class():
    from metaeval.metrics import get_metric
    from metaeval.scoring import MetricChoice

    class Unnamed:
        metric = get_metric("bleu")

        def __getattr__(self, name):  # noqa: ANN001, ANN204
            if name == "name":
                raise AttributeError(name)
            return getattr(self.metric, name)

    choice = MetricChoice.of(Unnamed())
    assert choice.spec == "Unnamed"


def test_normalisation_forms_are_computed_once_and_no_warning_when_every_segmenter_normalises(tmp_path):
    import warnings

    from metaeval import api, segmenters
    from metaeval.forms import _Forms, warn_form_differences
    from tests.robustness.test_normalisation_forms import FORMS, corpus_with

    forms = _Forms()
    assert forms.nfkc("价格是１００元。") == "价格是100元。" and forms.nfkc("价格是１００元。") is forms.nfkc("价格是１００元。")
    corpus, _ = api.read_corpus(corpus_with(tmp_path / "c", {"s": FORMS}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert warn_form_differences(corpus, [segmenters.get("char:nfkc=true")]) == []
        assert len(warn_form_differences(corpus, [segmenters.get("char:nfkc=true"), segmenters.get("char")])) == 1
    assert len(caught) == 1 and "only in Unicode normalisation form (NFKC) in 2 segments" in str(caught[0].message)


def test_bootstrap_given_under_both_names_is_the_new_ones():
    from metaeval.api import settings_of

    with pytest.warns(DeprecationWarning, match="n_bootstrap= is deprecated"):
        settings, rest = settings_of(bootstrap=30, n_bootstrap=20, extra=1)
    assert settings.n_bootstrap == 30 and rest == {"extra": 1}
    with pytest.warns(DeprecationWarning):
        assert settings_of(n_bootstrap=20)[0].n_bootstrap == 20


def test_a_run_at_document_level_correlates_the_judged_documents(tmp_path):
    """Two documents of two segments each: the document rows are the Pearson correlation of
    the metric's document scores with the mean judgment of each document."""
    from metaeval import api
    from tests.robustness._helpers import lines, make_corpus, write

    corpus = make_corpus(tmp_path / "tiny")
    write(corpus / "docs.tsv", lines(["seg_id\tdoc_id", "1\td1", "2\td1", "3\td2", "4\td2"]))
    study = api.run(corpus, ["char"], ["bleu"], bootstrap=0, doc_level=True, statistics=["seg:pearson"])
    doc = study.results[study.results["level"] == "doc"]
    assert doc["statistic"].tolist() == ["pearson"] and doc["n"].tolist() == [6]
    scores = api.score(corpus, ["char"], ["bleu"], levels=["doc"]).set_index(["system", "doc_id"])["score"]
    judged = pd.read_csv(corpus / "judgments.tsv", sep="\t", dtype={"seg_id": str})
    judged["doc_id"] = judged["seg_id"].map({"1": "d1", "2": "d1", "3": "d2", "4": "d2"})
    human = judged.groupby(["system", "doc_id"])["value"].mean()
    expected = np.corrcoef(scores.loc[human.index].to_numpy(), human.to_numpy())[0, 1]
    assert doc["value"].iloc[0] == pytest.approx(expected, rel=1e-12)


def test_rule_segmenters_are_segmented_here_and_model_segmenters_on_the_workers(tmp_path, monkeypatch):
    """With an executor, ``char`` (rules, no model: ``in_process``) is never sent to a worker,
    jieba is; the scores are those of a run without workers."""
    import concurrent.futures as cf

    from metaeval import api, segmenters, segmenting
    from metaeval.segmenting import _segment_task
    from tests.robustness._helpers import make_corpus

    # the "workers" are threads of this process: what they build is kept apart from other tests
    monkeypatch.setattr(segmenting, "_WORKER_SEGMENTERS", {})

    class Recording(cf.ThreadPoolExecutor):
        def __init__(self) -> None:
            super().__init__(max_workers=2)
            self.segmented: list[str] = []

        def submit(self, fn, /, *args, **kwargs):  # noqa: ANN001, ANN202
            if fn is _segment_task:
                self.segmented.append(args[0].split("|")[0])
            return super().submit(fn, *args, **kwargs)

    assert segmenters.get("char").in_process and segmenters.get("cjk-char").in_process
    assert not segmenters.get("jieba").in_process
    corpus, _ = api.read_corpus(make_corpus(tmp_path / "tiny"))
    with Recording() as executor:
        got = api.score(corpus, ["char", "jieba"], ["bleu", "chrf"], executor=executor, jobs=2)
    assert executor.segmented and set(executor.segmented) == {"jieba"}
    pd.testing.assert_frame_equal(got, api.score(corpus, ["char", "jieba"], ["bleu", "chrf"]))


class _Words:
    """A segmenter object with a model of its own (not ``in_process``): splits on spaces."""

    def __init__(self, name: str) -> None:
        self.name = name

    def signature(self) -> str:
        return f"{self.name}|1"

    def segment_many(self, texts):  # noqa: ANN001, ANN202
        return [t.split() for t in texts]


@pytest.mark.parametrize(("segmenters", "jobs", "parts"), [
    (["char", "a"], 2, 2),  # one segmentation on the workers: it forks to use them all
    (["char", "a", "b"], 2, 1),  # two at once: one process each
    (["a", "b", "c"], 7, 2),  # three on seven workers: two processes each, one left over
])  # fmt: skip
def test_segmentations_started_together_share_the_pool_s_processes(tmp_path, monkeypatch, segmenters, jobs, parts):
    import concurrent.futures as cf

    from metaeval import api, segmenting
    from tests.robustness._helpers import make_corpus

    given: dict[str, int | None] = {}
    start = segmenting.start

    def recording(seg, spec, texts, **kwargs):  # noqa: ANN001, ANN202
        given[getattr(seg, "name", "?")] = kwargs.get("parts")
        return start(seg, spec, texts, **kwargs)

    monkeypatch.setattr(segmenting, "start", recording)
    corpus, _ = api.read_corpus(make_corpus(tmp_path / "tiny"))
    objects = [s if s == "char" else _Words(s) for s in segmenters]
    with cf.ThreadPoolExecutor(max_workers=2) as executor:
        got = api.score(corpus, objects, ["bleu"], executor=executor, jobs=jobs)
    assert {name: p for name, p in given.items() if name != "char"} == {s: parts for s in segmenters if s != "char"}
    pd.testing.assert_frame_equal(got, api.score(corpus, objects, ["bleu"]))


def test_this_process_scores_chunks_itself_only_where_it_does_not_compete_with_the_workers(monkeypatch):
    import concurrent.futures as cf
    import multiprocessing

    from metaeval.scoring import _helps

    monkeypatch.setattr("metaeval.compute.usable_cpus", lambda: 4)
    fork = multiprocessing.get_context("fork")
    with cf.ProcessPoolExecutor(max_workers=4, mp_context=fork) as one_per_cpu:
        assert not _helps(one_per_cpu)
    with cf.ProcessPoolExecutor(max_workers=2, mp_context=fork) as fewer:
        assert _helps(fewer)
    with cf.ThreadPoolExecutor(max_workers=8) as elsewhere:  # a cluster's executor: other machines' cores
        assert _helps(elsewhere)
