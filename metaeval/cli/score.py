"""``metaeval score``: metric scores per segmenter at segment, document and system level."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any, Sequence

from metaeval.cli.common import SCORE_FORMATS, add_corpus_options, add_output_options, check_output, csv_options, progress_bar, split_list, table_text
from metaeval.errors import UsageError


def cmd_score(args: argparse.Namespace) -> int:
    from metaeval.api import check_names, read_corpus
    from metaeval.compute import workers
    from metaeval.scoring import LEVELS, score_corpus

    levels = split_list(args.level) or ["seg", "doc", "sys"]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown:
        raise UsageError(f"unknown level {unknown[0]!r}; known: {', '.join(LEVELS)}")
    segs = args.segmenter or ["char"]
    metrics = args.metric or ["bleu"]
    check_names(segs, metrics)
    check_output(args)
    corpus, _ = read_corpus(args.corpus, missing=args.missing)
    progress = progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        result = score_corpus(corpus, segs, metrics, executor=executor, jobs=jobs, progress=progress,
                              cache=args.cache_dir, store=args.cache_dir)
    if args.format == "json":
        text: Any = table_text(result.table(levels), args.format)
    else:  # a large table is written piece by piece, never held as one string
        text = functools.partial(write_table, result, levels, args.format)
    if args.output:
        from metaeval.report.data import write_results
        from metaeval.versions import package_versions

        signature = {
            "dataset": corpus.name, "segmenters": result.segmenter_signatures, "metrics": result.metric_signatures,
            "levels": levels, "versions": package_versions(),
        }  # fmt: skip
        write_results(Path(args.output), text, signature, overwrite=args.overwrite)
    elif isinstance(text, str):
        sys.stdout.write(text)
    else:
        text(sys.stdout)
    return 0


def write_table(result, levels: Sequence[str], fmt: str, handle: Any) -> None:  # noqa: ANN001
    """The ScoreTable of ``result`` as CSV/TSV on ``handle``, one configuration and level at a
    time (the same text as :func:`~metaeval.cli.common.table_text` of the whole table)."""
    import pandas as pd

    from metaeval.scoretable import SCORE_COLUMNS

    options = csv_options(fmt)
    header = True
    for frame in result.frames(levels):
        frame.to_csv(handle, header=header, **options)
        header = False
    if header:
        pd.DataFrame(columns=list(SCORE_COLUMNS)).to_csv(handle, **options)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="metric scores per segmenter at segment, document and system level")
    add_corpus_options(p)
    p.add_argument("--level", "-l", action="append", help="levels: seg,doc,sys (default all)")
    add_output_options(p, SCORE_FORMATS, "tsv")
    p.set_defaults(func=cmd_score)


__all__ = ["add_parser", "cmd_score", "write_table"]
