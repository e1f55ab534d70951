"""The answer of a run (:func:`metaeval.answer.answer`) on an earlier commit and on this tree,
call by call, in one process.

    python -m benchmarks.answer_ab --base COMMIT [--calls 30] [--no-store]

A run computes its answer once, after every statistic, with one core busy; a change of it is a
few tenths of a second in a run whose rounds vary by more (:mod:`benchmarks.ab`). Here the fixed
workload (:mod:`benchmarks.workload`) runs once, through the API, and the arguments its answer
was computed from (the results, their bootstrap samples and the options) are kept. Then
``metaeval/answer.py`` of ``--base`` (read with ``git show``) is loaded as a module of its own,
and the two sides compute the answer from those arguments in turn (which goes first
alternates), ``--calls`` times; their tables must be equal, value for value (the command stops
otherwise). Each pair's CPU seconds give one ratio this / base: their median, its sign-test
interval and verdict (:func:`benchmarks.ab.paired_ratios`) and each side's median CPU seconds per
call go under the key ``answer_ab`` of ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path
from typing import Any, Callable

from benchmarks import workload
from benchmarks.ab import interval_text, paired_ratios
from benchmarks.bench import DATA, REPO
from benchmarks.metric_ab import module_at
from benchmarks.store import store_and_say

KEY = "answer_ab"


def base_answer(commit: str) -> types.ModuleType:
    """``metaeval/answer.py`` of ``commit`` as a module of its own (its imports are this tree's)."""
    return module_at(commit, "metaeval/answer.py", "metaeval_base_answer", "answer_ab")


def workload_answer_arguments() -> tuple[tuple, dict[str, Any]]:
    """The arguments the fixed workload's run computed its answer from."""
    import metaeval.answer
    from metaeval.api import run
    from metaeval.compute import workers
    from metaeval.errors import DataWarning

    seen: list[tuple[tuple, dict[str, Any]]] = []
    original = metaeval.answer.answer

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append((args, kwargs))
        return original(*args, **kwargs)

    metaeval.answer.answer = recording  # type: ignore[assignment]
    try:
        with warnings.catch_warnings(), tempfile.TemporaryDirectory(prefix="answer-ab-") as cache, \
                workers(0) as (executor, jobs):  # fmt: skip
            warnings.simplefilter("ignore", DataWarning)  # the corpus's notes, which metaeval run shows
            run(DATA / workload.DATASET, list(workload.SEGMENTERS), list(workload.METRICS), statistics=list(workload.STATISTICS),
                bootstrap=workload.BOOTSTRAP, seed=workload.SEED, chance_permutations=0, executor=executor, jobs=jobs,
                cache_dir=cache)  # fmt: skip
    finally:
        metaeval.answer.answer = original  # type: ignore[assignment]
    return seen[0]


def cpu_seconds(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    out = function()
    return time.process_time() - start, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare this tree's answer with")
    parser.add_argument("--calls", type=int, default=30, help="pairs of calls (default 30)")
    parser.add_argument("--no-store", action="store_true", help="print only")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    load = list(os.getloadavg())
    import pandas as pd

    import metaeval.answer

    base = base_answer(args.base)
    positional, options = workload_answer_arguments()
    sides = {"base": lambda: base.answer(*positional, **options), "this": lambda: metaeval.answer.answer(*positional, **options)}
    pd.testing.assert_frame_equal(sides["this"](), sides["base"](), check_exact=True)  # also the untimed first call
    seconds: dict[str, list[float]] = {"base": [], "this": []}
    for k in range(args.calls):
        for side in (("base", "this") if k % 2 == 0 else ("this", "base")):
            spent, _ = cpu_seconds(sides[side])
            seconds[side].append(spent)
    paired = paired_ratios([t / b for t, b in zip(seconds["this"], seconds["base"])])
    entry = {
        "base": args.base, "calls": args.calls, "dataset": workload.DATASET, "rankings": len(sides["this"]()),
        "base_cpu_seconds_per_call": statistics.median(seconds["base"]),
        "this_cpu_seconds_per_call": statistics.median(seconds["this"]), "ratio_per_call": paired,
        "tables_identical": True, "load_average_1_5_15_at_start": load,
    }  # fmt: skip
    line = (f"answer of the fixed workload ({entry['rankings']} rankings): base {args.base} "
            f"{entry['base_cpu_seconds_per_call']:.3f} CPU-s per call, this tree {entry['this_cpu_seconds_per_call']:.3f}; "
            f"ratio per call {paired['median']:.3f}×{interval_text(paired)} ({paired['rounds']} pairs), {paired['verdict']}; "
            "tables identical")  # fmt: skip
    print(line)
    store_and_say(KEY, entry, args.out, store=not args.no_store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
