"""A study's texts segmented ahead of its first dataset: one model load per segmenter per study.

A study scores its datasets one after the other on one pool of worker processes. Segmented
dataset by dataset, a model segmenter's task lands on whichever worker is free, so that over a
study both workers of a 2-process pool load pkuseg (4.4 CPU-s each) and jieba. Here every
dataset's texts that the segmentation cache does not hold yet are segmented first, with one
task per segmenter over the whole study (:func:`metaeval.segmenting.start`, which forks the
worker that loaded the model for the rest), and written to the cache; each dataset's run then
finds its texts there and starts no model. The tokens are those of the same segmenter on the
same texts, so every number is unchanged.

Only registry segmenters that run in worker processes are segmented ahead: not rules computed
in the scoring process (``in_process``, such as ``char``), not segmenters given as objects, and
not those that learn from each corpus's references (``spm``), whose model differs by dataset.
"""

from __future__ import annotations

import concurrent.futures as cf
from typing import Any, Callable, Iterable, Sequence

from metaeval.corpora.model import Corpus

ProgressCallback = Callable[[str, int, int], None]


def corpus_texts(corpus: Corpus) -> list[str]:
    """The distinct texts a run segments: every reference, then every system output, in order
    of first occurrence (as :func:`metaeval.scoring.score_corpus` collects them)."""
    texts = [t for ref in corpus.refs_list() for t in ref]
    texts += [t for hyps in corpus.systems.values() for t in hyps]
    return list(dict.fromkeys(texts))


def ahead_of_time(spec: Any) -> Any:
    """The segmenter ``spec`` names if it is segmented ahead (a registry name of a segmenter
    that runs in worker processes and does not learn from the corpus), else None."""
    from metaeval import segmenters

    if not isinstance(spec, str) or segmenters.learns_from_text(spec):
        return None
    seg = segmenters.get(spec)
    return None if getattr(seg, "in_process", False) else seg


def segments_ahead(executor: cf.Executor | None, jobs: int) -> bool:
    """Whether :func:`presegment` segments anything with this ``executor`` and ``jobs``: only
    with a local process pool and ``jobs > 1``. With one process, the models stay loaded in it
    from one dataset to the next anyway; a cluster's workers keep the segmenters they build."""
    return isinstance(executor, cf.ProcessPoolExecutor) and jobs > 1


def presegment(work: Iterable[tuple[Sequence[str], Corpus]], cache: Any, *, jobs: int, executor: cf.Executor | None,
               progress: ProgressCallback | None = None) -> "AheadCache":
    """Start segmenting ahead the texts of each ``(segmenter specs, corpus)`` of ``work`` that
    ``cache`` (a :class:`segmenters.cache.SegmentationCache`) does not hold, one segmentation
    per segmenter (segmenters given under two spellings of one signature count once), all
    started at once on the ``executor``'s workers, and return the cache with them under way
    (:class:`AheadCache`). Nothing is started unless :func:`segments_ahead`.
    """
    from metaeval import segmenting

    ahead = AheadCache(cache)
    if not segments_ahead(executor, jobs):
        return ahead
    texts_of: dict[str, dict[str, None]] = {}
    built: dict[str, Any] = {}
    spec_of: dict[str, str] = {}  # signature -> the first spec asked by
    for specs, corpus in work:
        texts: list[str] = []
        for spec in specs:
            if spec not in built:
                built[spec] = ahead_of_time(spec)
            if built[spec] is None:
                continue
            signature = built[spec].signature()
            spec_of.setdefault(signature, spec)
            texts = texts or corpus_texts(corpus)
            texts_of.setdefault(signature, {}).update(dict.fromkeys(texts))
    for signature, wanted in texts_of.items():
        spec = spec_of[signature]
        seg = built[spec]
        known = cache.lookup(seg, wanted)
        todo = [t for t in wanted if t not in known]
        if todo:
            if progress:
                progress(f"segmenting {seg.name}", 0, len(todo))
            ahead.under_way[signature] = (spec, seg, todo, segmenting.start(seg, spec, todo, jobs=jobs, executor=executor))
    return ahead


class AheadCache:
    """A segmentation cache (``cache``) with segmentations under way (``under_way``: per segmenter
    signature, its spec, the segmenter, the texts and their :class:`~metaeval.segmenting.Pending`)
    for texts it does not hold yet. A run that needs those texts waits for them
    (:meth:`started`) instead of segmenting them again; the other methods are the cache's."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache
        self.under_way: dict[str, tuple[str, Any, list[str], Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cache, name)

    def lookup(self, segmenter: Any, texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
        return self.cache.lookup(segmenter, texts)

    def store(self, segmenter: Any, tokens: dict[str, Sequence[str]]) -> None:
        self.cache.store(segmenter, tokens)

    def started(self, segmenter: Any, texts: Sequence[str]) -> Any:
        """A :class:`~metaeval.segmenting.Pending` for the tokens of ``texts`` if a segmentation
        under way covers them (done when it is; its result written to the cache when first
        asked for), else None."""
        from metaeval.segmenting import Pending

        signature = segmenter.signature()
        entry = self.under_way.get(signature)
        if entry is None or not texts:
            return None
        texts = list(texts)
        if not set(texts) <= set(entry[2]):
            return None

        def tokens() -> list[list[str]]:
            self.finish(signature)
            found = self.cache.lookup(segmenter, texts)
            return [list(found[t]) for t in texts]

        return Pending(signature, futures=entry[3].futures, compute=tokens)

    def finish(self, signature: str | None = None) -> None:
        """Wait for the segmentation under way for ``signature`` (default: all of them) and
        write its tokens to the cache."""
        for key in [signature] if signature is not None else list(self.under_way):
            entry = self.under_way.pop(key, None)
            if entry is not None:
                _, seg, texts, pending = entry
                self.cache.store(seg, dict(zip(texts, pending.result())))


__all__ = ["AheadCache", "ahead_of_time", "corpus_texts", "presegment", "segments_ahead"]
