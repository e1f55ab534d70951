"""Time limits of tests that start processes, scaled by how slow this machine is now.

Every limit in the tests is written for an idle 2-core machine running the tests without coverage.
:func:`slowdown` measures how much longer starting a command takes here and now: the wall-clock
seconds a fresh interpreter takes to import what a ``metaeval`` command imports (the median of
three starts), over :data:`IDLE_START_SECONDS`. Other processes' load, coverage measurement (it
runs in every process the tests start) and a slower CPU all raise it; it is never below 1.

:func:`scaled` multiplies a limit by it. :func:`run` and :func:`communicate` wait that long for a
process and fail with one message naming the command, the limit and the slowdown; :func:`popen`
starts a process once the slowdown is measured, so that the process does not slow the measurement.
:func:`within` checks a duration against a scaled limit and, before failing, measures the slowdown
again (the load changes during a long test run).

A Python process started by :func:`run` or :func:`popen` has :mod:`faulthandler` on
(``PYTHONFAULTHANDLER``); one still running at its limit is sent SIGABRT first, so that the
failure shows where each of its threads was (a hang and a slow machine look alike otherwise),
then killed.
"""

from __future__ import annotations

import os
import shlex
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NoReturn, Sequence

import pytest

REPO = Path(__file__).resolve().parents[1]
#: what a ``metaeval run`` imports before it reads data
START = "import metaeval.cli, numpy, pandas"
#: wall-clock seconds of ``python -c START`` on the idle 2-core machine the limits were written
#: for: its user + system time there, 0.38 to 0.57 CPU-s in 14 starts (a process with a core to
#: itself takes its CPU time)
IDLE_START_SECONDS = 0.45

_measured: list[float] = []


def start_seconds() -> float:
    """Wall-clock seconds of a fresh interpreter importing :data:`START` now: the median of three."""
    times = []
    for _ in range(3):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", START], cwd=REPO, check=True, capture_output=True, timeout=600)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def slowdown(*, again: bool = False) -> float:
    """How many times slower than the idle machine this one starts a command now (at least 1);
    measured once per test process, or again when ``again``."""
    if again or not _measured:
        _measured.append(start_seconds())
    return max(1.0, _measured[-1] / IDLE_START_SECONDS)


def scaled(seconds: float) -> float:
    """A limit written for the idle machine, for this one now."""
    return seconds * slowdown()


def _why(seconds: float, factor: float) -> str:
    starts = ", ".join(f"{t:.2f} s" for t in _measured)
    return (f"{seconds:g} s on an idle machine x {factor:.1f}, this machine's slowdown: a fresh interpreter "
            f"started in {starts} against {IDLE_START_SECONDS:g} s idle")


def _with_faulthandler(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with ``PYTHONFAULTHANDLER=1`` in the environment (a Python process then writes
    its threads' stacks on SIGABRT; other programs ignore it)."""
    env = dict(kwargs.get("env") if kwargs.get("env") is not None else os.environ)
    env.setdefault("PYTHONFAULTHANDLER", "1")
    return {**kwargs, "env": env}


def run(argv: Sequence[Any], *, timeout: float, input: Any = None, capture_output: bool = False, check: bool = False,
        **kwargs: Any) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, **kwargs)`` given ``scaled(timeout)`` seconds; a process still
    running then is stopped as :func:`communicate` does and the test fails with one message."""
    if capture_output:
        kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with popen(argv, **kwargs) as process:
        out, err = communicate(process, timeout=timeout, input=input)
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if check:
        done.check_returncode()
    return done


#: The variable through which coverage.py measures the Python processes a test starts.
COVERAGE_CHILD = "COVERAGE_PROCESS_CONFIG"


def popen(argv: Sequence[Any], *, interrupted: bool = False, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen(argv, **kwargs)``, once the slowdown is measured (so that the
    measurement does not include this process's own load).

    ``interrupted``: the test will send the process SIGINT or SIGTERM, so coverage.py does not
    measure it. Its tracer takes a lock in Python code (``Collector.lock_data``), and the
    ``KeyboardInterrupt`` a signal handler raises between the lock's acquisition and its
    release leaves it held: the process then blocks at its next traced call for ever (seen
    once in 250 runs under load, with the stack ``lock_data`` <- ``metaeval.compute.workers``)."""
    slowdown()
    kwargs = _with_faulthandler(kwargs)
    if interrupted:
        kwargs["env"] = {k: v for k, v in kwargs["env"].items() if k != COVERAGE_CHILD}
    return subprocess.Popen([str(a) for a in argv], **kwargs)


def communicate(process: subprocess.Popen, *, timeout: float, input: Any = None) -> tuple[Any, Any]:
    """``process.communicate()`` given ``scaled(timeout)`` seconds; a process still running then is
    sent SIGABRT (its threads' stacks, where faulthandler is on), killed, and the test fails with
    one message and those stacks."""
    limit = scaled(timeout)
    try:
        return process.communicate(input=input, timeout=limit)
    except subprocess.TimeoutExpired:
        stacks = ""
        try:
            process.send_signal(signal.SIGABRT)
            _, err = process.communicate(timeout=30)
            stacks = err if isinstance(err, str) else (err or b"").decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            pass
        process.kill()
        process.communicate()
        _timed_out(process.args, limit, timeout, stacks)


def within(elapsed: float, seconds: float, what: str) -> None:
    """Fail unless ``elapsed`` is at most ``scaled(seconds)``; the slowdown is measured again
    before failing, and the larger of the two is used."""
    if elapsed <= scaled(seconds):
        return
    factor = max(slowdown(), slowdown(again=True))
    if elapsed > seconds * factor:
        pytest.fail(f"{what} took {elapsed:.1f} s, over {seconds * factor:.1f} s ({_why(seconds, factor)})", pytrace=False)


def _timed_out(argv: Any, limit: float, timeout: float, stacks: str = "") -> NoReturn:
    text = shlex.join(map(str, argv)) if isinstance(argv, (list, tuple)) else str(argv)
    shown = text if len(text) <= 300 else text[:297] + "..."
    message = f"{shown} did not end within {limit:.0f} s ({_why(timeout, slowdown())}): it hangs, or the machine is slower still now"
    if "Fatal Python error" in stacks:
        message += "\nwhere its threads were at the limit (SIGABRT, faulthandler):\n" + stacks[stacks.index("Fatal Python error"):][-6000:]
    pytest.fail(message, pytrace=False)
