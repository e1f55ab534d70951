"""Every default of the meta-evaluation, stated once.

:class:`metaeval.stats.settings.Settings` takes its field defaults from here, and the statistic
functions that can be called on their own (``consistency(tie_policy=...)``) take theirs from
here too, so that a command, the Python API, a study file and a direct call agree.
"""

from __future__ import annotations

#: Seed of the bootstrap resamples and of the paired permutation tests.
SEED = 12345
#: Bootstrap resamples of segments (0: no intervals).
BOOTSTRAP = 1000
#: Level of the percentile intervals.
CI = 0.95
#: Metric ties in pairwise consistency (Li et al. 2011): left out.
TIE_POLICY = "exclude"
#: How pairwise consistency forms its pairs: per (segment, judge) when judges ranked several systems.
PAIR_GROUPS = "auto"
#: Grouped statistics: the plain mean over groups (mt-metrics-eval ``macro=True``).
AVERAGE = "macro"
#: Grouped statistics: groups where the statistic is undefined are left out of the mean.
UNDEFINED = "skip"
#: Tie calibration re-fits epsilon on every bootstrap resample (grouping ``item``).
REFIT_EPSILON = True
#: Permutations of soft pairwise accuracy (WMT24) and its seed of its own.
PERMUTATIONS = 1000
PERMUTATION_SEED = 12345
#: Permutations of metric scores behind each chance level and its band (0: none), and their seed of their own.
CHANCE_PERMUTATIONS = 200
CHANCE_SEED = 12345
#: Significance level of the clusters and paired tests.
ALPHA = 0.05
#: p-values of a family of comparisons are adjusted by Holm's procedure (familywise error rate).
ADJUST = "holm"

__all__ = [
    "ADJUST", "ALPHA", "AVERAGE", "BOOTSTRAP", "CHANCE_PERMUTATIONS", "CHANCE_SEED", "CI", "PAIR_GROUPS", "PERMUTATIONS", "PERMUTATION_SEED", "REFIT_EPSILON", "SEED",
    "TIE_POLICY", "UNDEFINED",
]  # fmt: skip
