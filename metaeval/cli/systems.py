"""``metaeval systems``: a corpus's systems ranked by the humans and by each metric at each
granularity, with significance clusters, in any report format, and a bump chart.

The command takes ``run``'s corpus options (segmenters, metrics, missing segments, workers,
cache), its judgment options, the statistics options that change its numbers (``--bootstrap``,
``--seed``, ``--adjust``: :data:`SETTINGS_FIELDS`), and its own: ``--alpha``, ``--human-test``,
``--chart``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from metaeval.cli.common import RESULT_FORMATS, add_corpus_options, add_output_options, check_output, emit, progress_bar, split_list
from metaeval.cli.options import add_statistics_options, settings_from_args
from metaeval.errors import DataError, UsageError

#: ``--human-test`` choices (the keys of :data:`metaeval.systemrank.board.HUMAN_TESTS`, named
#: here so that building the parser imports no numerical package).
HUMAN_TEST_NAMES = ("wilcoxon", "bootstrap")
#: The fields of :class:`~metaeval.stats.settings.Settings` the command takes: the resamples of
#: the paired bootstrap between systems, their seed, and the adjustment of each ranking's pairs.
SETTINGS_FIELDS = ("n_bootstrap", "seed", "adjust")


def _alpha(text: str) -> float:
    """argparse type of ``--alpha``: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("systems", help="systems ranked by the humans and by each metric at each granularity, with significance clusters")
    add_corpus_options(p)
    p.add_argument("--kind", action="append", help="human score(s) to rank systems by (default: the first present)")
    p.add_argument("--judgments", help="judgment file (long TSV or any known format)")
    p.add_argument("--judgments-format", default=None, help="force a judgment file format")
    p.add_argument("--human-sys", help="system-level human scores TSV (system + one column per kind)")
    add_statistics_options(p, SETTINGS_FIELDS)
    p.add_argument("--alpha", type=_alpha, default=0.05, help="significance level of the clusters (default 0.05)")
    p.add_argument("--human-test", choices=HUMAN_TEST_NAMES, default="wilcoxon",
                   help="test between systems on the human side: wilcoxon (WMT24's signed-rank tests, default) or bootstrap")
    add_output_options(p, RESULT_FORMATS, "text")
    p.add_argument("--chart", metavar="FILE.png", help="also draw the bump charts (rank by granularity) into this PNG")
    p.set_defaults(func=cmd_systems)


def cmd_systems(args: argparse.Namespace) -> int:
    """``metaeval systems CORPUS``: score, rank, and write the board (and the chart)."""
    settings = settings_from_args(args)  # checked before anything heavy is imported
    from metaeval.api import check_names
    from metaeval.compute import workers
    from metaeval.report.bump import bumps, png
    from metaeval.report.files import check_output_file
    from metaeval.report.systems import render_board
    from metaeval.systems import corpus_board

    check_names(args.segmenter or [], args.metric or [])
    check_output(args)
    if args.chart:
        if Path(args.chart).suffix.lower() != ".png":
            raise UsageError(f"--chart {args.chart}: the chart is a PNG file (name ending in .png)")
        if args.output and Path(args.output).resolve() == Path(args.chart).resolve():
            raise UsageError(f"--chart {args.chart}: the same file as --output")
        check_output_file(args.chart, args.overwrite)
    progress = progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        board = corpus_board(
            args.corpus, args.segmenter or None, args.metric or None, judgments=args.judgments, human_sys=args.human_sys,
            judgments_format=args.judgments_format, kinds=split_list(args.kind) or None, bootstrap=settings.n_bootstrap,
            seed=settings.seed, adjust=settings.adjust, alpha=args.alpha, human_test=args.human_test, missing=args.missing, jobs=jobs,
            executor=executor, cache_dir=args.cache_dir, progress=progress,
        )  # fmt: skip
    if board.table.empty:
        raise DataError(f"{args.corpus}: no system to rank: " + "; ".join(board.notes))
    emit(render_board(board, args.format), args.output, args.overwrite)
    if args.chart:
        png(bumps(board.table, list(board.granularities["name"]), board.dataset), args.chart, overwrite=args.overwrite)
    return 0


__all__ = ["HUMAN_TEST_NAMES", "SETTINGS_FIELDS", "add_parser", "cmd_systems"]
