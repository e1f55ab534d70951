"""``docs/scaling.md``: the time and memory of a large study, computed from measured task costs.

    python -m benchmarks.scaling            # rewrites docs/scaling.md from benchmarks/results.json
    python -m benchmarks.scaling --curve    # measures one study on a LocalCluster of 1 and 2 workers first

The study: every WMT24 language pair with a CJK target whose human judgments are in the shared
data (en-zh, en-ja) × every offline segmenter of its target language × the six default metrics ×
the default statistics with 1000 resamples. Its cost is built from the figures that
``benchmarks.task_costs`` (segmenting and scoring per dataset and segmenter, peak memory) and
``benchmarks.stages`` (statistics and the main process's serial work per configuration) store,
with this model:

- CPU seconds: segmentation of each segmenter + scoring of each (segmenter, metric) + statistics
  of each configuration (the per-configuration cost of the fixed workload) + the serial work of
  the main process (reading, storing, the answer, rendering) per dataset. Scoring is counted
  without the reuse across systems and segmenters that a run adds, so it is an upper bound;
  chrF, which a run computes once per dataset, is counted once.
- Time on W workers: the work is cut into tasks (segmentation chunks; under one segmenter, one
  system's scoring with the metrics whose scoring dominates (TER, METEOR) and every system's with
  the others (:func:`metaeval.scoring.chunk_plan`); bootstrap blocks of configurations), so it
  divides over W until a single task is the longest thing left: time = serial work +
  max(parallel CPU seconds / W, the longest task) + the start of a worker (interpreter, imports,
  compiled kernels) + the model loads of one worker.
- Memory of a worker: a Dask worker keeps every segmenter it built (one model load per worker,
  not per task), so its peak is its base size plus every model of the language; a local pool's
  worker drops a model once its texts are segmented.

``--curve`` also times ``metaeval study`` of WMT24 en-zh (char and jieba; BLEU, 1−TER and chrF;
1000 resamples) on a ``distributed.LocalCluster`` of 1 and of 2 worker processes, alternated;
those wall-clock figures are stored (key ``cluster_curve``) only when the machine's load average
is below :data:`benchmarks.cpu_targets.QUIET_LOAD`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench import DATA, REPO
from benchmarks.cpu_targets import QUIET_LOAD
from benchmarks.stages import python_json
from benchmarks.store import update_key
from benchmarks.targets import read_results

DOC = REPO / "docs" / "scaling.md"
WORKERS = (1, 8, 64)
#: CPU seconds to start a worker: the interpreter, metaeval's imports, numba and the kernels.
WORKER_START_KEY = "worker start"
CURVE_SPEC = """[study]
name = "curve"
out = "out"
segmenters = ["char", "jieba"]
metrics = ["bleu", "1-ter", "chrf"]
bootstrap = 1000
seed = 12345

[[dataset]]
path = "wmt24-esa/en-zh"
"""


def per_configuration(stages: dict[str, Any]) -> tuple[float, float, int]:
    """(statistics CPU-s per configuration, serial CPU-s of the main process, configurations)
    of the fixed workload."""
    seconds = stages["stages_cpu_seconds"]
    configurations = len(stages["workload"]["segmenters"]) * len(stages["workload"]["metrics"])
    stats = sum(v for k, v in seconds.items() if k.startswith("statistics") or k == "answer")
    serial = sum(seconds.get(k, 0.0) for k in ("reading corpus and judgments", "store (hashes, files)", "rendering",
                                                 "command line, rest"))  # fmt: skip
    return stats / configurations, serial, configurations


def load_seconds(throughput: dict[str, Any] | None, dataset: str, segmenter: str) -> float:
    """Seconds to build ``segmenter`` (load its model) as ``benchmarks.segmenters`` measured it
    (key ``segmenter_throughput``), 0 where not measured."""
    pair = ((throughput or {}).get("pairs") or {}).get(dataset.rsplit("/", 1)[-1], {})
    for name, found in pair.items():
        if name == segmenter or name.startswith(segmenter + ","):
            return float(found.get("load_seconds", 0.0))
    return 0.0


def longest_scoring_task(metric_cpu_seconds: dict[str, float], systems: int) -> float:
    """CPU seconds of the longest scoring task of one segmenter (:func:`metaeval.scoring.chunk_plan`):
    one system's scoring with the metrics that split systems apart, or every system's with the others."""
    from metaeval.metrics import get_metric

    split = sum(v for m, v in metric_cpu_seconds.items() if get_metric(m).split_systems)
    return max(split / systems, sum(metric_cpu_seconds.values()) - split)


def study_model(costs: dict[str, Any], stages: dict[str, Any], throughput: dict[str, Any] | None = None) -> dict[str, Any]:
    """CPU seconds, the longest task and memory of the study, per dataset and in all."""
    stats_per_config, serial, _ = per_configuration(stages)
    start = stages["stages_cpu_seconds"].get("imports", 0.0) + sum(
        v for k, v in stages["stages_cpu_seconds"].items() if k.startswith("kernels "))
    datasets = {}
    for dataset, segs in costs["datasets"].items():
        segmentation = sum(s["segmentation_cpu_seconds"] for s in segs.values())
        scoring = sum(v for s in segs.values() for m, v in s["metric_cpu_seconds"].items() if m != "chrf")
        scoring += max(s["metric_cpu_seconds"]["chrf"] for s in segs.values())
        configurations = len(segs) * len(costs["metrics"])
        systems = max(1, round(next(iter(segs.values()))["pairs"] / 634))
        longest = max(longest_scoring_task(s["metric_cpu_seconds"], systems) for s in segs.values())
        base = min(s["peak_rss_mb"] - s["segmenter_rss_mb"] for s in segs.values())
        datasets[dataset] = {
            "segmenters": len(segs), "configurations": configurations, "segmentation": segmentation, "scoring": scoring,
            "statistics": stats_per_config * configurations, "serial": serial, "longest_task": longest,
            "worker_mb_keeping_models": base + sum(max(0.0, s["segmenter_rss_mb"]) for s in segs.values()),
            "worker_mb_one_model": max(s["peak_rss_mb"] for s in segs.values()),
            "largest_model": max(segs, key=lambda name: segs[name]["segmenter_rss_mb"]),
            "models_mb": sum(max(0.0, s["segmenter_rss_mb"]) for s in segs.values()), "base_mb": base,
            "loads": sum(load_seconds(throughput, dataset, name) for name in segs),
        }  # fmt: skip
    parallel = sum(d["segmentation"] + d["scoring"] + d["statistics"] for d in datasets.values())
    serial_all = sum(d["serial"] for d in datasets.values())
    longest = max(d["longest_task"] for d in datasets.values())
    loads = sum(d["loads"] for d in datasets.values())
    # with W workers, each loads the models it uses: W - 1 loads more than the one in the measured costs
    times = {w: serial_all + max(parallel / w, longest) + start + (loads if w > 1 else 0.0) for w in WORKERS}
    worker_mb = min(d["base_mb"] for d in datasets.values()) + sum(d["models_mb"] for d in datasets.values())
    return {"datasets": datasets, "parallel_cpu_seconds": parallel, "serial_cpu_seconds": serial_all,
            "worker_start_cpu_seconds": start, "longest_task_cpu_seconds": longest, "seconds": times,
            "stats_per_configuration": stats_per_config, "model_loads_seconds": loads, "worker_mb": worker_mb,
            "divides_until": parallel / longest}  # fmt: skip


def measure_curve(repeat: int) -> dict[str, Any]:
    """Wall and CPU seconds of the curve's study on a LocalCluster of 1 and 2 workers, alternated."""
    load = os.getloadavg()
    rounds: list[dict[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "curve.toml"
        spec.write_text(CURVE_SPEC, encoding="utf-8")
        for _ in range(repeat):
            entry = {}
            for workers in (1, 2):
                code = (
                    "import subprocess, sys, distributed\n"
                    f"with distributed.LocalCluster(n_workers={workers}, threads_per_worker=1, processes=True, "
                    "dashboard_address=None) as c:\n"
                    f"    sys.exit(subprocess.run([sys.executable, '-m', 'metaeval', 'study', {str(spec)!r}, '-q', '--out', "
                    f"{str(Path(tmp) / 'out')!r} + str({workers}) + str(id(c)), '--data', {str(DATA)!r}, '--scheduler', "
                    "c.scheduler_address], stdout=subprocess.DEVNULL).returncode or print('{}'))\n"
                )
                started = time.perf_counter()
                cpu = python_json(["-c", code])[1]
                entry[str(workers)] = {"seconds": time.perf_counter() - started, "cpu_seconds": cpu}
            rounds.append(entry)
    median = {w: {k: statistics.median(r[w][k] for r in rounds) for k in ("seconds", "cpu_seconds")} for w in ("1", "2")}
    return {"load_average_1_5_15_at_start": list(load), "load_average_1_5_15_at_end": list(os.getloadavg()),
            "repeat": repeat, "rounds": rounds, "median": median, "cpus": os.cpu_count()}  # fmt: skip


def _gb(mb: float) -> str:
    return f"{mb / 1024:.1f} GB"


def document(results: dict[str, Any]) -> str:
    costs, stages, curve = results.get("task_costs"), results.get("stages"), results.get("cluster_curve")
    out = ["# Scaling a study", "",
           "<!-- generated by `python -m benchmarks.scaling` from benchmarks/results.json; do not edit -->", "",
           "What a large study costs, computed from measured task costs (`python -m benchmarks.task_costs`, key",
           "`task_costs`; `python -m benchmarks.stages`, key `stages`), with the model in `benchmarks/scaling.py`.",
           "The study: every WMT24 language pair with a CJK target whose human judgments are in the shared data",
           "(English→Chinese, English→Japanese; WMT24's Japanese→Chinese has no ESA judgments there) × every offline",
           "segmenter of the target language × BLEU, NIST, METEOR, GTM, 1−TER, chrF × the default statistics with",
           "1000 bootstrap resamples.", ""]  # fmt: skip
    if not costs or not stages:
        return "\n".join(out + ["Not measured yet: run `python -m benchmarks.task_costs` and `python -m benchmarks.stages`."]) + "\n"
    model = study_model(costs, stages, results.get("segmenter_throughput"))
    out += ["## Measured task costs", "",
            f"CPU seconds on this 2-core machine (load average {costs['load_average_1_5_15_at_start'][0]:.1f} at the start: "
            "other work on the machine inflates CPU seconds somewhat; the ratios between rows hold better). Segmentation "
            "includes loading the model; scoring is every (system, segment) pair of the dataset, without reuse; memory is "
            "the peak resident size of a process that read the corpus, segmented it and scored it.", "",
            "| dataset | segmenter | segmentation | BLEU | NIST | METEOR | GTM | 1−TER | chrF | peak memory |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for dataset, segs in costs["datasets"].items():
        for name, s in segs.items():
            m = s["metric_cpu_seconds"]
            out.append(f"| {dataset} | `{name}` | {s['segmentation_cpu_seconds']:.2f} | {m['bleu']:.2f} | {m['nist']:.2f} | "
                       f"{m['meteor']:.2f} | {m['gtm']:.2f} | {m['1-ter']:.2f} | {m['chrf']:.2f} | {s['peak_rss_mb']:.0f} MB |")
    out += ["", f"Statistics: {model['stats_per_configuration']:.3f} CPU-s per configuration (both ESA kinds, 1000 resamples, "
            "every default statistic), from the fixed workload's 24 configurations on 634 segments × 12 systems; "
            f"the main process's serial work (reading, store, rendering) {model['serial_cpu_seconds'] / 2:.2f} CPU-s per dataset; "
            f"a worker's start (imports, numba, compiled kernels) {model['worker_start_cpu_seconds']:.2f} CPU-s.", ""]
    out += ["## The study on 1, 8 and 64 workers", "",
            "| dataset | segmenters | configurations | segmentation | scoring | statistics | longest task | worker memory, keeping every model | one model at a time |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for dataset, d in model["datasets"].items():
        out.append(f"| {dataset} | {d['segmenters']} | {d['configurations']} | {d['segmentation']:.1f} CPU-s | "
                   f"{d['scoring']:.1f} CPU-s | {d['statistics']:.1f} CPU-s | {d['longest_task']:.2f} CPU-s | "
                   f"{_gb(d['worker_mb_keeping_models'])} | {_gb(d['worker_mb_one_model'])} (`{d['largest_model']}`) |")
    out += ["", f"In all {model['parallel_cpu_seconds']:.0f} CPU-s of work that divides over workers and "
            f"{model['serial_cpu_seconds']:.1f} CPU-s in the main process. Time = serial + max(work / W, longest task) "
            f"+ a worker's start + (with more than one worker) each worker's own model loads, "
            f"{model['model_loads_seconds']:.1f} s for every model of both languages "
            "(`benchmarks.segmenters`' load times, key `segmenter_throughput`):", "",
            "| workers | time | of which serial, start and model loads | memory (workers keep their models) |",
            "|---:|---:|---:|---:|"]  # fmt: skip
    worker_mb = model["worker_mb"]
    for w, seconds in model["seconds"].items():
        fixed = seconds - max(model["parallel_cpu_seconds"] / w, model["longest_task_cpu_seconds"])
        out.append(f"| {w} | {seconds:.0f} s | {fixed / seconds:.0%} | {_gb(w * worker_mb)} ({_gb(worker_mb)} a worker) |")
    out += ["", f"The work divides until about {model['divides_until']:.0f} workers (work over the longest single task, "
            "a scoring task at character level: one system's TER and METEOR, or every system's other metrics); long before that, the parts that do not "
            "divide (the main process, each worker's start and model loads) are most of the time. Memory grows with "
            "the workers, since each keeps the models it loaded (the Chinese and Japanese ones, for a worker that "
            "served both datasets); a Dask worker per machine with several threads would share them.", ""]
    out += ["## Measured: one study on a LocalCluster", "",
            "`python -m benchmarks.scaling --curve`: `metaeval study` of WMT24 en-zh (char and jieba; BLEU, 1−TER, chrF; "
            "1000 resamples) on a `distributed.LocalCluster` of 1 and 2 worker processes, alternated.", ""]
    if curve:
        m = curve["median"]
        out += ["| workers | wall time | CPU seconds (all processes) |", "|---:|---:|---:|",
                f"| 1 | {m['1']['seconds']:.1f} s | {m['1']['cpu_seconds']:.1f} |",
                f"| 2 | {m['2']['seconds']:.1f} s | {m['2']['cpu_seconds']:.1f} |", "",
                f"Speed-up {m['1']['seconds'] / m['2']['seconds']:.2f}× on 2 workers (load average "
                f"{curve['load_average_1_5_15_at_start'][0]:.2f} at the start, medians of {curve['repeat']})."]
    else:
        out.append("Not yet measured on a quiet machine (wall-clock figures taken under other load are not recorded).")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curve", action="store_true", help="measure the LocalCluster curve first")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    if args.curve:
        curve = measure_curve(args.repeat)
        m = curve["median"]
        print(f"LocalCluster: 1 worker {m['1']['seconds']:.1f} s, 2 workers {m['2']['seconds']:.1f} s "
              f"(load average {curve['load_average_1_5_15_at_start'][0]:.2f})")
        if curve["load_average_1_5_15_at_start"][0] < QUIET_LOAD:
            update_key("cluster_curve", curve, args.out)
        else:
            print("not stored: the machine was not quiet")
    DOC.write_text(document(read_results(args.out)), encoding="utf-8")
    print(f"written: {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
