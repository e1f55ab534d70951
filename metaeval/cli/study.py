"""``metaeval study SPEC.toml``: a study declared in a file, resumable; the statistics options
given on the command line replace the file's own."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from metaeval.cli.common import add_by_options, add_execution_options, progress_bar
from metaeval.cli.options import add_statistics_options, given_options, settings_from_args


def cmd_study(args: argparse.Namespace) -> int:
    """``metaeval study SPEC.toml``: every dataset x analysis of a study file, resumable."""
    from metaeval.compute import workers
    from metaeval.studies import output_folder, run_study
    from metaeval.studyspec import check_spec, load_spec

    settings_from_args(args)  # the command line's options are checked before the file is read
    options = given_options(args)
    spec = load_spec(Path(args.spec), args.data)
    if options:
        spec = spec.with_options(options)
        check_spec(spec)
    if args.by:
        spec = spec.with_by(args.by)
    out = output_folder(spec, args.out)
    if args.cache_dir:
        from metaeval.paths import check_writable_folder

        check_writable_folder(Path(args.cache_dir).expanduser(), "--cache-dir")
    progress = progress_bar(not args.quiet)
    log = (lambda line: print(f"metaeval study: {line}", file=sys.stderr, flush=True)) if progress else None
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        result = run_study(spec, out=out, jobs=jobs, executor=executor, cache_dir=args.cache_dir, progress=progress, log=log)
    from metaeval.report.verdict import verdict_lines

    for line in verdict_lines(result.answer, by_dataset={d.name: study.signature for d, study in result.runs}):
        print(line)
    print(f"\nwrote {out}:")
    for path in result.files:
        print(path)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("study", help="run a study declared in a TOML file (datasets x segmenters x metrics x statistics), resumable")
    p.add_argument("spec", help="study file (TOML; README, \"Studies\")")
    p.add_argument("--out", help="output folder (default: the study file's out key)")
    p.add_argument("--data", help="folder the dataset paths are relative to (default: the study file's data key)")
    add_execution_options(p)
    p.add_argument("--cache-dir", help="keep computed pieces here (default: OUT/store); a rerun computes only what changed")
    add_statistics_options(p)
    add_by_options(p, None)
    p.set_defaults(func=cmd_study)


__all__ = ["add_parser", "cmd_study"]
