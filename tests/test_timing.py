"""The time limits of tests that start processes (:mod:`tests.timing`): a process still running at
its limit fails the test with where each of its threads was, so that a hang can be told from a slow
machine; the ``subprocess.run`` options the tests use behave as there."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import timing

HANGS = "import threading, time\ndef wait():\n    time.sleep(600)\nthreading.Thread(target=wait).start()\ntime.sleep(600)\n"


def test_a_process_past_its_limit_fails_the_test_with_its_threads_stacks(monkeypatch):
    monkeypatch.setattr(timing, "slowdown", lambda again=False: 1.0)
    with pytest.raises(pytest.fail.Exception) as failed:
        timing.run([sys.executable, "-c", HANGS], timeout=3, capture_output=True, text=True)
    message = str(failed.value)
    assert "did not end within 3 s" in message
    stacks = message.split("where its threads were at the limit (SIGABRT, faulthandler):\n")[1]
    assert 'File "<string>", line 3 in wait' in stacks and 'File "<string>", line 5 in <module>' in stacks
    # popen + communicate do the same
    process = timing.popen([sys.executable, "-c", HANGS], stderr=subprocess.PIPE, text=True)
    with pytest.raises(pytest.fail.Exception, match=r"(?s)did not end within 2 s.*line 5 in <module>"):
        timing.communicate(process, timeout=2)
    assert process.returncode is not None


def test_run_takes_input_capture_output_and_check_as_subprocess_run_does():
    done = timing.run([sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"], timeout=60, input="ab",
                      capture_output=True, text=True, check=True)  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "AB\n", "")
    with pytest.raises(subprocess.CalledProcessError):
        timing.run([sys.executable, "-c", "raise SystemExit(3)"], timeout=60, check=True)
    assert timing.run([sys.executable, "-c", "raise SystemExit(3)"], timeout=60).returncode == 3


def test_hypothesis_examples_have_no_deadline():
    """A loaded machine or a tracer must not fail a property test by its speed (tests/conftest.py)."""
    from hypothesis import settings

    assert settings().deadline is None


def test_a_process_the_test_will_interrupt_is_not_measured_by_coverage(monkeypatch):
    """coverage.py's tracer lock can be left held by the KeyboardInterrupt of a signal handler
    (tests.timing.popen): a process a test interrupts runs without it; others keep it."""
    monkeypatch.setenv(timing.COVERAGE_CHILD, "config")
    show = [sys.executable, "-c", f"import os; print(os.environ.get({timing.COVERAGE_CHILD!r}))"]
    for interrupted, seen in ((True, "None"), (False, "config")):
        process = timing.popen(show, stdout=subprocess.PIPE, text=True, interrupted=interrupted)
        out, _ = timing.communicate(process, timeout=60)
        assert out.strip() == seen
