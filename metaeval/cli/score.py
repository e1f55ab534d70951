"""``metaeval score``: metric scores per segmenter at segment, document and system level."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any, Sequence

from metaeval.cli.common import (
    SCORE_FORMATS, add_corpus_options, add_output_options, check_output, csv_options, positive, progress_bar, split_list, table_text,
)
from metaeval.errors import UsageError
from metaeval.stats.defaults import BOOTSTRAP, SEED


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
    if args.confidence or args.scale != 1:
        table = result.table(levels)
        if args.confidence:
            table = with_system_intervals(table, result, args.confidence_n, args.confidence_seed)
        text: Any = table_text(on_scale(table, args.scale), args.format)
    elif args.format == "json":
        text = table_text(result.table(levels), args.format)
    else:  # a large table is written piece by piece, never held as one string
        text = functools.partial(write_table, result, levels, args.format)
    if args.output:
        from metaeval.report.data import write_results
        from metaeval.versions import package_versions

        signature = {
            "dataset": corpus.name, "segmenters": result.segmenter_signatures, "metrics": result.metric_signatures,
            "levels": levels, "versions": package_versions(),
        }  # fmt: skip
        if args.confidence:
            signature["confidence"] = {"n_bootstrap": args.confidence_n, "seed": args.confidence_seed, "level": 0.95}
        if args.scale != 1:
            signature["scale"] = args.scale
        write_results(Path(args.output), text, signature, overwrite=args.overwrite)
    elif isinstance(text, str):
        sys.stdout.write(text)
    else:
        text(sys.stdout)
    return 0


#: Metrics whose scores lie in [0, 1], shown by sacrebleu on a 0-100 scale (NIST is not one).
UNIT_SCALE_METRICS = ("bleu", "chrf", "chrf++", "ter", "1-ter", "gtm", "meteor")


def with_system_intervals(table, result, n_bootstrap: int, seed: int, level: float = 0.95):  # noqa: ANN001, ANN201
    """``table`` with ``ci_low``/``ci_high``: each system's ``level`` percentile interval over
    ``n_bootstrap`` resamples of the segments (Koehn 2004; sacrebleu's ``--confidence``), its
    score recomputed from the resampled sufficient statistics; NaN on other levels. One seeded
    set of resamples is shared by every configuration."""
    import numpy as np

    from metaeval.stats.resampling import bootstrap_indices, percentile_ci

    table = table.copy()
    table["ci_low"], table["ci_high"] = np.nan, np.nan
    if not result.configs:
        return table
    indices = bootstrap_indices(len(result.configs[0].seg_ids), n_bootstrap, np.random.default_rng(seed))
    for cfg in result.configs:
        samples = cfg.resampled_sys_scores(indices)  # [n_bootstrap, n_systems]
        for i, system in enumerate(cfg.systems):
            low, high = percentile_ci(samples[:, i], level)
            rows = (table["level"] == "sys") & (table["config"] == cfg.config) & (table["system"] == system)
            table.loc[rows, ["ci_low", "ci_high"]] = low, high
    return table


def on_scale(table, scale: float):  # noqa: ANN001, ANN201
    """Scores (and intervals) of the metrics of :data:`UNIT_SCALE_METRICS` times ``scale``."""
    if scale == 1:
        return table
    table = table.copy()
    unit = table["metric"].map(lambda spec: str(spec).split(":")[0] in UNIT_SCALE_METRICS)
    for column in ("score", "ci_low", "ci_high"):
        if column in table.columns:
            table.loc[unit, column] = table.loc[unit, column] * scale
    return table


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
    p.add_argument("--confidence", action="store_true",
                   help="each system's 95%% interval by bootstrap of segments in ci_low/ci_high (as sacrebleu --confidence; default off)")
    p.add_argument("--confidence-n", type=positive, default=BOOTSTRAP, help=f"resamples of --confidence (default {BOOTSTRAP})")
    p.add_argument("--confidence-seed", type=int, default=SEED, help=f"seed of the resamples of --confidence (default {SEED})")
    p.add_argument("--scale", type=float, choices=(1.0, 100.0), default=1.0,
                   help="1 (default) or 100: scores of metrics in [0, 1] (all but NIST) times 100, sacrebleu's scale")
    add_output_options(p, SCORE_FORMATS, "tsv")
    p.set_defaults(func=cmd_score)


__all__ = ["add_parser", "cmd_score", "write_table"]
