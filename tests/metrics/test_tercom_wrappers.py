"""The Python side of the tercom kernel: pair layout, batches, several references, errors.

Edit counts are hand-computed tercom 0.7.25 values on integer token ids.
"""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.metrics import tercom


def ids(*tokens: int) -> np.ndarray:
    return np.array(tokens, dtype=np.int64)


PAIRS = [
    (ids(1, 2, 3), ids(1, 2, 3), 0),  # identical
    (ids(1, 2), ids(1, 2, 3), 1),  # one insertion
    (ids(1, 9, 3), ids(1, 2, 3), 1),  # one substitution
    (ids(3, 1, 2), ids(1, 2, 3), 1),  # one shift of "3" to the end
    (ids(), ids(1, 2, 3), 3),  # empty hypothesis: the reference's length (TERnullstr)
    (ids(4, 5), ids(), 2),  # empty reference: the hypothesis's length
]


def test_pair_edits_on_hand_computed_pairs():
    got = tercom.pair_edits([h for h, _, _ in PAIRS], [r for _, r, _ in PAIRS])
    assert got.tolist() == [e for _, _, e in PAIRS]
    assert tercom.pair_edits([], []).shape == (0,)
    with pytest.raises(ValueError, match="got 1 hypotheses and 2 references"):
        tercom.pair_edits([ids(1)], [ids(1), ids(2)])


def test_small_batches_give_the_same_edits(monkeypatch):
    expected = tercom.pair_edits([h for h, _, _ in PAIRS], [r for _, r, _ in PAIRS])
    monkeypatch.setattr(tercom, "BATCH_CELLS", 1)  # one pair per kernel call
    assert tercom._batches(np.array([0, 3, 5, 8]), np.array([0, 3, 6, 9])) == [(0, 1), (1, 2), (2, 3)]
    assert tercom.pair_edits([h for h, _, _ in PAIRS], [r for _, r, _ in PAIRS]).tolist() == expected.tolist()


def test_batches_cover_every_pair_once_in_order():
    hyp_off = np.cumsum([0] + [300] * 7)
    ref_off = np.cumsum([0] + [300] * 7)
    batches = tercom._batches(hyp_off, ref_off)  # 301 * 301 cells a pair: two pairs a batch
    assert batches == [(0, 2), (2, 4), (4, 6), (6, 7)]


def test_best_edits_takes_the_fewest_edits_and_the_mean_reference_length():
    hyps = [ids(1, 2, 3), ids(7, 8)]
    refs = [[ids(1, 2, 4), ids(7, 8, 9, 10)], [ids(1, 2, 3, 5), ids(6)]]
    out = tercom.best_edits(hyps, refs)
    # segment 1: 1 substitution against ref set 1, 1 insertion against ref set 2; lengths 3 and 4
    # segment 2: 2 insertions against ref set 1, 1 substitution + 1 deletion against ref set 2
    np.testing.assert_array_equal(out, [[1.0, 3.5], [2.0, 2.5]])


def test_best_edits_flat_refuses_pairs_that_do_not_form_reference_sets():
    flat, off = tercom._flatten([ids(1), ids(2), ids(3)])
    with pytest.raises(ValueError, match="3 hypotheses and 3 references do not form 2 reference sets"):
        tercom.best_edits_flat(flat, off, flat, off, 2)
    empty, empty_off = tercom._flatten([])
    assert empty.shape == (0,) and empty_off.tolist() == [0]
    assert tercom.best_edits_flat(empty, empty_off, empty, empty_off, 1).shape == (0, 2)


def test_a_failure_inside_the_kernel_thread_reaches_the_caller(monkeypatch):
    def broken(*args):  # noqa: ANN002, ANN202
        raise MemoryError("kernel buffers")

    monkeypatch.setattr(tercom, "_batch_edits", broken)
    with pytest.raises(MemoryError, match="kernel buffers"):
        tercom.pair_edits([ids(1, 2)], [ids(1, 3)])
