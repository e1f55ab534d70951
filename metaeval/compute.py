"""Where the work of a run goes: this process, local worker processes, or a Dask cluster.

:func:`workers` gives the executor and the number of local processes that segmentation,
scoring and bootstrap use; the numbers never depend on the choice.

- ``jobs == 1``: everything in this process.
- ``jobs == 0`` (the default): one process per CPU this process may use; ``jobs == n``: n processes. Scoring and
  bootstrap go to a process pool; segmentation forks its own workers once the model is loaded
  (:mod:`metaeval.segmenting`).
- ``scheduler`` (``tcp://host:8786``, or a scheduler file path): a ``distributed.Client``
  connected to that cluster; segmentation, scoring and bootstrap are its tasks.

Local worker processes (:func:`process_pool`) die with the run: they ignore Ctrl-C (the
parent handles it), end at once on SIGTERM, get SIGTERM when the parent process dies (Linux),
and are terminated when the ``with`` block is left by an exception (an interrupt, an error),
instead of being waited for.

While local workers run, BLAS uses one thread in every process of the run, the parent included
(:func:`one_blas_thread`): the work is already spread over one process per core, and more BLAS
threads only compete for the same cores, spinning while they wait. joblib's workers and Dask's
nanny do the same. Measured with ``OPENBLAS_NUM_THREADS=1`` against the default, in two
alternated pairs each: WMT24 en-zh's default run used 13-17% less CPU time, and MLQE-PE's study
(pooled statistics) 30-34% less. The numbers do not depend on it: correlations always run with one BLAS
thread (:func:`metaeval.stats.evaluate._items_on`).

While a command runs (:func:`fewer_collections`), Python's cyclic garbage collector looks at
its youngest objects after :data:`GC_THRESHOLD` new ones instead of 700: a run makes millions of
token lists and tuples that live until it ends and form no cycles, and the default collected
1,216 times (111 of them the older objects too, 7 every object) in the default run of WMT24
en-zh, 1.3 of its 32 CPU-s, against 5 collections and 0.3 CPU-s now. Forked workers inherit it.
The numbers do not depend on when garbage is collected.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import gc
import os
import signal
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from metaeval.errors import MetaevalError, MissingDependencyError, UsageError

_T = TypeVar("_T")


#: New container objects (less those freed) between two collections of the youngest generation
#: while a command runs (Python's default: 700).
GC_THRESHOLD = 100_000


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector's youngest generation collected every :data:`GC_THRESHOLD`
    new objects inside the block (the older generations' thresholds kept), as before after it."""
    before = gc.get_threshold()
    gc.set_threshold(max(GC_THRESHOLD, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask where the system keeps one (Linux:
    the share of the machine a container's cpuset or ``taskset`` gives it), else
    ``os.cpu_count()``; at least 1. A container given 2 of a host's 64 CPUs gets 2 workers
    by default, not 64 (each with its own copy of what it loads)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def local_jobs(jobs: int) -> int:
    """Processes to use for ``--jobs`` (0: one per usable CPU, :func:`usable_cpus`)."""
    if jobs < 0:
        raise UsageError(f"jobs must be >= 0, got {jobs}")
    return jobs or usable_cpus()


@contextlib.contextmanager
def workers(jobs: int = 0, scheduler: str | None = None) -> Iterator[tuple[cf.Executor | None, int]]:
    """``(executor, jobs)`` for a run; the pool or client is closed on exit."""
    if scheduler:
        with _dask_client(scheduler) as client:
            yield client.get_executor(), 1
        return
    n = local_jobs(jobs)
    if n <= 1:
        yield None, 1
        return
    with process_pool(n) as pool:
        yield pool, n


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which BLAS (OpenBLAS, MKL, BLIS) runs one thread in this process; the
    previous limits come back on exit (``threadpoolctl``)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def with_one_blas_thread(function: Callable[..., _T]) -> Callable[..., _T]:
    """``function`` run with BLAS limited to one thread (:func:`one_blas_thread`)."""

    @functools.wraps(function)
    def limited(*args: Any, **kwargs: Any) -> _T:
        with one_blas_thread():
            return function(*args, **kwargs)

    return limited


#: Signals a worker leaves to its parent (SIGINT) or dies of (SIGTERM), blocked while it starts.
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _worker_init() -> None:
    """In each worker: Ctrl-C is the parent's to handle, SIGTERM ends the worker at once, and
    the death of the parent sends SIGTERM (Linux ``PR_SET_PDEATHSIG``). Nothing may come before
    the signal handlers: until they are set, the parent's are in force, and stopping the pool
    then would print a traceback: the pool forks its workers with both signals blocked
    (:class:`_FrozenForkPool`), and they are unblocked here once the handlers are set."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the call
            os._exit(1)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


#: In a worker of a local pool: the pool's shared flag, set while one of its workers has no
#: task (:func:`claim_idle_worker`); None elsewhere.
_POOL_IDLE: Any = None


def claim_idle_worker() -> bool:
    """In a worker of a local pool (:func:`process_pool`): True, once, when another worker of
    the pool has nothing to do since a task ended, so that a long task may fork a helper onto
    the idle core (:mod:`metaeval.segmenting`); the claim clears the flag, so one task takes it.
    False elsewhere (this process, a cluster's worker) and while every worker has a task."""
    flag = _POOL_IDLE
    if flag is None or not flag.value:
        return False
    with flag.get_lock():
        claimed, flag.value = bool(flag.value), 0
    return claimed


class _FrozenForkPool(cf.ProcessPoolExecutor):
    """A process pool whose workers are forked with this process's objects out of the cyclic
    garbage collector's reach (``gc.freeze`` around the fork, undone here after it): a worker's
    collections then never walk the objects it inherited, and so neither spend time on them nor
    write to (and copy) the pages it shares with this process. Where objects are frozen
    already, they stay so, and nothing more is frozen.

    The pool counts its unfinished tasks, and keeps a flag shared with its workers set while
    there are fewer than workers after a task ended (:func:`claim_idle_worker`).
    """

    def __init__(self, max_workers: int, mp_context: Any, initializer: Callable[[], None]) -> None:
        super().__init__(max_workers=max_workers, mp_context=mp_context, initializer=initializer)
        self._idle_flag = mp_context.Value("b", 0)
        self._unfinished = 0

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> cf.Future[_T]:
        # Counted before it is queued, so that no worker can start it while the flag still says
        # that a worker is idle.
        with self._idle_flag.get_lock():
            self._unfinished += 1
            if self._unfinished >= self._max_workers:  # type: ignore[attr-defined]
                self._idle_flag.value = 0
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            with self._idle_flag.get_lock():
                self._unfinished -= 1
            raise
        future.add_done_callback(self._task_ended)
        return future

    def _task_ended(self, _future: cf.Future) -> None:
        with self._idle_flag.get_lock():
            self._unfinished -= 1
            if self._unfinished < self._max_workers:  # type: ignore[attr-defined]
                self._idle_flag.value = 1

    def _launch_processes(self) -> None:
        # A worker starts with SIGINT and SIGTERM blocked until _worker_init has set its own
        # handlers: before that, this process's handlers would run in it (a traceback).
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            self._launch_frozen()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def _launch_frozen(self) -> None:
        # Frozen already (by a caller, or inherited in a worker): left so, since unfreezing after
        # the fork would take the caller's objects back into the collector here.
        freezing = not gc.get_freeze_count()
        if freezing:
            gc.freeze()
        global _POOL_IDLE
        before, _POOL_IDLE = _POOL_IDLE, self._idle_flag  # inherited by the workers forked now
        try:
            super()._launch_processes()  # type: ignore[misc]
        finally:
            _POOL_IDLE = before
            if freezing:
                gc.unfreeze()


@contextlib.contextmanager
def process_pool(n: int) -> Iterator[cf.ProcessPoolExecutor]:
    """A pool of ``n`` forked worker processes that end with the block, BLAS limited to one
    thread in them and, until the block ends, in this process (the workers are forked inside the
    block, so they inherit the limit).

    Left normally, the pool is shut down after its work; left by an exception (an interrupt,
    SIGTERM, an error), queued work is cancelled and running workers are terminated, so the
    command stops within a second or so whatever a worker was computing.
    """
    import multiprocessing

    with one_blas_thread():
        pool = _FrozenForkPool(max_workers=n, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init)
        try:
            yield pool
        except BaseException:
            stop_pool(pool)
            raise
        pool.shutdown(wait=True)


def stop_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Cancel what ``pool`` has queued, terminate its worker processes and wait (a few seconds
    at most) for the pool's manager thread to close its pipes.

    SIGPIPE is ignored from here on (an error, not death, on a broken pipe): the pool's queue
    feeder may still write the shutdown sentinels to a pipe whose readers were the workers.

    The wait closes a race in ``concurrent.futures`` of CPython before 3.12.8 and 3.13.1
    (python/cpython#125451; 3.10 and 3.11 keep it): at exit, the interpreter wakes every pool's
    manager thread through a pipe that the thread may be closing at that moment, without a lock,
    which prints a traceback (``OSError: [Errno 9] Bad file descriptor``) after the command has
    ended. A manager thread that has ended has closed its pipe, and the wake-up at exit skips
    it.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    with contextlib.suppress(AttributeError, ValueError):  # not POSIX / not the main thread
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=2)
        if process.is_alive():  # pragma: no cover - ignores SIGTERM
            process.kill()
            process.join(timeout=2)
    if manager is not None:
        manager.join(timeout=5)


@contextlib.contextmanager
def _dask_client(scheduler: str):  # noqa: ANN202
    try:
        import distributed
    except ImportError:
        raise MissingDependencyError(
            "--scheduler needs Dask's distributed package: pip install 'metaeval[dask]'"
        ) from None
    options = {"scheduler_file": scheduler} if Path(scheduler).is_file() else {"address": scheduler}
    try:
        client = distributed.Client(**options, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise MetaevalError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc})") from None
    try:
        yield client
    finally:
        client.close()


__all__ = ["GC_THRESHOLD", "claim_idle_worker", "fewer_collections", "local_jobs", "one_blas_thread", "process_pool", "stop_pool", "usable_cpus", "with_one_blas_thread", "workers"]
