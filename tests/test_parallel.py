"""Parallel segmentation and the content-addressed store: same numbers, less work."""

from __future__ import annotations

import concurrent.futures as cf
import gc
import json
import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest

from metaeval import corpora
from metaeval import segmenting
from metaeval.errors import MetaevalError
from metaeval.scoring import score_corpus
from metaeval.store import Store, text_digest

SHARED = Path(os.environ.get("METAEVAL_SHARED", Path(__file__).resolve().parents[1] / ".." / "shared"))
WMT24_ZH = SHARED / "data" / "wmt24-esa" / "en-zh"


@pytest.fixture(scope="module")
def small_corpus():
    if not WMT24_ZH.is_dir():
        pytest.skip(f"shared data folder not found: {WMT24_ZH} (set METAEVAL_SHARED)")
    corpus, _ = corpora.read(WMT24_ZH)
    return corpus.subset(systems=corpus.system_names[:4], seg_ids=corpus.seg_ids[:60])


def test_split_is_contiguous_nearly_equal_and_complete():
    items = list(range(10))
    assert segmenting.split(items, 3) == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert segmenting.split(items, 20) == [[i] for i in items]
    assert segmenting.split([], 3) == [[]]


def test_forked_segmentation_equals_serial(small_corpus, monkeypatch):
    from metaeval import segmenters

    monkeypatch.setattr(segmenting, "PROBE_TEXTS", 10)
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 0.0)
    from metaeval import compute

    forked = []

    class RecordingPool(compute._FrozenForkPool):
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            forked.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(compute, "_FrozenForkPool", RecordingPool)
    texts = list(dict.fromkeys(t for h in small_corpus.systems.values() for t in h))
    seg = segmenters.get("jieba")
    serial = [list(t) for t in segmenters.get("jieba").segment_many(texts)]
    assert segmenting.segment_texts(seg, "jieba", texts, jobs=3) == serial
    assert forked == [2]  # this process took the first chunk, two forked workers the others


class _PidSegmenter:
    """Each text's tokens are the text and the id of the process that segmented it, after a
    pause of ``pause`` seconds per text (a slow model)."""

    def __init__(self, pause: float = 0.0) -> None:
        self.pause = pause

    def signature(self) -> str:
        return "pid|test"

    def segment_many(self, texts):  # noqa: ANN001, ANN201
        import time

        time.sleep(self.pause * len(texts))
        return [[text, str(os.getpid())] for text in texts]


def _segmented_by(tokens: list[list[str]]) -> list[str]:
    """The process ids in :class:`_PidSegmenter`'s tokens, each once, in order."""
    return list(dict.fromkeys(pid for _, pid in tokens))


def test_a_segmentation_forks_a_helper_for_the_back_half_once_a_worker_is_idle(monkeypatch):
    from metaeval import compute

    monkeypatch.setattr(segmenting, "HELPER_BATCH", 4)
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 0.0)
    texts = [f"text {i}" for i in range(30)]
    idle = multiprocessing.get_context("fork").Value("b", 1)
    monkeypatch.setattr(compute, "_POOL_IDLE", idle)
    inherited = ["an object this process holds"]
    gc.freeze()  # as in a pool's worker, which inherits its parent's objects frozen
    try:
        tokens = segmenting.segment_with_helper(_PidSegmenter(), "pid|test", texts)
        # what was frozen stays so (frozen objects are not among the collector's)
        assert not any(o is inherited for o in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(o is inherited for o in gc.get_objects())
    assert [text for text, _ in tokens] == texts and idle.value == 0  # claimed
    # two batches here, then the 22 texts left split 11 + 11: the back half in another process
    assert [pid for _, pid in tokens[:19]] == [str(os.getpid())] * 19
    assert len(set(pid for _, pid in tokens[19:])) == 1 and tokens[19][1] != str(os.getpid())
    assert "pid|test" not in segmenting._WORKER_SEGMENTERS
    # no idle worker, or a rest projected too short to be worth a fork: all here, flag untouched
    idle.value = 0
    assert _segmented_by(segmenting.segment_with_helper(_PidSegmenter(), "pid|test", texts)) == [str(os.getpid())]
    idle.value = 1
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 60.0)
    assert _segmented_by(segmenting.segment_with_helper(_PidSegmenter(), "pid|test", texts)) == [str(os.getpid())]
    assert idle.value == 1


def test_a_pool_task_splits_its_texts_when_the_other_worker_runs_out_of_work(monkeypatch):
    """A segmentation given one process of a local pool (the pool shared by several), as in
    ``score_corpus``: once the pool's other task ends, the rest is shared with a fork."""
    from metaeval.compute import process_pool

    monkeypatch.setattr(segmenting, "HELPER_BATCH", 8)
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 0.0)
    monkeypatch.setitem(segmenting._WORKER_SEGMENTERS, "pid|test", _PidSegmenter(pause=0.005))
    texts = [f"text {i}" for i in range(400)]
    with process_pool(2) as pool:
        task = pool.submit(segmenting._segment_task, "pid|test", None, texts, 1, True)
        pool.submit(int, 0).result()  # the other worker's only task: then it is idle
        signature, tokens = task.result()
    assert signature == "pid|test" and [text for text, _ in tokens] == texts
    worker, helper = _segmented_by(tokens)  # the task's worker first, then its helper to the end
    assert worker != str(os.getpid()) and tokens[-1][1] == helper


def test_a_worker_with_another_segmenter_is_refused():
    with pytest.raises(MetaevalError, match="worker's segmenter differs"):
        segmenting._check_signature("jieba|jieba:0.42.1", "jieba|jieba:0.39")


def test_jobs_give_identical_statistics(small_corpus, monkeypatch):
    monkeypatch.setattr(segmenting, "PROBE_TEXTS", 10)
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 0.0)
    specs, metrics = ["char", "cjk-char", "jieba"], ["bleu", "1-ter", "chrf", "nist"]
    serial = score_corpus(small_corpus, specs, metrics)
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        parallel = score_corpus(small_corpus, specs, metrics, executor=pool, jobs=2)
    for a, b in zip(serial.configs, parallel.configs):
        assert (a.metric, a.segmenter, a.config) == (b.metric, b.segmenter, b.config)
        assert a.stats.tobytes() == b.stats.tobytes() and a.seg_scores.tobytes() == b.seg_scores.tobytes()


def test_chunks_split_systems_only_for_metrics_whose_scoring_dominates():
    from metaeval.scoring import MetricChoice, chunk_plan

    choices = [MetricChoice.of(m) for m in ("bleu", "1-ter", "chrf", "meteor")]
    systems = ["a", "b", "c", "d"]
    assert chunk_plan(choices, systems, 2) == [([0, 2], ["a", "b", "c", "d"]), ([1, 3], ["a", "c"]), ([1, 3], ["b", "d"])]
    assert chunk_plan(choices[2:3], systems, 2) == [([0], ["a", "b", "c", "d"])]
    assert chunk_plan(choices[1:2], systems, 2) == [([0], ["a", "c"]), ([0], ["b", "d"])]
    assert chunk_plan(choices, systems, 1) == [([0, 1, 2, 3], ["a", "b", "c", "d"])]  # one process: one chunk


def test_a_pool_prepares_the_references_of_a_whole_metric_once_per_segmenter(small_corpus, monkeypatch):
    """BLEU's references cost about as much to index as a system to score: every system goes to
    one task, which prepares them once; TER's systems are spread over tasks (two per worker)."""
    from metaeval.metrics import bleu, ter

    prepared = multiprocessing.get_context("fork").Queue()
    for cls in (bleu.BLEU, ter.TER):
        def prepare(self, refs, _original=cls.prepare):  # noqa: ANN001, ANN202
            if len(refs[0]) == 10:  # the corpus's references, not the kernels' preloading pair
                prepared.put(self.name)
            return _original(self, refs)

        monkeypatch.setattr(cls, "prepare", prepare)
    corpus = small_corpus.subset(seg_ids=small_corpus.seg_ids[:10])
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        parallel = score_corpus(corpus, ["char", "jieba"], ["bleu", "1-ter"], executor=pool, jobs=2)
    names = []
    while not prepared.empty() or len(names) < 10:
        names.append(prepared.get(timeout=10))
    assert sorted(names) == ["bleu"] * 2 + ["ter"] * 8  # 2 segmenters; TER: 2 x 4 groups
    serial = score_corpus(corpus, ["char", "jieba"], ["bleu", "1-ter"])
    for a, b in zip(serial.configs, parallel.configs):
        assert a.stats.tobytes() == b.stats.tobytes(), (a.metric, a.segmenter)


class _RecordingPool(cf.ProcessPoolExecutor):
    """A forked pool that records its first task in ``EVENTS``."""

    def submit(self, fn, /, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN204
        EVENTS.append("submit")
        return super().submit(fn, *args, **kwargs)


EVENTS: list[str] = []


def test_compiled_kernels_are_loaded_before_the_pool_forks_and_not_for_stored_work(small_corpus, tmp_path, monkeypatch):
    from metaeval.metrics import bleu, ter
    from metaeval.metrics.base import Metric

    EVENTS.clear()
    loaded = Metric.preload

    def preload(self):  # noqa: ANN001, ANN202
        EVENTS.append(f"preload {self.name}")
        loaded(self)

    monkeypatch.setattr(ter.TER, "preload", preload)
    monkeypatch.setattr(bleu.BLEU, "preload", preload)
    corpus = small_corpus.subset(seg_ids=small_corpus.seg_ids[:10])
    with _RecordingPool(2, mp_context=multiprocessing.get_context("fork")) as pool:
        score_corpus(corpus, ["char"], ["bleu", "1-ter"], executor=pool, jobs=2, store=tmp_path)
        assert EVENTS[:2] == ["preload bleu", "preload ter"] and "submit" in EVENTS[2:]
        EVENTS.clear()
        score_corpus(corpus, ["char"], ["bleu", "1-ter"], executor=pool, jobs=2, store=tmp_path)
        assert EVENTS == []  # every statistic stored: nothing to load, nothing to send
    score_corpus(corpus, ["char"], ["1-ter", "gtm"])
    assert EVENTS == []  # no pool to fork: kernels load on first use


def test_only_metrics_with_compiled_kernels_load_anything_ahead():
    from metaeval.metrics import get_metric

    compiled = {name for name in ("bleu", "nist", "chrf", "ter", "gtm", "meteor") if get_metric(name).compiled_kernels}
    assert compiled == {"bleu", "nist", "chrf", "ter", "gtm", "meteor"}
    for name in ("ter", "gtm", "meteor", "bleu", "nist", "chrf"):
        get_metric(name).preload()  # loads (or is a no-op) without error


class CountingChar:
    """``char`` that counts the texts it segments."""

    name = "counting-char"

    def __init__(self) -> None:
        self.count = 0

    def signature(self) -> str:
        return "counting-char|v1"

    def __call__(self, text: str) -> list[str]:
        return [c for c in text if not c.isspace()]

    def segment_many(self, texts):  # noqa: ANN001, ANN201
        texts = list(texts)
        self.count += len(texts)
        return [self(t) for t in texts]


def test_stored_statistics_skip_segmenting_and_scoring(small_corpus, tmp_path):
    first_seg = CountingChar()
    first = score_corpus(small_corpus, [first_seg], ["bleu", "1-ter"], store=tmp_path, cache=tmp_path)
    assert first_seg.count > 0
    again_seg = CountingChar()
    store = Store(tmp_path)
    again = score_corpus(small_corpus, [again_seg], ["bleu", "1-ter"], store=store, cache=tmp_path)
    # every system's statistics of both metrics, and the segmenter's characters per token of the references
    assert again_seg.count == 0 and store.hits == 2 * len(small_corpus.systems) + 1 and store.misses == 0
    assert again.reference_chars_per_token == first.reference_chars_per_token == {"counting-char": 1.0}
    for a, b in zip(first.configs, again.configs):
        assert a.stats.tobytes() == b.stats.tobytes()
    # one more metric: only it is computed, from the cached segmentation
    more_seg, store = CountingChar(), Store(tmp_path)
    more = score_corpus(small_corpus, [more_seg], ["bleu", "1-ter", "gtm"], store=store, cache=tmp_path)
    assert more_seg.count == 0 and store.misses == len(small_corpus.systems)
    assert more.configs[0].stats.tobytes() == first.configs[0].stats.tobytes()


def test_store_entries_are_verified_on_read(tmp_path):
    store = Store(tmp_path)
    stats = np.arange(12.0).reshape(6, 2)
    store.put("stats", "key one", {"stats": stats}, {"note": "x"})
    entry = store.get("stats", "key one")
    assert entry["stats"].tobytes() == stats.tobytes() and entry["meta"] == {"note": "x"}
    assert store.get("stats", "key two") is None
    path = store.path("stats", "key one")
    data = bytearray(path.read_bytes())
    position = data.index(stats.tobytes()[8:16])  # flip a byte inside the array's data
    data[position] ^= 1
    path.write_bytes(bytes(data))
    fresh = Store(tmp_path)
    assert fresh.get("stats", "key one") is None and fresh.rejected == 1
    path.write_bytes(b"PK\x03\x04 truncated")
    assert fresh.get("stats", "key one") is None and fresh.rejected == 2
    assert not list(tmp_path.rglob(".entry-*"))  # no temporary file left behind


def test_text_digest_separates_texts():
    assert text_digest(["ab", "c"]) != text_digest(["a", "bc"])
    assert text_digest([]) != text_digest([""])


def test_bootstrap_in_blocks_gives_the_samples_of_one_draw(small_corpus, monkeypatch):
    import metaeval.stats.evaluate as evaluate_module
    from metaeval.corpora import read

    _, judgments = read(WMT24_ZH)
    judgments = judgments.__class__(
        judgments.table[judgments.table.seg_id.isin(small_corpus.seg_ids) & judgments.table.system.isin(small_corpus.system_names)],
        None, judgments.directions, judgments.source,
    )
    configs = score_corpus(small_corpus, ["char"], ["bleu", "chrf"]).configs
    whole = evaluate_module.evaluate(configs, judgments, n_bootstrap=300, seed=7)
    monkeypatch.setattr(evaluate_module, "BOOTSTRAP_BLOCK_ELEMENTS", 60 * 70)  # 70 samples per block
    blocks = evaluate_module.evaluate(configs, judgments, n_bootstrap=300, seed=7)
    assert list(whole.columns) == list(blocks.columns) and len(whole) == len(blocks)
    np.testing.assert_allclose(blocks["ci_low"], whole["ci_low"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(blocks["ci_high"], whole["ci_high"], rtol=0, atol=1e-12)
    assert blocks["value"].equals(whole["value"])


def test_stored_correlations_give_identical_results(small_corpus, tmp_path, monkeypatch):
    import metaeval.stats.evaluate as evaluate_module
    from metaeval.corpora import read

    _, judgments = read(WMT24_ZH)
    judgments = judgments.__class__(
        judgments.table[judgments.table.seg_id.isin(small_corpus.seg_ids) & judgments.table.system.isin(small_corpus.system_names)],
        None, judgments.directions, judgments.source,
    )
    configs = score_corpus(small_corpus, ["char"], ["bleu", "chrf"]).configs
    fresh = evaluate_module.evaluate(configs, judgments, n_bootstrap=100, seed=3, clusters=True)
    first = evaluate_module.evaluate(configs, judgments, n_bootstrap=100, seed=3, clusters=True, store=tmp_path)
    calls = []
    original = evaluate_module._items_on
    monkeypatch.setattr(evaluate_module, "_items_on", lambda *a, **k: calls.append(1) or original(*a, **k))
    again = evaluate_module.evaluate(configs, judgments, n_bootstrap=100, seed=3, clusters=True, store=tmp_path)
    assert calls == []  # every configuration read back
    assert fresh.to_json(double_precision=15) == first.to_json(double_precision=15) == again.to_json(double_precision=15)
    other = evaluate_module.evaluate(configs, judgments, n_bootstrap=100, seed=4, clusters=True, store=tmp_path)
    assert calls and not other.equals(again)  # another seed is another key


@pytest.mark.skipif(not WMT24_ZH.is_dir(), reason="shared data folder not found (set METAEVAL_SHARED)")
def test_jobs_1_and_2_write_identical_json_with_every_default_metric(tmp_path, capsys, monkeypatch):
    """``score`` and ``run`` with the default segmenters and metrics: the JSON they print or
    write is byte for byte the same in one process and over two worker processes."""
    from metaeval.api import default_segmenters
    from metaeval.cli import main
    from metaeval.metrics import DEFAULT_METRICS
    from tests.test_cli import small_corpus as corpus_folder

    # parallel segmentation even for a slice this small
    monkeypatch.setattr(segmenting, "PROBE_TEXTS", 10)
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 0.0)
    folder = corpus_folder(tmp_path, n=30)
    # score's own defaults are fewer: ask for run's
    every = [arg for name in default_segmenters("zh") for arg in ("-s", name)]
    every += [arg for name in DEFAULT_METRICS for arg in ("-m", name)]
    outputs = {}
    for jobs in ("1", "2"):
        scores = tmp_path / f"scores-{jobs}.json"
        assert main(["score", str(folder), *every, "-q", "-j", jobs, "--format", "json", "-o", str(scores)]) == 0
        out = tmp_path / f"run-{jobs}"
        assert main(["run", str(folder), "-q", "-j", jobs, "--bootstrap", "200", "--format", "json", "--out", str(out)]) == 0
        printed = capsys.readouterr().out
        outputs[jobs] = (scores.read_bytes(), printed, (out / "results.json").read_bytes())
    assert outputs["1"] == outputs["2"]
    rows = json.loads(outputs["1"][0])
    assert len({row["metric"] for row in rows}) == len(DEFAULT_METRICS)
    assert {row["segmenter"] for row in rows} == set(default_segmenters("zh"))
