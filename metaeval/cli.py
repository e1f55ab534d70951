"""The ``metaeval`` command. Thin: every subcommand calls the public API.

Exit status: 0 on success, 1 on bad data (one line naming the file and line or segment),
2 on bad usage. No traceback reaches the user for either.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from metaeval import __version__
from metaeval.compute import workers
from metaeval.errors import DataWarning, MetaevalError, UsageError
from metaeval.systemrank.command import add_systems_parser

RESULT_FORMATS = ("text", "markdown", "html", "csv", "tsv", "json", "latex")
SCORE_FORMATS = ("tsv", "csv", "json")


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors go through one path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix("metaeval").strip()
        raise UsageError(f"{command}: {message}" if command else message)


def _split_list(values: Sequence[str] | None) -> list[str]:
    """Repeated options and comma-separated lists (``--level seg,sys``), flattened."""
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def _progress_bar(enabled: bool) -> Callable[[str, int, int], None] | None:
    """Progress on stderr when it is a terminal (nothing on a pipe or with --quiet): one bar
    per stage, named by the stage, counted in its real unit (texts, segment scores,
    configurations; :data:`metaeval.scoring.STAGE_UNITS`), with the average rate since
    the stage started."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    from metaeval.scoring import STAGE_UNITS

    bars: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            unit = STAGE_UNITS.get(stage.split()[0], "items")
            bar = bars[stage] = tqdm(
                total=total, initial=done, desc=stage, unit=f" {unit}", unit_scale=False, leave=False,
                file=sys.stderr, smoothing=0, mininterval=0.25, dynamic_ncols=True,
            )  # fmt: skip
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def _check_output(args: argparse.Namespace) -> None:
    """Before any work: the output file (``-o``), folder (``--out``) and segmentation cache
    folder are usable (usage errors, exit 2) and writable (file-system errors, exit 1)."""
    from metaeval.paths import check_writable_folder
    from metaeval.report.files import check_output_file, check_output_folder

    if getattr(args, "output", None):
        target = check_output_file(args.output, args.overwrite)
        check_writable_folder(target.parent if str(target.parent) else Path("."), "-o/--output")
    if getattr(args, "out", None):
        from metaeval.report.outputs import RUN_OUTPUTS

        check_output_folder(args.out, RUN_OUTPUTS, args.overwrite)
        check_writable_folder(Path(args.out), "--out")
    if getattr(args, "cache_dir", None):
        check_writable_folder(Path(args.cache_dir).expanduser(), "segmentation cache")


def _emit(text: str, out: str | None, overwrite: bool) -> None:
    if out:
        from metaeval.report.files import write_atomic

        write_atomic(Path(out), text, overwrite=overwrite)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _csv_options(fmt: str) -> dict[str, Any]:
    """``DataFrame.to_csv`` options of a score table written as ``fmt`` (tsv or csv)."""
    return dict(sep="\t" if fmt == "tsv" else ",", index=False, float_format="%.10g", lineterminator="\n")


def _table_text(frame, fmt: str) -> str:  # noqa: ANN001
    buffer = io.StringIO()
    if fmt == "json":
        return frame.to_json(orient="records", force_ascii=False, indent=1, double_precision=15) + "\n"
    frame.to_csv(buffer, **_csv_options(fmt))
    return buffer.getvalue()


def _non_negative(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


#: Upper bound of --bootstrap: resample indices are held in memory ([samples, segments]).
MAX_BOOTSTRAP = 1_000_000


def _bootstrap_count(text: str) -> int:
    """argparse type of ``--bootstrap``: 0 (no intervals) or 2 to :data:`MAX_BOOTSTRAP` resamples."""
    from metaeval.evaluate import BOOTSTRAP_ONE

    value = _non_negative(text)
    if value == 1:
        raise argparse.ArgumentTypeError(BOOTSTRAP_ONE.replace("n_bootstrap=1", "1"))
    if value > MAX_BOOTSTRAP:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_BOOTSTRAP:,} resamples, got {value:,}")
    return value


def _positive(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = _non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


#: Upper bound of --jobs: more worker processes than this only multiply memory.
MAX_JOBS = 256


def _jobs(text: str) -> int:
    """argparse type of ``--jobs``: 0 (automatic) to :data:`MAX_JOBS`."""
    value = _non_negative(text)
    if value > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_JOBS} worker processes, got {value}")
    return value


# --- subcommands -----------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    from metaeval import corpora
    from metaeval import segmenters
    from metaeval.metrics import available_metrics

    lines = [f"metaeval {__version__}", "", "segmenters:"]
    for row in segmenters.info():
        lines.append(f"  {row.name:15s} {row.description}")
    lines += ["", "metrics:"]
    lines += [f"  {name:8s} {desc}" for name, desc in available_metrics().items()]
    lines += ["", "formats:"]
    lines += [f"  {name}" for name in getattr(corpora, "FORMATS", [])]
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


def cmd_score(args: argparse.Namespace) -> int:
    from metaeval.api import read_corpus
    from metaeval.scoring import LEVELS, score_corpus

    levels = _split_list(args.level) or ["seg", "doc", "sys"]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown:
        raise UsageError(f"unknown level {unknown[0]!r}; known: {', '.join(LEVELS)}")
    segs = args.segmenter or ["char"]
    metrics = args.metric or ["bleu"]
    _check_names(segs, metrics)
    _check_output(args)
    corpus, _ = read_corpus(args.corpus, missing=args.missing)
    progress = _progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        result = score_corpus(corpus, segs, metrics, executor=executor, jobs=jobs, progress=progress,
                              cache=args.cache_dir, store=args.cache_dir)
    if args.format == "json":
        text: Any = _table_text(result.table(levels), args.format)
    else:  # a large table is written piece by piece, never held as one string
        text = functools.partial(_write_table, result, levels, args.format)
    if args.output:
        from metaeval.api import package_versions
        from metaeval.report.data import write_results

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


def _write_table(result, levels: Sequence[str], fmt: str, handle: Any) -> None:  # noqa: ANN001
    """The ScoreTable of ``result`` as CSV/TSV on ``handle``, one configuration and level at a
    time (the same text as :func:`_table_text` of the whole table)."""
    import pandas as pd

    from metaeval.scoretable import SCORE_COLUMNS

    options = _csv_options(fmt)
    header = True
    for frame in result.frames(levels):
        frame.to_csv(handle, header=header, **options)
        header = False
    if header:
        pd.DataFrame(columns=list(SCORE_COLUMNS)).to_csv(handle, **options)


def _check_names(segs: Sequence[str], metrics: Sequence[str]) -> None:
    """Fail on an unknown or repeated segmenter or metric before any file is read."""
    from metaeval import segmenters
    from metaeval.scoring import MetricChoice, check_distinct

    learning = [name for name in segs if segmenters.learns_from_text(name)]
    for name in learning:  # built once the corpus's references are read
        segmenters.check(name)
    built = [segmenters.get(name) for name in segs if name not in learning]
    check_distinct(built, [MetricChoice.of(spec) for spec in metrics])


def cmd_correlate(args: argparse.Namespace) -> int:
    from metaeval.answer import answer, granularity_free
    from metaeval.api import configs_from_table, correlate, read_scores
    from metaeval.evaluate import statistics_signature

    _check_output(args)
    path = Path(args.scores)
    scores = configs_from_table(read_scores(path), source=str(path))
    if not (args.judgments or args.human_sys):
        raise UsageError("correlate: give the human judgments: --judgments FILE and/or --human-sys FILE")
    judgments = _load_judgments(args)
    options = _statistics_options(args)
    results, samples = correlate(
        scores,
        judgments,
        _split_list(args.kind) or None,
        tie_policy=args.tie_policy,
        threshold=args.threshold,
        bootstrap=args.bootstrap,
        seed=args.seed,
        dataset=path.stem,
        clusters=args.bootstrap > 0,
        return_samples=True,
        **options,
    )
    signature = {
        "scores": str(path), "judgments": str(args.judgments), "human_sys": str(args.human_sys), "seed": args.seed,
        "n_bootstrap": args.bootstrap, "tie_policy": args.tie_policy, "threshold": args.threshold,
        "statistics": statistics_signature(**options), "version": __version__,
    }  # fmt: skip
    if args.comparisons:
        _write_comparisons(args, scores, judgments, results, options)
    _emit_results(results, signature, args, "ranked", answer(results, samples, left_out=granularity_free(scores)))
    return 0


def _load_judgments(args: argparse.Namespace):  # noqa: ANN202
    """Judgments from --judgments and/or --human-sys (system-level scores)."""
    from metaeval.api import read_judgments

    return read_judgments(args.judgments, args.human_sys, args.judgments_format)


def _statistics_options(args: argparse.Namespace) -> dict[str, Any]:
    """The statistics options of ``correlate`` and ``run`` (defaults left to the API)."""
    options: dict[str, Any] = {
        "average": args.average, "undefined": args.undefined, "refit_epsilon": not args.fixed_epsilon,
        "permutations": args.permutations,
    }  # fmt: skip
    statistics = _split_list(args.statistic)
    if statistics:
        options["statistics"] = statistics
    groupings = _split_list(args.grouping)
    if groupings:
        options["groupings"] = groupings
    return options


def _write_comparisons(args: argparse.Namespace, configs, judgments, results, options: dict) -> None:  # noqa: ANN001
    """Paired tests of every ranking, written to ``--comparisons`` (format from its suffix)."""
    from metaeval.evaluate import compare_all

    tests = compare_all(
        configs, judgments, results, args.compare, tie_policy=args.tie_policy, threshold=args.threshold,
        n_bootstrap=args.bootstrap, seed=args.seed,
        **{k: v for k, v in options.items() if k not in ("statistics", "groupings")},
    )  # fmt: skip
    out = Path(args.comparisons)
    fmt = {".csv": "csv", ".json": "json", ".tex": "latex"}.get(out.suffix.lower(), "tsv")
    if fmt == "latex":
        from metaeval.report.latex import latex_table

        text = latex_table(tests, caption=f"Paired {args.compare} tests")
    elif fmt == "json":
        text = _table_text(tests, fmt)
    else:  # full precision: p-values and correlations read back exactly
        text = tests.to_csv(sep="," if fmt == "csv" else "\t", index=False, lineterminator="\n")
    _emit(text, str(out), args.overwrite)


def _emit_results(results, signature: dict, args: argparse.Namespace, layout: str, answer=None) -> None:  # noqa: ANN001
    """Render results in ``--format``; to ``--output`` (a CSV/TSV with its signature beside it) or stdout."""
    from metaeval.report.data import write_results
    from metaeval.report.leaderboard import render

    text = render(results, signature, args.format, layout=layout, answer=answer)
    if args.output:
        write_results(Path(args.output), text, signature, overwrite=args.overwrite)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def cmd_run(args: argparse.Namespace) -> int:
    from metaeval.api import run

    segs = args.segmenter or None
    metrics = args.metric or None
    _check_names(segs or [], metrics or [])
    _check_output(args)
    progress = _progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        study = run(
            args.corpus,
            segs,
            metrics,
            judgments=args.judgments,
            human_sys=args.human_sys,
            judgments_format=args.judgments_format,
            kinds=_split_list(args.kind) or None,
            bootstrap=args.bootstrap,
            seed=args.seed,
            tie_policy=args.tie_policy,
            threshold=args.threshold,
            executor=executor,
            jobs=jobs,
            missing=args.missing,
            progress=progress,
            cache_dir=args.cache_dir,
            doc_level=args.doc_level,
            **_statistics_options(args),
        )
    if args.comparisons:
        _write_comparisons(args, study.configs, study.judgments, study.results, _statistics_options(args))
    if args.out:
        study.write(args.out, args.overwrite)
    text = study.leaderboard(args.format, args.layout)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from metaeval.report import load_results
    from metaeval.report.data import load_answer

    _check_output(args)
    results, signature = load_results(Path(args.results))
    _emit_results(results, signature, args, args.layout, load_answer(Path(args.results)))
    return 0


def cmd_equivalence(args: argparse.Namespace) -> int:
    """``metaeval equivalence``: read the corpus, analyse, and write text, Markdown or JSON."""
    from metaeval import corpora
    from metaeval import segmenters
    from metaeval.equivalence import EquivalenceSettings, equivalence
    from metaeval.report.equivalence import render_equivalence

    try:
        settings = EquivalenceSettings(max_word_order=args.max_word_order, max_char_order=args.max_char_order)
    except ValueError as exc:
        raise UsageError(f"equivalence: {exc}") from None
    segmenters.check(args.word_segmenter)
    segmenters.check(args.char_segmenter)
    _check_output(args)
    corpus, _ = corpora.read(Path(args.corpus), missing=args.missing)
    result = equivalence(corpus, args.word_segmenter, args.char_segmenter, settings)
    _emit(render_equivalence(result, args.format), args.output, args.overwrite)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """``metaeval sweep``: every granularity of the target language, then tables and a figure."""
    from metaeval.api import read_corpus
    from metaeval.errors import DataError
    from metaeval.report.sweep import write_sweep
    from metaeval.sweep import DEFAULT_METRICS, sweep

    from metaeval.paths import check_writable_folder
    from metaeval.report.files import check_output_folder
    from metaeval.report.sweep import FILES

    metrics = args.metric or list(DEFAULT_METRICS)
    subwords = [] if args.no_subwords else (args.subword or None)
    _check_names(list(args.segmenter or []) + list(subwords or []), metrics)
    check_output_folder(args.out, FILES, args.overwrite)
    check_writable_folder(Path(args.out), "--out")
    corpus, found = read_corpus(args.corpus, missing=args.missing)
    judgments = _load_judgments(args) if (args.judgments or args.human_sys) else found
    if judgments is None:
        raise DataError(f"{args.corpus}: no human judgments found (judgments.tsv / human_sys.tsv); pass --judgments or --human-sys")
    progress = _progress_bar(not args.quiet)
    with workers(args.jobs, args.scheduler) as (executor, _):
        result = sweep(
            corpus,
            judgments,
            segmenters=args.segmenter or None,
            subwords=subwords,
            metrics=metrics,
            kinds=_split_list(args.kind) or None,
            n_bootstrap=args.bootstrap,
            seed=args.seed,
            executor=executor,
            cache_dir=args.cache_dir,
            equivalence=not args.no_equivalence,
            progress=progress,
        )
    for path in write_sweep(result, Path(args.out), overwrite=args.overwrite):
        print(path)
    return 0


def cmd_study(args: argparse.Namespace) -> int:
    """``metaeval study SPEC.toml``: every dataset x analysis of a study file, resumable."""
    from metaeval.studies import output_folder, run_study
    from metaeval.studyspec import load_spec

    spec = load_spec(Path(args.spec), args.data)
    out = output_folder(spec, args.out)
    if args.cache_dir:
        from metaeval.paths import check_writable_folder

        check_writable_folder(Path(args.cache_dir).expanduser(), "--cache-dir")
    progress = _progress_bar(not args.quiet)
    log = (lambda line: print(f"metaeval study: {line}", file=sys.stderr, flush=True)) if progress else None
    with workers(args.jobs, args.scheduler) as (executor, jobs):
        result = run_study(spec, out=out, jobs=jobs, executor=executor, cache_dir=args.cache_dir, progress=progress, log=log)
    for path in result.files:
        print(path)
    return 0


# --- parser --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="metaeval", description="Meta-evaluation of MT metrics at character and word level.")
    parser.add_argument("--version", action="version", version=f"metaeval {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("list", help="segmenters, metrics and formats available")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("segment", help="show how segmenters split text")
    p.add_argument("text", nargs="*", help="texts (default: lines of standard input)")
    p.add_argument("--segmenter", "-s", action="append")
    p.set_defaults(func=cmd_segment)

    def common_corpus(p: argparse.ArgumentParser) -> None:
        p.add_argument("corpus", help="corpus folder (plain, mt-metrics-eval) or folder of NIST SGML files")
        p.add_argument("--segmenter", "-s", action="append", help="segmenter name (repeatable)")
        p.add_argument("--metric", "-m", action="append", help="metric spec, e.g. bleu:n=18,smooth=none (repeatable)")
        p.add_argument("--missing", choices=("error", "skip", "empty"), default="error",
                       help="policy for segments a system lacks (default: error)")
        p.add_argument("--jobs", "-j", type=_jobs, default=0,
                       help="processes for segmentation, scoring and bootstrap (default 0: one per CPU; 1: this process only)")
        p.add_argument("--scheduler", metavar="ADDRESS",
                       help="run segmentation, scoring and bootstrap on a Dask cluster (tcp://host:8786 or a scheduler file)")
        p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
        p.add_argument("--cache-dir", help="keep segmentations, per-segment statistics and correlations here "
                       "across runs (keyed by content hash; a rerun computes only what changed)")

    def common_stats(p: argparse.ArgumentParser) -> None:
        p.add_argument("--kind", action="append", help="judgment kind(s) to evaluate (default: all present)")
        p.add_argument("--tie-policy", choices=("exclude", "discordant", "half"), default="exclude",
                       help="metric ties in pairwise consistency (default: exclude)")
        p.add_argument("--threshold", type=float, default=None,
                       help="skip pairs whose human difference is at most this (e.g. 25 DA points)")
        p.add_argument("--bootstrap", type=_bootstrap_count, default=1000, help="bootstrap samples (default 1000)")
        p.add_argument("--seed", type=_non_negative, default=12345, help="random seed (default 12345)")
        p.add_argument("--judgments", help="judgment file (long TSV or any known format)")
        p.add_argument("--judgments-format", default=None, help="force a judgment file format")
        p.add_argument("--human-sys", help="system-level human scores TSV (system + one column per kind)")
        p.add_argument("--statistic", action="append", metavar="LEVEL:NAME",
                       help="statistic to compute, e.g. seg:acc_eq, sys:soft_pairwise_accuracy (repeatable; "
                            "a bare name means every level where it exists; default: Li et al. 2011's plus "
                            "seg:acc_eq, sys:pairwise_accuracy, sys:soft_pairwise_accuracy)")
        p.add_argument("--grouping", action="append", metavar="none|item|sys",
                       help="segment-level grouping (repeatable; default: each statistic's own, "
                            "none for correlations, item for acc_eq/tau_eq)")
        p.add_argument("--average", choices=("macro", "micro"), default="macro",
                       help="grouped tie-aware statistics: plain mean over groups, or weighted by group size")
        p.add_argument("--undefined", choices=("skip", "zero"), default="skip",
                       help="groups where a tie-aware statistic is undefined: skip them or count them as 0")
        p.add_argument("--fixed-epsilon", action="store_true",
                       help="keep the tie-calibration epsilon of the full sample in every bootstrap resample "
                            "(default: re-fit it per resample, grouping item)")
        p.add_argument("--permutations", type=_positive, default=1000,
                       help="permutations of soft pairwise accuracy (default 1000)")
        p.add_argument("--compare", choices=("bootstrap", "permutation", "williams"), default="bootstrap",
                       help="paired test between configurations written to --comparisons (default bootstrap)")
        p.add_argument("--comparisons", metavar="FILE",
                       help="write the paired tests of every ranking here (.tsv, .csv, .json or .tex)")

    def common_output(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
        p.add_argument("--format", "-f", choices=formats, default=default)
        p.add_argument("--output", "-o", help="write to this file (atomically) instead of standard output")
        p.add_argument("--overwrite", action="store_true", help="replace existing output files")

    p = sub.add_parser("score", help="metric scores per segmenter at segment, document and system level")
    common_corpus(p)
    p.add_argument("--level", "-l", action="append", help="levels: seg,doc,sys (default all)")
    common_output(p, SCORE_FORMATS, "tsv")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("correlate", help="meta-evaluate a scores table against judgments")
    p.add_argument("--scores", required=True, help="TSV/CSV with metric, segmenter, system, seg_id, score")
    common_stats(p)
    common_output(p, RESULT_FORMATS, "tsv")
    p.set_defaults(func=cmd_correlate)

    p = sub.add_parser("run", help="the whole study on a corpus, ending in a leaderboard")
    common_corpus(p)
    common_stats(p)
    p.add_argument("--format", "-f", choices=RESULT_FORMATS, default="text")
    p.add_argument("--layout", choices=("table", "ranked"), default="table",
                   help="table: rows segmenters, columns metrics (Li et al. 2011); ranked: configurations by value")
    p.add_argument("--out", help="folder for results.tsv/json, scores.tsv, leaderboard.md/html")
    p.add_argument("--overwrite", action="store_true", help="replace existing files in --out")
    p.add_argument("--doc-level", action="store_true",
                   help="also the segment-level statistics over the documents of docs.tsv (level doc)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("leaderboard", help="render saved results")
    p.add_argument("results", help="results file written by run/correlate (tsv, csv or json)")
    p.add_argument("--layout", choices=("table", "ranked"), default="ranked")
    common_output(p, RESULT_FORMATS, "text")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("sweep", help="every granularity from characters through subwords to words, as a curve")
    common_corpus(p)
    common_stats(p)
    p.add_argument("--out", required=True, help="folder for curve.png, summary.md and the TSV tables")
    p.add_argument("--subword", action="append",
                   help="subword granularity, e.g. spm:vocab=4000,type=bpe (repeatable; default: a ladder "
                        "from the references' character count)")
    p.add_argument("--no-subwords", action="store_true", help="no subword granularities")
    p.add_argument("--no-equivalence", action="store_true", help="skip the Denoual-Lepage analysis over the ladder")
    p.add_argument("--overwrite", action="store_true", help="replace existing files in --out")
    p.set_defaults(func=cmd_sweep)

    add_systems_parser(sub, common_corpus)

    p = sub.add_parser("study", help="run a study declared in a TOML file (datasets x segmenters x metrics x statistics), resumable")
    p.add_argument("spec", help="study file (TOML; README, \"Studies\")")
    p.add_argument("--out", help="output folder (default: the study file's out key)")
    p.add_argument("--data", help="folder the dataset paths are relative to (default: the study file's data key)")
    p.add_argument("--jobs", "-j", type=_jobs, default=0,
                   help="processes for segmentation, scoring and bootstrap (default 0: one per CPU; 1: this process only)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run segmentation, scoring and bootstrap on a Dask cluster (tcp://host:8786 or a scheduler file)")
    p.add_argument("--cache-dir", help="keep computed pieces here (default: OUT/store); a rerun computes only what changed")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_study)

    p = sub.add_parser("equivalence", help="the Denoual-Lepage BLEU-in-characters analysis")
    p.add_argument("corpus")
    p.add_argument("--word-segmenter", default="13a")
    p.add_argument("--char-segmenter", default="char")
    p.add_argument("--max-word-order", type=int, default=4)
    p.add_argument("--max-char-order", type=int, default=30)
    p.add_argument("--missing", choices=("error", "skip", "empty"), default="error")
    common_output(p, ("text", "markdown", "json", "latex"), "text")
    p.set_defaults(func=cmd_equivalence)
    return parser


#: what the signal handlers of a running command know: whether it is running, whether an
#: interrupt arrived, and the re-deliveries of lost interrupts not yet made
_SIGNALS: dict[str, Any] = {"running": False, "interrupted": False, "timers": []}


def _raise_interrupt(signum: int, frame: object) -> None:
    _SIGNALS["interrupted"] = True
    raise KeyboardInterrupt


def _redeliver_interrupt() -> None:
    if _SIGNALS["running"]:
        os.kill(os.getpid(), signal.SIGINT)


def _cancel_redeliveries() -> None:
    while _SIGNALS["timers"]:
        _SIGNALS["timers"].pop().cancel()


def _deliver_lost_interrupts(unraisable: Any) -> None:
    """``sys.unraisablehook``: an interrupt raised inside a finalizer or a weakref callback is
    only printed by Python ("Exception ignored in ...") and the run would go on; deliver it
    again, so that it unwinds the command like any other interrupt (unless the command has
    ended or is already unwinding by then)."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        # a moment later from another thread, so that it lands after this hook has returned
        import threading

        timer = threading.Timer(0.01, _redeliver_interrupt)
        timer.daemon = True
        _SIGNALS["timers"].append(timer)
        timer.start()
        return
    sys.__unraisablehook__(unraisable)


def _install_signal_handlers() -> Callable[[], None]:
    """Ctrl-C and SIGTERM unwind the command (so atomic writers remove their temporary
    files) and are remembered, so that an error caused by the interrupt (an import cut short
    is an ImportError) is still reported as the interrupt; an interrupt that lands in a
    finalizer is not lost (:func:`_deliver_lost_interrupts`). Returns the function that puts
    back what was there before, so that a process calling :func:`main` (a test runner, a
    notebook) keeps its own handlers afterwards."""
    _SIGNALS.update(running=True, interrupted=False)
    previous: list[tuple[int, Any]] = []
    try:
        for signum, handler in ((signal.SIGPIPE, signal.SIG_DFL), (signal.SIGTERM, _raise_interrupt),
                                (signal.SIGINT, _raise_interrupt)):  # fmt: skip
            previous.append((signum, signal.signal(signum, handler)))
    except (AttributeError, ValueError):  # pragma: no cover - not on POSIX / not main thread
        pass
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _deliver_lost_interrupts

    def restore() -> None:
        sys.unraisablehook = previous_hook
        for signum, handler in reversed(previous):
            signal.signal(signum, handler)

    return restore


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``metaeval`` command; returns the exit status.

    Without ``argv`` (the console script, ``python -m metaeval``) the command's signal handlers
    stay installed until the process exits; with an argument list (a test, a notebook) the
    caller's handlers are put back when it returns.

    Every failure ends in one ``metaeval: error:`` line: data and machine faults exit 1,
    usage errors 2, an interrupt 130. An unexpected exception is still reported in one line
    (set ``METAEVAL_TRACEBACK=1`` to see the traceback).
    """
    restore_signal_handlers = _install_signal_handlers()
    try:
        parser = build_parser()
        with warnings.catch_warnings():
            warnings.simplefilter("always", DataWarning)
            warnings.showwarning = _show_warning
            return _main(parser, argv)
    finally:
        _SIGNALS["running"] = False
        _cancel_redeliveries()
        if argv is not None:  # as the process's own command, the handlers stay until it exits
            restore_signal_handlers()


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    """A :class:`DataWarning` as one ``metaeval: warning:`` line; other warnings as Python shows them."""
    if issubclass(category, DataWarning):
        print(f"metaeval: warning: {message}", file=sys.stderr)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=file or sys.stderr)


def _main(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    from metaeval.paths import forget_written

    forget_written()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return _interrupted()
    except BaseException as exc:
        if _SIGNALS["interrupted"] and not isinstance(exc, SystemExit):
            return _interrupted()  # an error the interrupt caused, not a cause of its own
        return _failure(exc)


def _interrupted() -> int:
    from metaeval.paths import written

    _cancel_redeliveries()
    done = written()
    if done:
        names = ", ".join(str(path) for path in done)
        print(f"metaeval: interrupted after {names} had been written in full; nothing else was written", file=sys.stderr)
    else:
        print("metaeval: interrupted; no output was written", file=sys.stderr)
    return 130


def _failure(exc: BaseException) -> int:
    """The exit status and the one error line of an exception that ended the command."""
    try:
        raise exc
    except MetaevalError as exc:
        from metaeval.corpora.detect import UnrecognisedJudgmentFormat

        if isinstance(exc, UnrecognisedJudgmentFormat):
            exc = exc.naming("--judgments-format FORMAT")
        return _fail(str(exc), exc.exit_code)
    except OSError as exc:
        from metaeval.paths import os_error_message

        return _fail(os_error_message(exc), 1)
    except MemoryError:
        return _fail("out of memory; use a smaller corpus, fewer --bootstrap samples or fewer --jobs", 1)
    except RecursionError:
        return _fail("input nested too deeply (recursion limit reached)", 1)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        if os.environ.get("METAEVAL_TRACEBACK"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        return _fail(f"internal error {type(exc).__name__}: {first} (please report it)", 1)


def _fail(message: str, code: int) -> int:
    """Print the one error line and return ``code``; control characters in the message (a
    newline in a file name...) are shown escaped, so it stays one line."""
    import unicodedata

    shown = "".join(
        repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in message
    )
    print("metaeval: error: " + shown, file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
