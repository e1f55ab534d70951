"""At which granularity do metrics agree best with humans? The sweep on four public corpora.

    python -m experiments.sweep [--data DIR] [--out DIR] [--bootstrap N] [--only PATH ...] [--cache-dir DIR]

For each corpus of :data:`DATASETS` this runs :func:`metaeval.sweep.sweep` with its defaults
(every segmenter of the target language that runs here, the SentencePiece ladder learnt
from the references, BLEU, NIST, METEOR, GTM, 1-TER (not at byte), chrF++ and chrF, 1000 bootstrap samples, seed 12345)
and writes its files into ``<out>/<dataset>/`` (:func:`metaeval.report.sweep.write_sweep`).
``<out>/summary.md`` gathers, per corpus, first the slope of each statistic against log2
characters per token (:mod:`metaeval.slope`; also ``<out>/slopes.tsv``), the best granularity of
each metric and statistic, and the word-segmenter spread against the word-character gap;
``<out>/runtime.json`` records how long each corpus took (the only file that changes from
run to run: every other file is byte-identical for the same data, packages and seed).
``--cache-dir`` keeps segmentations and per-segment statistics, so that a rerun scores only
what changed. ``--redraw`` only draws each corpus's ``curve.png`` again from its ``results.tsv``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Sequence

import pandas as pd

from metaeval import corpora
from metaeval.errors import MetaevalError, UsageError
from metaeval.report.equivalence import frame_section
from metaeval.report.files import write_atomic
from metaeval.report.sweep import SLOPE_SHOWN, SLOPE_TITLE, figure, write_sweep
from metaeval.report.text import render_markdown
from metaeval.sweep import SweepResult, sweep

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data"))
OUT = REPO / "experiments" / "results" / "sweep"
DATASETS = ("wmt24-esa/en-zh", "wmt24-esa/en-ja", "wmt21/en-zh", "wmt21/en-ja")
SEED = 12345


def run(data: Path, out: Path, datasets: Sequence[str], n_bootstrap: int, cache_dir: Path | None = None) -> dict[str, float]:
    """Sweep each corpus, write its folder, then the gathered files (:func:`gather`); return
    seconds per corpus."""
    seconds: dict[str, float] = {}
    for path in datasets:
        folder = data / path
        if not folder.is_dir():
            raise UsageError(f"{folder}: corpus folder not found (set METAEVAL_DATA or pass --data)")
        start = time.perf_counter()
        corpus, judgments = corpora.read(folder)
        result = sweep(corpus, judgments, n_bootstrap=n_bootstrap, seed=SEED, cache_dir=cache_dir)
        write_sweep(result, out / path.replace("/", "_"), overwrite=True)
        seconds[path] = round(time.perf_counter() - start, 1)
    gather(out, datasets, n_bootstrap)
    return seconds


def gather(out: Path, datasets: Sequence[str], n_bootstrap: int) -> None:
    """``<out>/slopes.tsv`` and ``<out>/summary.md`` from the corpus folders of ``datasets``
    (so that corpora swept by separate processes are summarised together); a corpus folder
    without ``slopes.tsv`` (swept before the slopes existed) has no rows in the slopes."""
    tables: dict[str, list[pd.DataFrame]] = {"slopes": [], "best": [], "spread": [], "boundaries": []}
    for path in datasets:
        folder = out / path.replace("/", "_")
        read = {name: _read_tsv(folder / f"{name}.tsv") for name in ("best", "spread", "boundaries", "granularities")}
        if (folder / "slopes.tsv").is_file():  # a corpus swept before the slopes existed has none
            tables["slopes"].append(_read_tsv(folder / "slopes.tsv").assign(dataset=path))
        for name in ("best", "spread"):
            tables[name].append(read[name].assign(dataset=path))
        tables["boundaries"].append(_boundary_summary(read["granularities"], read["boundaries"]).assign(dataset=path))
    slopes = pd.concat(tables["slopes"], ignore_index=True) if tables["slopes"] else pd.DataFrame(columns=["dataset", *SLOPE_SHOWN])
    write_atomic(out / "slopes.tsv", slopes.to_csv(sep="\t", index=False, float_format="%.10g", lineterminator="\n"), overwrite=True)
    sections = [frame_section(SLOPE_TITLE, _first(slopes[["dataset", *SLOPE_SHOWN]]))] if len(slopes) else []
    sections += [
        frame_section("Best granularity per corpus, metric and statistic (95% interval)", _first(pd.concat(tables["best"]))),
        frame_section("Word segmenters among themselves (spread) against words against characters", _first(pd.concat(tables["spread"]))),
        frame_section("Token boundaries: agreement between word segmenters against agreement with characters (F1)",
                      _first(pd.concat(tables["boundaries"]))),
    ]  # fmt: skip
    signature = [("datasets", ", ".join(datasets)), ("n_bootstrap", str(n_bootstrap)), ("seed", str(SEED))]
    write_atomic(out / "summary.md", render_markdown("Granularity sweep: summary", signature, sections), overwrite=True)


def _read_tsv(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise UsageError(f"{path}: not found; sweep that corpus first")
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])


def redraw(out: Path, datasets: Sequence[str]) -> list[Path]:
    """Draw ``<out>/<dataset>/curve.png`` again from the ``results.tsv`` and ``signature.json`` beside it."""
    drawn = []
    for path in datasets:
        folder = out / path.replace("/", "_")
        if not (folder / "results.tsv").is_file():
            raise UsageError(f"{folder / 'results.tsv'}: not found; run the sweep first")
        results = pd.read_csv(folder / "results.tsv", sep="\t", keep_default_na=False, na_values=[""])
        name = json.loads((folder / "signature.json").read_text(encoding="utf-8"))["dataset"]
        empty = pd.DataFrame()
        result = SweepResult(dataset=name, granularities=empty, skipped=empty, results=results, equivalence=empty, boundaries=empty)
        drawn.append(figure(result, folder / "curve.png", overwrite=True))
    return drawn


def _first(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["dataset"] + [c for c in frame.columns if c != "dataset"]].reset_index(drop=True)


def _boundary_summary(granularities: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Lowest and highest boundary F1 between two word segmenters, and between a word segmenter and char."""
    family = dict(zip(granularities["name"], granularities["family"]))
    words = table[(table["a"].map(family) == "words") & (table["b"].map(family) == "words")]
    with_char = table[((table["a"] == "char") & (table["b"].map(family) == "words")) | ((table["b"] == "char") & (table["a"].map(family) == "words"))]
    return pd.DataFrame([{
        "word_pairs": len(words),
        "word_word_f1_min": words["f1"].min(), "word_word_f1_max": words["f1"].max(),
        "word_char_f1_min": with_char["f1"].min(), "word_char_f1_max": with_char["f1"].max(),
    }])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.sweep", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"shared data folder (default {DATA})")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default {OUT})")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap samples (default 1000)")
    parser.add_argument("--only", action="append", choices=DATASETS, help="corpus to run (repeatable)")
    parser.add_argument("--cache-dir", type=Path, help="keep segmentations and per-segment statistics here for cheap reruns")
    parser.add_argument("--redraw", action="store_true", help="only draw each curve.png again from its results.tsv")
    parser.add_argument("--gather", action="store_true", help="only write summary.md and slopes.tsv from the corpus folders")
    args = parser.parse_args(argv)
    datasets = tuple(args.only) if args.only else DATASETS
    if args.redraw or args.gather:
        try:
            for path in redraw(args.out, datasets) if args.redraw else []:
                print(path)
            if args.gather:
                gather(args.out, datasets, args.bootstrap)
        except MetaevalError as exc:
            sys.stderr.write(f"sweep: error: {exc}\n")
            return exc.exit_code
        return 0
    start = time.perf_counter()
    try:
        seconds = run(args.data, args.out, datasets, args.bootstrap, args.cache_dir)
    except MetaevalError as exc:
        sys.stderr.write(f"sweep: error: {exc}\n")
        return exc.exit_code
    runtime = {"seconds_per_dataset": seconds, "seconds_total": round(time.perf_counter() - start, 1), "cpus": os.cpu_count()}
    if args.only and (args.out / "runtime.json").is_file():  # corpora swept by separate runs: keep the others' times
        earlier = json.loads((args.out / "runtime.json").read_text(encoding="utf-8"))
        runtime["seconds_per_dataset"] = {**earlier.get("seconds_per_dataset", {}), **seconds}
        runtime["seconds_total"] = round(sum(runtime["seconds_per_dataset"].values()), 1)
    write_atomic(args.out / "runtime.json", json.dumps(runtime, indent=1, sort_keys=True) + "\n", overwrite=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
