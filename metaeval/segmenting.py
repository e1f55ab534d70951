"""Segmentation of a run's unique texts, split across processes.

Each segmenter sees each distinct text once. The texts still to segment (not in the
segmentation cache) are cut into contiguous chunks in first-occurrence order; the chunks'
tokens are joined back in that order, so the result does not depend on where or when a chunk
ran. :func:`start` begins a segmentation and returns a :class:`Pending` whose ``result()``
gives the tokens, so that segmentation overlaps with scoring. Where the chunks run:

- with a cluster executor (Dask's ``Client.get_executor()``), every chunk is a task; a worker
  builds each segmenter from its registry spec once and keeps it (one model load per worker),
  and its signature is checked against this process's, so a worker with another dictionary or
  version cannot change a number silently;
- with a local process pool (``--jobs`` > 1), the whole segmentation of one segmenter is one
  task: the worker loads the model once, segments a first slice, and forks ``parts - 1``
  processes from itself for the rest (``parts``: ``jobs`` unless the caller shares the pool
  among several segmentations at once), so they share the loaded model (copy on write; pkuseg is
  about 290 MB once loaded) instead of loading one each, and drops the model when the task is done, unless
  asked to keep it (``keep_model``: a study's later datasets use it again). Every
  segmenter is started at once, so a slow model loads and segments while this process scores
  the segmenters already done. A task given one process (``parts == 1``: the pool is shared
  with other segmentations) forks one helper for the back half of its remaining texts once
  another worker of the pool has run out of tasks (:func:`segment_with_helper`), so that the
  slowest model does not leave that core idle at the end;
- with ``jobs > 1`` and no pool (:func:`segment_texts`), the model is loaded here first and
  worker processes are forked from this process for the rest;
- otherwise, here, when the result is asked for.

Segmenters given as objects rather than registry names are segmented here (they may not
survive pickling), and so are, in a scoring run, those marked ``in_process`` (rules without a
model, such as ``char``: a worker would return their tokens later than this process computes
them). A segmenter that learnt from text (``spm``) cannot be rebuilt from its name
alone: it goes to workers as a :class:`Shipped` segmenter, its pickled self (the trained model
included) under the SHA-256 of those bytes, and a worker builds it once and keeps it under its
signature, which names the model's hash.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import hashlib
import pickle
import time
from dataclasses import dataclass
from typing import Any, Sequence

from metaeval.compute import process_pool
from metaeval.errors import MetaevalError

#: Segmenters suited to each target language (docs/design.md, "Segmenters"; Li et al. 2011's rows).
DEFAULT_SEGMENTERS = {
    "zh": ("char", "cjk-char", "jieba", "pkuseg"),
    "ja": ("char", "cjk-char", "mecab"),
}
FALLBACK_SEGMENTERS = ("char", "13a")


def default_segmenters(target_lang: str) -> tuple[str, ...]:
    """The segmenters ``metaeval run`` uses for a target language."""
    return DEFAULT_SEGMENTERS.get(target_lang.split("-")[0].lower(), FALLBACK_SEGMENTERS)


#: Texts segmented here first to estimate the cost before forking workers for the rest.
PROBE_TEXTS = 256
#: Forking workers pays only when the remaining segmentation is projected to take longer
#: (:func:`projected_seconds`).
MIN_PARALLEL_SECONDS = 0.5

#: Segmenters a worker process has built (cluster workers) or inherited by fork (local workers).
_WORKER_SEGMENTERS: dict[str, Any] = {}


@dataclass(frozen=True)
class Shipped:
    """A segmenter sent to workers as its pickled self (``payload``), with the SHA-256 of
    those bytes: one that learnt from text (``spm``), which its registry ``spec`` alone cannot
    rebuild there. The model travels inside the payload (a few hundred kB for a vocabulary of
    some thousands), so a task never depends on a worker that may have died."""

    spec: str
    sha256: str
    payload: bytes

    def build(self) -> Any:
        if hashlib.sha256(self.payload).hexdigest() != self.sha256:
            raise MetaevalError(f"segmenter {self.spec!r} arrived damaged in a worker (its SHA-256 differs)")
        return pickle.loads(self.payload)  # noqa: S301 - bytes this run pickled itself


def worker_spec(seg: Any, spec: "str | Shipped | None") -> "str | Shipped | None":
    """What a worker builds ``seg`` from: its registry ``spec``, or, for a segmenter that learnt
    from text (``trains_on_text``), the segmenter itself as :class:`Shipped`."""
    if not isinstance(spec, str) or not getattr(seg, "trains_on_text", False):
        return spec
    payload = pickle.dumps(seg, protocol=pickle.HIGHEST_PROTOCOL)
    return Shipped(spec, hashlib.sha256(payload).hexdigest(), payload)


def get_segmenter(item: Any) -> Any:
    """A segmenter from a registry spec (``"jieba"``, ``"char:nfkc=true"``), a :class:`Shipped`
    one, or the object itself."""
    if isinstance(item, str):
        from metaeval import segmenters

        return segmenters.get(item)
    if isinstance(item, Shipped):
        return item.build()
    return item


def _segment_task(key: str, spec: "str | Shipped | None", texts: Sequence[str], parts: int | None = None,
                  keep: bool = False) -> tuple[str, list[list[str]]]:
    """Tokens of ``texts`` in a worker, with the signature of the segmenter that made them.
    ``parts`` (a local pool's task, all of a segmenter's texts): ``parts - 1`` processes are
    forked from this worker once its model is loaded, and the model is dropped at the end
    unless ``keep``; without it (a cluster's chunk task) the worker keeps the segmenter for
    its next chunk."""
    seg = _WORKER_SEGMENTERS.get(key)
    if seg is None:
        if spec is None:
            raise MetaevalError(f"segmenter {key!r} is not known in this worker")
        seg = _WORKER_SEGMENTERS[key] = get_segmenter(spec)
    if parts is not None:
        # A local pool's task: all of this segmenter's texts at once. Unless the model is kept
        # for later tasks, the worker goes on to score without it, so its memory (pkuseg's is
        # about 290 MB) is given back now.
        try:
            tokens = segment_texts(seg, None, texts, jobs=parts) if parts > 1 else segment_with_helper(seg, key, texts)
            return seg.signature(), interned(tokens)
        finally:
            if not keep:
                release = getattr(_WORKER_SEGMENTERS.pop(key), "release", None)
                if callable(release):
                    release()
                del seg
                gc.collect()
    return seg.signature(), interned(seg.segment_many(list(texts)))


#: Texts a pool worker segments between two looks at whether another worker is idle.
HELPER_BATCH = 64


def segment_with_helper(seg: Any, key: str, texts: Sequence[str]) -> list[list[str]]:
    """Tokens of ``texts``, segmented here in batches of :data:`HELPER_BATCH`. Between two
    batches, once another worker of this process's pool has nothing left to do
    (:func:`metaeval.compute.claim_idle_worker`) and the rest is projected to take at least
    :data:`MIN_PARALLEL_SECONDS` here (:func:`projected_seconds`), the back half of the rest goes
    to a process forked from this one, which shares the loaded model, while this one segments
    the front half; once per call. The tokens do not depend on whether or where the texts were
    split."""
    from metaeval.compute import claim_idle_worker

    out: list[list[str]] = []
    for start in range(0, len(texts), HELPER_BATCH):
        if start == HELPER_BATCH:  # timed from here: the first batch may have loaded the model
            wall, cpu = time.perf_counter(), time.process_time()
        elif start > HELPER_BATCH:
            scale = (len(texts) - start) / (start - HELPER_BATCH)
            if projected_seconds(time.perf_counter() - wall, time.process_time() - cpu, scale) >= MIN_PARALLEL_SECONDS \
                    and claim_idle_worker():
                front, back = split(texts[start:], 2)
                return out + _segment_beside(seg, key, front, [back])
        out += [list(t) for t in seg.segment_many(texts[start : start + HELPER_BATCH])]
    return out


def _segment_beside(seg: Any, key: str, here: Sequence[str], chunks: Sequence[Sequence[str]]) -> list[list[str]]:
    """Tokens of ``here``, segmented in this process, then of each of ``chunks``, segmented
    meanwhile in processes forked from this one, which find ``seg`` under ``key`` and so share
    its loaded model (copy on write) instead of loading one each."""
    inserted = key not in _WORKER_SEGMENTERS
    _WORKER_SEGMENTERS[key] = seg
    # The pool forks with this process's objects out of the forks' collections (the model's
    # included), unless some are frozen already (in a worker: those it inherited), which are
    # left so: unfreezing here would give them back to this process's collector.
    try:
        with process_pool(max(1, len(chunks))) as pool:
            futures = [pool.submit(_segment_task, key, None, chunk) for chunk in chunks]
            out = [list(t) for t in seg.segment_many(here)]
            return out + _joined(seg.signature(), futures)
    finally:
        if inserted:
            _WORKER_SEGMENTERS.pop(key, None)


def interned(segmentations: Sequence[Sequence[str]]) -> list[list[str]]:
    """The token lists with one string object per distinct token. Pickled to another process,
    each token type then travels, and is unpickled, once (pickle writes a repeated object as a
    reference) instead of once per occurrence: 350,000 pkuseg tokens of WMT24 en-zh are 15,000
    types."""
    types: dict[str, str] = {}
    keep = types.setdefault
    return [list(map(keep, tokens, tokens)) for tokens in segmentations]


class Pending:
    """A segmentation under way in other processes (``futures``), or to compute here
    (``compute``) when :meth:`result` is first asked for."""

    def __init__(self, signature: str, futures: Sequence[cf.Future] = (), compute: Any = None) -> None:
        self.signature = signature
        self.futures = list(futures)
        self.compute = compute
        self._tokens: list[list[str]] | None = None

    def done(self) -> bool:
        """True when :meth:`result` would not wait for another process (it may compute here)."""
        return all(f.done() for f in self.futures)

    def result(self) -> list[list[str]]:
        if self._tokens is None:
            if self.compute is not None:
                self._tokens = self.compute()
            else:
                self._tokens = _joined(self.signature, self.futures)
            self.futures, self.compute = [], None
        return self._tokens


def start(seg: Any, spec: str | None, texts: Sequence[str], *, jobs: int = 1,
          executor: cf.Executor | None = None, here: Any = None, keep_model: bool = False,
          parts: int | None = None) -> Pending:
    """Begin segmenting ``texts`` (distinct texts) with ``seg``; see the module docstring for
    where. ``here()`` computes the tokens in this process when no worker takes them (default:
    :func:`segment_texts`). With a local pool: ``keep_model``, its worker keeps the model it
    loaded; ``parts``, the processes it segments in (default ``jobs``)."""
    texts = list(texts)
    signature = seg.signature()
    local = here or (lambda: segment_texts(seg, spec, texts, jobs=jobs))
    if not texts or executor is None or spec is None:
        return Pending(signature, compute=local)
    if isinstance(executor, cf.ProcessPoolExecutor):
        if jobs <= 1:
            return Pending(signature, compute=local)
        shipped = worker_spec(seg, spec)
        task = executor.submit(_segment_task, signature, shipped, texts, max(1, parts or jobs), keep_model)
        return Pending(signature, [task])
    return Pending(signature, _chunk_tasks(executor, signature, worker_spec(seg, spec), texts, jobs))


def _chunk_tasks(executor: cf.Executor, signature: str, spec: "str | Shipped | None", texts: Sequence[str],
                 jobs: int) -> list[cf.Future]:
    """One task per chunk of ``texts`` on a cluster executor, four chunks per worker."""
    return [executor.submit(_segment_task, signature, spec, chunk) for chunk in split(texts, 4 * _workers(executor, jobs))]


def _joined(signature: str, futures: Sequence[cf.Future]) -> list[list[str]]:
    """The tokens of the chunk tasks ``futures``, in their order, each task's segmenter checked."""
    out: list[list[str]] = []
    for future in futures:
        got, tokens = future.result()
        _check_signature(signature, got)
        out += tokens
    return out


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
        return _joined(signature, _chunk_tasks(executor, signature, worker_spec(seg, spec), texts, jobs))
    if jobs <= 1 or len(texts) <= PROBE_TEXTS:
        return [list(t) for t in seg.segment_many(texts)]
    # Segment a first slice here: its first text loads the model (shared with the workers forked
    # below); the others, timed, tell whether the rest is worth forking for.
    head = [list(t) for t in seg.segment_many(texts[:1])]
    wall, cpu = time.perf_counter(), time.process_time()
    head += [list(t) for t in seg.segment_many(texts[1:PROBE_TEXTS])]
    rest = texts[PROBE_TEXTS:]
    projected = projected_seconds(time.perf_counter() - wall, time.process_time() - cpu, len(rest) / (PROBE_TEXTS - 1))
    if projected < MIN_PARALLEL_SECONDS:
        return head + [list(t) for t in seg.segment_many(rest)]
    chunks = split(rest, jobs)
    return head + _segment_beside(seg, signature, chunks[0], chunks[1:])


def projected_seconds(wall: float, cpu: float, scale: float) -> float:
    """Seconds the rest of a segmentation is projected to take, from a slice that took ``wall``
    seconds and ``cpu`` seconds of this process's CPU time, the rest being ``scale`` times as
    many texts: its CPU time, which other busy processes do not stretch as they stretch the
    wall time, unless the work runs mostly outside this process (a segmenter program such as
    ChaSen, under a quarter of the wall time on this process's CPU): then its wall time."""
    return scale * (cpu if cpu >= wall / 4 else wall)


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


__all__ = ["DEFAULT_SEGMENTERS", "FALLBACK_SEGMENTERS", "Pending", "default_segmenters", "Shipped", "get_segmenter", "interned", "projected_seconds", "segment_texts", "segment_with_helper", "split", "start", "worker_spec"]
