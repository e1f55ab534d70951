"""Each configuration's items kept by content hash in a :class:`metaeval.store.Store`, so that a
rerun reads its correlations and bootstrap samples instead of computing them again.

An entry's key holds what its items depend on: the configuration's scores and statistics, the
judgments, the kinds and every setting that can change a value (not those that only change what is
called significant, :data:`~metaeval.stats.settings.REPORTING_FIELDS`). An index per configuration (keyed by the settings that fix
the values, not those that only choose which items are computed) lists the entries computed for it,
so that a run asking for fewer statistics reads them from an entry of a run that asked for more.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pandas as pd

from metaeval.corpora.model import Judgments
from metaeval.scoretable import ConfigScores
from metaeval.stats.case import Item
from metaeval.stats.registry import REGISTRY
from metaeval.stats.result import ChanceBand, Correlation
from metaeval.stats.settings import REPORTING_FIELDS, Settings


def config_digest(config: ConfigScores, named: bool = True) -> str:
    """SHA-256 of what a configuration's items depend on from its side: name (or, not
    ``named``, only the metric spec, which fixes how resampled statistics become scores),
    systems, segments, direction, and its scores and statistics."""
    h = hashlib.sha256()
    for part in (config.config if named else config.metric, "\x1f".join(config.systems), "\x1f".join(config.seg_ids),
                 repr(config.higher_is_better)):
        h.update(part.encode("utf-8", "surrogatepass") + b"\x1e")
    for array in (config.seg_scores, config.sys_scores, config.stats):
        h.update(b"-" if array is None else np.ascontiguousarray(array, dtype=float).tobytes())
    return h.hexdigest()


def _settings_text(settings: Settings) -> str:
    """``repr(settings)`` without the fields that change no item (:data:`REPORTING_FIELDS`)."""
    fields = [f for f in dataclasses.fields(settings) if f.name not in REPORTING_FIELDS]
    return f"Settings({', '.join(f'{f.name}={getattr(settings, f.name)!r}' for f in fields)})"


#: What an entry holds, in its key: raised whenever a stored item would differ from the one computed
#: now (2: grouped correlations carry their groups' averaged p-value; 3: every item its chance band).
ITEMS_FORMAT = "items-3"


def config_key(digest: str, judged: str, kind_list: list[str], settings: Settings) -> str:
    """What a configuration's items depend on: its scores and statistics (``digest``, from
    :func:`config_digest`), the judgments, the kinds and every setting that can change a value."""
    return f"{ITEMS_FORMAT}|{digest}|{judged}|{','.join(kind_list)}|{_settings_text(settings)}"


#: Settings that choose which items are computed; the others (and the data) fix their values.
_CHOOSING = ("statistics", "groupings", "levels")


def index_key(digest: str, judged: str, settings: Settings) -> str:
    """The key of the list of item entries computed for one configuration (``digest``) and
    judgments under settings that differ at most in which statistics, groupings and levels they ask for."""
    fixing = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings) if f.name not in _CHOOSING + REPORTING_FIELDS}
    return f"{ITEMS_FORMAT}-index|{digest}|{judged}|{fixing!r}"


def item_specs(settings: Settings) -> list[tuple[str, str, str]]:
    """``(level, statistic, grouping)`` of every item a configuration may have for one judgment
    kind, in the order :func:`metaeval.stats.evaluate.configuration_items` produces them (grouping ``""``
    where the settings choose none: pairwise statistics and system level)."""
    specs = [("seg", statistic, grouping) for statistic in settings.wanted("seg") for grouping in settings.groupings_of(statistic) or ("",)]
    return specs + [("sys", statistic, "") for statistic in settings.wanted("sys")]


def spec_of(item: Item) -> tuple[str, str, str]:
    """The entry of :func:`item_specs` that ``item`` answers."""
    if item.level == "sys" or not REGISTRY[item.statistic].groupings:
        return (item.level, item.statistic, "")
    return (item.level, item.statistic, item.grouping)


def judgments_digest(judgments: Judgments) -> str:
    h = hashlib.sha256(pd.util.hash_pandas_object(judgments.table, index=False).to_numpy().tobytes())
    if judgments.system_scores is not None:
        h.update(judgments.system_scores.to_csv().encode("utf-8"))
    h.update(repr(sorted(dict(judgments.directions or {}).items())).encode("utf-8"))
    return h.hexdigest()


_RESULT_FLOATS = ("value", "ci_low", "ci_high", "p_value", "epsilon")
#: Each item's chance level, stored after the result's floats.
_CHANCE_FLOATS = ("value", "low", "high")


def save_items(store, key: str, found: list[tuple[Item, list[str]]]) -> None:  # noqa: ANN001
    meta, floats, samples = [], [], {}
    for i, (item, dropped) in enumerate(found):
        r = item.result
        floats.append([getattr(r, name) for name in _RESULT_FLOATS] + [getattr(item.chance, name) for name in _CHANCE_FLOATS])
        meta.append({
            "kind": item.kind, "level": item.level, "statistic": item.statistic, "grouping": item.grouping,
            "sys_human": item.sys_human, "note": item.note, "dropped": list(dropped), "n": int(r.n),
            "counts": None if r.counts is None else {k: getattr(v, "item", lambda v=v: v)() for k, v in r.counts.items()},
            "reason": r.undefined_reason,
        })  # fmt: skip
        if r.samples is not None:
            samples[f"s{i}"] = np.asarray(r.samples, dtype=float)
    width = len(_RESULT_FLOATS) + len(_CHANCE_FLOATS)
    store.put("items", key, {"floats": np.asarray(floats, dtype=float).reshape(len(found), width), **samples},
              {"items": meta})


def load_items(store, key: str, config: ConfigScores) -> list[tuple[Item, list[str]]] | None:  # noqa: ANN001
    entry = store.get("items", key)
    if entry is None:
        return None
    out = []
    for i, m in enumerate(entry["meta"]["items"]):
        values = dict(zip(_RESULT_FLOATS, (float(v) for v in entry["floats"][i])))
        result = Correlation(
            values["value"], values["ci_low"], values["ci_high"], m["n"], values["p_value"], m["counts"], m["reason"],
            entry.get(f"s{i}"), values["epsilon"],
        )  # fmt: skip
        band = ChanceBand(*(float(v) for v in entry["floats"][i][len(_RESULT_FLOATS):]))
        item = Item(config, m["kind"], m["level"], m["statistic"], m["grouping"], result, m["sys_human"], m["note"], band)
        out.append((item, list(m["dropped"])))
    return out


def index_items(store, index_key: str, key: str, kind_list: list[str], settings: Settings) -> None:  # noqa: ANN001
    """Record in the configuration's index that the entry ``key`` holds the items of
    ``kind_list`` x :func:`item_specs` (a concurrent writer may win; a lost line costs a recomputation)."""
    entry = store.get("items-index", index_key)
    listed = list(entry["meta"]["entries"]) if entry is not None else []
    line = {"key": key, "kinds": list(kind_list), "specs": [list(spec) for spec in item_specs(settings)]}
    if line not in listed:
        store.put("items-index", index_key, {}, {"entries": listed + [line]})


def covering_items(store, index_key: str, config: ConfigScores, kind_list: list[str], settings: Settings):  # noqa: ANN001, ANN202
    """The items ``settings`` ask for, taken from an entry computed for the same configuration,
    judgments and fixing settings that asked for at least those kinds and items (None if none
    did). An item's value and resamples depend on the data, the seeds and the fixing settings,
    not on which other items were computed beside it."""
    index = store.get("items-index", index_key)
    if index is None:
        return None
    specs = item_specs(settings)
    for line in index["meta"]["entries"]:
        if not (set(kind_list) <= set(line["kinds"]) and set(specs) <= {tuple(spec) for spec in line["specs"]}):
            continue
        stored = load_items(store, line["key"], config)
        if stored is None:
            continue
        by_spec = {(item.kind, spec_of(item)): (item, dropped) for item, dropped in stored}
        return [by_spec[(kind, spec)] for kind in kind_list for spec in specs if (kind, spec) in by_spec]
    return None



__all__ = ["config_digest", "config_key", "covering_items", "index_items", "index_key", "judgments_digest", "load_items", "save_items"]
