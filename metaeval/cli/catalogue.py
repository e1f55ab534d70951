"""``metaeval list`` (what is available: segmenters, metrics, statistics, formats) and
``metaeval segment`` (how segmenters split text)."""

from __future__ import annotations

import argparse
import sys

from metaeval import __version__


def statistics_lines() -> list[str]:
    """One line per statistic of the registry: name, levels, groupings (default first) and description."""
    from metaeval.stats.registry import REGISTRY

    rows = []
    for name, entry in REGISTRY.items():
        groupings = [entry.default_grouping] + [g for g in entry.groupings if g != entry.default_grouping] if entry.groupings else []
        rows.append((name, ",".join(entry.levels) + (f" @{'|'.join(groupings)}" if groupings else ""), entry.description))
    width = max(len(name) for name, _, _ in rows), max(len(where) for _, where, _ in rows)
    return [f"  {name:{width[0]}s}  {where:{width[1]}s}  {description}" for name, where, description in rows]


def cmd_list(args: argparse.Namespace) -> int:
    from metaeval import corpora
    from metaeval import segmenters
    from metaeval.metrics import available_metrics

    lines = [f"metaeval {__version__}", "", "segmenters:"]
    for row in segmenters.info():
        lines.append(f"  {row.name:15s} {row.description}")
    lines += ["", "metrics:"]
    lines += [f"  {name:8s} {desc}" for name, desc in available_metrics().items()]
    lines += ["", "statistics (--statistic LEVEL:NAME[@GROUPING]; first grouping: the default):"]
    lines += statistics_lines()
    lines += ["", "formats:"]
    lines += [f"  {name}" for name in getattr(corpora, "FORMATS", [])]
    from metaeval.report.leaderboard import FORMAT_DESCRIPTIONS

    lines += ["", "output formats (--format of run, correlate, leaderboard):"]
    lines += [f"  {name:8s} {text}" for name, text in FORMAT_DESCRIPTIONS.items()]
    print("\n".join(lines))
    return 0


def cmd_segment(args: argparse.Namespace) -> int:
    from metaeval import segmenters

    texts = args.text or _stdin_lines()
    for name in args.segmenter or ["char"]:
        seg = segmenters.get(name)
        print(f"# {seg.signature()}")
        for text in texts:
            print(" ".join(seg(text)))
    return 0


def _stdin_lines() -> list[str]:
    """Lines of standard input, which must be UTF-8 (a data error names the line otherwise)."""
    from metaeval.errors import DataError

    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(f"standard input:{line}: not UTF-8 text (byte {data[exc.start]:#04x})") from None
    return text.splitlines()


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="segmenters, metrics, statistics and formats available")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("segment", help="show how segmenters split text")
    p.add_argument("text", nargs="*", help="texts (default: lines of standard input)")
    p.add_argument("--segmenter", "-s", action="append", help="segmenter name (repeatable; default: char)")
    p.set_defaults(func=cmd_segment)


__all__ = ["add_parser", "cmd_list", "cmd_segment", "statistics_lines"]
