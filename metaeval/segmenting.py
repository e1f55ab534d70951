"""Segmentation of a run's unique texts, split across processes.

Each segmenter sees each distinct text once. The texts still to segment (not in the
segmentation cache) are cut into contiguous chunks in first-occurrence order; the chunks'
tokens are joined back in that order, so the result does not depend on where or when a chunk
ran. Where a chunk runs:

- with a cluster executor (Dask's ``Client.get_executor()``), every chunk is a task; a worker
  builds each segmenter from its registry spec once and keeps it (one model load per worker),
  and its signature is checked against this process's, so a worker with another dictionary or
  version cannot change a number silently;
- with ``jobs > 1`` locally, the model is loaded here first and worker processes are forked
  from this process for the segmenter's chunks, so they share the loaded model (copy on
  write; pkuseg is about 800 MB) instead of loading one each; this process segments the
  first chunk itself;
- otherwise, here.

Segmenters given as objects rather than registry names are segmented here (they may not
survive pickling).
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import time
from typing import Any, Sequence

from metaeval.errors import MetaevalError

#: Texts segmented here first to estimate the cost before forking workers for the rest.
PROBE_TEXTS = 256
#: Forking workers pays only when the remaining segmentation is projected to take longer.
MIN_PARALLEL_SECONDS = 0.5

#: Segmenters a worker process has built (cluster workers) or inherited by fork (local workers).
_WORKER_SEGMENTERS: dict[str, Any] = {}


def get_segmenter(item: Any) -> Any:
    """A segmenter from a registry spec (``"jieba"``, ``"char:nfkc=true"``), or the object itself."""
    if isinstance(item, str):
        from metaeval import segmenters

        return segmenters.get(item)
    return item


def _segment_task(key: str, spec: str | None, texts: Sequence[str]) -> tuple[str, list[list[str]]]:
    """Tokens of ``texts`` in a worker, with the signature of the segmenter that made them."""
    seg = _WORKER_SEGMENTERS.get(key)
    if seg is None:
        if spec is None:
            raise MetaevalError(f"segmenter {key!r} is not known in this worker")
        seg = _WORKER_SEGMENTERS[key] = get_segmenter(spec)
    return seg.signature(), [list(tokens) for tokens in seg.segment_many(list(texts))]


def split(items: Sequence[Any], parts: int) -> list[Sequence[Any]]:
    """``items`` cut into at most ``parts`` contiguous, nearly equal, non-empty chunks."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for p in range(parts):
        end = start + size + (1 if p < extra else 0)
        out.append(items[start:end])
        start = end
    return out


def _check_signature(expected: str, got: str) -> None:
    if got != expected:
        raise MetaevalError(
            f"a worker's segmenter differs from this process's: {got!r} instead of {expected!r}; "
            "install the same package versions and dictionaries on every worker"
        )


def segment_texts(seg: Any, spec: str | None, texts: Sequence[str], *, jobs: int = 1,
                  executor: cf.Executor | None = None) -> list[list[str]]:
    """Tokens of each of ``texts`` (distinct texts), in order; see the module docstring for where."""
    texts = list(texts)
    if not texts:
        return []
    signature = seg.signature()
    if executor is not None and spec is not None:
        futures = [executor.submit(_segment_task, signature, spec, chunk) for chunk in split(texts, 4 * _workers(executor, jobs))]
        out: list[list[str]] = []
        for future in futures:
            got, tokens = future.result()
            _check_signature(signature, got)
            out += tokens
        return out
    if jobs <= 1 or len(texts) <= PROBE_TEXTS:
        return [list(t) for t in seg.segment_many(texts)]
    # Segment a first slice here: it loads the model (shared with the workers forked below)
    # and tells whether the rest is worth forking for.
    start = time.perf_counter()
    head = [list(t) for t in seg.segment_many(texts[:PROBE_TEXTS])]
    rest = texts[PROBE_TEXTS:]
    projected = (time.perf_counter() - start) * len(rest) / PROBE_TEXTS
    if projected < MIN_PARALLEL_SECONDS:
        return head + [list(t) for t in seg.segment_many(rest)]
    chunks = split(rest, jobs)
    _WORKER_SEGMENTERS[signature] = seg
    try:
        context = multiprocessing.get_context("fork")
        with cf.ProcessPoolExecutor(max_workers=len(chunks) - 1 or 1, mp_context=context) as pool:
            futures = [pool.submit(_segment_task, signature, None, chunk) for chunk in chunks[1:]]
            out = head + [list(t) for t in seg.segment_many(chunks[0])]
            for future in futures:
                got, tokens = future.result()
                _check_signature(signature, got)
                out += tokens
    finally:
        _WORKER_SEGMENTERS.pop(signature, None)
    return out


def _workers(executor: cf.Executor, jobs: int) -> int:
    """Number of workers behind an executor (a process pool's, a Dask client's), at least ``jobs``."""
    count = getattr(executor, "_max_workers", None)
    client = getattr(executor, "_client", None)
    if count is None and client is not None:
        try:
            count = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        except Exception:  # noqa: BLE001 - an unreachable scheduler fails at submit with its own error
            count = None
    return max(1, int(count or jobs or 1))


__all__ = ["get_segmenter", "segment_texts", "split"]
