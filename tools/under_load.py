"""Run the slow tests that start processes several rounds in a row under a CPU load on every core,
and count passes and failures.

    python tools/under_load.py [--rounds 5] [--no-cov] [--out FILE] [TEST ...]

For the whole check one busy loop per CPU runs at normal priority, as other jobs on a shared CI
machine would. Each round is one ``python -m pytest`` run of the tests (by default
:data:`SLOW_PROCESS_TESTS`: those that start ``metaeval`` or Python processes, wait for them with
time limits and take seconds each), with coverage measurement as the README's test command runs
them unless ``--no-cov`` (the data and pytest's temporary files go to a temporary folder). Before each round the slowdown that
scales the tests' limits (``tests/timing.py``) is measured and printed with the load average.
Prints each round's counts and failed tests with pytest's ``E`` lines, then the totals, and keeps
each round's whole output in a temporary folder it names; exits 1 if any test failed or erred.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SLOW_PROCESS_TESTS = (
    "tests/test_study.py",
    "tests/robustness/test_interrupts.py",
    "tests/robustness/test_output_safety.py::test_sigterm_during_run_leaves_no_partial_file",
    "tests/robustness/test_output_safety.py::test_two_processes_share_a_cache_folder",
    "tests/robustness/test_output_safety.py::test_console_script_shows_no_traceback",
    "tests/test_packaging.py::test_the_wheel_installed_in_a_fresh_environment_runs_a_study",
    "tests/segmenters/test_registry.py::test_a_plugin_installed_beside_the_builtins_is_listed_and_breaks_no_registry_test",
    "tests/segmenters/test_plugins.py",
    "tests/segmenters/test_quiet.py",
    "tests/test_lazyjit.py",
    "tests/test_compute.py::test_a_worker_leaves_ctrl_c_to_its_parent_and_dies_with_it",
    "tests/test_cluster_fault.py",
)
BUSY_LOOP = "while True:\n    pass\n"
#: pytest's last line, e.g. "2 failed, 21 passed, 1 skipped in 812.35s (0:13:32)"
COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def counts(summary: str) -> dict[str, int]:
    """Outcome -> number, from pytest's summary line (``error`` for errors)."""
    return {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in COUNT.findall(summary)}


def start_seconds() -> float:
    """The start-up that scales the tests' limits, measured as they measure it."""
    sys.path.insert(0, str(REPO))
    from tests.timing import start_seconds as measure

    return measure()


def one_round(tests: list[str], coverage_file: Path | None, log: Path, basetemp: Path) -> tuple[dict[str, int], list[str], float, str]:
    """One pytest run in its own ``basetemp``, its output written to ``log``: its counts, its failed
    and erring tests followed by the first ``E`` lines pytest reported, its seconds and its last line."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={basetemp}", "-rfE", "--tb=short", *tests]
    env = dict(os.environ)
    if coverage_file is not None:
        command[4:4] = ["--cov", "--cov-report="]
        env["COVERAGE_FILE"] = str(coverage_file)
    began = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - began
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    lines = done.stdout.splitlines()
    summary = lines[-1] if lines else done.stderr.strip()[-300:]
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    failed += [f"    {line.strip()[:300]}" for line in lines if line.startswith("E ")][:20]
    found = counts(summary)
    if done.returncode not in (0, 1) or not found:  # pytest itself failed: count it as an error
        found["error"] = found.get("error", 0) + 1
        failed.append(f"ERROR pytest exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return found, failed, seconds, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", nargs="*", default=list(SLOW_PROCESS_TESTS), help="pytest node ids (default: the slow process tests)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-cov", action="store_true", help="run without coverage measurement")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    report: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        report.append(line)

    say(f"tools/under_load.py: {args.rounds} rounds of {len(args.tests)} test selections, "
        f"{'without' if args.no_cov else 'with'} coverage, under {cpus} busy loops (one per CPU); Python {sys.version.split()[0]}")
    for test in args.tests:
        say(f"  {test}")
    loops = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(cpus)]
    totals: dict[str, int] = {}
    try:
        logs = Path(tempfile.mkdtemp(prefix="under-load-logs-"))
        say(f"each round's pytest output: {logs}/round-N.txt")
        with tempfile.TemporaryDirectory(prefix="under-load-") as scratch:
            for number in range(1, args.rounds + 1):
                load = os.getloadavg()[0]
                start = start_seconds()
                coverage_file = None if args.no_cov else Path(scratch) / f".coverage.round{number}"
                found, failed, seconds, summary = one_round(args.tests, coverage_file, logs / f"round-{number}.txt", Path(scratch) / f"round{number}")
                for kind, n in found.items():
                    totals[kind] = totals.get(kind, 0) + n
                say(f"round {number}: {summary.strip('= ')} (wall {seconds:.0f} s; before it: load average {load:.1f}, "
                    f"start-up {start:.2f} s)")
                for line in failed:
                    say(f"  {line}")
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    bad = totals.get("failed", 0) + totals.get("error", 0)
    say(f"total: {', '.join(f'{n} {kind}' for kind, n in sorted(totals.items()))}; {bad} failures in {args.rounds} rounds")
    if args.out:
        args.out.write_text("\n".join(report) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
