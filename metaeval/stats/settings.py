"""The settings of a meta-evaluation: one frozen object, built and checked once where a request
enters (the command line, the Python API, a study file) and passed down unchanged.

:class:`Settings` holds every option that changes a number, with the defaults of
:mod:`metaeval.stats.defaults`; :data:`OPTIONS` describes each of them as the command line and
study files name it (the command line adds them all to ``run``, ``correlate``, ``sweep`` and
``study`` from this table, and docs/reference.md lists them).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats import defaults
from metaeval.stats.adjust import ADJUSTMENTS, FAMILIES
from metaeval.stats.grouping import AVERAGES, GROUPINGS, UNDEFINED_POLICIES
from metaeval.stats.pairwise import PAIR_GROUPS, TIE_POLICIES
from metaeval.stats.registry import DEFAULT_STATISTICS, LEVELS, REGISTRY, STATISTICS, check_statistic, parse_statistic

#: Upper bound of ``n_bootstrap``: resample indices are held in memory ([samples, segments]).
MAX_BOOTSTRAP = 1_000_000
#: Why one resample is refused: a percentile interval of one value is that value.
BOOTSTRAP_ONE = (
    "n_bootstrap=1 is undefined: a confidence interval needs at least 2 resamples "
    "(use 0 for no intervals, or 1000 as by default)"
)


def _whole(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_sample_rate(value: Any) -> None:
    """mt-metrics-eval's ``sample_rate`` of tie calibration (``KendallWithTiesOpt``), accepted where
    a configuration is ported: 1.0 (every pair) is what metaeval always does, anything else a
    usage error that says why."""
    if not isinstance(value, bool) and isinstance(value, (int, float)) and value == 1.0:
        return
    raise UsageError(
        f"sample_rate={value!r}: metaeval's tie calibration searches every pair exactly (one sweep over the sorted "
        "differences of all pairs), so it never samples pairs; mt-metrics-eval's sample_rate below 1 estimates "
        "epsilon and the statistic from a random share of the pairs, which metaeval does not reproduce. sample_rate=1.0 "
        "(every pair, as mt-metrics-eval's WMT23 tasks use it) is the only value accepted; leave it out or give 1.0"
    )


#: Options of mt-metrics-eval that a ported configuration may carry and that change no number here:
#: each is checked (:func:`check_sample_rate`) and dropped; they are in no signature.
PORTED_OPTIONS = {"sample_rate": check_sample_rate}


@dataclass(frozen=True)
class Settings:
    """Options of one meta-evaluation (checked on construction; every default from
    :mod:`metaeval.stats.defaults`).

    ``statistics``: ``LEVEL:NAME[@GROUPING]`` specs (a bare name: every level where it
    exists); ``groupings``: segment-level groupings asked for, empty for each statistic's
    default (:data:`~metaeval.stats.registry.REGISTRY`); ``levels``: the levels computed.
    ``tie_policy``, ``threshold``, ``pair_groups``: how pairwise consistency counts pairs;
    ``average``/``undefined``: how every grouped statistic averages its groups (mt-metrics-eval
    ``macro``, ``replace_nans_with_zeros``); ``refit_epsilon``: re-fit the tie-calibration
    threshold on each bootstrap resample; ``permutations`` and ``permutation_seed``: the segment
    swaps of soft pairwise accuracy (a seed of its own, so that its value does not move with the
    bootstrap seed); ``n_bootstrap``, ``seed``, ``ci``: the bootstrap resamples and intervals;
    ``chance_permutations`` and ``chance_seed``: the permutations of metric scores behind each
    chance level and its band (:mod:`metaeval.stats.chance`; 0: none).
    ``adjust``: how the p-values of a family of comparisons are adjusted before they are counted
    as significant (:mod:`metaeval.stats.adjust`; it changes no statistic, only what is called
    significant, so it is one of :data:`REPORTING_FIELDS`).
    """

    tie_policy: str = defaults.TIE_POLICY
    threshold: float | None = None
    groupings: tuple[str, ...] = ()
    statistics: tuple[str, ...] = DEFAULT_STATISTICS
    levels: tuple[str, ...] = LEVELS
    n_bootstrap: int = defaults.BOOTSTRAP
    seed: int = defaults.SEED
    ci: float = defaults.CI
    pair_groups: str = defaults.PAIR_GROUPS
    average: str = defaults.AVERAGE
    undefined: str = defaults.UNDEFINED
    refit_epsilon: bool = defaults.REFIT_EPSILON
    permutations: int = defaults.PERMUTATIONS
    permutation_seed: int = defaults.PERMUTATION_SEED
    chance_permutations: int = defaults.CHANCE_PERMUTATIONS
    chance_seed: int = defaults.CHANCE_SEED
    adjust: str = defaults.ADJUST

    def __post_init__(self) -> None:
        for name in ("groupings", "statistics", "levels"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise UsageError(f"{name} must be a list of names, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        for spec in self.statistics:
            check_statistic(spec)
        checks: tuple[tuple[str, tuple, tuple], ...] = (
            ("tie policy", (self.tie_policy,), TIE_POLICIES),
            ("grouping", self.groupings, GROUPINGS),
            ("level", self.levels, LEVELS),
            ("pair grouping", (self.pair_groups,), PAIR_GROUPS),
            ("averaging", (self.average,), AVERAGES),
            ("undefined policy", (self.undefined,), UNDEFINED_POLICIES),
            ("p-value adjustment", (self.adjust,), ADJUSTMENTS),
        )
        for name in ("seed", "permutation_seed", "chance_permutations", "chance_seed"):
            value = getattr(self, name)
            if not _whole(value) or value < 0:
                raise UsageError(f"{name} must be a non-negative integer, got {value!r}")
        for label, given, allowed in checks:
            bad = [g for g in given if g not in allowed]
            if bad:
                raise UsageError(f"unknown {label} {bad[0]!r}; known: {', '.join(allowed)}")
        if self.threshold is not None and not (self.threshold >= 0):
            raise UsageError(f"threshold must be a non-negative number, got {self.threshold!r}")
        if not _whole(self.n_bootstrap) or self.n_bootstrap < 0:
            raise UsageError(f"n_bootstrap must be a non-negative integer, got {self.n_bootstrap!r}")
        if self.n_bootstrap == 1:
            raise UsageError(BOOTSTRAP_ONE)
        if self.n_bootstrap > MAX_BOOTSTRAP:
            raise UsageError(f"n_bootstrap: expected at most {MAX_BOOTSTRAP:,} resamples, got {self.n_bootstrap:,}")
        if not _whole(self.permutations) or self.permutations < 1:
            raise UsageError(f"permutations must be a positive integer, got {self.permutations!r}")
        if not isinstance(self.refit_epsilon, bool):
            raise UsageError(f"refit_epsilon must be true or false, got {self.refit_epsilon!r}")
        if isinstance(self.ci, bool) or not isinstance(self.ci, (int, float)) or not 0.0 < self.ci < 1.0:
            raise UsageError(f"ci must be in (0, 1), got {self.ci!r}")

    @classmethod
    def build(cls, base: Settings | None = None, **options: Any) -> Settings:
        """``base`` (default: every default) with ``options`` (field names) replaced, checked once.
        An option of :data:`PORTED_OPTIONS` is checked and dropped."""
        for name in PORTED_OPTIONS:
            if name in options:
                PORTED_OPTIONS[name](options.pop(name))
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in options if k not in known]
        if unknown:
            raise UsageError(f"unknown statistics option {unknown[0]!r}; known: {', '.join(known)}")
        given: dict[str, Any] = {
            k: tuple(v) if k in ("statistics", "groupings", "levels") and not isinstance(v, str) else v for k, v in options.items()
        }
        return dataclasses.replace(base, **given) if base is not None else cls(**given)

    def wanted(self, level: str) -> list[str]:
        """Statistics to compute at ``level``, in :data:`~metaeval.stats.registry.STATISTICS` order."""
        if level not in self.levels:
            return []
        asked = {name for lv, name, _ in map(parse_statistic, self.statistics) if lv in ("", level)}
        return [k for k in STATISTICS if k in asked and level in REGISTRY[k].levels]

    def groupings_of(self, statistic: str) -> tuple[str, ...]:
        """Segment-level groupings of ``statistic``: those named in its specs
        (``seg:acc_eq@item``), else the ones asked for (``groupings``), else its default."""
        entry = REGISTRY[statistic]
        if not entry.groupings:
            return ()
        named = [g for lv, name, g in map(parse_statistic, self.statistics) if name == statistic and lv != "sys" and g]
        return tuple(dict.fromkeys(named)) or self.groupings or (entry.default_grouping,)

    def signature(self) -> dict[str, Any]:
        """What the statistics were, with every option that changes a number: the statistics
        and groupings asked for (the default grouping of each grouped statistic asked for without
        one), averaging, and what each statistic adds (its registry entry)."""
        named = {name for _, name, grouping in map(parse_statistic, self.statistics) if grouping}
        defaults = [f"{k}: {REGISTRY[k].default_grouping}" for k in self.wanted("seg") if REGISTRY[k].groupings and k not in named]
        out: dict[str, Any] = {
            "asked": list(self.statistics),
            "groupings": list(self.groupings) or f"default per statistic ({', '.join(defaults) or 'no grouped statistic asked'})",
            "average": self.average,
            "undefined_groups": self.undefined,
            "adjust": self.adjust,
            "adjust_families": FAMILIES[self.adjust],
        }
        for entry in REGISTRY.values():
            if entry.signature is not None:
                out.update(entry.signature(self))
        out["chance"] = self.chance_signature()
        return out

    def chance_signature(self) -> str:
        """How the chance levels were estimated (:mod:`metaeval.stats.chance`)."""
        if not self.chance_permutations:
            return "off"
        return (f"{self.chance_permutations} permutations of the metric scores within each statistic's grouping "
                f"(seed {self.chance_seed}); chance = their mean, band = their central {self.ci * 100:g}%")


#: Settings that change what is called significant, never a statistic's value or its resamples
#: (results kept by content hash do not depend on them).
REPORTING_FIELDS = ("adjust",)


@dataclass(frozen=True)
class Option:
    """One option of :class:`Settings` as the command line (``flag``) and study files and the
    Python API (``key``) name it. ``kind``: ``list`` (repeatable names), ``choice``, ``count``
    (an integer >= 0), ``positive`` (>= 1), ``number``, ``bootstrap`` (0 or 2 and more), or
    ``off`` (a flag that sets the field to false). ``changes``: what the option changes, where it
    is not the value of statistics (those are the registry's, :func:`~metaeval.stats.registry.statistics_taking`)."""

    field: str
    flag: str
    key: str
    kind: str
    help: str
    choices: tuple[str, ...] = ()
    changes: str = ""

    @property
    def default(self) -> Any:
        return getattr(Settings(), self.field)


OPTIONS = (
    Option("statistics", "--statistic", "statistics", "list",
           "statistic as LEVEL:NAME[@GROUPING], e.g. seg:acc_eq@item (repeatable; a bare name: every level where it exists)",
           tuple(STATISTICS)),
    Option("groupings", "--grouping", "groupings", "list", "segment-level grouping (repeatable)", GROUPINGS),
    Option("levels", "--level", "levels", "list", "levels to evaluate (repeatable)", LEVELS),
    Option("tie_policy", "--tie-policy", "tie_policy", "choice", "metric ties in pairwise consistency", TIE_POLICIES),
    Option("threshold", "--threshold", "threshold", "number",
           "pairwise consistency skips pairs whose human difference is at most this (e.g. 25 DA points)"),
    Option("pair_groups", "--pair-groups", "pair_groups", "choice",
           "pairwise consistency: pairs within a (segment, judge) or within a segment; auto: per judge when judges ranked several systems",
           PAIR_GROUPS),
    Option("average", "--average", "average", "choice",
           "grouped statistics: plain mean over groups, or weighted by the items of each group", AVERAGES),
    Option("undefined", "--undefined", "undefined", "choice",
           "grouped statistics: groups where the statistic is undefined are skipped or count as 0", UNDEFINED_POLICIES),
    Option("refit_epsilon", "--fixed-epsilon", "refit_epsilon", "off",
           "keep the tie-calibration epsilon of the full sample in every bootstrap resample, instead of re-fitting it (grouping item)"),
    Option("permutations", "--permutations", "permutations", "positive", "permutations of soft pairwise accuracy"),
    Option("permutation_seed", "--permutation-seed", "permutation_seed", "count", "seed of the permutations of soft pairwise accuracy"),
    Option("chance_permutations", "--chance-permutations", "chance_permutations", "count",
           "permutations of the metric scores behind each chance level and its band (0: no chance levels)"),
    Option("chance_seed", "--chance-seed", "chance_seed", "count", "seed of the permutations of the chance levels"),
    Option("n_bootstrap", "--bootstrap", "bootstrap", "bootstrap", "bootstrap resamples of segments (0: no intervals)"),
    Option("seed", "--seed", "seed", "count", "seed of the bootstrap resamples"),
    Option("ci", "--ci", "ci", "number", "level of the percentile bootstrap intervals"),
    Option("adjust", "--adjust", "adjust", "choice",
           "adjust the p-values of each family of comparisons: holm (familywise error rate), bh (Benjamini-Hochberg, "
           "false discovery rate), none (raw p-values, the best word segmenter chosen once on the full sample)",
           ADJUSTMENTS, changes="significance: the answer's counts and p_adjusted, clusters, paired comparisons"),
)  # fmt: skip
#: The options by their key (study files, API keywords).
OPTION_KEYS = {option.key: option for option in OPTIONS}


def statistics_signature(settings: Settings | None = None, **options: Any) -> dict[str, Any]:
    """:meth:`Settings.signature` of ``settings`` with ``options`` (field names) replaced."""
    return Settings.build(settings, **options).signature()


__all__ = [
    "BOOTSTRAP_ONE", "MAX_BOOTSTRAP", "OPTIONS", "OPTION_KEYS", "PORTED_OPTIONS", "REPORTING_FIELDS", "Option", "Settings",
    "check_sample_rate", "statistics_signature",
]  # fmt: skip
