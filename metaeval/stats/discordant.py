"""Discordant pairs of one metric against many orderings of the human scores, counted exactly.

For cells with metric classes ``x`` and human classes ``y`` (integer codes, equal code = equal
score), ``C - D = sum over pairs of sign(x_a - x_b) sign(y_a - y_b)``. Knight (1966), as
``scipy.stats.kendalltau`` counts it: with the cells in order of ``(x, y)``, the discordant
pairs are the inversions of ``y`` (a later cell of higher ``x`` with a strictly lower ``y``), and

    C - D = N - T_x - T_y + T_xy - 2 D

with ``N`` the pairs, ``T_x`` and ``T_y`` the pairs tied in ``x`` and in ``y``, ``T_xy`` those
tied in both. This module counts ``D``, the one term that depends on how the two orders
interleave; the tie counts follow from the multisets of codes, which the caller already has. The
inversions are counted with a Fenwick tree over the ``y`` codes, ``O(n log k)`` per row, in
integers: no rounding anywhere.
"""

from __future__ import annotations

import numpy as np

from metaeval.lazyjit import njit


@njit(cache=True)
def _inversions(rows, k):
    """Per row of ``rows`` ``[P, n]`` (codes ``0..k-1``): pairs ``i < j`` with ``rows[i] > rows[j]``."""
    n_rows, width = rows.shape
    out = np.zeros(n_rows, dtype=np.int64)
    tree = np.zeros(k + 1, dtype=np.int64)
    for p in range(n_rows):
        tree[:] = 0
        for i in range(width):
            v = rows[p, i] + 1
            at_most = 0
            j = v
            while j > 0:
                at_most += tree[j]
                j -= j & -j
            out[p] += i - at_most
            j = v
            while j <= k:
                tree[j] += 1
                j += j & -j
    return out


def discordant_pairs(x_code: np.ndarray, y_codes: np.ndarray) -> np.ndarray:
    """``D`` ``[P]``: pairs of cells ordered one way by ``x_code`` ``[n]`` and strictly the other
    way by each row of ``y_codes`` ``[P, n]`` (non-negative integer codes)."""
    n_rows, width = y_codes.shape
    if width < 2:
        return np.zeros(n_rows, dtype=np.int64)
    k = int(y_codes.max()) + 1
    order = np.argsort(x_code.astype(np.int64)[None, :] * k + y_codes, axis=1, kind="stable")
    return _inversions(np.ascontiguousarray(np.take_along_axis(y_codes, order, axis=1), dtype=np.int64), k)


__all__ = ["discordant_pairs"]
