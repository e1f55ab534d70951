"""Kendall's C - D of one metric against many orderings of the human scores
(metaeval.stats.discordant): by hand, pair by pair, and against scipy.stats.kendalltau."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from metaeval.stats.discordant import discordant_pairs
from metaeval.stats.permuted import _tied_pairs


def by_pairs(x: np.ndarray, y: np.ndarray) -> int:
    return sum(int(np.sign(x[a] - x[b]) * np.sign(y[a] - y[b])) for a, b in itertools.combinations(range(len(x)), 2))


def c_minus_d(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Knight's C - D = N - T_x - T_y + T_xy - 2D, the tie counts pair by pair here."""
    n = len(x)
    pairs = list(itertools.combinations(range(n), 2))
    tied_x = sum(x[a] == x[b] for a, b in pairs)
    tied_y = np.array([sum(row[a] == row[b] for a, b in pairs) for row in rows], dtype=np.int64)
    tied_both = np.array([sum(x[a] == x[b] and row[a] == row[b] for a, b in pairs) for row in rows], dtype=np.int64)
    return n * (n - 1) // 2 - tied_x - tied_y + tied_both - 2 * discordant_pairs(x, rows)


def test_by_hand():
    # x 0 0 1 2, y 1 0 2 1: pairs (0,1) x tie; (0,2) C; (0,3) y tie; (1,2) C; (1,3) C; (2,3) D -> 3 - 1 = 2
    x = np.array([0, 0, 1, 2])
    assert c_minus_d(x, np.array([[1, 0, 2, 1]])).tolist() == [2]
    assert discordant_pairs(x, np.array([[1, 0, 2, 1]])).tolist() == [1]  # the pair (2,3) alone
    # the reverse order of the humans: every untied pair changes sides
    assert c_minus_d(x, np.array([[1, 2, 0, 1]])).tolist() == [-2]
    # constant humans or too few cells: nothing to count
    assert c_minus_d(x, np.array([[3, 3, 3, 3]])).tolist() == [0]
    assert discordant_pairs(np.array([5]), np.array([[0], [0]])).tolist() == [0, 0]
    # two cells: one pair, discordant in the first ordering, concordant in the second
    assert discordant_pairs(np.array([0, 1]), np.array([[1, 0], [0, 1]])).tolist() == [1, 0]


@pytest.mark.parametrize("seed", range(4))
def test_pair_by_pair_and_as_scipy_counts_it(seed):
    import scipy.stats

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    x = rng.integers(0, int(rng.integers(1, 8)), size=n)
    y = rng.integers(0, int(rng.integers(1, 8)), size=n)
    rows = np.array([y[rng.permutation(n)] for _ in range(6)])
    got = c_minus_d(x, rows)
    assert got.dtype == np.int64
    for row, value in zip(rows, got):
        assert value == by_pairs(x, row)
        tau = scipy.stats.kendalltau(x, row).statistic
        total = n * (n - 1) // 2
        scale = math.sqrt((total - _tied_pairs(x[None])[0]) * (total - _tied_pairs(row[None])[0]))
        assert value == (0 if math.isnan(tau) else round(tau * scale))
