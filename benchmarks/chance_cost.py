"""What the chance levels add to a cold default run, as a same-run ratio of CPU-seconds.

    python -m benchmarks.chance_cost [--repeat 2] [--data DIR] [--no-store]

``metaeval run`` on WMT24 en-zh with its defaults (every default segmenter, metric and statistic,
1000 bootstrap resamples), each time with an empty cache folder and output folder (cold), once with
the chance levels of every statistic (``--chance-permutations`` at its default, 200) and once
without (``--chance-permutations 0``), alternating ``--repeat`` times in one command so that a
change of the machine's load reaches both alike. CPU-seconds are the run's process and its
children (``resource.getrusage(RUSAGE_CHILDREN)``); the ratio is the medians' with / without. The
two runs must give the same values and intervals (the chance columns aside). The load average is
recorded beside the figures, which go under the ``chance_cost`` key of ``benchmarks/results.json``.
Target: a ratio of at most 1.5.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchmarks.store import store_and_say

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data")).resolve()
DATASET = "wmt24-esa/en-zh"
KEY = "chance_cost"
TARGET = 1.5
#: The chance columns, the only ones the two sides may differ in.
CHANCE = ["chance", "chance_low", "chance_high"]


def _cold_run(corpus: Path, extra: list[str]) -> tuple[float, float, pd.DataFrame]:
    """CPU and wall seconds of one cold ``metaeval run`` and its results table."""
    with tempfile.TemporaryDirectory(prefix="chance-cost-") as tmp:
        out, cache = Path(tmp) / "out", Path(tmp) / "cache"
        argv = [sys.executable, "-m", "metaeval", "run", str(corpus), "--cache-dir", str(cache), "--out", str(out), "-q", *extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        results = pd.read_csv(io.StringIO((out / "results.tsv").read_text(encoding="utf-8")), sep="\t")
    return cpu, wall, results


def measure(corpus: Path, repeat: int) -> dict:
    sides: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
    tables: dict[str, pd.DataFrame] = {}
    load = [os.getloadavg()[0]]
    for _ in range(repeat):
        for side, extra in (("without", ["--chance-permutations", "0"]), ("with", [])):
            cpu, wall, tables[side] = _cold_run(corpus, extra)
            sides[side].append((cpu, wall))
            print(f"{side} chance levels: {cpu:.1f} CPU-s, {wall:.1f} s wall", flush=True)
        load.append(os.getloadavg()[0])
    same = tables["with"].drop(columns=CHANCE).equals(tables["without"].drop(columns=CHANCE))
    if not same:
        raise SystemExit("the runs with and without chance levels differ in more than the chance columns")
    cpu = {side: statistics.median(c for c, _ in runs) for side, runs in sides.items()}
    wall = {side: statistics.median(w for _, w in runs) for side, runs in sides.items()}
    defined = int(tables["with"]["chance"].notna().sum())
    return {
        "dataset": DATASET,
        "command": "metaeval run CORPUS --cache-dir EMPTY --out EMPTY -q [--chance-permutations 0]",
        "repeat": repeat,
        "cpu_s_with": round(cpu["with"], 1),
        "cpu_s_without": round(cpu["without"], 1),
        "cpu_ratio": round(cpu["with"] / cpu["without"], 3),
        "wall_s_with": round(wall["with"], 1),
        "wall_s_without": round(wall["without"], 1),
        "rows": int(len(tables["with"])),
        "rows_with_chance": defined,
        "target_ratio": TARGET,
        "met": cpu["with"] / cpu["without"] <= TARGET,
        "load_average": [round(v, 2) for v in load],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-store", action="store_true", help="print the figures without writing benchmarks/results.json")
    args = parser.parse_args(argv)
    corpus = args.data / DATASET
    if not corpus.is_dir():
        print(f"benchmarks.chance_cost: data folder not found: {corpus}", file=sys.stderr)
        return 1
    entry = measure(corpus, args.repeat)
    print(f"with / without chance levels: {entry['cpu_s_with']} / {entry['cpu_s_without']} CPU-s = {entry['cpu_ratio']} "
          f"(target <= {TARGET}); load average {entry['load_average']}")  # fmt: skip
    store_and_say(KEY, entry, REPO / "benchmarks" / "results.json", not args.no_store)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
