"""The metric suite and its registry.

A metric is named by a spec: a registry name with optional ``key=value`` options,
``bleu``, ``bleu:n=18,smooth=none``, ``nist``, ``ter``, ``1-ter``, ``gtm:e=2``,
``meteor:params=other``, ``chrf``, ``chrf++``. :func:`get_metric` builds the metric;
its ``signature()`` records every option. Modules are imported only when asked for.
"""

from __future__ import annotations

from importlib import import_module

from metaeval.errors import MetaevalError, unknown_name
from metaeval.metrics.base import Metric, coerce_options, parse_spec

#: name -> (module, class, fixed options, one-line description)
_REGISTRY: dict[str, tuple[str, str, dict[str, object], str]] = {
    "bleu": ("metaeval.metrics.bleu", "BLEU", {}, "BLEU (Papineni et al. 2002) as in mteval-v13a; n=4, smooth=mteval, effective_order=false"),
    "nist": ("metaeval.metrics.nist", "NIST", {}, "NIST (Doddington 2002) as in mteval-v13a; n=5"),
    "ter": ("metaeval.metrics.ter", "TER", {}, "TER (Snover et al. 2006) as in tercom 0.7.25; lower is better"),
    "1-ter": ("metaeval.metrics.ter", "TER", {"invert": True}, "1 - TER, higher is better (Li et al. 2011)"),
    "gtm": ("metaeval.metrics.gtm", "GTM", {}, "GTM F-measure (Melamed et al. 2003) as in GTM 1.4; e=1"),
    "meteor": ("metaeval.metrics.meteor", "METEOR", {}, "METEOR 1.5, exact module; params=other|en"),
    "chrf": ("metaeval.metrics.chrf", "ChrF", {}, "chrF (Popovic 2015) as sacrebleu; spaces ignored unless whitespace=true"),
    "chrf++": ("metaeval.metrics.chrf", "ChrF", {"word_order": 2}, "chrF++ (Popovic 2017) through sacrebleu"),
}

#: The metrics of Li et al. 2011 plus chrF++ (its word n-grams come from the segmenter) and chrF
#: (which ignores spaces: the granularity-free reference), as used by ``metaeval run`` by default.
DEFAULT_METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter", "chrf++", "chrf")


def available_metrics() -> dict[str, str]:
    """Registry names with a one-line description."""
    return {name: entry[3] for name, entry in _REGISTRY.items()}


def metric_class(name: str) -> type[Metric]:
    module, cls_name, _, _ = _REGISTRY[name]
    return getattr(import_module(module), cls_name)


#: Largest value of each size option (a usage error beyond): n-gram orders cost memory and
#: time in proportion, and beyond 100 no segment of real data has a matching n-gram.
UPPER_BOUNDS = {"n": 100, "char_order": 100, "word_order": 100, "beta": 100, "beam": 1000, "max_len": 2000}


def get_metric(spec: str) -> Metric:
    """Build the metric named by ``spec`` (``name[:key=value,...]``).

    Raises :class:`metaeval.errors.UsageError` for an unknown name (listing the known
    ones) or an unknown/invalid option.
    """
    name, options = parse_spec(spec)
    if name not in _REGISTRY:
        raise unknown_name("metric", name, list(_REGISTRY))
    _, _, fixed, _ = _REGISTRY[name]
    cls = metric_class(name)
    kwargs = dict(fixed)
    kwargs.update(coerce_options(cls, spec, options))
    for key, bound in UPPER_BOUNDS.items():
        value = kwargs.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > bound:
            from metaeval.errors import UsageError

            raise UsageError(f"metric spec {spec!r}: {key}={value} is above the upper bound {bound}")
    try:
        return cls(**kwargs)
    except ValueError as exc:
        from metaeval.errors import UsageError

        raise UsageError(f"metric spec {spec!r}: {exc}") from None


def higher_is_better(spec: str) -> bool:
    """Direction of the metric named by ``spec``, for scores read back from a table.

    Names the registry does not know (metrics computed elsewhere) count as higher-better.
    A spec that cannot be built here (``meteor:params=en`` without its word list) takes the
    direction of its registry entry with the entry's fixed options.
    """
    name, _ = parse_spec(spec)
    if name not in _REGISTRY:
        return True
    try:
        return bool(get_metric(spec).higher_is_better)
    except MetaevalError:
        return bool(metric_class(name)(**_REGISTRY[name][2]).higher_is_better)


__all__ = [
    "DEFAULT_METRICS", "Metric", "available_metrics", "get_metric", "higher_is_better", "metric_class", "parse_spec",
]  # fmt: skip
