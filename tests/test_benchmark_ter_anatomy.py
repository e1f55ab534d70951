"""``benchmarks.ter_anatomy``: TER's kernels with one phase run twice, and with counters."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import ter_anatomy
from metaeval.metrics import tercom


def test_every_edit_finds_its_text_once_in_the_kernels():
    text = ter_anatomy.SOURCE.read_text(encoding="utf-8")
    edits = [*ter_anatomy.TWICE.values(), ter_anatomy._COUNT_EDITS]
    for anchor, _ in (edit for group in edits for edit in group):
        assert text.count(anchor) == 1, anchor


def test_an_edit_whose_text_is_gone_names_the_variant():
    with pytest.raises(SystemExit, match="the variant 'gone' expects this text once, found it 0 times"):
        ter_anatomy.variant("gone", [("no such line in the kernels", "")])


def _pairs(seed: int = 7, n: int = 40) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Random pairs over a small vocabulary, with shifted blocks so that the search takes shifts."""
    rng = np.random.default_rng(seed)
    hyps, refs = [], []
    for _ in range(n):
        ref = rng.integers(0, 12, int(rng.integers(8, 60)))
        hyp = ref.copy()
        if len(hyp) > 10:
            a = int(rng.integers(0, len(hyp) - 6))
            hyp = np.r_[hyp[:a], hyp[a + 5:], hyp[a:a + 5]]
        flip = rng.random(len(hyp)) < 0.15
        hyp[flip] = rng.integers(0, 14, int(flip.sum()))
        hyps.append(hyp.astype(np.int64))
        refs.append(ref.astype(np.int64))
    return hyps, refs


def test_a_phase_run_twice_and_the_counters_change_no_edit():
    hyps, refs = _pairs()
    expected = tercom.pair_edits(hyps, refs)
    hyp_flat, hyp_off = tercom._flatten(hyps)
    ref_flat, ref_off = tercom._flatten(refs)
    stop = np.zeros(1, dtype=np.int64)
    twice = ter_anatomy.variant("test_ter_anatomy_twice", ter_anatomy.TWICE["candidate search"])._batch_edits
    assert np.array_equal(twice(hyp_flat, hyp_off, ref_flat, ref_off, stop), expected)
    counting = ter_anatomy.variant("test_ter_anatomy_counts", ter_anatomy._COUNT_EDITS)._batch_edits
    cnt = np.zeros(7, dtype=np.int64)
    assert np.array_equal(counting(hyp_flat, hyp_off, ref_flat, ref_off, stop, cnt), expected)
    rounds, evals, columns, changed, unchanged, to_end, _ = (int(c) for c in cnt)
    assert rounds >= len(hyps) and evals > 0
    assert changed + unchanged == columns and 0 <= to_end <= evals
