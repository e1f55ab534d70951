"""What the subcommands share: the parser class, option types, the corpus, judgment and output
options, progress bars, output checks and the writing of tables."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from metaeval.errors import UsageError

RESULT_FORMATS = ("text", "markdown", "html", "csv", "tsv", "json", "latex")
SCORE_FORMATS = ("tsv", "csv", "json")
#: Upper bound of --jobs: more worker processes than this only multiply memory.
MAX_JOBS = 256


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors go through one path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix("metaeval").strip()
        raise UsageError(f"{command}: {message}" if command else message)


def split_list(values: Sequence[str] | None) -> list[str]:
    """Repeated options and comma-separated lists (``--level seg,sys``), flattened."""
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


# --- option types ----------------------------------------------------------------------


def non_negative(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


def bootstrap_count(text: str) -> int:
    """argparse type of ``--bootstrap``: 0 (no intervals) or 2 to the most resamples a run takes."""
    from metaeval.stats.settings import BOOTSTRAP_ONE, MAX_BOOTSTRAP

    value = non_negative(text)
    if value == 1:
        raise argparse.ArgumentTypeError(BOOTSTRAP_ONE.replace("n_bootstrap=1", "1"))
    if value > MAX_BOOTSTRAP:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_BOOTSTRAP:,} resamples, got {value:,}")
    return value


def positive(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def number(text: str) -> float:
    """argparse type: a finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def jobs(text: str) -> int:
    """argparse type of ``--jobs``: 0 (automatic) to :data:`MAX_JOBS`."""
    value = non_negative(text)
    if value > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_JOBS} worker processes, got {value}")
    return value


# --- options shared by several subcommands -----------------------------------------------


def add_execution_options(p: argparse.ArgumentParser) -> None:
    """``--jobs``, ``--scheduler``, ``--quiet``."""
    p.add_argument("--jobs", "-j", type=jobs, default=0,
                   help="processes for segmentation, scoring and bootstrap (default 0: one per CPU this process may use; 1: this process only)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run segmentation, scoring and bootstrap on a Dask cluster (tcp://host:8786 or a scheduler file)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def default_segmenters_text() -> str:
    """``default for zh: char, cjk-char, jieba, pkuseg; for ja: ...; otherwise: char, 13a``."""
    from metaeval.segmenting import DEFAULT_SEGMENTERS, FALLBACK_SEGMENTERS

    by_language = "; ".join(f"for {lang}: {', '.join(names)}" for lang, names in DEFAULT_SEGMENTERS.items())
    return f"default {by_language}; otherwise: {', '.join(FALLBACK_SEGMENTERS)}"


def add_corpus_options(p: argparse.ArgumentParser, segmenters: str | None = None, metrics: Sequence[str] | None = None) -> None:
    """The corpus, its segmenters and metrics, and how the work is done; ``segmenters`` and
    ``metrics``: what the command uses without -s and -m (default: ``metaeval run``'s)."""
    from metaeval.metrics import DEFAULT_METRICS

    p.add_argument("corpus", help="corpus folder (plain, mt-metrics-eval) or folder of NIST SGML files")
    p.add_argument("--segmenter", "-s", action="append",
                   help=f"segmenter name (repeatable; {segmenters or default_segmenters_text()}; metaeval list shows all)")
    p.add_argument("--metric", "-m", action="append",
                   help=f"metric spec, e.g. bleu:n=18,smooth=none (repeatable; default: {', '.join(metrics or DEFAULT_METRICS)})")
    p.add_argument("--missing", choices=("error", "skip", "empty"), default="error",
                   help="policy for segments a system lacks (default: error)")
    add_execution_options(p)
    p.add_argument("--cache-dir", help="keep segmentations, per-segment statistics and correlations here "
                   "across runs (keyed by content hash; a rerun computes only what changed)")


def add_judgment_options(p: argparse.ArgumentParser) -> None:
    """Where the human judgments come from and which kinds are evaluated."""
    p.add_argument("--kind", action="append", help="judgment kind(s) to evaluate (default: all present)")
    p.add_argument("--judgments", help="judgment file (long TSV or any known format)")
    p.add_argument("--judgments-format", default=None, help="force a judgment file format")
    p.add_argument("--human-sys", help="system-level human scores TSV (system + one column per kind)")


def add_by_options(p: argparse.ArgumentParser, docs: str | None) -> None:
    """``--by COLUMN`` (every statistic per value of a column of the file of segments) and, when
    ``docs`` says where that file is by default, ``--docs FILE``."""
    p.add_argument("--by", metavar="COLUMN",
                   help="also compute every statistic and the answer per value of this column of docs.tsv (e.g. domain), "
                   "on the segments of each value alone, beside all segments (subset 'all')")
    if docs is not None:
        p.add_argument("--docs", metavar="FILE", help=f"the file of segments --by reads: seg_id (or line_idx) and columns ({docs})")


def add_output_options(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
    add_format_option(p, formats, default)
    p.add_argument("--output", "-o", help="write to this file (atomically) instead of standard output")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")


def add_format_option(p: argparse.ArgumentParser, formats: Sequence[str], default: str) -> None:
    """``--format``/``-f`` among ``formats``."""
    p.add_argument("--format", "-f", choices=formats, default=default,
                   help=f"output format (default: {default}; metaeval list describes each)")


# --- doing the work ----------------------------------------------------------------------


def progress_bar(enabled: bool) -> Callable[[str, int, int], None] | None:
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


def check_output(args: argparse.Namespace) -> None:
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


def load_judgments(args: argparse.Namespace):  # noqa: ANN201
    """Judgments from --judgments and/or --human-sys (system-level scores)."""
    from metaeval.api import read_judgments

    return read_judgments(args.judgments, args.human_sys, args.judgments_format)


# --- writing -------------------------------------------------------------------------------


def emit(text: str, out: str | None, overwrite: bool) -> None:
    if out:
        from metaeval.report.files import write_atomic

        write_atomic(Path(out), text, overwrite=overwrite)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def csv_options(fmt: str) -> dict[str, Any]:
    """``DataFrame.to_csv`` options of a score table written as ``fmt`` (tsv or csv)."""
    return dict(sep="\t" if fmt == "tsv" else ",", index=False, float_format="%.10g", lineterminator="\n")


def table_text(frame, fmt: str) -> str:  # noqa: ANN001
    buffer = io.StringIO()
    if fmt == "json":
        return frame.to_json(orient="records", force_ascii=False, indent=1, double_precision=15) + "\n"
    frame.to_csv(buffer, **csv_options(fmt))
    return buffer.getvalue()


def emit_results(results, signature: dict, args: argparse.Namespace, layout: str, answer=None, tie_free=None) -> None:  # noqa: ANN001
    """Render results in ``--format``; to ``--output`` (a CSV/TSV with its signature beside it) or stdout."""
    from metaeval.report.data import write_results
    from metaeval.report.leaderboard import render

    text = render(results, signature, args.format, layout=layout, answer=answer, tie_free=tie_free)
    if args.output:
        write_results(Path(args.output), text, signature, overwrite=args.overwrite)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


__all__ = [
    "MAX_JOBS", "RESULT_FORMATS", "SCORE_FORMATS", "Parser", "add_by_options", "add_corpus_options", "add_execution_options",
    "add_format_option", "default_segmenters_text",
    "add_judgment_options", "add_output_options", "bootstrap_count", "check_output", "csv_options", "emit",
    "emit_results", "jobs", "load_judgments", "non_negative", "number", "positive", "progress_bar", "split_list",
    "table_text",
]  # fmt: skip
