"""``metaeval run``: read, segment, score, correlate, and print the leaderboard."""

from __future__ import annotations

import argparse
import sys

from metaeval.cli.common import (
    RESULT_FORMATS, add_by_options, add_corpus_options, add_format_option, add_judgment_options, check_output, progress_bar,
    split_list,
)  # fmt: skip
from metaeval.cli.options import add_comparison_options, add_statistics_options, settings_from_args, write_comparisons


def cmd_run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)  # names and values checked first, before anything heavy is imported
    from metaeval.api import check_names, run
    from metaeval.compute import workers

    segs = args.segmenter or None
    metrics = args.metric or None
    check_names(segs or [], metrics or [])
    check_output(args)
    progress = progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        study = run(
            args.corpus, segs, metrics, judgments=args.judgments, human_sys=args.human_sys,
            judgments_format=args.judgments_format, kinds=split_list(args.kind) or None, settings=settings,
            executor=executor, jobs=jobs, missing=args.missing, progress=progress, cache_dir=args.cache_dir,
            doc_level=args.doc_level, by=args.by, docs=args.docs, name=args.name,
        )  # fmt: skip
    if args.comparisons:
        write_comparisons(args, study.configs, study.judgments, study.results, settings, study.subsets)
    if args.out:
        from metaeval.report.outputs import RUN_OUTPUTS

        folder = study.write(args.out, args.overwrite)
        print(f"metaeval: wrote {folder}: {', '.join(RUN_OUTPUTS)}", file=sys.stderr)
    text = study.leaderboard(args.format, args.layout)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="the whole study on a corpus, ending in a leaderboard")
    add_corpus_options(p)
    add_judgment_options(p)
    add_statistics_options(p)
    add_comparison_options(p)
    add_format_option(p, RESULT_FORMATS, "text")
    p.add_argument("--layout", choices=("table", "ranked"), default="table",
                   help="table (default): rows segmenters, columns metrics (Li et al. 2011); ranked: configurations by value")
    p.add_argument("--out", help="folder for results.tsv/json, scores.tsv, leaderboard.md/html")
    p.add_argument("--overwrite", action="store_true", help="replace existing files in --out")
    p.add_argument("--doc-level", action="store_true",
                   help="also the segment-level statistics over the documents of docs.tsv (level doc)")
    add_by_options(p, "default: the corpus's docs.tsv")
    p.add_argument("--name", help="the dataset's label in tables and files (default: the corpus folder's parent and own "
                                  "name, e.g. wmt24-esa/en-zh)")
    p.set_defaults(func=cmd_run)


__all__ = ["add_parser", "cmd_run"]
