"""The statistics registry: every statistic metaeval computes, one entry each.

An entry (:class:`StatisticSpec`) says where the statistic exists (its levels, and at segment
level its groupings and default grouping), the function that computes it at each level (taking
a :class:`~metaeval.stats.case.Case`), its tie-free reference (:mod:`metaeval.stats.reference`)
and how its chance level is estimated (:mod:`metaeval.stats.chance`), which
settings change its value (``options``: names of :class:`~metaeval.stats.settings.Settings`
fields), a one-line description and its citation. Everything that names statistics reads this
table: the checks of a request (:class:`~metaeval.stats.settings.Settings`), the dispatch of
:func:`metaeval.stats.evaluate.evaluate`, the command line's choices and help, study files,
``metaeval list``, the chance levels and the statistics table of docs/reference.md.

Adding a statistic takes its function, one entry here, its tests and its line in the docs
(docs/design.md, "Adding a statistic").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from metaeval.errors import UsageError
from metaeval.stats import permuted, reference
from metaeval.stats.case import Case
from metaeval.stats.correlations import pairwise_difference_pearson, segment_correlation, system_correlation
from metaeval.stats.grouping import GROUPINGS
from metaeval.stats.kendall import tie_statistic
from metaeval.stats.pairwise import consistency, pair_counts
from metaeval.stats.result import Correlation
from metaeval.stats.syspairs import pairwise_accuracy, permutation_signs, soft_pairwise_accuracy, system_kendall_c

if TYPE_CHECKING:
    from metaeval.stats.chance import Permuted
    from metaeval.stats.settings import Settings

#: Levels at which statistics are computed; documents (``--doc-level``) take the segment-level ones.
LEVELS = ("seg", "sys")
#: How a statistic is computed at one level.
Compute = Callable[[Case], Correlation]


@dataclass(frozen=True)
class StatisticSpec:
    """One statistic of the registry.

    ``compute``: level -> function of a :class:`~metaeval.stats.case.Case`; ``groupings``: the
    segment-level groupings it accepts (empty: pairs formed per segment or per (segment, judge),
    Li et al. 2011); ``default_grouping``: used when none is asked for; ``reference``: its
    tie-free reference for a case (a metric with no ties and no information; None: without
    data, NaN where it depends on the data); ``chance``: a faster function of the statistic on
    many permutations of the metric's scores at once (:mod:`metaeval.stats.permuted`; None: each
    permutation computed by ``compute``, :mod:`metaeval.stats.chance`); ``chance_options``: the
    options the permuted metric is scored with besides ``options`` (from the case and its
    value); ``options``: the
    :class:`~metaeval.stats.settings.Settings` fields that change its value, handed to it in
    ``Case.options``; ``pairwise``: its rows carry the tie policy and the pair counts;
    ``sys_from_segments``: its system-level value is computed from segment scores;
    ``williams``: Williams' test compares two of its values; ``note``, ``resampling_note``,
    ``signature``: what it adds to a row's note, to the note on its resamples, and to the
    statistics signature of a run.
    """

    name: str
    compute: Mapping[str, Compute]
    description: str
    citation: str
    groupings: tuple[str, ...] = ()
    default_grouping: str = ""
    reference: Callable[[Case | None], float] = reference.zero
    chance: Permuted | None = None
    chance_options: Callable[[Case, Correlation], dict[str, Any]] | None = None
    higher_is_better: bool = True
    options: tuple[str, ...] = ()
    pairwise: bool = False
    sys_from_segments: bool = False
    williams: bool = False
    note: Callable[[Settings], str] | None = None
    resampling_note: Callable[[Settings, str], str] | None = None
    signature: Callable[[Settings], dict[str, str]] | None = None

    @property
    def levels(self) -> tuple[str, ...]:
        return tuple(level for level in LEVELS if level in self.compute)


# --------------------------------------------------------------------------- how entries call their functions


def segment_statistic(function: Callable[..., Correlation], **fixed: Any) -> Compute:
    """A segment-level statistic ``function(metric, human, grouping=, *, metric_direction,
    human_direction, weights, ci, cache, **options)`` of two ``[n_sys, n_seg]`` matrices, as the
    registry calls it; ``fixed`` names its own arguments (``method="pearson"``)."""

    def compute(case: Case) -> Correlation:
        return function(
            case.seg_scores, case.human.seg, grouping=case.grouping, metric_direction=case.metric_direction,
            human_direction=case.human.direction, weights=case.weights, ci=case.settings.ci, cache=case.human.cache,
            **fixed, **case.options,
        )  # fmt: skip

    return compute


def system_statistic(function: Callable[..., Correlation], **fixed: Any) -> Compute:
    """A system-level statistic ``function(metric, human, *, metric_direction, human_direction,
    metric_samples, human_samples, ci)`` of two ``[n_sys]`` score vectors, as the registry calls it."""

    def compute(case: Case) -> Correlation:
        return function(
            case.sys_scores, case.human.sys, metric_direction=case.metric_direction, human_direction=case.human.direction,
            metric_samples=case.metric_samples, human_samples=case.human_samples, ci=case.settings.ci, **fixed,
        )  # fmt: skip

    return compute


def pairwise_statistic(statistic: str) -> Compute:
    """Li et al.'s consistency or the Kendall-like tau, from pair counts shared by both."""

    def compute(case: Case) -> Correlation:
        s, human, metric, groups = case.settings, case.human, case.seg_scores, case.human.groups
        assert metric is not None and groups is not None
        counts = case.remembered("pair counts", lambda: pair_counts(
            metric, groups, metric_direction=case.metric_direction, human_direction=human.direction,
            threshold=s.threshold, group_segments=human.group_segments,
        ))  # fmt: skip
        return consistency(counts, statistic=statistic, tie_policy=s.tie_policy, weights=case.weights, ci=s.ci)

    return compute


def _soft_pairwise_accuracy(case: Case) -> Correlation:
    s, human = case.settings, case.human
    assert case.seg_scores is not None and human.seg is not None
    return soft_pairwise_accuracy(
        case.seg_scores, human.seg, metric_direction=case.metric_direction, human_direction=human.direction,
        signs=permutation_signs(human, s.permutations, s.permutation_seed), weights=case.weights, ci=s.ci,
        cache=human.cache.setdefault(("spa", case.seg_scores.shape), {}),
    )  # fmt: skip


def _epsilon_resampling(settings: Settings, grouping: str) -> str:
    refit = settings.refit_epsilon and grouping == "item"
    return "; epsilon re-fitted on every resample" if refit else "; epsilon fixed at the full-sample value"


def _epsilon_signature(settings: Settings) -> dict[str, str]:
    return {"epsilon": "re-fitted on every bootstrap resample (grouping item); fixed at the full-sample value otherwise"
            if settings.refit_epsilon else "fixed at the full-sample value"}  # fmt: skip


def _calibrated_chance(case: Case, result: Correlation) -> dict[str, Any]:
    """The permuted metric of ``acc_eq``/``tau_eq`` is calibrated again by item; grouped ``none``
    or ``sys`` it keeps the configuration's epsilon, as the bootstrap does (an exhaustive
    re-fit over every pair of the pool per permutation would cost far more than the statistic)."""
    return {} if case.grouping == "item" else {"epsilon": result.epsilon}


def _spa_note(settings: Settings) -> str:
    return f"one-sided permutation p-values from segment scores, {settings.permutations} permutations (seed {settings.permutation_seed})"


def _spa_signature(settings: Settings) -> dict[str, str]:
    return {"soft_pairwise_accuracy": f"{settings.permutations} permutations, seed {settings.permutation_seed}; "
            "bootstrap p-values by the normal approximation, re-centred on the permutation value"}  # fmt: skip


# --------------------------------------------------------------------------- the entries

_PAIRS = ("tie_policy", "threshold", "pair_groups")
_AVERAGED = ("average", "undefined")
_DTU = "Deutsch, Foster & Freitag 2023 (Ties Matter)"


def _correlation(name: str, description: str, citation: str) -> StatisticSpec:
    return StatisticSpec(
        name, {"seg": segment_statistic(segment_correlation, method=name), "sys": system_statistic(system_correlation, method=name)},
        description, citation, GROUPINGS, "none", options=_AVERAGED, williams=name == "pearson", chance=permuted.correlation(name),
    )  # fmt: skip


def _tie_aware(name: str, description: str, citation: str, **more: Any) -> StatisticSpec:
    compute: dict[str, Compute] = {"seg": segment_statistic(tie_statistic, statistic=name)}
    compute.update(more.pop("compute", {}))
    return StatisticSpec(name, compute, description, citation, GROUPINGS, more.pop("default_grouping", "none"),
                         options=more.pop("options", _AVERAGED), chance=permuted.tie_aware(name), **more)  # fmt: skip


REGISTRY: dict[str, StatisticSpec] = {
    spec.name: spec
    for spec in (
        StatisticSpec(
            "consistency", {"seg": pairwise_statistic("consistency")},
            "C / (C + D) over system pairs per segment (per judge when several judges ranked); human ties left out, "
            "metric ties by the tie policy", "Li, Zong & Ng 2011", reference=reference.half, options=_PAIRS, pairwise=True,
            chance=permuted.pairwise("consistency"),
        ),
        StatisticSpec(
            "kendall_like", {"seg": pairwise_statistic("kendall_like")}, "(C - D) / (C + D) from the same pair counts",
            "WMT'10-'20; mt-metrics-eval KendallLike", options=_PAIRS, pairwise=True, chance=permuted.pairwise("kendall_like"),
        ),
        _correlation("pearson", "Pearson's r", "scipy.stats.pearsonr; mt-metrics-eval Pearson"),
        _correlation("spearman", "Spearman's rho (mid-ranks)", "scipy.stats.spearmanr; mt-metrics-eval Spearman"),
        _correlation("kendall", "Kendall's tau-b", "scipy.stats.kendalltau; mt-metrics-eval Kendall"),
        _tie_aware("kendall_b", "tau-b from pair tallies", "mt-metrics-eval KendallVariants(variant='b')"),
        _tie_aware("kendall_c", "Kendall's tau-c", "mt-metrics-eval KendallVariants(variant='c')",
                   compute={"sys": system_statistic(system_kendall_c)}),
        _tie_aware("kendall_23", "tau with ties counted, a pair tied by both correct", f"{_DTU}; mt-metrics-eval KendallVariants(variant='23')",
                   reference=reference.tau_with_ties),
        _tie_aware("kendall_acc23", "pairwise accuracy with ties counted, a pair tied by both correct",
                   f"{_DTU}; mt-metrics-eval KendallVariants(variant='acc23')", reference=reference.accuracy_with_ties),
        _tie_aware(
            "acc_eq", "acc23 with tie calibration: metric differences up to epsilon count as ties, epsilon chosen to "
            "maximise the statistic (reported in epsilon)", f"{_DTU}; mt-metrics-eval KendallWithTiesOpt (WMT23)",
            default_grouping="item", reference=reference.accuracy_with_ties, options=(*_AVERAGED, "refit_epsilon"),
            resampling_note=_epsilon_resampling, signature=_epsilon_signature, chance_options=_calibrated_chance,
        ),
        _tie_aware(
            "tau_eq", "tau23 with tie calibration", f"{_DTU}; mt-metrics-eval KendallWithTiesOpt", default_grouping="item",
            reference=reference.tau_with_ties, options=(*_AVERAGED, "refit_epsilon"), resampling_note=_epsilon_resampling,
            signature=_epsilon_signature, chance_options=_calibrated_chance,
        ),
        StatisticSpec(
            "pairwise_accuracy", {"sys": system_statistic(pairwise_accuracy)},
            "share of system pairs the metric orders as the humans, a pair tied on both sides agreeing",
            "Kocmi et al. 2021, To Ship or Not to Ship; mt-metrics-eval Agreement", reference=reference.system_pairwise_accuracy,
        ),
        StatisticSpec(
            "soft_pairwise_accuracy", {"sys": _soft_pairwise_accuracy},
            "1 - the mean absolute difference between the human and the metric one-sided permutation p-values of each "
            "system pair, from segment scores",
            "Thompson et al. 2024 (WMT24); mt-metrics-eval PairwiseConfidenceError", reference=reference.soft_pairwise_accuracy,
            options=("permutations", "permutation_seed"), sys_from_segments=True, note=_spa_note, chance=permuted.soft_pairwise,
            resampling_note=lambda settings, grouping: (
                "; resampled p-values by the normal approximation of the permutation test, re-centred on the permutation value"
            ), signature=_spa_signature,
        ),
        StatisticSpec(
            "pdp", {"seg": segment_statistic(pairwise_difference_pearson), "sys": system_statistic(system_correlation, method="pearson")},
            "pairwise-difference Pearson: one Pearson over the human and metric differences of every pair of items within "
            "each group, pooled over the groups (grouping none and system level: Pearson's r)",
            "DiIanni & Deutsch 2025 (EMNLP); mt-metrics-eval Pearson(pdp=True)", GROUPINGS, "none",
        ),
    )
}
STATISTICS = tuple(REGISTRY)
#: Statistics computed by default, as ``level:statistic``: Li et al. 2011's segment-level
#: consistency (with its Kendall-like twin) and Pearson, every system-level correlation, and
#: the WMT23-24 statistics: ``acc_eq`` grouped by item, pairwise and soft pairwise accuracy.
#: A bare name (``spearman``) asks for the statistic at every level where it exists.
DEFAULT_STATISTICS = (
    "seg:consistency", "seg:kendall_like", "seg:pearson", "seg:acc_eq", "sys:pearson", "sys:spearman",
    "sys:kendall", "sys:pairwise_accuracy", "sys:soft_pairwise_accuracy",
)  # fmt: skip


def parse_statistic(spec: str) -> tuple[str, str, str | None]:
    """``LEVEL:NAME[@GROUPING]`` -> ``(level or "", name, grouping or None)``."""
    head, _, grouping = spec.partition("@")
    level, _, name = head.rpartition(":")
    return level, name, grouping or None


def known_statistics() -> list[str]:
    """Every statistic as ``level:name``, in registry order."""
    return [f"{level}:{name}" for name, entry in REGISTRY.items() for level in entry.levels]


def check_statistic(spec: str) -> None:
    """``spec`` (``LEVEL:NAME[@GROUPING]``) names a statistic of the registry at a level where it
    exists, and a grouping it takes; the error lists what there is."""
    level, name, grouping = parse_statistic(spec)
    entry = REGISTRY.get(name)
    if entry is None or level not in ("", *LEVELS) or (level and level not in entry.levels):
        raise UsageError(f"unknown statistic {spec!r}; known: {', '.join(known_statistics())}")
    if grouping is not None and grouping not in entry.groupings:
        raise UsageError(
            f"statistic {spec!r}: {name} takes no grouping {grouping!r}; "
            f"groupings: {', '.join(entry.groupings) or '(none: pairs are formed per segment)'}"
        )


def statistics_taking(option: str) -> list[str]:
    """The statistics whose value the setting ``option`` changes."""
    return [name for name, entry in REGISTRY.items() if option in entry.options]


__all__ = [
    "DEFAULT_STATISTICS", "LEVELS", "REGISTRY", "STATISTICS", "Compute", "StatisticSpec", "check_statistic", "known_statistics",
    "statistics_taking", "pairwise_statistic", "parse_statistic", "segment_statistic", "system_statistic",
]  # fmt: skip
