"""Worker pools: the size of --jobs, what a worker does with signals, and a missing Dask."""

from __future__ import annotations

import subprocess
import sys

import pytest

from metaeval.compute import local_jobs, workers
from metaeval.errors import MissingDependencyError, UsageError


def test_jobs_zero_is_one_per_cpu_and_negative_is_refused(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert local_jobs(0) == 6 and local_jobs(3) == 3
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert local_jobs(0) == 1
    with pytest.raises(UsageError, match="jobs must be >= 0, got -1"):
        local_jobs(-1)


def test_one_job_runs_here_without_a_pool():
    with workers(1) as (executor, jobs):
        assert executor is None and jobs == 1


def test_a_worker_leaves_ctrl_c_to_its_parent_and_dies_with_it():
    """In a fresh process (as in a forked worker): SIGINT ignored, SIGTERM default, and the
    parent-death signal set to SIGTERM (Linux prctl PR_GET_PDEATHSIG = 2)."""
    probe = (
        "import ctypes, signal\n"
        "from metaeval.compute import _worker_init\n"
        "signal.signal(signal.SIGTERM, lambda *a: None)\n"
        "_worker_init()\n"
        "sig = ctypes.c_int(0)\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)\n"
        "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,"
        " sig.value == signal.SIGTERM)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


def test_a_scheduler_without_dask_installed_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    with pytest.raises(MissingDependencyError, match=r"--scheduler needs Dask's distributed package: pip install 'metaeval\[dask\]'"):
        with workers(2, "tcp://127.0.0.1:1"):
            pass
