"""Where the CPU seconds of the fixed workload go: per stage, per segmenter, per metric, per statistic.

    python -m benchmarks.stages [--repeat 3] [--no-store]

The workload (:mod:`benchmarks.workload`: the default run of WMT24 en-zh with every option
written out) runs with ``--jobs 1`` from an empty cache, so that all of its work is done in one
process, in a fresh process per round, with a CPU-time clock (``time.process_time``: every
thread of the process, as TER's search runs in a helper thread) around each function named
below. A stage's time excludes that of the stages it calls (a store write inside scoring is
counted under the store), so the stages add up to the run's CPU time; what is left is the
interpreter's start, argument parsing and rendering. Before the run, the modules the run uses
are imported (stage ``imports``) and every metric is called once on one short segment, which
loads its compiled kernels from numba's cache (``kernels <metric>``), so that the metric stages
count the scoring alone.

In the same command, alternating with those runs, the segmentation floor is measured as in
``benchmarks.scale`` (import the segmenters and segment every unique text once with each, in a
fresh process), here as CPU seconds; ``work_besides_segmentation_ratio`` is the median over the
rounds of (the run's CPU seconds less the floor taken beside it) / that floor
(:func:`work_ratio`), the quantity of the target "non-segmentation CPU-s at most 0.77x
segmentation CPU-s". Medians of the rounds go under the key ``stages`` of
``benchmarks/results.json`` (``--no-store``: print only), with the load average at the start
and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from benchmarks import workload
from benchmarks.bench import DATA, REPO
from benchmarks.store import store_and_say

KEY = "stages"

#: Modules a run of the workload imports; imported first, under the stage ``imports``.
MODULES = (
    "metaeval.cli", "metaeval.api", "metaeval.stats.evaluate", "metaeval.stats.registry", "metaeval.answer",
    "metaeval.report.leaderboard", "metaeval.store", "metaeval.segmenters", "metaeval.segmenters.cache", "scipy.stats",
    "numba",
)  # fmt: skip
#: Functions of :mod:`metaeval.stats.evaluate`'s namespace timed as statistics stages (each
#: statistic of the registry is timed on its own, per level, as ``statistics: LEVEL NAME``).
STATISTIC_FUNCTIONS = {
    "human_side": "statistics: human side (judgments, pairs, resampled humans)",
    "resample_weights": "statistics: bootstrap draws and weights",
    "bootstrap_indices": "statistics: bootstrap draws and weights",
    "_row": "statistics: result rows",
}


class Clock:
    """CPU seconds per stage, each stage's own (nested stages subtracted)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._inner: list[float] = []

    def timed(self, name: str, function: Callable[..., Any]) -> Any:
        start = time.process_time()
        self._inner.append(0.0)
        try:
            return function()
        finally:
            elapsed = time.process_time() - start
            self.seconds[name] += elapsed - self._inner.pop()
            if self._inner:
                self._inner[-1] += elapsed

    def wrap(self, owner: Any, attribute: str, name: "str | Callable[..., str]") -> None:
        """Time every call of ``owner.attribute`` (``owner[attribute]`` of a dict) under ``name`` (or ``name(*args)``)."""
        original = owner[attribute] if isinstance(owner, dict) else getattr(owner, attribute)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return self.timed(name if isinstance(name, str) else name(*args), lambda: original(*args, **kwargs))

        if isinstance(owner, dict):
            owner[attribute] = wrapper
        else:
            setattr(owner, attribute, wrapper)


def child(argv: list[str]) -> None:
    """The run of ``metaeval ARGV`` in this process, instrumented; prints the stages as JSON."""
    clock = Clock()
    started = time.process_time()

    def imports() -> None:
        import importlib

        for name in MODULES:
            importlib.import_module(name)

    clock.timed("imports", imports)
    from metaeval import answer, api, reuse, scoring, store
    from metaeval.stats import clusters, evaluate, registry
    from metaeval.metrics import get_metric
    from metaeval.segmenters.cache import SegmentationCache

    for spec in workload.METRICS:
        metric = get_metric(spec)
        clock.timed(f"kernels {spec}", lambda: metric.segment_stats([list("今天下雨了")], metric.prepare([[list("今天下雨。")]])))
        cls = type(metric)
        clock.wrap(cls, "prepare", f"metric {spec}")
        clock.wrap(cls, "segment_stats", f"metric {spec}")
    clock.wrap(scoring, "get_segmenter", lambda item, *_: f"segmenter {item}")
    clock.wrap(scoring, "_segment_with_progress", lambda seg, *_: f"segmenter {scoring.segmenter_label(seg)}")
    for attribute in ("plan", "assemble"):
        clock.wrap(reuse.Reuse, attribute, "scoring: reuse plan and assembly")
    clock.wrap(scoring, "segment_keys", "scoring: reuse plan and assembly")
    clock.wrap(scoring, "shared_tokens", "scoring: token tables")
    clock.wrap(scoring, "check_lengths", "scoring: token tables")
    clock.wrap(scoring, "warn_form_differences", "reading corpus and judgments")
    for attribute in ("lookup", "store", "segment"):
        clock.wrap(SegmentationCache, attribute, "segmentation cache")
    for attribute in ("get", "put"):
        clock.wrap(store.Store, attribute, "store (hashes, files)")
    clock.wrap(api, "_as_corpus", "reading corpus and judgments")
    clock.wrap(api, "correlate", "statistics: other")
    clock.wrap(answer, "answer", "answer")
    clock.wrap(api.Study, "leaderboard", "rendering")
    for function, name in STATISTIC_FUNCTIONS.items():
        clock.wrap(evaluate, function, name)
    clock.wrap(clusters, "add_clusters", "statistics: significance clusters")
    for entry in registry.REGISTRY.values():
        for level in list(entry.compute):
            clock.wrap(entry.compute, level, f"statistics: {level} {entry.name}")
    from metaeval.cli import main

    with open(os.devnull, "w", encoding="utf-8") as devnull:
        stdout, sys.stdout = sys.stdout, devnull
        try:
            code = clock.timed("command line, rest", lambda: main(argv))
        finally:
            sys.stdout = stdout
    if code != 0:
        raise SystemExit(f"metaeval {' '.join(argv)} exited {code}")
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"stages": dict(clock.seconds), "timed": time.process_time() - started,
                      "process_cpu_seconds": own.ru_utime + own.ru_stime}))


def python_json(args: list[str]) -> tuple[dict[str, Any], float]:
    """The JSON that ``python ARGS`` prints last, and its CPU seconds (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed: {proc.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), cpu


def floor_cpu_seconds(corpus: Path, names: tuple[str, ...]) -> float:
    """CPU seconds of importing the segmenters and segmenting each unique text of ``corpus`` once
    with each of ``names``, in a fresh process (models loaded inside the timing)."""
    code = (
        "import json,time\nfrom metaeval import corpora\n"
        f"c,_=corpora.read({str(corpus)!r})\n"
        "texts=list(dict.fromkeys([t for r in c.refs_list() for t in r]+[t for h in c.systems.values() for t in h]))\n"
        "t=time.process_time()\nfrom metaeval import segmenters\n"
        f"[segmenters.get(n).segment_many(texts) for n in {list(names)!r}]\n"
        "print(json.dumps({'cpu_seconds':time.process_time()-t}))\n"
    )
    return float(python_json(["-c", code])[0]["cpu_seconds"])


def work_ratios(rounds: list[dict[str, Any]]) -> list[float]:
    """Each round's (run CPU seconds less the floor) / floor."""
    return [(r["run_cpu_seconds"] - r["segmentation_floor_cpu_seconds"]) / r["segmentation_floor_cpu_seconds"]
            for r in rounds]


def work_ratio(rounds: list[dict[str, Any]]) -> float:
    """The median of :func:`work_ratios`. A round's run and floor are taken one after the other,
    so a change of the machine's speed between rounds reaches both; the separate medians of runs
    and floors can come from different rounds."""
    return statistics.median(work_ratios(rounds))


def measure(repeat: int) -> dict[str, Any]:
    corpus = DATA / workload.DATASET
    load = os.getloadavg()
    rounds = []
    for _ in range(repeat):
        floor = floor_cpu_seconds(corpus, workload.SEGMENTERS)
        with tempfile.TemporaryDirectory() as cache:
            found, cpu = python_json(["-m", "benchmarks.stages", "--child", *workload.run_arguments(corpus, "1", cache)])
        rounds.append({"segmentation_floor_cpu_seconds": floor, "run_cpu_seconds": cpu, "stages": found["stages"]})
    names = sorted({name for r in rounds for name in r["stages"]})
    stages = {name: statistics.median(r["stages"].get(name, 0.0) for r in rounds) for name in names}
    floor = statistics.median(r["segmentation_floor_cpu_seconds"] for r in rounds)
    run = statistics.median(r["run_cpu_seconds"] for r in rounds)
    segmentation = sum(v for k, v in stages.items() if k.startswith("segmenter "))
    return {
        "workload": {"dataset": workload.DATASET, "segmenters": list(workload.SEGMENTERS), "metrics": list(workload.METRICS),
                     "statistics": list(workload.STATISTICS), "bootstrap": workload.BOOTSTRAP, "jobs": 1},
        "cpus": os.cpu_count(), "repeat": repeat,
        "load_average_1_5_15_at_start": list(load), "load_average_1_5_15_at_end": list(os.getloadavg()),
        "segmentation_floor_cpu_seconds": floor, "run_cpu_seconds": run,
        "segmentation_in_run_cpu_seconds": segmentation,
        "work_besides_segmentation_cpu_seconds": run - floor,
        "work_besides_segmentation_ratio": work_ratio(rounds),
        "stages_cpu_seconds": stages, "rounds": rounds,
    }  # fmt: skip


def table(entry: dict[str, Any]) -> str:
    run = entry["run_cpu_seconds"]
    lines = [f"fixed workload, --jobs 1, medians of {entry['repeat']} rounds; load average at start "
             + " ".join(f"{x:.2f}" for x in entry["load_average_1_5_15_at_start"]),
             "| stage | CPU-s | share of the run |", "|---|---:|---:|"]
    for name, seconds in sorted(entry["stages_cpu_seconds"].items(), key=lambda kv: -kv[1]):
        lines.append(f"| {name} | {seconds:.2f} | {seconds / run:.1%} |")
    lines.append(f"| whole run (process CPU, interpreter start included) | {run:.2f} | 100% |")
    lines.append(f"segmentation floor {entry['segmentation_floor_cpu_seconds']:.2f} CPU-s; work besides it "
                 f"{entry['work_besides_segmentation_cpu_seconds']:.2f} CPU-s (medians); median of the rounds' ratios "
                 f"{entry['work_besides_segmentation_ratio']:.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-store", action="store_true", help="print the table without writing results.json")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    entry = measure(args.repeat)
    print(table(entry))
    store_and_say(KEY, entry, args.out, not args.no_store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
