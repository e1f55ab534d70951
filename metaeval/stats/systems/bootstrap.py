"""Paired bootstrap resampling between systems over segments, with sacrebleu's p-value.

sacrebleu 2.6.0 (``significance._paired_bs_test``, which replicates Moses'
``bootstrap-hypothesis-difference-significance.pl``; Koehn 2004) compares two systems on B
resamples of the segments, the same resamples for both: on resample b it recomputes each
corpus score from the summed per-segment statistics and takes the absolute difference
``d_b = |s_A(b) - s_B(b)|``. With the observed difference ``d = |s_A - s_B|``, its p-value is

    p = (1 + #{b : d_b - mean(d_1..d_B) > d}) / (B + 1)

the bootstrap distribution of the absolute difference, shifted to mean zero, standing for its
distribution when the systems do not differ; the +1 keeps the size of the test at most its
level (Clark et al.'s MultEval, which sacrebleu cites). sacrebleu draws the resamples with
``numpy.random.default_rng(seed).choice(n, size=(B, n))``, the same numbers as
``integers(0, n, size=(B, n))`` (:func:`metaeval.stats.resampling.bootstrap_indices`), so at the
same seed (12345 by default in both) every resample is sacrebleu's.

Sidedness. The hypothesis is two-sided (the statistic is an absolute difference: either
system may be the better one), but the count takes one tail of the shifted distribution.
Between two systems that no resample reverses, ``d_b - mean = delta_b - mean(delta)`` with
``delta_b = s_A(b) - s_B(b)`` signed, so p is the upper tail alone: about the one-sided
fraction ``P(delta_b <= 0)`` of Koehn 2004, and half the p-value of the textbook two-sided
shift test ``P(|delta_b - mean(delta)| >= |delta|)``. This module reports sacrebleu's p itself,
so comparing the two needs no conversion (``docs/reference.md``, "System leaderboards").

Two departures, both where sacrebleu's formula has no meaning: two systems whose every
resample ties (the same statistics on every segment) get p = 1, not 1 / (B + 1); a resample
on which either score is undefined (NaN) is left out of that pair's count and of B.
"""

from __future__ import annotations

import numpy as np

from metaeval.stats.resampling import bootstrap_indices, resample_weights
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores

#: How the metric-side test is named in reports and signatures.
METHOD = "paired bootstrap over segments, p as sacrebleu --paired-bs (Koehn 2004; Moses)"


def segment_resamples(n_segments: int, n_samples: int, seed: int) -> np.ndarray:
    """Resampled segment indices ``[n_samples, n_segments]`` from ``default_rng(seed)``:
    the resamples sacrebleu's paired bootstrap draws at the same seed."""
    return bootstrap_indices(n_segments, n_samples, np.random.default_rng(seed))


def metric_samples(config: ConfigScores, indices: np.ndarray) -> np.ndarray:
    """System scores ``[n_samples, n_systems]`` of ``config`` on each resample: the metric of
    the summed statistics when the configuration has them, else the mean segment score."""
    return config.resampled_sys_scores(indices)


def human_samples(matrix: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Mean human score ``[n_samples, n_systems]`` of each system on each resample, over the
    resampled segments it was judged on (NaN where none was drawn). ``matrix`` is
    ``[n_systems, n_segments]`` with NaN where a system was not judged."""
    matrix = np.asarray(matrix, dtype=float)
    weights = resample_weights(indices, matrix.shape[1])
    judged = ~np.isnan(matrix)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ np.where(judged, matrix, 0.0).T) / (weights @ judged.T.astype(float))


def paired_bs_p_values(observed: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """sacrebleu's paired-bootstrap p-value between every two systems (see the module docstring).

    Args:
        observed: the systems' scores on the whole test set, shape ``(n_systems,)``.
        samples: their scores on each resample, shape ``(n_samples, n_systems)``, every system
            on the same resamples.

    Returns:
        a symmetric ``(n_systems, n_systems)`` matrix; 1 on the diagonal, NaN for a pair with
        an undefined observed score or no resample where both are defined.
    """
    observed = np.asarray(observed, dtype=float)
    samples = np.asarray(samples, dtype=float)
    if samples.ndim != 2 or observed.ndim != 1 or samples.shape[1] != observed.size:
        raise UsageError(f"expected observed (n,) and samples (B, n), got {observed.shape} and {samples.shape}")
    n = observed.size
    p = np.ones((n, n))
    for i in range(n):
        diffs = np.abs(samples[:, [i]] - samples)
        valid = ~np.isnan(diffs)
        used = valid.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(valid, diffs, 0.0).sum(axis=0) / used
        real = np.abs(observed[i] - observed)
        above = (valid & (diffs - mean > real)).sum(axis=0)
        row = (above + 1.0) / (used + 1.0)
        never_apart = ~np.any(valid & (diffs != 0.0), axis=0) & (real == 0.0)
        row[never_apart] = 1.0
        row[(used == 0) | np.isnan(real)] = np.nan
        p[i] = row
    np.fill_diagonal(p, 1.0)
    return p


__all__ = ["METHOD", "human_samples", "metric_samples", "paired_bs_p_values", "segment_resamples"]
