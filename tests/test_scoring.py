"""The scoring layer: statistics per segment, sums at document and system level, executors."""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from metaeval.corpora.model import Corpus
from metaeval.metrics.base import Metric
from metaeval.scoring import score_corpus


@dataclass(frozen=True)
class UnigramPrecision(Metric):
    """Toy metric: matched hypothesis tokens (clipped by the first reference) / hypothesis tokens."""

    name: ClassVar[str] = "uprec"

    @property
    def stat_names(self) -> tuple[str, ...]:
        return ("matches", "hyp_len")

    def signature(self) -> str:
        return "uprec"

    def segment_stats(self, hyps, prepared):  # noqa: ANN001, ANN201
        out = np.zeros((len(hyps), 2))
        for i, hyp in enumerate(hyps):
            ref = list(prepared[0][i])
            for token in hyp:
                if token in ref:
                    ref.remove(token)
                    out[i, 0] += 1
            out[i, 1] = len(hyp)
        return out

    def score(self, stats):  # noqa: ANN001, ANN201
        stats = np.asarray(stats, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(stats[..., 1] > 0, stats[..., 0] / np.maximum(stats[..., 1], 1), 0.0)


class SpaceSegmenter:
    name = "space"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def signature(self) -> str:
        return "space|v1"

    def segment_many(self, texts):  # noqa: ANN001, ANN201
        self.calls.extend(texts)
        return [t.split() for t in texts]


def make_corpus() -> Corpus:
    return Corpus(
        seg_ids=("1", "2", "3"),
        sources=("s1", "s2", "s3"),
        references={"A": ("a b c d", "e f", "g h")},
        systems={"X": ("a b c d", "e x", "z"), "Y": ("a b", "e f", "g h")},
        doc_ids=("d1", "d1", "d2"),
        target_lang="en",
        name="toy",
    )


def test_scores_at_every_level_follow_from_summed_statistics():
    result = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()])
    (cfg,) = result.configs
    # X: 4/4, 1/2, 0/1 -> segments 1, .5, 0; system 5/7; doc d1 = 5/6, d2 = 0/1
    assert cfg.seg_scores[0].tolist() == [1.0, 0.5, 0.0]
    assert cfg.sys_scores[0] == pytest.approx(5 / 7)
    table = result.table()
    docs = table[(table.level == "doc") & (table.system == "X")].set_index("doc_id")["score"]
    assert docs["d1"] == pytest.approx(5 / 6) and docs["d2"] == 0.0
    sys_rows = table[table.level == "sys"]
    assert (sys_rows.seg_id == "").all() and set(sys_rows.system) == {"X", "Y"}
    # Y: 2/2, 2/2, 2/2 -> 1 everywhere
    assert cfg.sys_scores[1] == 1.0


def test_each_unique_text_is_segmented_once():
    seg = SpaceSegmenter()
    score_corpus(make_corpus(), [seg], [UnigramPrecision()])
    assert len(seg.calls) == len(set(seg.calls))
    # "e f" and "g h" occur as reference and as Y's hypothesis: segmented once each
    assert seg.calls.count("e f") == 1


def test_process_pool_gives_identical_results():
    serial = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()]).table()
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        parallel = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()], executor=pool).table()
    assert serial.equals(parallel)


def test_metric_echoes_spec_and_config_records_signatures():
    result = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()])
    table = result.table(["sys"])
    assert set(table.metric) == {"uprec"}
    assert set(table.config) == {"uprec+space|v1"}
    assert list(table.columns)[:5] == ["metric", "segmenter", "system", "level", "doc_id"]


def test_statistics_reused_across_segmenters_equal_fresh_ones():
    """cjk-char splits pure-CJK segments like char; chrF ignores spaces: reuse must not change a number."""
    from tests.golden_util import DATA

    from metaeval import corpora

    corpus, _ = corpora.read(DATA / "wmt24-esa" / "en-zh")
    corpus = corpus.subset(systems=corpus.system_names[:3], seg_ids=corpus.seg_ids[:60])
    metrics = ["bleu", "chrf", "gtm", "1-ter", "nist"]
    together = score_corpus(corpus, ["char", "cjk-char", "jieba"], metrics)
    for cfg in together.configs:
        alone = score_corpus(corpus, [cfg.segmenter], [cfg.metric]).configs[0]
        assert np.array_equal(cfg.stats, alone.stats), (cfg.metric, cfg.segmenter)


def test_resampled_system_scores_equal_scores_of_resampled_statistics():
    result = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()])
    (cfg,) = result.configs
    indices = np.array([[0, 0, 1], [2, 2, 2], [1, 2, 0]])
    expected = np.stack([cfg.score_fn(cfg.stats[:, idx, :].sum(axis=1)) for idx in indices])
    # sample [2, 2, 2] for X: 0/1 three times -> 0; sample [0, 0, 1] for X: (4+4+1)/(4+4+2) = 0.9
    assert cfg.resampled_sys_scores(indices)[1, 0] == 0.0
    assert cfg.resampled_sys_scores(indices)[0, 0] == pytest.approx(0.9)
    np.testing.assert_allclose(cfg.resampled_sys_scores(indices), expected, rtol=0, atol=1e-12)


def test_dask_executor_gives_identical_results():
    """Any concurrent.futures executor works, e.g. Dask's (pip install 'metaeval[dask]')."""
    distributed = pytest.importorskip("distributed")
    serial = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()]).table()
    with distributed.Client(processes=False, dashboard_address=None, n_workers=1, threads_per_worker=2) as client:
        parallel = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()], executor=client.get_executor()).table()
    assert serial.equals(parallel)


def test_progress_names_stages_counts_real_units_and_moves_inside_segmentation(monkeypatch):
    import metaeval.scoring as scoring

    monkeypatch.setattr(scoring, "SEGMENT_BATCH", 2)
    corpus = make_corpus()
    calls = []
    score_corpus(corpus, [SpaceSegmenter()], [UnigramPrecision()], progress=lambda *a: calls.append(a))
    stages = {}
    for stage, done, total in calls:
        stages.setdefault(stage, []).append((done, total))
    seg_stage = f"segmenting {SpaceSegmenter().name}"
    assert set(stages) == {seg_stage, "scoring"}
    assert set(scoring.STAGE_UNITS) >= {s.split()[0] for s in stages}
    texts = len(set(t for ref in corpus.refs_list() for t in ref) | set(t for h in corpus.systems.values() for t in h))
    # segmentation: starts at 0, moves in batches of 2 texts, ends at the number of unique texts
    seg = stages[seg_stage]
    assert seg[0] == (0, texts) and seg[-1] == (texts, texts) and len(seg) >= 2 + (texts - 1) // 2
    # scoring: segment scores = segmenters x metrics x systems x segments, starting at 0, reached once
    total = 1 * 1 * len(corpus.systems) * corpus.n_segments
    score = stages["scoring"]
    assert score[0] == (0, total) and score[-1] == (total, total) and [d for d, _ in score].count(total) == 1
    for updates in stages.values():
        assert [d for d, _ in updates] == sorted(d for d, _ in updates)




def test_a_segment_two_systems_output_alike_is_computed_once_with_the_same_statistics():
    """Statistics of one segment depend on its hypothesis and references only: a system that
    outputs the same text as an earlier one for a segment takes that system's row."""
    from tests.golden_util import DATA

    from metaeval import corpora
    from metaeval.metrics.ter import TER

    corpus, _ = corpora.read(DATA / "wmt24-esa" / "en-zh")
    corpus = corpus.subset(systems=corpus.system_names[:3], seg_ids=corpus.seg_ids[:40])
    first, second, third = corpus.system_names
    copied = list(corpus.systems[second])
    for i in range(0, 40, 3):  # every third segment of the second system as the first one's
        copied[i] = corpus.systems[first][i]
    corpus.systems[second] = copied

    calls: list[int] = []

    class CountingTER(TER):
        def segment_stats(self, hyps, prepared):  # noqa: ANN001, ANN201
            calls.append(sum(1 for tokens in hyps if tokens))  # the rows taken elsewhere come empty
            return super().segment_stats(hyps, prepared)

    together = score_corpus(corpus, ["char", "jieba"], ["bleu", "chrf", "gtm", "nist", CountingTER()])
    # char: 40 + 40 - 14 + 40 pairs; jieba reuses char's rows where it splits a pair the same way
    assert calls[:3] == [40, 26, 40]
    for cfg in together.configs:
        for system in corpus.system_names:
            alone = score_corpus(corpus.subset(systems=[system]), [cfg.segmenter], [cfg.metric]).configs[0]
            row = cfg.systems.index(system)
            assert np.array_equal(cfg.stats[row], alone.stats[0]), (cfg.metric, cfg.segmenter, system)
