"""A study declared as data: the TOML file that ``metaeval study SPEC.toml`` runs.

    [study]
    name = "zh-char-vs-word"
    data = "../shared/data"               # dataset paths are relative to this (relative to the spec)
    out = "results/zh"                     # output folder, relative to the spec
    segmenters = ["char", "jieba", "pkuseg"]
    metrics = ["bleu", "chrf", "1-ter"]
    statistics = ["default", "seg:kendall_acc23@item"]
    bootstrap = 1000
    seed = 12345

    [[dataset]]
    path = "wmt24-esa/en-zh"

Every key is checked before any data is read: an unknown key, a value of the wrong type or an
unknown segmenter, metric or statistic is a usage error naming the spec file and the key
(exit status 2); a file that is not TOML is a data error naming its line (exit status 1).
The keys and their meaning are listed in ``docs/reference.md`` ("Study files").

Dataset paths (and ``judgments``/``human_sys`` files) are relative to the data folder: the
``--data`` option, else ``$METAEVAL_DATA`` or ``$METAEVAL_SHARED/data`` when the spec names a
``data`` folder (as the shared data moves between machines), else the ``data`` key, else
the spec's own folder.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from metaeval.errors import DataError, MetaevalError, UsageError
from metaeval.stats.settings import OPTION_KEYS, OPTIONS, PORTED_OPTIONS, Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Analyses a study can run on each dataset.
ANALYSES = ("correlations", "equivalence")
#: Stands for :data:`metaeval.stats.registry.DEFAULT_STATISTICS` inside a ``statistics`` list.
DEFAULT_WORD = "default"

_STR, _INT, _BOOL, _NUM, _LIST = "a string", "an integer", "true or false", "a number", "a list of strings"


def _is_str(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_list(v: Any) -> bool:
    return isinstance(v, list) and all(_is_str(x) for x in v)


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    _STR: (_is_str, _STR), _INT: (_is_int, _INT), _BOOL: (lambda v: isinstance(v, bool), _BOOL),
    _NUM: (_is_num, _NUM), _LIST: (_is_list, _LIST),
}  # fmt: skip

#: The type of a statistics option's value in a study file, by the option's kind (metaeval.stats.settings.Option).
_OPTION_TYPES = {"list": _LIST, "choice": _STR, "count": _INT, "positive": _INT, "bootstrap": _INT, "number": _NUM, "off": _BOOL}
#: The statistics options chosen per study; ``statistics``, ``groupings`` and ``levels`` may also be chosen per dataset.
_OPTIONS = {option.key: _OPTION_TYPES[option.kind] for option in OPTIONS}
_LISTED = tuple(option.key for option in OPTIONS if option.kind == "list")
#: What may be chosen per dataset as well as for the whole study.
_PER_DATASET = {"segmenters": _LIST, "metrics": _LIST, "kinds": _LIST, "word_segmenters": _LIST, **{k: _LIST for k in _LISTED}}
STUDY_KEYS = {
    "name": _STR, "data": _STR, "out": _STR, "analyses": _LIST, "missing": _STR, "doc_level": _BOOL, **_OPTIONS,
    **_PER_DATASET, **{name: _NUM for name in PORTED_OPTIONS},
}  # fmt: skip
#: The options recorded in ``study.json`` even when the file leaves them out (with their defaults).
_ALWAYS_RECORDED = ("bootstrap", "seed", "tie_policy", "threshold")
DATASET_KEYS = {
    "name": _STR, "path": _STR, "references": _LIST, "systems": _LIST, "judgments": _STR, "human_sys": _STR,
    "judgments_format": _STR, **_PER_DATASET,
}  # fmt: skip
EQUIVALENCE_KEYS = {"char_segmenter": _STR, "max_word_order": _INT, "max_char_order": _INT, "n_grades": _INT, "threshold": _NUM}


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of a study: its folder and what to compute on it (None: the study's choice)."""

    name: str
    path: str
    folder: Path
    references: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None
    judgments: Path | None = None
    human_sys: Path | None = None
    judgments_format: str | None = None
    segmenters: tuple[str, ...] | None = None
    metrics: tuple[str, ...] | None = None
    statistics: tuple[str, ...] | None = None
    groupings: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None
    levels: tuple[str, ...] | None = None
    word_segmenters: tuple[str, ...] | None = None

    @property
    def slug(self) -> str:
        """The name as a file name: ``/`` and spaces become ``_``."""
        return "".join(ch if ch.isalnum() or ch in "-_.+" else "_" for ch in self.name)


@dataclass(frozen=True)
class StudySpec:
    """A parsed, checked study file (:func:`load_spec`)."""

    source: Path
    name: str
    out: Path | None
    analyses: tuple[str, ...]
    datasets: tuple[DatasetSpec, ...]
    #: study-wide choices of the keys in ``_PER_DATASET`` (None: the defaults)
    choices: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    #: bootstrap, seed, tie_policy, threshold (as given, else their defaults), missing, doc_level
    settings: dict[str, Any] = field(default_factory=dict)
    #: the other statistics options the file gives (average, undefined, refit_epsilon, ...)
    statistics_options: dict[str, Any] = field(default_factory=dict)
    equivalence: Any = None  # a metaeval.equivalence.EquivalenceSettings, or None
    char_segmenter: str = "char"

    def choice(self, dataset: DatasetSpec | None, key: str) -> tuple[str, ...] | None:
        """The dataset's own choice of ``key``, else the study's (None: the default); the
        study's alone when ``dataset`` is None."""
        own = getattr(dataset, key) if dataset is not None else None
        return own if own is not None else self.choices.get(key)

    def settings_for(self, dataset: DatasetSpec | None) -> Settings:
        """The :class:`~metaeval.stats.settings.Settings` of ``dataset`` (of the study when None):
        the study's options, then the dataset's own statistics, groupings and levels."""
        given = {**{k: v for k, v in self.settings.items() if k in OPTION_KEYS}, **self.statistics_options}
        for key in _LISTED:
            chosen = self.choice(dataset, key)
            if chosen:
                given[key] = statistics_list(chosen) if key == "statistics" else chosen
        return Settings.build(**{OPTION_KEYS[k].field: v for k, v in given.items()})

    def with_options(self, options: Mapping[str, Any]) -> StudySpec:
        """The spec with ``options`` (statistics options by key, e.g. from the command line) in
        place of the file's own, the datasets' own statistics, groupings and levels included."""
        from dataclasses import replace

        settings, extra, choices, datasets = dict(self.settings), dict(self.statistics_options), dict(self.choices), self.datasets
        for key, value in options.items():
            if key in _LISTED:
                cleared: dict[str, Any] = {key: None}
                choices[key] = tuple(value)
                datasets = tuple(replace(d, **cleared) for d in datasets)
            elif key in settings:
                settings[key] = value
            else:
                extra[key] = value
        return replace(self, settings=settings, statistics_options=extra, choices=choices, datasets=datasets)


class _Reader:
    """Checks the keys of one TOML table; errors name the spec file and the dotted key."""

    def __init__(self, source: Path, where: str, table: Mapping[str, Any], allowed: Mapping[str, str]) -> None:
        self.source, self.where, self.table = source, where, table
        unknown = sorted(set(table) - set(allowed))
        if unknown:
            raise UsageError(f"{source}: {self.key(unknown[0])}: unknown key; known keys: {', '.join(sorted(allowed))}")
        for name, value in table.items():
            check, wanted = _CHECKS[allowed[name]]
            if not check(value):
                raise UsageError(f"{source}: {self.key(name)}: expected {wanted}, got {_shown(value)}")

    def key(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def fail(self, name: str, problem: str) -> UsageError:
        return UsageError(f"{self.source}: {self.key(name)}: {problem}")

    def get(self, name: str, default: Any = None) -> Any:
        return self.table.get(name, default)

    def names(self, name: str) -> tuple[str, ...] | None:
        value = self.table.get(name)
        if value is None:
            return None
        if not value:
            raise self.fail(name, "an empty list; leave the key out for the default")
        repeated = [v for i, v in enumerate(value) if v in value[:i]]
        if repeated:
            raise self.fail(name, f"{repeated[0]!r} is given twice")
        return tuple(value)


def _shown(value: Any) -> str:
    text = repr(value)
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list", dict: "a table"}
    return f"{kind.get(type(value), type(value).__name__)} {text if len(text) <= 40 else text[:37] + '...'}"


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML document of ``path``; a missing file or bad syntax is a data error naming it."""
    from metaeval.paths import read_input_bytes

    raw = read_input_bytes(path)  # a missing or unreadable file: a FileSystemError naming it
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"{path}:{line}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{path}: not a valid TOML file ({exc})") from None


def data_root(source: Path, given: str | None, data: "str | Path | None" = None) -> Path:
    """The folder dataset paths are relative to (see the module docstring)."""
    if data is not None:
        return Path(data).expanduser()
    if given is not None:
        if os.environ.get("METAEVAL_DATA"):
            return Path(os.environ["METAEVAL_DATA"]).expanduser()
        if os.environ.get("METAEVAL_SHARED"):
            return Path(os.environ["METAEVAL_SHARED"]).expanduser() / "data"
        return (source.parent / Path(given).expanduser()).resolve()
    return source.parent.resolve()


def load_spec(path: "str | Path", data: "str | Path | None" = None, check: bool = True) -> StudySpec:
    """Read and check a study file; ``data`` overrides the data folder (``--data``).

    ``check=False`` skips building the named segmenters and metrics (the keys and their types
    are still checked): for reading what a study declares without loading any model."""
    source = Path(path)
    doc = read_toml(source)
    unknown = sorted(set(doc) - {"study", "dataset", "equivalence"})
    if unknown:
        raise UsageError(f"{source}: {unknown[0]}: unknown table or key; a study file has [study], [[dataset]] and [equivalence]")
    for name, wanted in (("study", dict), ("equivalence", dict)):
        if name in doc and not isinstance(doc[name], wanted):
            raise UsageError(f"{source}: {name}: expected a table [{name}], got {_shown(doc[name])}")
    study = _Reader(source, "study", doc.get("study", {}), STUDY_KEYS)
    entries = doc.get("dataset")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise UsageError(f"{source}: dataset: expected one or more [[dataset]] tables, got {_shown(entries) if entries is not None else 'none'}")
    root = data_root(source, study.get("data"), data)
    analyses = study.names("analyses") or ("correlations",)
    bad = [a for a in analyses if a not in ANALYSES]
    if bad:
        raise study.fail("analyses", f"unknown analysis {bad[0]!r}; known: {', '.join(ANALYSES)}")
    datasets = tuple(_dataset(source, i, entry, root) for i, entry in enumerate(entries))
    names = [d.name for d in datasets]
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise UsageError(f"{source}: dataset: the name {twice[0]!r} is given twice (give each [[dataset]] its own name)")
    for name, check_ported in PORTED_OPTIONS.items():  # accepted from a ported configuration, changing no number
        if name in study.table:
            try:
                check_ported(study.table[name])
            except MetaevalError as exc:
                raise study.fail(name, str(exc)) from None
    choices = {key: study.names(key) for key in _PER_DATASET}
    settings = {key: study.get(key, OPTION_KEYS[key].default) for key in _ALWAYS_RECORDED}
    settings.update(missing=study.get("missing", "error"), doc_level=study.get("doc_level", False))
    options = {key: study.get(key) for key in OPTION_KEYS if key not in _ALWAYS_RECORDED and key not in _LISTED and key in study.table}
    out = study.get("out")
    spec = StudySpec(
        source=source, name=study.get("name", source.stem), out=(source.parent / Path(out).expanduser()) if out else None,
        analyses=analyses, datasets=datasets, choices=choices, settings=settings, statistics_options=options,
    )  # fmt: skip
    spec = _with_equivalence(spec, doc.get("equivalence"))
    if check:
        check_spec(spec)
    return spec


def _dataset(source: Path, index: int, entry: Mapping[str, Any], root: Path) -> DatasetSpec:
    reader = _Reader(source, f"dataset[{index}]", entry, DATASET_KEYS)
    if "path" not in entry:
        raise reader.fail("path", "missing: each [[dataset]] names its corpus folder")
    given = entry["path"]

    def resolve(value: str | None) -> Path | None:
        if value is None:
            return None
        p = Path(value).expanduser()
        return p if p.is_absolute() else root / p

    folder = resolve(given)
    assert folder is not None
    return DatasetSpec(
        name=entry.get("name", given), path=given, folder=folder, references=reader.names("references"),
        systems=reader.names("systems"), judgments=resolve(entry.get("judgments")), human_sys=resolve(entry.get("human_sys")),
        judgments_format=entry.get("judgments_format"), **{key: reader.names(key) for key in _PER_DATASET},
    )  # fmt: skip


def _with_equivalence(spec: StudySpec, table: Mapping[str, Any] | None) -> StudySpec:
    from dataclasses import replace

    from metaeval.equivalence import EquivalenceSettings

    if table is None:
        if "equivalence" in spec.analyses:
            return replace(spec, equivalence=EquivalenceSettings())
        return spec
    reader = _Reader(spec.source, "equivalence", table, EQUIVALENCE_KEYS)
    if "equivalence" not in spec.analyses:
        raise UsageError(f"{spec.source}: equivalence: the table is given but study.analyses does not name \"equivalence\"")
    given = {k: v for k, v in table.items() if k != "char_segmenter"}
    try:
        settings = EquivalenceSettings(**given)
    except ValueError as exc:
        name = next((k for k in given if str(exc).startswith(k)), next(iter(given), "equivalence"))
        raise reader.fail(name, str(exc)) from None
    return replace(spec, equivalence=settings, char_segmenter=table.get("char_segmenter", "char"))


def _key_of(spec: StudySpec, dataset: DatasetSpec | None, key: str) -> str:
    if dataset is not None and getattr(dataset, key) is not None:
        return f"dataset[{spec.datasets.index(dataset)}].{key}"
    return f"study.{key}"


def check_spec(spec: StudySpec) -> None:
    """Names and settings the spec chooses exist; the error names the spec file and key."""
    from metaeval import segmenters
    from metaeval.scoring import MetricChoice

    def fail(key: str, exc: Exception) -> UsageError:
        return UsageError(f"{spec.source}: {key}: {exc}")

    s = spec.settings
    for key, value in {**{k: v for k, v in s.items() if k in OPTION_KEYS}, **spec.statistics_options}.items():
        try:  # one option at a time, so that the error names its key
            Settings.build(**{OPTION_KEYS[key].field: value})
        except MetaevalError as exc:
            raise fail(f"study.{key}", exc) from None
    checked: set[tuple[str, str]] = set()
    for dataset in (None, *spec.datasets):
        for key in ("segmenters", "word_segmenters", "metrics"):
            for name in spec.choice(dataset, key) or ():
                if (key, name) in checked:
                    continue
                try:
                    segmenters.check(name) if key != "metrics" else MetricChoice.of(name)
                except MetaevalError as exc:
                    raise fail(_key_of(spec, dataset, key), exc) from None
                checked.add((key, name))
        for key in _LISTED:
            chosen = spec.choice(dataset, key)
            try:
                given: dict[str, Any] = {OPTION_KEYS[key].field: statistics_list(chosen) if key == "statistics" else chosen} if chosen else {}
                Settings.build(**given)
            except MetaevalError as exc:
                raise fail(_key_of(spec, dataset, key), exc) from None
        try:
            spec.settings_for(dataset)
        except MetaevalError as exc:
            raise fail(_key_of(spec, dataset, "statistics") if dataset is not None else "study", exc) from None
    if spec.equivalence is not None:
        try:
            segmenters.check(spec.char_segmenter)
        except MetaevalError as exc:
            raise fail("equivalence.char_segmenter", exc) from None
        for dataset in spec.datasets:
            if not spec.choice(dataset, "word_segmenters"):
                raise UsageError(f"{spec.source}: dataset[{spec.datasets.index(dataset)}].word_segmenters: "
                                 "missing: the equivalence analysis needs word segmenters (here or in [study])")
    if s["missing"] not in ("error", "skip", "empty"):
        raise UsageError(f"{spec.source}: study.missing: unknown policy {s['missing']!r}; known: error, skip, empty")


def statistics_list(given: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """``statistics`` with ``"default"`` replaced by the default statistics (None stays None)."""
    from metaeval.stats.registry import DEFAULT_STATISTICS

    if given is None:
        return None
    out: list[str] = []
    for name in given:
        out += list(DEFAULT_STATISTICS) if name == DEFAULT_WORD else [name]
    return tuple(dict.fromkeys(out))


__all__ = ["ANALYSES", "DatasetSpec", "StudySpec", "data_root", "load_spec", "read_toml", "statistics_list"]
