"""Statistics against several references, from the statistics against each alone.

A metric whose multi-reference statistics are a function of the single-reference ones
(``Metric.combine_references``) lets a run on several references read what runs on each
reference stored, instead of scoring again; the numbers must be the same bits."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval import corpora
from metaeval.metrics import get_metric
from metaeval.metrics.ter import TER
from metaeval.scoring import score_corpus
from tests.golden_util import DATA


@pytest.fixture(scope="module")
def two_references():
    corpus, _ = corpora.read(DATA / "wmt21" / "en-zh")
    assert len(corpus.references) == 2
    return corpus.subset(systems=corpus.system_names[:3], seg_ids=corpus.seg_ids[:150])


def _stats(corpus, segmenter: str, metric: str) -> np.ndarray:  # noqa: ANN001
    return score_corpus(corpus, [segmenter], [metric]).configs[0].stats


@pytest.mark.parametrize("metric", ["ter", "1-ter", "meteor", "chrf", "chrf:beta=1"])
@pytest.mark.parametrize("segmenter", ["char", "jieba"])
def test_combined_statistics_are_those_against_both_references_bit_for_bit(two_references, metric, segmenter):
    a, b = (two_references.subset(references=[name]) for name in two_references.references)
    per_reference = [_stats(a, segmenter, metric), _stats(b, segmenter, metric)]
    both = _stats(two_references, segmenter, metric)
    m = get_metric(metric)
    for row in range(both.shape[0]):
        combined = m.combine_references([per_reference[0][row], per_reference[1][row]])
        assert combined is not None and np.array_equal(combined, both[row]), (metric, segmenter, row)
    # the references' order matters only through ties, which keep the first: swapped, the
    # scores are those of the same best reference
    swapped = m.combine_references([per_reference[1][0], per_reference[0][0]])
    assert np.array_equal(m.score(swapped), m.score(both[0]))


@pytest.mark.parametrize("metric", ["bleu", "nist", "gtm", "chrf++"])
def test_metrics_whose_statistics_are_not_a_function_of_each_reference_combine_nothing(metric):
    stats = np.ones((3, 4))
    assert get_metric(metric).combine_references([stats, stats]) is None


def test_a_run_on_both_references_reads_what_runs_on_each_stored(two_references, tmp_path):
    calls: list[int] = []

    class CountingTER(TER):
        def segment_stats(self, hyps, prepared):  # noqa: ANN001, ANN201
            calls.append(len(prepared.counts))  # references scored against
            return super().segment_stats(hyps, prepared)

    metrics = ["bleu", CountingTER(), "meteor", "chrf"]
    fresh = score_corpus(two_references, ["char"], metrics)
    assert calls == [2, 2, 2]  # each system against both references
    for name in two_references.references:
        score_corpus(two_references.subset(references=[name]), ["char"], metrics, store=tmp_path)
    assert calls == [2, 2, 2] + [1, 1, 1] * 2
    calls.clear()
    stored = score_corpus(two_references, ["char"], metrics, store=tmp_path)
    assert calls == []  # TER was not scored again: both references' statistics were stored
    for got, want in zip(stored.configs, fresh.configs):
        assert got.config == want.config
        assert np.array_equal(got.stats, want.stats) and np.array_equal(got.sys_scores, want.sys_scores), got.metric
    # with one reference's statistics missing, the run scores as before
    only_a = tmp_path / "only-a"
    score_corpus(two_references.subset(references=[next(iter(two_references.references))]), ["char"], metrics, store=only_a)
    calls.clear()
    again = score_corpus(two_references, ["char"], metrics, store=only_a)
    assert calls == [2, 2, 2] and np.array_equal(again.configs[1].stats, fresh.configs[1].stats)


def test_a_metric_that_never_combines_reads_no_single_reference_statistics(two_references, tmp_path, monkeypatch):
    from metaeval.store import Store

    for name in two_references.references:
        score_corpus(two_references.subset(references=[name]), ["char"], ["bleu", "ter"], store=tmp_path)
    asked: list[str] = []
    get = Store.get
    monkeypatch.setattr(Store, "get", lambda self, kind, key: (asked.append(key.split("\n")[0]), get(self, kind, key))[1])
    score_corpus(two_references, ["char"], ["bleu", "ter"], store=tmp_path)
    bleu, ter = (get_metric(m).signature() for m in ("bleu", "ter"))
    systems = len(two_references.system_names)
    assert asked.count(bleu) == systems  # its own key only: BLEU does not combine references
    assert asked.count(ter) == 3 * systems  # its own key, then each reference's
