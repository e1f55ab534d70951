"""``metaeval leaderboard``: render saved results (no statistics are computed)."""

from __future__ import annotations

import argparse
from pathlib import Path

from metaeval.cli.common import RESULT_FORMATS, add_output_options, check_output, emit_results


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from metaeval.report import load_results
    from metaeval.report.data import load_answer, load_tie_free

    check_output(args)
    results, signature = load_results(Path(args.results))
    emit_results(results, signature, args, args.layout, load_answer(Path(args.results)), load_tie_free(Path(args.results)))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("leaderboard", help="render saved results")
    p.add_argument("results", help="results file written by run/correlate (tsv, csv or json)")
    p.add_argument("--layout", choices=("table", "ranked"), default="ranked")
    add_output_options(p, RESULT_FORMATS, "text")
    p.set_defaults(func=cmd_leaderboard)


__all__ = ["add_parser", "cmd_leaderboard"]
