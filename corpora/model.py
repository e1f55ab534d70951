"""The two objects every reader returns: :class:`Corpus` and :class:`Judgments`.

A corpus is column-oriented: ``seg_ids[i]``, ``sources[i]``, ``references[name][i]`` and
``systems[name][i]`` all describe segment ``i``. Validation happens on construction, so a
``Corpus`` that exists is aligned. Judgments are a long table
``seg_id, system, judge, kind, value`` (see docs/design.md, "Data model").
"""

from __future__ import annotations

import unicodedata

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from metaeval.errors import DataError, UsageError

MISSING_POLICIES = ("error", "skip", "empty")

JUDGMENT_COLUMNS = ("seg_id", "system", "judge", "kind", "value")

#: Judgment kinds for which a lower value is better. Any other kind is higher-better
#: unless declared otherwise. A kind with a suffix (``esa_z``, ``da_raw``) takes the
#: direction of its stem.
LOWER_IS_BETTER = frozenset({"rank", "mqm", "hter", "ter"})


def kind_direction(kind: str, declared: Mapping[str, int] | None = None) -> int:
    """+1 if a higher value of judgment ``kind`` is better, -1 if lower is better."""
    if declared and kind in declared:
        return int(declared[kind])
    stem = kind.split("_", 1)[0].lower()
    return -1 if (kind.lower() in LOWER_IS_BETTER or stem in LOWER_IS_BETTER) else 1


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a system, reference or kind, or None.

    Names end up in tab-separated tables and one-line messages, so they must be non-empty
    strings without control characters (tab, newline, carriage return...), line or
    paragraph separators, or whitespace at either end.
    """
    if not isinstance(name, str) or not name:
        return "is empty"
    bad = [ch for ch in name if unicodedata.category(ch) in ("Cc", "Zl", "Zp")]
    if bad:
        return f"contains the control character U+{ord(bad[0]):04X}"
    if name != name.strip():
        return "starts or ends with whitespace"
    return None


def check_name(kind: str, name: object, where: str) -> None:
    """Raise a DataError at read time for a name that :func:`name_problem` refuses."""
    problem = name_problem(name)
    if problem is not None:
        raise DataError(f"{where}: {kind} name {name!r} {problem}; names must be one line without tabs")


def describe(ids: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(map(str, list(ids)[:limit]))
    more = len(ids) - limit
    return shown + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True, eq=False)
class Corpus:
    """Aligned evaluation data: sources, named references and named system outputs.

    Attributes:
        seg_ids: unique segment ids, in corpus order.
        sources: source text per segment.
        references: reference name -> text per segment (at least one reference).
        systems: system name -> hypothesis per segment.
        doc_ids: document id per segment; defaults to one document per corpus.
        source_lang, target_lang: language codes (``zh``, ``ja``, ``en``...).
        name: a label for reports (usually the folder name).
        origin: ``"ref:<name>"``/``"sys:<name>"``/``"src"`` -> file path, for messages.
    """

    seg_ids: tuple[str, ...]
    sources: tuple[str, ...]
    references: Mapping[str, tuple[str, ...]]
    systems: Mapping[str, tuple[str, ...]]
    doc_ids: tuple[str, ...] = ()
    source_lang: str = ""
    target_lang: str = ""
    name: str = ""
    origin: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.seg_ids)
        set_ = object.__setattr__
        set_(self, "seg_ids", tuple(str(s) for s in self.seg_ids))
        set_(self, "sources", tuple(self.sources))
        set_(self, "references", {k: tuple(v) for k, v in self.references.items()})
        set_(self, "systems", {k: tuple(v) for k, v in self.systems.items()})
        set_(self, "doc_ids", tuple(self.doc_ids) if self.doc_ids else ("",) * n)
        set_(self, "origin", dict(self.origin))
        where = f"corpus {self.name!r}" if self.name else "corpus"
        if n == 0:
            raise DataError(f"{where}: no segments")
        if len(set(self.seg_ids)) != n:
            seen: set[str] = set()
            dups = [s for s in self.seg_ids if s in seen or seen.add(s)]  # type: ignore[func-returns-value]
            raise DataError(f"{where}: duplicate segment ids: {describe(dups)}")
        if not self.references:
            raise DataError(f"{where}: no reference translation")
        if not self.systems:
            raise DataError(f"{where}: no system outputs")
        for kind, names in (("reference", self.references), ("system", self.systems)):
            for name in names:
                check_name(kind, name, self.origin.get(f"{kind[:3]}:{name}") or where)
        columns = [("src", "source", self.sources), ("", "doc ids", self.doc_ids)]
        columns += [(f"ref:{k}", f"reference {k!r}", v) for k, v in self.references.items()]
        columns += [(f"sys:{k}", f"system {k!r}", v) for k, v in self.systems.items()]
        for key, label, texts in columns:
            if len(texts) != n:
                path = self.origin.get(key)
                place = f"{path}: " if path else f"{where}: "
                raise DataError(
                    f"{place}{label} has {len(texts)} segments, expected {n} "
                    f"(off by {len(texts) - n:+d})"
                )
            bad = [self.seg_ids[i] for i, t in enumerate(texts) if not isinstance(t, str)]
            if bad:
                raise DataError(f"{where}: {label} has no text for segments {describe(bad)}")

    @property
    def n_segments(self) -> int:
        return len(self.seg_ids)

    @property
    def system_names(self) -> list[str]:
        return list(self.systems)

    @property
    def reference_names(self) -> list[str]:
        return list(self.references)

    def refs_list(self) -> list[tuple[str, ...]]:
        """References as ``[n_refs][n_segments]`` in name order of insertion."""
        return list(self.references.values())

    def subset(
        self,
        systems: Iterable[str] | None = None,
        references: Iterable[str] | None = None,
        seg_ids: Iterable[str] | None = None,
    ) -> "Corpus":
        """A corpus restricted to some systems, references and/or segments (order kept)."""
        sys_names = list(self.systems) if systems is None else list(systems)
        ref_names = list(self.references) if references is None else list(references)
        for kind, wanted, have in (("system", sys_names, self.systems), ("reference", ref_names, self.references)):
            unknown = [w for w in wanted if w not in have]
            if unknown:
                raise UsageError(f"unknown {kind}(s) {describe(unknown)}; known: {describe(list(have), 50)}")
        if seg_ids is None:
            keep = list(range(self.n_segments))
        else:
            index = {s: i for i, s in enumerate(self.seg_ids)}
            wanted_ids = list(seg_ids)
            unknown = [s for s in wanted_ids if s not in index]
            if unknown:
                raise UsageError(f"unknown segment id(s) {describe(unknown)}")
            keep = sorted(index[s] for s in wanted_ids)

        def take(texts: Sequence[str]) -> tuple[str, ...]:
            return tuple(texts[i] for i in keep)

        return Corpus(
            seg_ids=take(self.seg_ids),
            sources=take(self.sources),
            references={k: take(self.references[k]) for k in ref_names},
            systems={k: take(self.systems[k]) for k in sys_names},
            doc_ids=take(self.doc_ids),
            source_lang=self.source_lang,
            target_lang=self.target_lang,
            name=self.name,
            origin=self.origin,
        )


def apply_missing_policy(
    seg_ids: Sequence[str],
    systems: Mapping[str, Sequence[str | None]],
    policy: str = "error",
    origin: Mapping[str, str] | None = None,
) -> tuple[list[int], dict[str, list[str]]]:
    """Resolve hypotheses that are ``None`` (missing) according to ``policy``.

    ``error`` raises naming the system and the segment ids; ``skip`` drops every segment
    that any system lacks (for every system); ``empty`` scores a missing hypothesis as
    the empty string. Returns the indices of kept segments and the completed systems.
    """
    if policy not in MISSING_POLICIES:
        raise UsageError(f"unknown missing-segment policy {policy!r}; known: {', '.join(MISSING_POLICIES)}")
    origin = origin or {}
    missing_any: set[int] = set()
    for name, hyps in systems.items():
        missing = [i for i, h in enumerate(hyps) if h is None]
        if missing and policy == "error":
            path = origin.get(f"sys:{name}")
            place = f"{path}: " if path else ""
            raise DataError(
                f"{place}system {name!r} lacks {len(missing)} segment(s): "
                f"{describe([seg_ids[i] for i in missing])} (use --missing skip|empty to choose a policy)"
            )
        missing_any.update(missing)
    if policy == "skip":
        keep = [i for i in range(len(seg_ids)) if i not in missing_any]
    else:
        keep = list(range(len(seg_ids)))
    completed = {
        name: [hyps[i] or "" for i in keep]
        for name, hyps in systems.items()
    }
    return keep, completed


@dataclass(frozen=True, eq=False)
class Judgments:
    """Human judgments as a long table, plus optional given system-level scores.

    Attributes:
        table: DataFrame with columns ``seg_id, system, judge, kind, value`` (strings, and
            float ``value``); one row per judgment.
        system_scores: DataFrame indexed by ``system`` with one numeric column per kind
            (e.g. ``esa``, ``da_z``), or ``None`` when only segment judgments exist.
        directions: declared kind directions (+1 higher is better, -1 lower is better);
            undeclared kinds follow :func:`kind_direction`.
        source: file path(s) the judgments came from, for messages.
    """

    table: pd.DataFrame
    system_scores: pd.DataFrame | None = None
    directions: Mapping[str, int] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self) -> None:
        table = self.table
        missing = [c for c in JUDGMENT_COLUMNS if c not in table.columns]
        if missing:
            raise DataError(f"{self.source or 'judgments'}: missing column(s) {', '.join(missing)}")
        table = table.loc[:, list(JUDGMENT_COLUMNS)].copy()
        for col in ("seg_id", "system", "judge", "kind"):
            table[col] = table[col].fillna("").astype(str).astype(object)
        values = pd.to_numeric(table["value"], errors="coerce")
        bad = values.isna() | ~np.isfinite(values.to_numpy(dtype=float, na_value=np.nan))
        if bad.any():
            row = table[bad].iloc[0]
            shown = repr(row["value"]) if isinstance(row["value"], str) else str(row["value"])  # inf, not np.float64(inf)
            raise DataError(
                f"{self.source or 'judgments'}: non-numeric or non-finite value {shown} "
                f"(segment {row['seg_id']}, system {row['system']!r}, kind {row['kind']!r})"
            )
        table["value"] = values.astype(float)
        dup = table.duplicated(subset=["seg_id", "system", "judge", "kind"], keep=False)
        if dup.any():
            row = table[dup].iloc[0]
            raise DataError(
                f"{self.source or 'judgments'}: duplicate judgment for segment {row['seg_id']}, "
                f"system {row['system']!r}, judge {row['judge']!r}, kind {row['kind']!r}"
            )
        for system in filter(None, table["system"].unique()):
            check_name("system", system, self.source or "judgments")
        object.__setattr__(self, "table", table.reset_index(drop=True))
        if self.system_scores is not None:
            scores = self.system_scores.copy()
            scores.index = scores.index.astype(str)
            for system in scores.index:
                check_name("system", system, self.source or "system scores")
            for col in scores.columns:
                values = scores[col].to_numpy(float) if pd.api.types.is_numeric_dtype(scores[col]) else None
                # NaN means "not scored by this kind"; infinities are errors
                if values is not None and np.isinf(values).any():
                    bad = scores.index[np.isinf(values)][0]
                    raise DataError(f"{self.source or 'system scores'}: non-finite {col!r} for system {bad!r}")
            object.__setattr__(self, "system_scores", scores)

    @property
    def kinds(self) -> list[str]:
        """Judgment kinds present at segment level, in first-seen order."""
        return list(dict.fromkeys(self.table["kind"]))

    @property
    def system_kinds(self) -> list[str]:
        """Numeric columns of the given system-level scores."""
        if self.system_scores is None:
            return []
        return [c for c in self.system_scores.columns if pd.api.types.is_numeric_dtype(self.system_scores[c])]

    def direction(self, kind: str) -> int:
        return kind_direction(kind, self.directions)

    def validate_against(self, corpus: Corpus) -> None:
        """Raise if a judgment names a system or segment that ``corpus`` lacks."""
        where = self.source or "judgments"
        systems = set(self.table["system"])
        unknown = sorted(systems - set(corpus.systems))
        if unknown:
            raise DataError(
                f"{where}: judgments name system(s) not in the corpus: {describe(unknown)}; "
                f"corpus systems: {describe(sorted(corpus.systems), 50)}"
            )
        unknown_segs = sorted(set(self.table["seg_id"]) - set(corpus.seg_ids), key=_natural_key)
        if unknown_segs:
            raise DataError(f"{where}: judgments name segment(s) not in the corpus: {describe(unknown_segs)}")

    def segment_matrix(self, kind: str, systems: Sequence[str], seg_ids: Sequence[str]) -> np.ndarray:
        """Mean judgment (over judges) as an array ``[n_systems, n_segments]``, NaN where unjudged."""
        sub = self.table[self.table["kind"] == kind]
        if sub.empty:
            raise UsageError(f"no judgments of kind {kind!r}; kinds present: {', '.join(self.kinds) or '(none)'}")
        means = sub.groupby(["system", "seg_id"], sort=False)["value"].mean()
        out = np.full((len(systems), len(seg_ids)), np.nan)
        sys_index = {s: i for i, s in enumerate(systems)}
        seg_index = {s: j for j, s in enumerate(seg_ids)}
        for (system, seg), value in means.items():
            i, j = sys_index.get(system), seg_index.get(seg)
            if i is not None and j is not None:
                out[i, j] = value
        return out


def _natural_key(text: str) -> tuple:
    return (0, int(text), "") if text.isdigit() else (1, 0, text)
