"""``metaeval correlate``: meta-evaluate any scores table against judgments."""

from __future__ import annotations

import argparse
from pathlib import Path

from metaeval import __version__
from metaeval.cli.common import RESULT_FORMATS, add_judgment_options, add_output_options, check_output, emit_results, load_judgments, split_list
from metaeval.cli.options import add_comparison_options, add_statistics_options, settings_from_args, write_comparisons
from metaeval.errors import UsageError


def cmd_correlate(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)  # names and values checked first, before anything heavy is imported
    from metaeval.answer import answer, granularity_free
    from metaeval.api import configs_from_table, correlate, read_scores
    from metaeval.stats.evaluate import tie_free_references

    check_output(args)
    path = Path(args.scores)
    scores = configs_from_table(read_scores(path), source=str(path))
    if not (args.judgments or args.human_sys):
        raise UsageError("correlate: give the human judgments: --judgments FILE and/or --human-sys FILE")
    judgments = load_judgments(args)
    results, samples = correlate(
        scores, judgments, split_list(args.kind) or None, settings=settings, dataset=path.stem,
        clusters=settings.n_bootstrap > 0, return_samples=True,
    )  # fmt: skip
    signature = {
        "scores": str(path), "judgments": str(args.judgments), "human_sys": str(args.human_sys), "seed": settings.seed,
        "n_bootstrap": settings.n_bootstrap, "tie_policy": settings.tie_policy, "threshold": settings.threshold,
        "statistics": settings.signature(), "version": __version__,
    }  # fmt: skip
    if args.comparisons:
        write_comparisons(args, scores, judgments, results, settings)
    kinds = split_list(args.kind) or None
    emit_results(results, signature, args, "ranked", answer(results, samples, left_out=granularity_free(scores), adjust=settings.adjust),
                 tie_free_references(scores, judgments, kinds, settings))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("correlate", help="meta-evaluate a scores table against judgments")
    p.add_argument("--scores", required=True, help="TSV/CSV with metric, segmenter, system, seg_id, score")
    add_judgment_options(p)
    add_statistics_options(p)
    add_comparison_options(p)
    add_output_options(p, RESULT_FORMATS, "tsv")
    p.set_defaults(func=cmd_correlate)


__all__ = ["add_parser", "cmd_correlate"]
