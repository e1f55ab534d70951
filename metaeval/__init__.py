"""metaeval: at which granularity do MT metrics agree best with human judgments?

    >>> import metaeval
    >>> study = metaeval.run("wmt24-esa/en-zh")     # as ``metaeval run wmt24-esa/en-zh``
    >>> print(study.leaderboard())                   # the answer first, then the tables
    >>> study.answer, study.results, study.scores    # DataFrames

Each function takes what its command takes, under the same names (``help(metaeval.run)``):
:func:`run`, :func:`score`, :func:`correlate`, :func:`leaderboard`, :func:`segment`,
:func:`read_corpus`, :func:`read_judgments`, :func:`read_scores`, :func:`load_results`,
:func:`run_study` (``metaeval study``), :func:`system_leaderboard` (``metaeval systems``).

The public API is loaded lazily so that lower layers (``corpora``, ``segmenters``) can
import :mod:`metaeval.errors` without pulling in the scoring stack.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "run": "metaeval.api",
    "score": "metaeval.api",
    "correlate": "metaeval.api",
    "leaderboard": "metaeval.api",
    "segment": "metaeval.api",
    "system_leaderboard": "metaeval.systems",
    "read_corpus": "metaeval.api",
    "read_judgments": "metaeval.api",
    "read_scores": "metaeval.api",
    "load_results": "metaeval.report",
    "run_study": "metaeval.studies",
    "Study": "metaeval.api",
    "MetaevalError": "metaeval.errors",
    "DataError": "metaeval.errors",
    "UsageError": "metaeval.errors",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'metaeval' has no attribute {name!r}")
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(__all__) | {name for name in globals() if name.startswith("__")})
