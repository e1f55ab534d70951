"""Where the work of a run goes: this process, local worker processes, or a Dask cluster.

:func:`workers` gives the executor and the number of local processes that segmentation,
scoring and bootstrap use; the numbers never depend on the choice.

- ``jobs == 1``: everything in this process.
- ``jobs == 0`` (the default): one process per CPU; ``jobs == n``: n processes. Scoring and
  bootstrap go to a process pool; segmentation forks its own workers once the model is loaded
  (:mod:`metaeval.segmenting`).
- ``scheduler`` (``tcp://host:8786``, or a scheduler file path): a ``distributed.Client``
  connected to that cluster; segmentation, scoring and bootstrap are its tasks.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
from pathlib import Path
from typing import Iterator

from metaeval.errors import MetaevalError, MissingDependencyError, UsageError


def local_jobs(jobs: int) -> int:
    """Processes to use for ``--jobs`` (0: one per CPU)."""
    if jobs < 0:
        raise UsageError(f"jobs must be >= 0, got {jobs}")
    return jobs or (os.cpu_count() or 1)


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
    import multiprocessing

    with cf.ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork")) as pool:
        yield pool, n


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


__all__ = ["local_jobs", "workers"]
