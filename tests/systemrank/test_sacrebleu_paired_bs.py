"""The paired bootstrap between systems against sacrebleu 2.6.0's ``paired_bs`` on WMT24
English-Chinese at character level: every pair of the 12 systems, 1,000 resamples, seed 12345.

sacrebleu reports, for each system against a baseline, ``p = (1 + #{|d_b| - mean|d| > |d|}) /
(B + 1)``; :mod:`metaeval.stats.systems.bootstrap` reports that same definition (a two-sided
hypothesis counted on one tail of the shifted absolute differences), so the comparison needs no
conversion between one- and two-sided p-values; both draw the resamples from
``default_rng(12345)``, so they are the same resamples and the p-values agree far inside the
0.02 that two independent Monte Carlo estimates would need. sacrebleu scores the same
character tokens (joined by spaces, ``tokenize="none"``) with its own BLEU.
"""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.stats.systems.bootstrap import metric_samples, paired_bs_p_values, segment_resamples
from tests.golden_util import DATA

CORPUS = DATA / "wmt24-esa" / "en-zh"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::metaeval.errors.DataWarning")
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared data {CORPUS} does not exist")
def test_every_pair_matches_sacrebleus_paired_bootstrap(monkeypatch):
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    from metaeval import segmenters
    from metaeval.api import read_corpus
    from metaeval.scoring import score_corpus

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    corpus, _ = read_corpus(CORPUS)
    (config,) = score_corpus(corpus, ["char"], ["bleu"]).configs
    ours = paired_bs_p_values(config.sys_scores, metric_samples(config, segment_resamples(corpus.n_segments, 1000, 12345)))

    char = segmenters.get("char")
    refs = [[" ".join(tokens) for tokens in char.segment_many(list(corpus.references["refA"]))]]
    hyps = {name: [" ".join(tokens) for tokens in char.segment_many(list(texts))] for name, texts in corpus.systems.items()}
    names = list(config.systems)
    theirs = np.full((len(names), len(names)), np.nan)
    for b, baseline in enumerate(names):
        others = [name for name in names if name != baseline]
        named = [(baseline, hyps[baseline])] + [(name, hyps[name]) for name in others]
        _, scores = PairedTest(named, {"BLEU": BLEU(tokenize="none")}, refs, test_type="bs", n_samples=1000)()
        results = dict(zip(scores["System"], scores["BLEU"]))
        assert results[baseline].score == pytest.approx(100 * config.sys_scores[b], abs=1e-9)
        for name in others:
            theirs[b, names.index(name)] = results[name].p_value
    off_diagonal = ~np.eye(len(names), dtype=bool)
    difference = np.abs(ours - theirs)[off_diagonal]
    assert difference.size == 132 and np.all(difference <= 0.02), difference.max()
    assert difference.max() == 0.0  # the same resamples, the same counts
    assert (theirs[off_diagonal] > 0.05).any() and (theirs[off_diagonal] < 0.01).any()  # close pairs and distant ones
