"""metaeval: at which granularity do MT metrics agree best with human judgments?

The public API is loaded lazily so that lower layers (``corpora``, ``segmenters``) can
import :mod:`metaeval.errors` without pulling in the scoring stack.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "score": "metaeval.api",
    "run": "metaeval.api",
    "correlate": "metaeval.api",
    "read_corpus": "metaeval.api",
    "MetaevalError": "metaeval.errors",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'metaeval' has no attribute {name!r}")
    return getattr(import_module(module), name)
