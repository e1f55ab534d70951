"""The cost of the byte point: a granularity sweep with ``byte`` against the same sweep without it.

    python -m benchmarks.byte_sweep [--dataset wmt24-esa/en-zh] [--segments 100] [--repeat 1]

The first ``--segments`` paragraphs of the dataset (every system, their judgments), the target
language's default ladder (:data:`metaeval.sweep.SEGMENTERS`, ``byte`` included or left out)
and the SentencePiece ladder, the sweep's default metrics without TER (which the byte point
leaves out: both sides score the same metrics), default statistics and 1000 resamples, no
cache, after an untimed warm-up of both sides on 5 paragraphs (models loaded, kernels compiled). The two sides run alternately in this process, ``--repeat`` times each; the best CPU
time of each (user + system of this process and of any child it waited for,
``resource.getrusage``) and their ratio go under the key ``byte_sweep`` of ``benchmarks/results.json``, with
the load average at the start.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any, Callable

from benchmarks.bench import DATA, REPO, check_arguments, data_errors
from benchmarks.store import store_and_say

KEY = "byte_sweep"


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its waited-for children."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def best_of(sides: dict[str, Callable[[], Any]], repeat: int) -> tuple[dict[str, float], dict[str, float], dict[str, Any]]:
    """Each side ``repeat`` times, alternately: best CPU seconds, best wall seconds, last result."""
    cpu, wall, results = {s: float("inf") for s in sides}, {s: float("inf") for s in sides}, {}
    for _ in range(repeat):
        for name, fn in sides.items():
            start_cpu, start_wall = cpu_seconds(), time.perf_counter()
            results[name] = fn()
            cpu[name] = min(cpu[name], cpu_seconds() - start_cpu)
            wall[name] = min(wall[name], time.perf_counter() - start_wall)
    return cpu, wall, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="wmt24-esa/en-zh")
    parser.add_argument("--segments", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    parser.add_argument("--no-store", action="store_true", help="print only")
    args = parser.parse_args(argv)
    check_arguments(parser, [args.dataset])
    from metaeval import corpora
    from metaeval.sweep import DEFAULT_METRICS, NOT_AT_BYTES, default_segmenters, sweep

    load = list(os.getloadavg())
    with data_errors("byte_sweep"):
        full, found = corpora.read(DATA / args.dataset)
    assert found is not None, f"{args.dataset}: no judgments"
    keep = list(full.seg_ids[: args.segments])
    corpus = full.subset(seg_ids=keep)
    judgments = dataclasses.replace(found, table=found.table[found.table["seg_id"].isin(set(keep))])
    metrics = [m for m in DEFAULT_METRICS if m not in NOT_AT_BYTES]
    ladder = list(default_segmenters(corpus.target_lang))
    sides = {
        "without_byte": [s for s in ladder if s != "byte"],
        "with_byte": ladder,
    }

    def side(segmenters: list[str], corpus=corpus, judgments=judgments):  # noqa: ANN001, ANN202
        return lambda: sweep(corpus, judgments, segmenters=segmenters, metrics=metrics, equivalence=True)

    # warm-up, untimed: both sides on the first 5 paragraphs load every model and compiled kernel
    few = corpus.subset(seg_ids=keep[:5])
    few_judgments = dataclasses.replace(judgments, table=judgments.table[judgments.table["seg_id"].isin(set(keep[:5]))])
    best_of({name: side(segs, few, few_judgments) for name, segs in sides.items()}, 1)

    best, wall, found_results = best_of({name: side(segs) for name, segs in sides.items()}, args.repeat)
    rows = {name: len(result.results) for name, result in found_results.items()}
    entry = {
        "dataset": args.dataset, "segments": len(keep), "systems": len(corpus.systems), "metrics": metrics,
        "segmenters": sides, "repeat": args.repeat, "cpu_seconds": {k: round(v, 2) for k, v in best.items()},
        "wall_seconds": {k: round(v, 1) for k, v in wall.items()},
        "result_rows": rows, "ratio": round(best["with_byte"] / best["without_byte"], 3), "load_average_1_5_15_at_start": load,
    }  # fmt: skip
    print(entry)
    store_and_say(KEY, entry, args.out, not args.no_store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
