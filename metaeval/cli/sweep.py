"""``metaeval sweep``: every granularity from bytes and characters through subwords to words: its slope and curve."""

from __future__ import annotations

import argparse
from pathlib import Path

from metaeval.cli.common import add_corpus_options, add_judgment_options, load_judgments, progress_bar, split_list
from metaeval.cli.options import add_statistics_options, settings_from_args


def cmd_sweep(args: argparse.Namespace) -> int:
    """``metaeval sweep``: every granularity of the target language, then tables and a figure."""
    from metaeval.sweep import DEFAULT_METRICS, default_settings, sweep

    settings = settings_from_args(args, default_settings())  # names and values checked before any data is read
    from metaeval.api import check_names, read_corpus
    from metaeval.compute import workers
    from metaeval.errors import DataError
    from metaeval.paths import check_writable_folder
    from metaeval.report.files import check_output_folder
    from metaeval.report.equivalence import frame_section
    from metaeval.report.sweep import FILES, SLOPE_TITLE, slope_table, write_sweep
    from metaeval.report.text import render_text
    metrics = args.metric or list(DEFAULT_METRICS)
    subwords = [] if args.no_subwords else (args.subword or None)
    check_names(list(args.segmenter or []) + list(subwords or []), metrics)
    check_output_folder(args.out, FILES, args.overwrite)
    check_writable_folder(Path(args.out), "--out")
    corpus, found = read_corpus(args.corpus, missing=args.missing)
    judgments = load_judgments(args) if (args.judgments or args.human_sys) else found
    if judgments is None:
        raise DataError(f"{args.corpus}: no human judgments found (judgments.tsv / human_sys.tsv); pass --judgments or --human-sys")
    progress = progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, _):
        result = sweep(
            corpus, judgments, segmenters=args.segmenter or None, subwords=subwords, metrics=metrics,
            kinds=split_list(args.kind) or None, settings=settings, executor=executor, cache_dir=args.cache_dir,
            equivalence=not args.no_equivalence, progress=progress,
        )  # fmt: skip
    from metaeval.report.verdict import verdict_lines

    paths = write_sweep(result, Path(args.out), overwrite=args.overwrite)
    for line in verdict_lines(result.answer, result.signature):
        print(line)
    if len(result.slopes):  # the curve in one number, after the verdict's sentences
        print("\n" + render_text(f"{result.dataset}: the granularity curve in one number", None, [frame_section(SLOPE_TITLE, slope_table(result))]))
    print(f"\nwrote {args.out}:")
    for path in paths:
        print(path)
    return 0


#: The metrics of a sweep without -m, named here without importing the sweep (metaeval.sweep.DEFAULT_METRICS).
SWEEP_METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter", "chrf++", "chrf")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="every granularity from bytes and characters through subwords to words: its slope and curve")
    add_corpus_options(p, "default: byte, char and every word segmenter of the target language installed here (metaeval.sweep.SEGMENTERS)",
                       SWEEP_METRICS)  # fmt: skip
    add_judgment_options(p)
    add_statistics_options(p)
    p.add_argument("--out", required=True, help="folder for curve.png, summary.md and the TSV tables")
    p.add_argument("--subword", action="append",
                   help="subword granularity, e.g. spm:vocab=4000,type=bpe (repeatable; default: a ladder "
                        "from the references' character count)")
    p.add_argument("--no-subwords", action="store_true", help="no subword granularities")
    p.add_argument("--no-equivalence", action="store_true", help="skip the Denoual-Lepage analysis over the ladder")
    p.add_argument("--overwrite", action="store_true", help="replace existing files in --out")
    p.set_defaults(func=cmd_sweep)


__all__ = ["add_parser", "cmd_sweep"]
