"""Where segmentation runs: here, forked workers, or any executor, always the same tokens in order."""

from __future__ import annotations

import concurrent.futures as cf
import time

import pytest

from metaeval import segmenters, segmenting
from metaeval.errors import MetaevalError

TEXTS = [f"第{i}句，包含 some words 和数字 {i}。" for i in range(300)]


def expected(spec: str) -> list[list[str]]:
    seg = segmenters.get(spec)
    return [list(t) for t in seg.segment_many(TEXTS)]


def test_any_executor_gets_chunks_and_keeps_the_order():
    seg = segmenters.get("char")
    with cf.ThreadPoolExecutor(2) as pool:
        assert segmenting.segment_texts(seg, "char", TEXTS, jobs=2, executor=pool) == expected("char")
        pending = segmenting.start(seg, "char", TEXTS, jobs=2, executor=pool)
        assert pending.result() == expected("char")


def test_forked_workers_give_the_tokens_of_one_process(monkeypatch):
    monkeypatch.setattr(segmenting, "MIN_PARALLEL_SECONDS", 0.0)  # fork even for a fast segmenter
    seg = segmenters.get("jieba")
    assert segmenting.segment_texts(seg, "jieba", TEXTS, jobs=3) == expected("jieba")
    assert seg.signature() not in segmenting._WORKER_SEGMENTERS  # nothing left behind


class SlowToLoad:
    """A segmenter whose first call loads a "model" (burns CPU for ``load`` seconds), then fast."""

    def __init__(self, load: float) -> None:
        self.load = load
        self.loaded = False

    def signature(self) -> str:
        return "slow-to-load|1"

    def segment_many(self, texts):  # noqa: ANN001, ANN202
        if not self.loaded:
            end = time.process_time() + self.load
            while time.process_time() < end:
                pass
            self.loaded = True
        return [list(t) for t in texts]


def test_the_model_load_is_not_projected_onto_the_rest(monkeypatch):
    # 0.3 s of loading on the first text, once. Counted in the probe of 256 texts, it would
    # project 0.3 x 944 / 256 = 1.1 s onto the other 944 texts, over MIN_PARALLEL_SECONDS; the
    # rest itself takes milliseconds, so nothing is forked.
    texts = TEXTS * 4
    forked = []
    monkeypatch.setattr(segmenting, "process_pool", lambda *a, **k: forked.append(a) or cf.ThreadPoolExecutor(1))
    assert segmenting.segment_texts(SlowToLoad(0.3), None, texts, jobs=2) == [list(t) for t in texts]
    assert forked == []


def test_projected_seconds_counts_this_process_cpu_unless_the_work_runs_elsewhere():
    assert segmenting.projected_seconds(wall=2.0, cpu=1.0, scale=10) == 10.0  # CPU: not stretched by busy neighbours
    assert segmenting.projected_seconds(wall=2.0, cpu=0.5, scale=10) == 5.0  # a quarter of the wall time: still CPU
    assert segmenting.projected_seconds(wall=2.0, cpu=0.1, scale=10) == 20.0  # a segmenter program's time: wall


def test_a_worker_with_another_segmenter_version_is_refused():
    class Other:
        def signature(self) -> str:
            return "char|another version"

        def segment_many(self, texts):  # noqa: ANN001, ANN202
            return [list(t) for t in texts]

    seg = segmenters.get("char")
    segmenting._WORKER_SEGMENTERS[seg.signature()] = Other()
    try:
        with cf.ThreadPoolExecutor(1) as pool, pytest.raises(MetaevalError, match="a worker's segmenter differs from this process's: 'char|another version'"):
            segmenting.segment_texts(seg, "char", TEXTS[:5], executor=pool)
    finally:
        segmenting._WORKER_SEGMENTERS.pop(seg.signature(), None)


def test_a_worker_without_the_segmenter_says_so():
    with pytest.raises(MetaevalError, match="segmenter 'nothing|1' is not known in this worker"):
        segmenting._segment_task("nothing|1", None, ["a"])


def test_split_makes_contiguous_nearly_equal_chunks():
    assert segmenting.split(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert segmenting.split([1, 2], 5) == [[1], [2]]
    assert segmenting.split([], 3) == [[]]


def test_worker_count_of_an_executor():
    class Client:
        def scheduler_info(self):  # noqa: ANN202
            return {"workers": {"a": {"nthreads": 2}, "b": {"nthreads": 1}}}

    class Broken:
        def scheduler_info(self):  # noqa: ANN202
            raise OSError("scheduler gone")

    class DaskLike:
        def __init__(self, client) -> None:  # noqa: ANN001
            self._client = client

    assert segmenting._workers(DaskLike(Client()), 1) == 3
    assert segmenting._workers(DaskLike(Broken()), 2) == 2
    with cf.ThreadPoolExecutor(4) as pool:
        assert segmenting._workers(pool, 1) == 4


def test_interned_tokens_are_one_object_per_type_and_pickle_smaller():
    import pickle

    raw = [[bytes(w, "utf-8").decode("utf-8") for w in "今天 天气 很 好".split()] for _ in range(200)]
    assert raw[0][0] is not raw[1][0]
    shared = segmenting.interned(raw)
    assert shared == raw
    assert shared[0][0] is shared[199][0]
    assert len(pickle.dumps(shared)) < len(pickle.dumps(raw)) / 2


class _Releasing:
    """A segmenter that counts its releases."""

    released = 0

    def signature(self) -> str:
        return "releasing|1"

    def segment_many(self, texts):  # noqa: ANN001, ANN202
        return [list(t) for t in texts]

    def release(self) -> None:
        _Releasing.released += 1


def test_a_local_pool_task_releases_the_model_when_done(monkeypatch):
    monkeypatch.setattr(segmenting, "get_segmenter", lambda spec: _Releasing())
    monkeypatch.setattr(_Releasing, "released", 0)
    signature, tokens = segmenting._segment_task("releasing|1", "releasing", ["ab", "c"], parts=2)
    assert (signature, tokens) == ("releasing|1", [["a", "b"], ["c"]])
    assert _Releasing.released == 1
    assert "releasing|1" not in segmenting._WORKER_SEGMENTERS
    # So does a task that shares the pool with other segmentations and does not fork.
    assert segmenting._segment_task("releasing|1", "releasing", ["ab"], parts=1) == ("releasing|1", [["a", "b"]])
    assert _Releasing.released == 2
    assert "releasing|1" not in segmenting._WORKER_SEGMENTERS
    # A cluster's chunk task keeps the segmenter for the worker's next chunk.
    try:
        segmenting._segment_task("releasing|1", "releasing", ["ab"])
        assert _Releasing.released == 2
        assert "releasing|1" in segmenting._WORKER_SEGMENTERS
    finally:
        segmenting._WORKER_SEGMENTERS.pop("releasing|1", None)


def test_a_local_pool_task_asked_to_keep_the_model_keeps_it_for_the_next_task(monkeypatch):
    """A study's later datasets use the same models: the worker keeps what it loaded."""
    built = []
    monkeypatch.setattr(segmenting, "get_segmenter", lambda spec: built.append(spec) or _Releasing())
    monkeypatch.setattr(_Releasing, "released", 0)
    try:
        for texts in (["ab", "c"], ["d"]):
            signature, tokens = segmenting._segment_task("releasing|1", "releasing", texts, parts=2, keep=True)
            assert tokens == [list(t) for t in texts]
        assert built == ["releasing"]  # built (loaded) once for both tasks
        assert _Releasing.released == 0 and "releasing|1" in segmenting._WORKER_SEGMENTERS
    finally:
        segmenting._WORKER_SEGMENTERS.pop("releasing|1", None)


def test_pkuseg_released_and_loaded_again_gives_the_same_tokens():
    pytest.importorskip("pkuseg")
    from metaeval.segmenters import pkuseg_adapter

    seg = segmenters.get("pkuseg")
    before = seg.segment_many(TEXTS[:3])
    seg.release()
    assert pkuseg_adapter._MODEL is None and seg._model is None
    assert seg.segment_many(TEXTS[:3]) == before
