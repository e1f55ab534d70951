"""Statistics started ahead (:mod:`metaeval.stats.ahead`): the same table, no twin computed twice,
errors raised where the table is asked for, and a run that hands on its scored segmenters early."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval import corpora, segmenting
from metaeval.scoring import score_corpus
from metaeval.stats import evaluate as evaluate_module
from metaeval.stats.ahead import ItemsAhead
from metaeval.stats.evaluate import evaluate
from metaeval.stats.settings import Settings
from metaeval.store import Store

SHARED = Path(os.environ.get("METAEVAL_SHARED", Path(__file__).resolve().parents[1] / ".." / "shared"))
WMT24_ZH = SHARED / "data" / "wmt24-esa" / "en-zh"
SETTINGS = Settings.build(None, n_bootstrap=100, seed=7)


@pytest.fixture(scope="module")
def data():
    if not WMT24_ZH.is_dir():
        pytest.skip(f"shared data folder not found: {WMT24_ZH} (set METAEVAL_SHARED)")
    corpus, judgments = corpora.read(WMT24_ZH)
    return corpus.subset(systems=corpus.system_names[:5], seg_ids=corpus.seg_ids[:50]), judgments


@pytest.fixture(scope="module")
def configs(data):
    """char, cjk-char and byte under BLEU and chrF: chrF's scores are the same under all three
    (it ignores spaces), and on these Chinese segments cjk-char's are char's (twins)."""
    corpus, _ = data
    return score_corpus(corpus, ["char", "cjk-char", "byte"], ["bleu", "chrf"]).configs


def counted(monkeypatch) -> list[str]:
    """The names of the configurations the workers compute items for, as they go."""
    names: list[str] = []
    original = evaluate_module._items_task

    def task(configs, *args):  # noqa: ANN001, ANN202
        names.extend(c.config for c in configs)
        return original(configs, *args)

    monkeypatch.setattr(evaluate_module, "_items_task", task)
    return names


def same_table(a: tuple[pd.DataFrame, np.ndarray], b: tuple[pd.DataFrame, np.ndarray]) -> None:
    pd.testing.assert_frame_equal(a[0], b[0], check_exact=True)
    assert np.array_equal(a[1], b[1], equal_nan=True)


def test_items_started_ahead_give_the_table_of_one_call_and_no_twin_twice(data, configs, monkeypatch):
    _, judgments = data
    with cf.ThreadPoolExecutor(2) as pool:
        whole = evaluate(configs, judgments, settings=SETTINGS, executor=pool, clusters=True, return_samples=True)
        names = counted(monkeypatch)
        ahead = ItemsAhead(judgments, None, SETTINGS, None, pool)
        ahead.start(configs[:2])  # char
        ahead.start(configs[2:4])  # cjk-char: twins of char's, not started again
        split = evaluate(configs, judgments, settings=SETTINGS, executor=pool, clusters=True, return_samples=True, ahead=ahead)
    same_table(whole, split)
    distinct: list = []  # the first configuration of each metric and statistics
    for c in configs:
        if not any(d.metric == c.metric and np.array_equal(d.stats, c.stats) for d in distinct):
            distinct.append(c)
    assert len(distinct) < len(configs)  # twins are there to be skipped
    assert sorted(names) == sorted(c.config for c in distinct)


def test_a_twin_copied_from_ahead_is_stored_under_its_own_name(data, configs, tmp_path, monkeypatch):
    _, judgments = data
    store = Store(tmp_path)
    with cf.ThreadPoolExecutor(2) as pool:
        ahead = ItemsAhead(judgments, None, SETTINGS, store, pool)
        ahead.start(configs[:2])
        first = evaluate(configs, judgments, settings=SETTINGS, executor=pool, store=store, return_samples=True, ahead=ahead)

    def computed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("every configuration's items should have been read from the store")

    monkeypatch.setattr(evaluate_module, "_items_on", computed)
    again = evaluate(configs, judgments, settings=SETTINGS, store=store, return_samples=True)
    same_table(first, again)


def test_an_error_in_the_work_started_ahead_is_raised_by_evaluate(data, configs, monkeypatch):
    _, judgments = data

    def broken(*args):  # noqa: ANN002, ANN202
        raise RuntimeError("worker lost")

    monkeypatch.setattr(evaluate_module, "_items_task", broken)
    with cf.ThreadPoolExecutor(2) as pool:
        ahead = ItemsAhead(judgments, None, SETTINGS, None, pool)
        ahead.start(configs[:2])
        with pytest.raises(RuntimeError, match="worker lost"):
            evaluate(configs, judgments, settings=SETTINGS, executor=pool, ahead=ahead)


def test_nothing_starts_ahead_without_workers_or_resamples(data, configs):
    _, judgments = data
    with cf.ThreadPoolExecutor(1) as pool:
        for ahead in (ItemsAhead(judgments, None, SETTINGS, None, None),
                      ItemsAhead(judgments, None, dataclasses.replace(SETTINGS, n_bootstrap=0), None, pool)):
            assert not ahead.active
            ahead.start(configs)
            assert ahead.sources == {}


def test_a_scored_segmenter_is_handed_on_while_a_later_one_is_still_segmented(data, monkeypatch):
    """jieba's first chunk of texts waits until ``on_scored`` has char's configurations: a run
    that handed them on only at the end would never release it (the wait gives up after 30 s,
    and the test fails)."""
    corpus, _ = data
    handed: list[list[str]] = []
    released = threading.Event()
    original = segmenting._segment_task
    first_text = {}

    def segment_task(signature, spec, texts, *args):  # noqa: ANN001, ANN002, ANN202
        if "jieba" in signature and first_text.setdefault("jieba", texts[0]) == texts[0]:
            assert released.wait(30), "char's configurations were not handed on while jieba was segmented"
        return original(signature, spec, texts, *args)

    def on_scored(configs):  # noqa: ANN001, ANN202
        handed.append([c.segmenter for c in configs])
        released.set()

    monkeypatch.setattr(segmenting, "_segment_task", segment_task)
    with cf.ThreadPoolExecutor(3) as pool:
        result = score_corpus(corpus, ["char", "jieba"], ["bleu", "chrf"], executor=pool, jobs=3, on_scored=on_scored)
    assert handed == [["char", "char"]]
    assert [c.segmenter for c in result.configs] == ["char", "char", "jieba", "jieba"]
    alone = score_corpus(corpus, ["char", "jieba"], ["bleu", "chrf"])
    for got, expected in zip(result.configs, alone.configs):
        assert got.config == expected.config and np.array_equal(got.stats, expected.stats)


def test_the_tasks_of_one_block_in_a_worker_share_its_human_sides(data, configs, monkeypatch):
    """A worker computes the resample weights and human sides of a block once for all its
    tasks of that block; the items are those computed afresh, and another block or other
    settings get their own."""
    from metaeval.stats import itemstore
    from metaeval.stats.human import resolve_kinds
    from metaeval.stats.resampling import bootstrap_indices

    _, judgments = data
    built: list[str] = []
    real = evaluate_module.human_side
    monkeypatch.setattr(evaluate_module, "human_side", lambda *args: built.append(args[1]) or real(*args))
    kinds = resolve_kinds(judgments, None)
    seg_ids = list(configs[0].seg_ids)
    indices = bootstrap_indices(len(seg_ids), 40, np.random.default_rng(3))
    judged = itemstore.judgments_digest(judgments)
    key = evaluate_module._block_key(judged, seg_ids, SETTINGS, 0, indices)

    def task(config, block_key):  # noqa: ANN001, ANN202
        found = evaluate_module._items_task([config], judgments, kinds, SETTINGS, seg_ids, indices, 0, False, block_key)
        return [(item.statistic, item.result.value, item.result.samples) for _, item, _ in found]

    task(configs[0], key)
    once = len(built)
    assert once == len(kinds)
    shared = task(configs[4], key)
    assert len(built) == once  # the second task of the block built no human side
    fresh = task(configs[4], None)
    assert len(built) == 2 * once
    assert len(shared) == len(fresh) > 0
    for (name, value, samples), (name2, value2, samples2) in zip(shared, fresh):
        assert name == name2 and np.array_equal([value], [value2], equal_nan=True)
        assert (samples is None and samples2 is None) or np.array_equal(samples, samples2, equal_nan=True)
    others = {evaluate_module._block_key(judged, seg_ids, dataclasses.replace(SETTINGS, seed=8), 0, indices),
              evaluate_module._block_key(judged, seg_ids, SETTINGS, 40, indices),
              evaluate_module._block_key(judged, seg_ids, SETTINGS, 0, indices[::-1])}
    assert key not in others and len(others) == 3
    for other in others:
        evaluate_module._shared_of_block(other)
    assert len(evaluate_module._BLOCKS) == evaluate_module._BLOCKS_KEPT and key not in evaluate_module._BLOCKS
