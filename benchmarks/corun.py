"""What a second busy core costs this one: the CPU seconds of the same one-process run, alone
and beside a copy of itself.

    python -m benchmarks.corun [--repeat 3] [--no-store]

The fixed workload (:mod:`benchmarks.workload`) with ``--jobs 1`` runs alone, then as two
copies at once (each with an empty cache of its own), in turn ``--repeat`` times. A round's
factor is the mean CPU seconds of the two copies over the CPU seconds of the run alone taken
just before; the figure is the median of the rounds' factors.

Every run that uses both cores pays this factor on the work they do at once (both vCPUs share
the host's caches and memory bandwidth), so the parallel efficiency of
:mod:`benchmarks.cpu_targets` (wall seconds with two processes over the one-process CPU seconds
/ 2) is at least the factor, whatever the code does: two processes busy the whole time do the
one-process work in ``factor`` times its CPU seconds. The entry goes under the key ``corun``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from benchmarks import workload
from benchmarks.bench import DATA, REPO
from benchmarks.store import store_and_say

KEY = "corun"
#: A factor up to this is read as no cost: three rounds of the same runs moved by about 2%.
NEGLIGIBLE = 1.03


def _cpu_seconds(children: list[subprocess.Popen]) -> list[float]:
    """CPU seconds (user + system) of each of ``children``, waited for in turn."""
    out = []
    for child in children:
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise RuntimeError(f"metaeval {' '.join(child.args[3:])} failed with exit code {child.returncode}")
        out.append(usage.ru_utime + usage.ru_stime)
    return out


def _runs(copies: int) -> list[float]:
    """CPU seconds of each of ``copies`` one-process runs of the fixed workload started at once."""
    with tempfile.TemporaryDirectory(prefix="corun-") as tmp:
        corpus = DATA / workload.DATASET
        children = [subprocess.Popen([sys.executable, "-m", "metaeval",
                                      *workload.run_arguments(corpus, "1", os.path.join(tmp, str(k)))],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
                    for k in range(copies)]  # fmt: skip
        return _cpu_seconds(children)


def measure(repeat: int) -> dict[str, Any]:
    """The rounds (alone, then two at once) and the median of their factors."""
    load = os.getloadavg()
    rounds = []
    for _ in range(repeat):
        alone = _runs(1)[0]
        pair = _runs(2)
        rounds.append({"alone_cpu_seconds": alone, "beside_cpu_seconds": pair, "factor": statistics.mean(pair) / alone})
    return {"cpus": os.cpu_count() or 1, "repeat": repeat, "load_average_1_5_15_at_start": list(load),
            "rounds": rounds, "factor": statistics.median(r["factor"] for r in rounds),
            "measured_at": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}  # fmt: skip


def text(entry: dict[str, Any]) -> str:
    """One line: the factor and its rounds."""
    each = ", ".join(f"{r['factor']:.3f}" for r in entry["rounds"])
    alone = statistics.median(r["alone_cpu_seconds"] for r in entry["rounds"])
    return (f"one-process run {alone:.1f} CPU-s alone; beside a copy of itself: {entry['factor']:.3f}x "
            f"(rounds {each}; load average {entry['load_average_1_5_15_at_start'][0]:.2f} at the start)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-store", action="store_true", help="print only; benchmarks/results.json unchanged")
    args = parser.parse_args(argv)
    entry = measure(args.repeat)
    print(text(entry))
    store_and_say(KEY, entry, REPO / "benchmarks" / "results.json", not args.no_store)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
