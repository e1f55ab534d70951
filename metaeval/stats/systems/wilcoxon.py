"""One-sided Wilcoxon signed-rank tests between systems, as the WMT24 human ranking ran them.

WMT24's ``humeval/tools.py`` (wmt-conference/wmt24-news-systems, commit 71cc027,
``get_pvalues`` and ``weighted_wilcoxon_signed_rank_test``) tests every ordered pair of
systems (A, B) with ``scipy.stats.wilcoxon(x_A - x_B, alternative="greater")`` on the
segments both were judged on: the Wilcoxon *signed-rank* test of paired judgments (scipy's
defaults: zero differences dropped, no continuity correction, the exact distribution for small
samples), so ``p[A, B]`` small means A's judgments tend to be higher than B's on the same
segments. The findings table averages over domains ("macro"): each domain is tested alone and
the p-values are combined by Stouffer's method with equal weights
(``scipy.stats.combine_pvalues(method="stouffer")``); ``strata`` does the same here.

A pair with no segment where the two judgments differ gives p = 1 (scipy has no statistic
there); in a stratified test such a stratum is left out of the combination.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from metaeval.errors import UsageError

#: How the human-side test is named in reports and signatures.
METHOD = "one-sided Wilcoxon signed-rank test on paired segment judgments (WMT24)"


def one_sided_p(differences: np.ndarray) -> float:
    """p-value that the differences tend to be positive (scipy, ``alternative="greater"``)."""
    differences = np.asarray(differences, dtype=float)
    if not np.any(differences != 0.0):
        return 1.0
    with warnings.catch_warnings():  # small samples and ties: scipy warns and still answers
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        return float(stats.wilcoxon(differences, alternative="greater").pvalue)


def stratified_p(differences: np.ndarray, strata: np.ndarray) -> float:
    """:func:`one_sided_p` in each stratum, combined by Stouffer's method (equal weights);
    strata without a non-zero difference are left out (p = 1 when none is left)."""
    pvalues = []
    for stratum in dict.fromkeys(strata.tolist()):
        part = differences[strata == stratum]
        if np.any(part != 0.0):
            pvalues.append(one_sided_p(part))
    if not pvalues:
        return 1.0
    if len(pvalues) == 1:
        return pvalues[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(stats.combine_pvalues(pvalues, method="stouffer").pvalue)


def wilcoxon_p_values(matrix: np.ndarray, strata: np.ndarray | None = None) -> np.ndarray:
    """``p[i, j]``: one-sided p-value that system i is judged better than system j.

    Args:
        matrix: judgments ``[n_systems, n_segments]``, higher is better (negate lower-is-better
            kinds first), NaN where a system was not judged on a segment.
        strata: optional label per segment (e.g. its domain); then each stratum is tested
            alone and the p-values combined (:func:`stratified_p`).

    Returns:
        ``(n_systems, n_systems)``; the diagonal is 1; a pair judged on no common segment is NaN.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2:
        raise UsageError(f"judgments must be a [systems, segments] matrix, got shape {matrix.shape}")
    if strata is not None:
        strata = np.asarray(strata)
        if strata.shape != (matrix.shape[1],):
            raise UsageError(f"strata must hold one label per segment ({matrix.shape[1]}), got shape {strata.shape}")
    n = matrix.shape[0]
    p = np.ones((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
            if not both.any():
                p[i, j] = p[j, i] = np.nan
                continue
            d = matrix[i, both] - matrix[j, both]
            if strata is None:
                p[i, j], p[j, i] = one_sided_p(d), one_sided_p(-d)
            else:
                p[i, j], p[j, i] = stratified_p(d, strata[both]), stratified_p(-d, strata[both])
    return p


__all__ = ["METHOD", "one_sided_p", "stratified_p", "wilcoxon_p_values"]
