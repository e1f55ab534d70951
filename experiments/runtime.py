"""The runtime record of an experiment (``runtime.json``): a run from an empty store and a rerun.

Both experiments run a study whose computed pieces stay in ``OUT/store``, so a second run reads
them instead of computing them again; its time is recorded beside that of the run that started
from an empty store, never in its place.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from metaeval.report.files import write_atomic


def store_is_empty(store: Path) -> bool:
    """Whether the store folder holds no file yet (the run computes everything)."""
    return not (store.is_dir() and any(p.is_file() for p in store.rglob("*")))


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its finished worker processes."""
    import resource

    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))  # fmt: skip


def write_runtime(path: Path, seconds: float, cold: bool, record: dict, measured: dict | None = None) -> None:
    """``seconds``: the last run from an empty store; ``warm_seconds``: the last run that found
    the store filled (kept only while it follows the recorded cold run on the same datasets).
    ``measured`` (CPU seconds, load average at the start) is stored under the same prefix."""
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = {}
    measured = measured or {}
    if cold:
        out = {"seconds": round(seconds, 1), **record, **measured}
    elif previous.get("datasets") == record["datasets"] and "seconds" in previous:
        kept = {k: v for k, v in previous.items() if k not in record and not k.startswith("warm_")}
        out = {**kept, **record, "warm_seconds": round(seconds, 1), **{f"warm_{k}": v for k, v in measured.items()}}
    else:
        out = {"seconds": round(seconds, 1), **record, "warm_seconds": round(seconds, 1), **{f"warm_{k}": v for k, v in measured.items()}}
    write_atomic(path, json.dumps(out, indent=1) + "\n", overwrite=True)


class Clock:
    """One run of an experiment, timed from its start: wall clock, the load average and whether
    the store was empty (a cold run) are taken when it is made; :meth:`write` records the run."""

    def __init__(self, store: Path) -> None:
        self.started = time.perf_counter()
        self.load = round(os.getloadavg()[0], 1)
        self.cold = store_is_empty(store)

    def write(self, path: Path, record: dict) -> None:
        """:func:`write_runtime` of this run with its CPU seconds and load average at the start."""
        measured = {"cpu_seconds": round(cpu_seconds(), 1), "load_average_at_start": self.load}
        write_runtime(path, time.perf_counter() - self.started, self.cold, record, measured)
