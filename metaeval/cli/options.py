"""The statistics options of ``run``, ``correlate``, ``sweep`` and ``study``: added to each of
them from one table (:data:`metaeval.stats.settings.OPTIONS`) and turned into one
:class:`~metaeval.stats.settings.Settings` by one function, before any file is read.

An option left out keeps the value of the base settings (each command's defaults, or a study
file's own), so every default is the one of :mod:`metaeval.stats.defaults`.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Sequence

from metaeval.cli.common import bootstrap_count, non_negative, number, positive, split_list
from metaeval.stats.registry import statistics_taking
from metaeval.stats.settings import OPTIONS, PORTED_OPTIONS, Option, Settings

#: The argparse type of each kind of option.
_TYPES: dict[str, Callable[[str], Any]] = {"count": non_negative, "positive": positive, "bootstrap": bootstrap_count, "number": number}


def _help(option: Option) -> str:
    """The option's help: its meaning, the names it takes, its default and the statistics it changes."""
    default = option.default
    shown = "each statistic's own" if option.field == "groupings" else (
        ", ".join(default) if isinstance(default, tuple) else "none" if default is None else
        "re-fit" if option.kind == "off" else str(default)
    )  # fmt: skip
    parts = [f"one of {', '.join(option.choices)}"] if option.kind == "choice" else []
    if option.kind == "list":
        parts.append(f"names: {', '.join(option.choices)}; comma-separated lists too")
    parts.append(f"default: {shown}")
    taking = option.changes or ", ".join(statistics_taking(option.field))
    if taking:
        parts.append(f"changes {taking}")
    return f"{option.help} ({'; '.join(parts)})"


def add_statistics_options(p: argparse.ArgumentParser, fields: Sequence[str] | None = None) -> None:
    """Every option of :data:`~metaeval.stats.settings.OPTIONS` on ``p``, or those of the
    Settings ``fields`` named (destination: the option's key; nothing stored when left out)."""
    group = p.add_argument_group("statistics options")
    for option in OPTIONS:
        if fields is not None and option.field not in fields:
            continue
        if option.kind == "list":
            group.add_argument(option.flag, dest=option.key, action="append", metavar=option.flag.lstrip("-").upper(),
                               help=_help(option))
        elif option.kind == "off":
            group.add_argument(option.flag, dest=option.key, action="store_const", const=False, default=None, help=_help(option))
        elif option.kind == "choice":
            group.add_argument(option.flag, dest=option.key, choices=option.choices, default=None, help=_help(option))
        else:
            group.add_argument(option.flag, dest=option.key, type=_TYPES[option.kind], default=None, help=_help(option))
    if fields is not None:
        return
    group.add_argument("--sample-rate", dest="sample_rate", type=number, default=None, metavar="1.0",
                       help="mt-metrics-eval's tie-calibration sample rate, accepted for a ported configuration: only 1.0 "
                            "(every pair), which is what metaeval's exact search always does; it changes no number")


def given_options(args: argparse.Namespace) -> dict[str, Any]:
    """The statistics options given on the command line, by key (lists split at commas)."""
    given = {}
    for option in OPTIONS:
        value = getattr(args, option.key, None)
        if value is not None:
            given[option.key] = tuple(split_list(value)) if option.kind == "list" else value
    return given


def settings_from_args(args: argparse.Namespace, base: Settings | None = None) -> Settings:
    """The :class:`~metaeval.stats.settings.Settings` of a command: ``base`` (default: every
    default) with the options given on the command line, checked once."""
    by_key = {option.key: option.field for option in OPTIONS}
    ported = {name: getattr(args, name) for name in PORTED_OPTIONS if getattr(args, name, None) is not None}
    return Settings.build(base, **{by_key[key]: value for key, value in given_options(args).items()}, **ported)


def add_comparison_options(p: argparse.ArgumentParser) -> None:
    """``--compare`` and ``--comparisons``: paired tests of every ranking, written to a file."""
    p.add_argument("--compare", choices=("bootstrap", "permutation", "williams"), default="bootstrap",
                   help="paired test between configurations written to --comparisons (default bootstrap)")
    p.add_argument("--comparisons", metavar="FILE",
                   help="write the paired tests of every ranking here (.tsv, .csv, .json or .tex)")


def write_comparisons(args: argparse.Namespace, configs, judgments, results, settings: Settings) -> None:  # noqa: ANN001
    """Paired tests of every ranking, written to ``--comparisons`` (format from its suffix)."""
    from pathlib import Path

    from metaeval.cli.common import emit, table_text
    from metaeval.stats.paired import compare_all

    tests = compare_all(configs, judgments, results, args.compare, settings)
    out = Path(args.comparisons)
    fmt = {".csv": "csv", ".json": "json", ".tex": "latex"}.get(out.suffix.lower(), "tsv")
    if fmt == "latex":
        from metaeval.report.latex import latex_table

        text = latex_table(tests, caption=f"Paired {args.compare} tests")
    elif fmt == "json":
        text = table_text(tests, fmt)
    else:  # full precision: p-values and correlations read back exactly
        text = tests.to_csv(sep="," if fmt == "csv" else "\t", index=False, lineterminator="\n")
    emit(text, str(out), args.overwrite)


__all__ = ["add_comparison_options", "add_statistics_options", "given_options", "settings_from_args", "write_comparisons"]
