"""Where the cores of one parallel run wait: the machine's busy cores over time, beside the run's phases.

    python -m benchmarks.timeline [--interval 0.1] [--no-store]

The fixed workload's ``metaeval run`` (:mod:`benchmarks.workload`, default ``--jobs``, an empty
cache) runs in this process, through the command's own ``main``, with three things added: a
progress callback that records when each stage (``segmenting NAME``, ``scoring``,
``correlating``) was first and last reported; timers around the steps after the statistics
(significance clusters, the answer, the tie-free references); and a thread that reads the
machine's busy time (``/proc/stat``, Linux) every ``--interval`` seconds. It prints the phases
and every stretch in which fewer than all cores were busy, with its idle core-seconds, and stores
them under the key ``timeline`` of ``benchmarks/results.json``.

Other processes on the machine count as busy, and the interpreter's start (before this
module's ``measure``) is not seen: run it on a quiet machine, and read a stretch as where to look, with a
timed A/B (:mod:`benchmarks.ab`) for what a change saves.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from benchmarks import workload
from benchmarks.bench import DATA, REPO
from benchmarks.store import store_and_say

KEY = "timeline"
#: Steps after the statistics, timed by wrapping them: (module, attribute, phase).
STEPS = (
    ("metaeval.stats.clusters", "add_clusters", "significance clusters"),
    ("metaeval.answer", "answer", "answer"),
    ("metaeval.stats.evaluate", "tie_free_references", "tie-free references"),
)


def busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs together, from the first line of ``/proc/stat``."""
    with open("/proc/stat", encoding="ascii") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    return sum(values) - values[3] - values[4], sum(values)  # idle and iowait are not busy


def idle_stretches(samples: Sequence[tuple[float, float, float]], cpus: int) -> list[dict[str, float]]:
    """The stretches of consecutive samples ``(start, end, busy cores)`` with fewer than ``cpus``
    cores busy (by more than half a core), each with its start, end and idle core-seconds."""
    out: list[dict[str, float]] = []
    for start, end, busy in samples:
        if busy > cpus - 0.5:
            continue
        idle = (cpus - busy) * (end - start)
        if out and abs(out[-1]["end"] - start) < 1e-9:
            out[-1]["end"] = end
            out[-1]["idle_core_seconds"] += idle
        else:
            out.append({"start": start, "end": end, "idle_core_seconds": idle})
    return out


class Recorder:
    """Phases (first and last time seen) and busy-core samples of one run, in seconds from its start."""

    def __init__(self, interval: float) -> None:
        self.start = time.perf_counter()
        self.interval = interval
        self.phases: dict[str, list[float]] = {}
        self.samples: list[tuple[float, float, float]] = []
        self._stop = threading.Event()

    def now(self) -> float:
        return time.perf_counter() - self.start

    def seen(self, phase: str, at: float | None = None) -> None:
        at = self.now() if at is None else at
        first_last = self.phases.setdefault(phase, [at, at])
        first_last[1] = max(first_last[1], at)

    def progress(self, stage: str, done: int, total: int) -> None:
        self.seen(" ".join(stage.split()[:2]) if stage.startswith("segmenting") else stage.split()[0])

    def timed(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            begun = self.now()
            try:
                return function(*args, **kwargs)
            finally:
                self.seen(phase, begun)
                self.seen(phase)

        return wrapper

    def _sample(self, cpus: int) -> None:
        busy, total = busy_jiffies()
        last = self.now()
        while not self._stop.wait(self.interval):
            busy2, total2 = busy_jiffies()
            at = self.now()
            self.samples.append((last, at, cpus * (busy2 - busy) / max(1, total2 - total)))
            busy, total, last = busy2, total2, at

    @contextlib.contextmanager
    def sampling(self, cpus: int) -> Iterator[None]:
        thread = threading.Thread(target=self._sample, args=(cpus,), daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()


def measure(interval: float, dataset: str = workload.DATASET, segmenters: Sequence[str] = workload.SEGMENTERS,
            metrics: Sequence[str] = workload.METRICS) -> dict[str, Any]:
    """One run's phases and idle stretches (see the module docstring)."""
    import importlib

    import metaeval.cli.run as run_command
    from metaeval.cli import main

    cpus = os.cpu_count() or 1
    load = list(os.getloadavg())
    recorder = Recorder(interval)
    with tempfile.TemporaryDirectory(prefix="timeline-") as cache, contextlib.ExitStack() as undo:
        args = workload.run_arguments(DATA / dataset, "0", cache, segmenters=segmenters, metrics=metrics, quiet=False)
        progress = run_command.progress_bar
        run_command.progress_bar = lambda enabled: recorder.progress  # type: ignore[assignment]
        undo.callback(setattr, run_command, "progress_bar", progress)
        for module_name, attribute, phase in STEPS:
            module = importlib.import_module(module_name)
            original = getattr(module, attribute)
            setattr(module, attribute, recorder.timed(phase, original))
            undo.callback(setattr, module, attribute, original)
        with recorder.sampling(cpus), open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            status = main(args)
        wall = recorder.now()
    if status != 0:
        raise SystemExit(f"timeline: metaeval run exited with {status}")
    stretches = idle_stretches(recorder.samples, cpus)
    return {
        "dataset": dataset, "segmenters": list(segmenters), "metrics": list(metrics), "cpus": cpus,
        "interval_seconds": interval, "wall_seconds": wall, "load_average_1_5_15_at_start": load,
        "phases": {name: {"first": a, "last": b} for name, (a, b) in sorted(recorder.phases.items(), key=lambda kv: kv[1][0])},
        "idle_stretches": stretches, "idle_core_seconds": sum(s["idle_core_seconds"] for s in stretches),
    }  # fmt: skip


def report(entry: dict[str, Any]) -> str:
    lines = [f"{entry['dataset']}, {entry['cpus']} CPUs, wall {entry['wall_seconds']:.2f} s "
             f"(load average at the start {entry['load_average_1_5_15_at_start'][0]:.2f})", "phases (s from the start):"]  # fmt: skip
    lines += [f"  {p['first']:6.2f} - {p['last']:6.2f}  {name}" for name, p in entry["phases"].items()]
    lines.append(f"stretches with fewer than {entry['cpus']} cores busy (idle core-seconds):")
    lines += [f"  {s['start']:6.2f} - {s['end']:6.2f}  {s['idle_core_seconds']:.2f}" for s in entry["idle_stretches"]]
    lines.append(f"idle core-seconds in all: {entry['idle_core_seconds']:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between two readings of /proc/stat")
    parser.add_argument("--no-store", action="store_true", help="print only")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    if not os.path.exists("/proc/stat"):
        raise SystemExit("timeline: needs /proc/stat (Linux)")
    entry = measure(args.interval)
    print(report(entry))
    store_and_say(KEY, entry, args.out, store=not args.no_store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
