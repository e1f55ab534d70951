"""How much data a paired comparison needs: the smallest difference a test set detects, and the
size at which an observed difference would be detected, from the bootstrap's spread of the
difference.

With ``se`` the standard deviation of the paired bootstrap differences (the standard error of
the difference ``delta`` on ``n`` units: segments, documents or systems, whatever the bootstrap
resampled) and the normal approximation of a two-sided test at level ``alpha``:

- the minimum detectable difference at power ``1 - beta`` is
  ``mde = (z_{1 - alpha/2} + z_{1 - beta}) se`` (2.8016 se at alpha = 0.05 and 80% power): a true
  difference of that size is found significant with probability ``1 - beta`` (the far tail,
  below ``Phi(-z_{1 - alpha/2} - z_{1 - beta})``, 0.00000036 here, is left out);
- taking the standard error to scale as ``1 / sqrt(n)`` (the units independent and alike, the
  difference itself unchanged), the units at which ``delta`` would be detected with that power
  are ``n (mde / |delta|)^2``, rounded up.

Assumptions: the bootstrap differences are roughly normal (a percentile interval and p-value
need not be), the test set's units are a sample of the population more units would come from,
and at system level, with systems resampled, the segments of each system stay as they are.
``alpha`` is the level of the test: the unadjusted 0.05 by default, or the adjusted level of a
family of comparisons.
"""

from __future__ import annotations

import math

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.defaults import ALPHA, POWER


def _z(alpha: float, power: float) -> float:
    if not (0.0 < alpha < 1.0 and 0.0 < power < 1.0):
        raise UsageError(f"alpha and power must be in (0, 1), got {alpha!r} and {power!r}")
    # the standard normal quantile is scipy.special.ndtri, which scipy.stats.norm.ppf calls (times
    # scale 1, plus loc 0: the same bits); scipy.special imports in 0.1 s, scipy.stats in 0.8 s
    import scipy.special

    return float(scipy.special.ndtri(1.0 - alpha / 2.0) + scipy.special.ndtri(power))


def standard_error(differences: np.ndarray) -> float:
    """The standard deviation (``ddof=1``) of the defined bootstrap differences (NaN below two)."""
    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    return float(np.std(d, ddof=1)) if d.size >= 2 else math.nan


def detectable_difference(se: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """``(z_{1 - alpha/2} + z_{power}) se``: the smallest difference detected with ``power``."""
    return _z(alpha, power) * se if math.isfinite(se) else math.nan


def units_needed(delta: float, se: float, n: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """``ceil(n (mde / |delta|)^2)``: the units at which ``delta`` is detected with ``power``
    (NaN without a difference, a spread or a size)."""
    if not (math.isfinite(delta) and math.isfinite(se) and delta != 0.0 and se > 0.0 and n > 0):
        return math.nan
    return float(math.ceil(n * (detectable_difference(se, alpha, power) / abs(delta)) ** 2 - 1e-9))


__all__ = ["detectable_difference", "standard_error", "units_needed"]
