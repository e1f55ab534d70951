"""Whole-run speed and memory: cold and warm ``metaeval run`` against single-process segmentation.

    python -m benchmarks.scale [--dataset wmt24-esa/en-zh] [--jobs 0] [--repeat 3]

In one command, on the same data, each in a fresh process, ``--repeat`` rounds in turn (so a
change of the machine's speed during the command reaches every measure alike):

1. the single-process segmentation floor: import the segmenters and segment every unique text
   of the corpus once with each default segmenter (models loaded inside the timing);
2. ``metaeval run CORPUS --cache-dir <empty folder>`` (cold), timed;
3. the same command again (warm: segmentations and statistics come from the cache), timed;
4. the cold command into another empty folder, with the peak memory of its process tree
   sampled every 50 ms, as the sum of resident sizes (RSS, shared pages counted in every
   process) and as the sum of proportional sizes (PSS, a page shared by k processes counts
   1/k). Memory is taken in a run of its own because the sampling costs the run time: reading
   ``smaps_rollup`` walks the page tables of processes of a gigabyte each, on the same 2 CPUs;
   alternated, the same cold run took 20.3 and 18.1 s sampled, 16.0 and 16.2 s not;
5. the cold command with ``--jobs 1`` into another empty folder: all of the run's work in one
   process. Its CPU seconds divided by the machine's CPUs is a floor no parallel run can beat
   (a parallel run does the same work, plus the cost of its processes); stored as
   ``lower_bound_seconds``, with ``non_segmentation_cpu_seconds`` (that CPU time less the
   segmentation floor) and the most that work may take for the cold run to reach 0.75x the
   segmentation floor on this machine (``0.75 * cpus * floor - floor``).

Times and CPU seconds are the medians of the rounds, peak memory the largest of the sampled
runs (given with the cold run's figures); every round is kept under ``rounds``. Prints every
row with its ratio and stores them under the key ``scale`` of ``benchmarks/results.json``
(read, update that key only, atomic replace). The load average of the machine at measurement
time is recorded with them.
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
from pathlib import Path

from benchmarks.bench import DATA, REPO, check_arguments
from benchmarks.store import update_key
from benchmarks.targets import work_bound

KEY = "scale"


def _tree(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as handle:
                    stack += [int(c) for c in handle.read().split()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return out


def _memory_kb(pid: int) -> tuple[int, int]:
    """(sum of RSS, sum of PSS) over the process tree of ``pid``, from /proc (Linux)."""
    rss = pss = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup", encoding="ascii") as handle:
                for line in handle:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1])
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return rss, pss


def measured_run(argv: list[str], memory: bool = True) -> dict[str, float]:
    """Wall time, CPU time and (``memory``) peak memory of ``python -m metaeval ARGV`` in a
    fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen([sys.executable, "-m", "metaeval", *argv], stdout=subprocess.DEVNULL,
                                 stderr=errors, cwd=REPO)
        peak_rss = peak_pss = 0
        while memory and child.poll() is None:
            rss, pss = _memory_kb(child.pid)
            peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
            time.sleep(0.05)
        child.wait()
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if child.returncode != 0:
            errors.seek(0)
            raise RuntimeError(f"metaeval {' '.join(argv)} failed: {errors.read().decode(errors='replace').strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    measured = {"seconds": seconds, "cpu_seconds": cpu}
    if memory:
        measured |= {"peak_rss_mb": peak_rss / 1024, "peak_pss_mb": peak_pss / 1024}
    return measured


def run_command(corpus: Path, jobs: str, cache: str) -> list[str]:
    """``metaeval run`` of ``corpus`` with ``--jobs`` and ``--cache-dir``, JSON output, no progress bar."""
    return ["run", str(corpus), "--format", "json", "--quiet", "--jobs", jobs, "--cache-dir", cache]


def segmentation_floor(corpus: Path, names: list[str]) -> float:
    code = (
        "import json,time\nfrom metaeval import corpora\n"
        f"c,_=corpora.read({str(corpus)!r})\n"
        "texts=list(dict.fromkeys([t for r in c.refs_list() for t in r]+[t for h in c.systems.values() for t in h]))\n"
        "t=time.perf_counter()\nfrom metaeval import segmenters\n"
        f"[segmenters.get(n).segment_many(texts) for n in {names!r}]\n"
        "print(json.dumps({'seconds':time.perf_counter()-t}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]


def _summary(runs: list[dict[str, float]]) -> dict[str, float]:
    """Median time and CPU seconds of ``runs``, largest peak memory."""
    return {name: (max if name.startswith("peak_") else statistics.median)(r[name] for r in runs) for name in runs[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="wmt24-esa/en-zh")
    parser.add_argument("--jobs", default="0")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of (floor, cold, warm, one process), taken in turn")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    check_arguments(parser, [args.dataset])
    from metaeval.api import default_segmenters

    corpus = DATA / args.dataset
    names = list(default_segmenters("zh" if "zh" in args.dataset else "ja"))
    load = os.getloadavg()
    rounds = []
    for _ in range(args.repeat):
        floor = segmentation_floor(corpus, names)
        with tempfile.TemporaryDirectory() as cache:
            cold = measured_run(run_command(corpus, args.jobs, cache), memory=False)
            warm = measured_run(run_command(corpus, args.jobs, cache), memory=False)
        with tempfile.TemporaryDirectory() as cache:
            sampled = measured_run(run_command(corpus, args.jobs, cache))
        with tempfile.TemporaryDirectory() as cache:
            serial = measured_run(run_command(corpus, "1", cache), memory=False)
        rounds.append({"segmentation_floor_seconds": floor, "cold": cold, "warm": warm, "cold_memory_sampled": sampled,
                       "one_process": serial})
    floor = statistics.median(r["segmentation_floor_seconds"] for r in rounds)
    cold, warm, sampled, serial = (_summary([r[name] for r in rounds])
                                   for name in ("cold", "warm", "cold_memory_sampled", "one_process"))
    cold |= {name: value for name, value in sampled.items() if name.startswith("peak_")}
    cpus = os.cpu_count() or 1
    bound = work_bound(floor, serial["cpu_seconds"], cpus)
    entry = {
        "dataset": args.dataset,
        "segmenters": names,
        "jobs": args.jobs,
        "cpus": cpus,
        "load_average_1_5_15_at_start": list(load),
        "load_average_1_5_15_at_end": list(os.getloadavg()),
        "segmentation_floor_seconds": floor,
        "cold": cold,
        "warm": warm,
        "ratio_cold_to_segmentation": cold["seconds"] / floor,
        "ratio_warm_to_cold": warm["seconds"] / cold["seconds"],
        "one_process": serial,
        **bound,
        "repeat": args.repeat,
        "rounds": rounds,
    }
    update_key(KEY, entry, args.out)
    print(f"medians of {args.repeat} rounds; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("| measure | value | ratio | target |\n|---|---|---|---|")
    print(f"| metaeval run {args.dataset}, defaults, cold | {cold['seconds']:.1f} s (segmentation alone {floor:.1f} s) "
          f"| {entry['ratio_cold_to_segmentation']:.2f}x single-process segmentation | <= 0.75x |")
    print(f"| lower bound on {cpus} CPUs | {bound['lower_bound_seconds']:.1f} s ({serial['cpu_seconds']:.1f} CPU-s in one process / {cpus}) "
          f"| {entry['ratio_lower_bound_to_segmentation']:.2f}x single-process segmentation | - |")
    print(f"| work besides segmentation | {entry['non_segmentation_cpu_seconds']:.1f} CPU-s "
          f"| 0.75x needs at most {entry['non_segmentation_cpu_seconds_allowed_by_target']:.1f} CPU-s here | - |")
    print(f"| same, second run with the cache | {warm['seconds']:.2f} s | {100 * entry['ratio_warm_to_cold']:.1f}% of cold | <= 10% |")
    print(f"| peak memory of the default run | RSS sum {cold['peak_rss_mb']:.0f} MB, PSS sum {cold['peak_pss_mb']:.0f} MB "
          f"| {cold['peak_pss_mb'] / 1536:.2f}x the 1.5 GB target (PSS) | <= 1.5 GB |")
    print(f"written: {args.out} [{KEY}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
