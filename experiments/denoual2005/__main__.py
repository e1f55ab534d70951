"""Run the experiment: ``python -m experiments.denoual2005 [--data DIR] [--out DIR] [--only PATH ...]``.

Runs the study declared in ``experiments/denoual2005/study.toml`` (as ``metaeval study``
does: the same code, the same store of computed pieces in ``OUT/store``), then writes, into
the output folder (replacing earlier files; a rerun gives identical bytes), besides the
study's ``equivalence.tsv`` and ``study.json``:

- ``<dataset>.<segmenter>.md``: every table of the analysis for one corpus and segmenter;
- ``summary.md``: Table 1 (equivalent M per N), Table 2 (by reference length), Table 3
  (system rankings), Table 4 (length distribution) for the English targets, and Table 5
  (the M equivalent to N = 4 words for each Chinese/Japanese segmenter);
- ``figure1_<dataset>.png`` (BLEUw4 against BLEUc18) and ``figure2_<dataset>.png`` (fraction
  of items with BLEUcM <= BLEUw(N-1) as M goes 1..30) for the English targets;
- ``results.json``: every table of every run with its signature;
- ``runtime.json``: how long the run from an empty store took (``seconds``) and the last rerun
  that read the store (``warm_seconds``), with CPU seconds and load average (the only file that
  differs between reruns).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

import pandas as pd

from experiments.denoual2005 import config
from experiments.runtime import Clock
from metaeval.equivalence import EquivalenceResult
from metaeval.report.equivalence import equivalence_dict, frame_section, render_equivalence
from metaeval.errors import MetaevalError
from metaeval.report.files import write_atomic
from metaeval.report.plots import line, scatter
from metaeval.report.results import flatten_signature, to_json
from metaeval.report.text import render_markdown
from metaeval.studies import STORE, run_study
from metaeval.studyspec import load_spec

Run = tuple[config.Dataset, str, EquivalenceResult]


def run_all(data: Path | None, out: Path, datasets: Sequence[config.Dataset] = config.DATASETS) -> list[Run]:
    """Run the study on ``datasets`` (its results kept in ``out``), then write each
    (dataset, word segmenter)'s table file and figures."""
    spec = load_spec(config.SPEC, data)
    paths = [ds.path for ds in datasets]
    result = run_study(spec, out=out, datasets=[d.name for d in spec.datasets if d.path in paths])
    by_path = {ds.path: ds for ds in datasets}
    runs: list[Run] = []
    for dataset, name, result_ in result.equivalence:
        ds = by_path[dataset.path]
        runs.append((ds, name, result_))
        title = f"BLEU in words ({name}) vs characters ({config.CHAR_SEGMENTER}): {ds.path}"
        write_atomic(out / f"{ds.slug}.{name}.md", render_equivalence(result_, "markdown", title=title), overwrite=True)
        if ds.figures:
            _figures(ds, name, result_, out)
    return runs


def _figures(ds: config.Dataset, name: str, result: EquivalenceResult, out: Path) -> None:
    n, m = config.SCATTER_ORDERS
    items = result.items
    scatter(
        items[f"w{n}"].to_numpy(), items[f"c{m}"].to_numpy(), out / f"figure1_{ds.slug}.png",
        xlabel=f"BLEUw{n} ({name} words)", ylabel=f"BLEUc{m} (characters)",
        title=f"{ds.path}: sentence BLEU, {len(items)} items", diagonal=True, overwrite=True,
    )
    analogical = result.analogical
    series = {f"N={c[2:]}: BLEUcM <= BLEUw{int(c[2:]) - 1}": analogical[c].to_numpy() for c in analogical.columns[1:]}
    line(
        analogical["M"].to_numpy(), series, out / f"figure2_{ds.slug}.png",
        xlabel="character order M", ylabel="fraction of items under the diagonal",
        title=f"{ds.path}: analogical behaviour", hline=config.SETTINGS.threshold, overwrite=True,
    )


def _tagged(runs: Sequence[Run], table: str, n: int | None = None) -> pd.DataFrame:
    frames = []
    for ds, name, result in runs:
        frame = result.table(table)
        if n is not None:
            frame = frame[frame["N"] == n]
        frame = frame.copy()
        frame.insert(0, "segmenter", name)
        frame.insert(0, "dataset", ds.path)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def chars_per_word(runs: Sequence[Run]) -> pd.DataFrame:
    """Mean characters over mean words per sentence, for references and hypotheses (Table 5d)."""
    rows = []
    for ds, name, result in runs:
        lengths = result.table("lengths").set_index(["texts", "unit"])["mean"]
        row = {"dataset": ds.path, "segmenter": name}
        for texts in ("references", "hypotheses"):
            row[texts] = float(lengths[(texts, "characters")] / lengths[(texts, "words")])
        rows.append(row)
    return pd.DataFrame(rows)


def summary(runs: Sequence[Run]) -> tuple[str, dict]:
    """The summary Markdown and the JSON data of every run."""
    english = [r for r in runs if r[0] in config.ENGLISH]
    cjk = [r for r in runs if r[0] not in config.ENGLISH]
    n_max = config.SETTINGS.max_word_order
    sections = []
    if english:
        sections += [
            frame_section("Table 1 (English targets): character order M equivalent to word order N", _tagged(english, "orders")),
            frame_section("Table 2 (English targets): equivalent M by mean reference length in words", _tagged(english, "by_length")),
        ]
        for ds, name, result in english:
            sections.append(frame_section(f"Table 3 ({ds.path}): system ranking under BLEUw{n_max} and BLEUcM*", result.ranking))
        sections += [
            frame_section("Table 3b (English targets): agreement of system rankings", _tagged(english, "ranking_agreement")),
            frame_section("Table 4 (English targets): sentence lengths", _tagged(english, "lengths")),
            frame_section("Table 4b (English targets): length histogram", _tagged(english, "length_histogram")),
        ]
    if cjk:
        sections += [
            frame_section(f"Table 5 (Chinese and Japanese targets): M equivalent to N = {n_max} words", _tagged(cjk, "orders", n_max)),
            frame_section("Table 5b (Chinese and Japanese targets): agreement of system rankings", _tagged(cjk, "ranking_agreement", n_max)),
            frame_section("Table 5c (Chinese and Japanese targets): sentence lengths", _tagged(cjk, "lengths")),
            frame_section("Table 5d (Chinese and Japanese targets): characters per word", chars_per_word(cjk)),
        ]
    first = runs[0][2].signature
    signature = {
        "experiment": "denoual2005",
        "settings": first["settings"],
        "versions": first["versions"],
        "char_segmenter": first["char_segmenter"],
        "word_metric": first["word_metric"],
        "char_metric": first["char_metric"],
        "runs": {f"{ds.path} {name}": r.signature["word_segmenter"] for ds, name, r in runs},
    }
    text = render_markdown("Denoual & Lepage (2005): BLEU in words vs BLEU in characters", flatten_signature(signature), sections)
    data = {"signature": signature, "runs": {f"{ds.slug}.{name}": equivalence_dict(r) for ds, name, r in runs}}
    return text, data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.denoual2005", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="shared data folder (default: the study file's, or $METAEVAL_DATA)")
    parser.add_argument("--out", type=Path, default=config.OUT, help=f"output folder (default {config.OUT})")
    parser.add_argument("--only", action="append", help="dataset path(s) to run, e.g. wmt21/ja-en (repeatable)")
    args = parser.parse_args(argv)
    datasets = config.DATASETS
    if args.only:
        known = {d.path: d for d in config.DATASETS}
        unknown = [p for p in args.only if p not in known]
        if unknown:
            parser.error(f"unknown dataset(s) {unknown}; known: {', '.join(known)}")
        datasets = tuple(known[p] for p in args.only)
    clock = Clock(args.out / STORE)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        runs = run_all(args.data, args.out, datasets)
        text, data = summary(runs)
        write_atomic(args.out / "summary.md", text, overwrite=True)
        write_atomic(args.out / "results.json", to_json(data, indent=1) + "\n", overwrite=True)
        record = {"datasets": [d.path for d in datasets], "cpus": os.cpu_count()}
        clock.write(args.out / "runtime.json", record)
    except MetaevalError as exc:
        sys.stderr.write(f"denoual2005: error: {exc}\n")
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
