"""The ResultTable as reports see it: columns, validation, ordering and number formatting.

A ResultTable has one row per (dataset, metric, segmenter, judgment kind, level,
statistic, grouping, tie policy) with the columns of :data:`RESULT_COLUMNS`, and
optionally ``rank`` and ``cluster`` (significance cluster per ranking). ``value`` is NaN
where a statistic is undefined; ``note`` then gives the reason. Every higher value is
better (all reported statistics are correlations or agreement rates).

Reports order rows by content only (never by input order), so the same results give the
same bytes however they were produced or read back.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from metaeval.errors import DataError
from metaeval.stats.evaluate import RESULT_COLUMNS  # one definition, in the layer below
from metaeval.stats.registry import REGISTRY

OPTIONAL_COLUMNS = ("rank", "cluster")
#: Columns a table must have; the others are filled with empty text or NaN.
REQUIRED_COLUMNS = ("metric", "segmenter", "judgment_kind", "level", "statistic", "value")
NUMERIC_COLUMNS = (
    "value", "epsilon", "ci_low", "ci_high", "n", "p_value", "concordant", "discordant", "metric_ties",
    "human_ties", "rank", "chance", "chance_low", "chance_high",
)  # fmt: skip
#: Columns printed as integers when they hold whole numbers.
COUNT_COLUMNS = ("n", "concordant", "discordant", "metric_ties", "human_ties", "rank")
#: One ranking: configurations compared on the same data and statistic.
GROUP_KEYS = ("dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy")
#: Identity of a configuration inside a ranking (the tie-break order after the value).
CONFIG_KEYS = ("metric", "segmenter", "config")
#: Statistics whose rows carry pair counts (C, D, ties): the pairwise ones of the registry.
COUNTED_STATISTICS = tuple(name for name, entry in REGISTRY.items() if entry.pairwise)


def normalise(results: pd.DataFrame, source: str = "results") -> pd.DataFrame:
    """A copy of ``results`` with every ResultTable column, typed, in canonical column order.

    Text columns hold ``str`` (missing -> ``""``); numeric columns hold floats (missing ->
    NaN). Extra columns are kept after the known ones, in their given order.
    """
    if not isinstance(results, pd.DataFrame):
        raise DataError(f"{source}: expected a pandas DataFrame, got {type(results).__name__}")
    missing = [c for c in REQUIRED_COLUMNS if c not in results.columns]
    if missing:
        raise DataError(f"{source}: missing column(s) {', '.join(missing)}; expected {', '.join(RESULT_COLUMNS)}")
    known = [c for c in RESULT_COLUMNS + OPTIONAL_COLUMNS if c in results.columns or c in RESULT_COLUMNS]
    extra = [str(c) for c in results.columns if c not in known]
    out = pd.DataFrame(index=range(len(results)))
    for column in known + extra:
        raw = results[column].reset_index(drop=True) if column in results.columns else None
        if column in NUMERIC_COLUMNS:
            out[column] = np.nan if raw is None else _numeric(raw, column, source)
        else:
            out[column] = "" if raw is None else raw.map(_text).astype(object)
    return out


def _numeric(raw: pd.Series, column: str, source: str) -> pd.Series:
    text = raw.map(lambda v: np.nan if _is_missing(v) else v)
    values = pd.to_numeric(text, errors="coerce").astype(float)
    bad = values.isna() & text.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"{source}: row {row + 1}: column {column!r} holds {raw.iloc[row]!r}, expected a number")
    return values


def _is_missing(value: Any) -> bool:
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _text(value: Any) -> str:
    if _is_missing(value):
        return ""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def order_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted by ranking group, then value descending (NaN last), then configuration."""
    key = table[list(GROUP_KEYS)].copy()
    key["_undefined"] = table["value"].isna()
    key["_neg_value"] = -table["value"].fillna(0.0)
    for column in CONFIG_KEYS:
        key[column] = table[column]
    order = list(GROUP_KEYS) + ["_undefined", "_neg_value"] + list(CONFIG_KEYS)
    index = key.sort_values(order, kind="mergesort").index
    return table.loc[index].reset_index(drop=True)


def competition_ranks(values: np.ndarray) -> np.ndarray:
    """Standard competition ranks (1, 2, 2, 4) for higher-better ``values``; NaN stays NaN."""
    values = np.asarray(values, dtype=float)
    ranks = np.full(values.shape, np.nan)
    defined = ~np.isnan(values)
    for i in np.flatnonzero(defined):
        ranks[i] = 1 + int(np.sum(values[defined] > values[i]))
    return ranks


def fmt_number(value: Any, digits: int = 3) -> str:
    """Fixed-point text (``0.693``); ``""`` for NaN/missing; never ``-0.000``."""
    if _is_missing(value):
        return ""
    text = f"{float(value):.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def fmt_epsilon(value: Any) -> str:
    """A tie threshold with four significant digits (``0.000748``); ``""`` for NaN/missing."""
    return "" if _is_missing(value) else f"{float(value):.4g}"


def fmt_count(value: Any) -> str:
    """Whole numbers without a decimal point; ``""`` for NaN/missing."""
    if _is_missing(value):
        return ""
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


def fmt_ci(low: Any, high: Any, digits: int = 3) -> str:
    """``[0.671, 0.712]``, or ``""`` when either bound is missing."""
    if _is_missing(low) or _is_missing(high):
        return ""
    return f"[{fmt_number(low, digits)}, {fmt_number(high, digits)}]"


def plain(value: Any) -> Any:
    """``value`` as plain JSON data: numpy scalars unwrapped, NaN/inf -> None, keys as text."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def to_json(value: Any, indent: int | None = None) -> str:
    """Deterministic JSON text: plain data, sorted keys, UTF-8 kept as is."""
    return json.dumps(plain(value), sort_keys=True, ensure_ascii=False, indent=indent, allow_nan=False)


def flatten_signature(signature: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(dotted key, text)`` pairs of a nested signature, sorted by key at every level.

    Lists are shown as JSON arrays, ``None`` as ``-``.
    """
    pairs: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping) and value:
            for key in sorted(value, key=str):
                walk(f"{prefix}.{key}" if prefix else str(key), value[key])
            return
        value = plain(value)
        if value is None:
            text = "-"
        elif isinstance(value, str):
            text = value
        else:
            text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        pairs.append((prefix, text))

    walk("", dict(signature))
    return pairs
