"""Where a metaeval command's CPU time goes, in every process it starts: a per-thread sampler.

    python -m benchmarks.sampled --out DIR -- run DATASET [OPTION ...]
    python -m benchmarks.sampled --report DIR

The first form runs ``metaeval ARG ...`` in this process with a sampler thread in it and in
every process forked from it (pool workers, forked segmentations): every 5 ms the sampler reads
each other thread's CPU clock and adds what it used since the last sample to the Python stack
the thread is on at that moment. Each process writes its samples to ``DIR/<pid>.json`` when
it ends. The second form adds them up by stage (:data:`STAGES`: the first rule whose text
occurs in a frame of the stack names it) and prints a table, with each process's total.

A sample is a thread's CPU time since the last sample, put on one stack: work that waits for
the GIL, or ends between two samples, can land on the stack seen next (a 6 ms ``np.full`` once
looked like seconds). Use it for where the time goes, and a timed A/B
(:mod:`benchmarks.ab`, :mod:`benchmarks.metric_ab`) for how much a change saves.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

#: ``(text in a frame's "file:function", stage)``, first match wins; the rest is ``other``.
STAGES = (
    ("tercom", "TER"), ("meteor.py", "METEOR"), ("pkuseg", "pkuseg"), ("feature_index", "pkuseg"),
    ("jieba", "jieba"), ("mecab", "MeCab"), ("fugashi", "MeCab"), ("gtm.py", "GTM"),
    ("ngrams.py", "n-gram matching (BLEU, NIST, chrF)"), ("chance.py", "statistics: chance levels"),
    ("_items_on", "statistics"), ("evaluate.py", "statistics"), ("significance.py", "statistics"),
    ("cache.py:", "segmentation cache"),
    ("connection.py", "between processes"), ("reduction.py", "between processes"),
    ("_segment", "other segmentation"), ("<module>", "imports"),
)  # fmt: skip

#: Seconds between two samples.
INTERVAL = 0.005


def frame_name(frame: Any) -> str:
    """``file:function`` of a frame (the file's base name)."""
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}"


def stack_of(frame: Any) -> tuple[str, ...]:
    """The frames of a stack, innermost first, up to the first of this module's: the frames of
    :func:`run` and of what called it are the same in every sample, and a process that is
    ending is in this module's exit hook."""
    out = []
    while frame is not None and frame.f_code.co_filename != __file__:
        out.append(frame_name(frame))
        frame = frame.f_back
    return tuple(out)


def stage_of(stack: tuple[str, ...] | list[str]) -> str:
    """The stage of a stack: the first rule of :data:`STAGES` whose text occurs in one of its frames."""
    for text, stage in STAGES:
        if any(text in frame for frame in stack):
            return stage
    return "other"


class Sampler:
    """The sampler thread of one process; :meth:`stop` writes its samples to ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.samples: Counter[tuple[str, ...]] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sampler", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        me = threading.get_ident()
        last: dict[int, float] = {}
        while not self._stop.is_set():
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                try:
                    used = time.clock_gettime(time.pthread_getcpuclockid(ident))
                except (OSError, ProcessLookupError):  # the thread ended
                    continue
                if used > last.get(ident, used):
                    self.samples[stack_of(frame)] += used - last[ident]
                last[ident] = used
            time.sleep(INTERVAL)

    def stop(self) -> None:
        """End sampling and write ``<pid>.json``: ``[[stack], seconds]`` per distinct stack."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        rows = [[list(stack), seconds] for stack, seconds in self.samples.items()]
        (self.folder / f"{os.getpid()}.json").write_text(json.dumps(rows), encoding="utf-8")


def run(folder: Path, argv: list[str]) -> int:
    """``metaeval ARGV`` in this process, sampled here and in every process forked from it."""
    import multiprocessing.util

    folder.mkdir(parents=True, exist_ok=True)
    current: list[Sampler] = []

    def begin() -> None:
        current[:] = [Sampler(folder)]

    def end() -> None:
        if current:
            current[0].stop()

    os.register_at_fork(after_in_child=begin)
    # a pool worker leaves through multiprocessing's exit function and os._exit, not atexit
    exit_function = multiprocessing.util._exit_function

    def on_exit(*args: Any, **kwargs: Any) -> Any:
        end()
        return exit_function(*args, **kwargs)

    multiprocessing.util._exit_function = on_exit  # type: ignore[assignment]
    atexit.register(end)
    begin()
    from metaeval.cli import main

    try:
        code = main(argv)
    finally:
        end()
    return int(code or 0)


def report(folder: Path) -> tuple[Counter[str], dict[str, float]]:
    """CPU seconds by stage over every process of ``folder``, and each process's total."""
    stages: Counter[str] = Counter()
    processes: dict[str, float] = {}
    for path in sorted(folder.glob("*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))
        processes[path.stem] = sum(seconds for _, seconds in rows)
        for stack, seconds in rows:
            stages[stage_of(stack)] += seconds
    return stages, processes


def report_text(stages: Counter[str], processes: dict[str, float]) -> str:
    """The table of :func:`report`: stage, CPU seconds, share; then the processes."""
    total = sum(stages.values())
    lines = [f"{len(processes)} processes, {total:.1f} CPU-s sampled", "", "| stage | CPU-s | share |", "|---|---:|---:|"]
    lines += [f"| {stage} | {seconds:.1f} | {seconds / total:.0%} |" for stage, seconds in stages.most_common()] if total else []
    lines += ["", "processes (pid: CPU-s): " + ", ".join(f"{pid}: {seconds:.1f}" for pid, seconds in processes.items())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="folder for the samples of every process (run a command)")
    parser.add_argument("--report", type=Path, help="folder of samples to add up by stage")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then metaeval's arguments")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.report is not None:
        if not args.report.is_dir():
            parser.error(f"--report {args.report}: no such folder")
        print(report_text(*report(args.report)))
        return 0
    if args.out is None or not command:
        parser.error("give --out DIR -- COMMAND, or --report DIR")
    code = run(args.out, command)
    print(report_text(*report(args.out)))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
