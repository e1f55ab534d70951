"""Worker pools: the size of --jobs, what a worker does with signals and BLAS threads, and a missing Dask."""

from __future__ import annotations

import sys
from typing import NoReturn

import numpy  # noqa: F401 - loads the BLAS library that the pool limits
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from metaeval.compute import local_jobs, process_pool, usable_cpus, workers
from metaeval.errors import MissingDependencyError, UsageError
from tests.timing import run


def test_jobs_zero_is_one_per_usable_cpu_and_negative_is_refused(monkeypatch):
    # a container given 3 of a host's 64 CPUs (its affinity mask): 3 workers, not 64
    monkeypatch.setattr("os.cpu_count", lambda: 64)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 5, 9})
    assert usable_cpus() == 3 and local_jobs(0) == 3 and local_jobs(4) == 4
    # without an affinity mask, the machine's count, and at least one
    monkeypatch.delattr("os.sched_getaffinity")
    assert local_jobs(0) == 64
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
    done = run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


def test_a_scheduler_without_dask_installed_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    with pytest.raises(MissingDependencyError, match=r"--scheduler needs Dask's distributed package: pip install 'metaeval\[dask\]'"):
        with workers(2, "tcp://127.0.0.1:1"):
            pass


def blas_threads() -> list[int]:
    """Threads of every BLAS library loaded in this process."""
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_blas_runs_one_thread_in_the_workers_and_here_while_a_pool_runs():
    """The process pool's workers compete for the cores with this process: BLAS gets one thread
    in each, and this process's limit comes back when the pool ends."""
    with threadpool_limits(limits=2, user_api="blas"):
        assert blas_threads() and set(blas_threads()) == {2}
        with process_pool(2) as pool:
            assert set(blas_threads()) == {1}
            assert {n for worker in [pool.submit(blas_threads) for _ in range(4)] for n in worker.result()} == {1}
        assert set(blas_threads()) == {2}


def _spin(payload: bytes) -> NoReturn:
    """Keep a worker busy until it is terminated."""
    while True:
        pass


def test_an_interrupted_pool_has_closed_its_pipes_when_the_block_ends():
    """Left by an interrupt, the pool's manager thread has ended and closed its wake-up pipe by
    the time the ``with`` block is left: on CPython before 3.12.8 and 3.13.1 the interpreter
    writes to that pipe at exit without a lock, and a thread closing it meanwhile made the
    command print "OSError: [Errno 9] Bad file descriptor" after its last line
    (python/cpython#125451). Large arguments keep the queue's feeder thread busy, as a run's
    chunks do."""
    for _ in range(3):
        with pytest.raises(KeyboardInterrupt):
            with process_pool(2) as pool:
                for _ in range(8):
                    pool.submit(_spin, b"x" * 10_000_000)
                manager, wakeup = pool._executor_manager_thread, pool._executor_manager_thread_wakeup
                raise KeyboardInterrupt
        assert not manager.is_alive()
        assert wakeup._closed


def test_a_command_collects_garbage_less_often_and_puts_the_thresholds_back(monkeypatch):
    import gc

    from metaeval import cli, compute

    seen = []
    monkeypatch.setattr(cli, "_main", lambda parser, argv: seen.append(gc.get_threshold()) or 0)
    before = gc.get_threshold()
    assert cli.main(["list"]) == 0
    assert seen == [(compute.GC_THRESHOLD, *before[1:])]
    assert gc.get_threshold() == before
    with compute.fewer_collections():
        with compute.fewer_collections():
            assert gc.get_threshold()[0] == compute.GC_THRESHOLD
        assert gc.get_threshold()[0] == compute.GC_THRESHOLD
    assert gc.get_threshold() == before


def _frozen_in_worker() -> int:
    import gc

    return gc.get_freeze_count()


def test_pool_workers_are_forked_with_this_process_objects_out_of_the_collector():
    """A worker's garbage collections skip the objects it inherited (they are in the permanent
    generation at the fork), and this process's own collector sees its objects again after it."""
    import gc

    held = [[i] for i in range(10_000)]  # container objects this process holds at the fork
    assert gc.get_freeze_count() == 0
    with process_pool(2) as pool:
        frozen = pool.submit(_frozen_in_worker).result()
        assert gc.get_freeze_count() == 0  # undone here once the workers are forked
    assert frozen >= len(held)
    gc.freeze()  # as segmenting does around its own forks: left frozen by the pool
    try:
        kept = gc.get_freeze_count()
        with process_pool(1) as pool:
            # (a few frozen objects are freed as the block runs: the counts are not exact)
            assert pool.submit(_frozen_in_worker).result() > 0.9 * kept
            assert gc.get_freeze_count() > 0.9 * kept  # not taken back into the collector here
    finally:
        gc.unfreeze()


def _blocked_in_worker() -> set:
    import signal

    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def test_workers_start_with_stop_signals_blocked_and_run_with_them_unblocked():
    """The pool forks with SIGINT and SIGTERM blocked (so that this process's handlers never run
    in a starting worker), and a worker's own handlers take them once it has set them."""
    import signal
    from unittest import mock

    from metaeval import compute

    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    seen: list[set] = []
    launch = compute._FrozenForkPool._launch_frozen

    def recording(self) -> None:  # noqa: ANN001
        seen.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        launch(self)

    with mock.patch.object(compute._FrozenForkPool, "_launch_frozen", recording):
        with process_pool(2) as pool:
            in_worker = pool.submit(_blocked_in_worker).result()
    assert seen and {signal.SIGINT, signal.SIGTERM} <= seen[0]
    assert not {signal.SIGINT, signal.SIGTERM} & in_worker
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before


def _claims_within(seconds: float) -> tuple[bool, bool]:
    """In a worker: whether a claim of an idle worker succeeds within ``seconds``, and whether
    a second claim right after it does too."""
    import time

    from metaeval.compute import claim_idle_worker

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if claim_idle_worker():
            return True, claim_idle_worker()
        time.sleep(0.005)
    return False, False


def test_a_worker_claims_once_the_core_another_worker_left_idle():
    import time

    from metaeval.compute import claim_idle_worker

    assert not claim_idle_worker()  # not in a pool's worker
    with process_pool(2) as pool:
        # alone in the pool from the start, but no task has ended: nobody ran out of work
        assert pool.submit(_claims_within, 0.3).result() == (False, False)
        # the task before has ended, with none left beside it: the other worker is idle, once
        waiting = pool.submit(_claims_within, 20.0)
        assert waiting.result() == (True, False)
        # a task ended, but two are unfinished on two workers: no core is idle
        sleeper = pool.submit(time.sleep, 2.0)
        assert pool.submit(_claims_within, 0.5).result() == (False, False)
        sleeper.result()
