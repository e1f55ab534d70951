"""Adjusted p-values for a family of comparisons (docs/design.md, "Many comparisons").

A claim such as "5 of 5 metrics significantly favour characters" rests on several tests at once;
each p-value is adjusted for the others of its family before it is compared with alpha:

- ``holm``: Holm's step-down procedure (Holm 1979), which controls the familywise error rate
  (the chance of any false claim in the family) under any dependence between the tests. With the
  m defined p-values sorted, ``p(1) <= ... <= p(m)``, the adjusted value of ``p(i)`` is
  ``min(1, max_{j <= i} (m - j + 1) p(j))``.
- ``bh``: Benjamini & Hochberg's step-up procedure (1995), which controls the false discovery rate
  (the expected share of false claims among those made) for independent or positively dependent
  tests: ``min(1, min_{j >= i} m p(j) / j)``.
- ``none``: the p-values as they are.

These are the definitions of statsmodels' ``multipletests(method="holm" | "fdr_bh")``. Tied
p-values get the same adjusted value under both; an undefined (NaN) p-value is not part of the
family and stays NaN.
"""

from __future__ import annotations

import numpy as np

from metaeval.errors import UsageError

#: The adjustments, the default first.
ADJUSTMENTS = ("holm", "bh", "none")
#: What each adjustment controls, for footnotes.
CONTROLS = {
    "holm": "Holm, familywise error rate",
    "bh": "Benjamini-Hochberg, false discovery rate",
    "none": "no adjustment",
}

#: The families, stated once: what a run's signature says beside the adjustment's name.
FAMILIES = {
    "holm": "each answer row's metrics that depend on segmentation, char against the best word level (the best word "
    "segmenter chosen in each bootstrap resample); each ranking's pairs of configurations (clusters, paired comparisons)",
    "none": "none: raw p-values, the best word segmenter chosen once on the full sample",
}
FAMILIES["bh"] = FAMILIES["holm"]


def check_adjustment(method: str) -> None:
    """``method`` is one of :data:`ADJUSTMENTS`."""
    if method not in ADJUSTMENTS:
        raise UsageError(f"unknown p-value adjustment {method!r}; known: {', '.join(ADJUSTMENTS)}")


def adjust_p_values(p_values: "np.ndarray | list[float]", method: str = "holm") -> np.ndarray:
    """The p-values of one family adjusted by ``method`` (:data:`ADJUSTMENTS`), in the order given.

    NaN entries are left out of the family (m counts the defined ones) and stay NaN; every value
    must otherwise lie in [0, 1].
    """
    check_adjustment(method)
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1:
        raise UsageError(f"p-values of a family must be one vector, got shape {p.shape}")
    defined = ~np.isnan(p)
    if np.any((p[defined] < 0) | (p[defined] > 1)):
        raise UsageError(f"p-values must lie in [0, 1], got {p[defined][(p[defined] < 0) | (p[defined] > 1)][0]!r}")
    out = p.copy()
    m = int(defined.sum())
    if method == "none" or m == 0:
        return out
    index = np.flatnonzero(defined)
    order = index[np.argsort(p[index], kind="stable")]
    ranked = p[order]
    j = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate((m - j + 1) * ranked)
    else:
        adjusted = np.minimum.accumulate((m / j * ranked)[::-1])[::-1]
    out[order] = np.minimum(adjusted, 1.0)
    return out


def adjust_pair_matrix(p_values: np.ndarray, method: str = "holm") -> np.ndarray:
    """A symmetric matrix of pairwise p-values (``[k, k]``, diagonal unused) adjusted over the
    family of its ``k (k - 1) / 2`` pairs, returned symmetric with ones on the diagonal."""
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise UsageError(f"p-value matrix must be square, got shape {p.shape}")
    upper = np.triu_indices(p.shape[0], k=1)
    out = np.ones_like(p)
    out[upper] = adjust_p_values(p[upper], method)
    out.T[upper] = out[upper]
    return out


__all__ = ["ADJUSTMENTS", "CONTROLS", "FAMILIES", "adjust_p_values", "adjust_pair_matrix", "check_adjustment"]
