"""TER's per-pair setup: the work around the tercom kernel, before and after it was made flat.

    python -m benchmarks.ter_setup [--dataset wmt24-esa/en-zh] [--segmenter jieba ...] [--repeat 25]

"Setup" is everything :meth:`metaeval.metrics.ter.TER.segment_stats` does besides the compiled
search itself (``tercom._batch_edits``), for every system of a corpus: mapping reference and
hypothesis tokens to integer ids, laying the (reference, segment) pairs out as flat arrays with
offsets, and the reference lengths. Two implementations are timed in this one command, on the same
segmentations, alternately, as CPU time of this process (``time.process_time``: less disturbed
than wall time by other processes on a shared machine), best of ``--repeat``:

- ``old``: :func:`old_prepare` / :func:`old_setup`, a copy of the previous implementation: one
  ``np.fromiter`` over a generator per segment, lists of per-segment arrays concatenated per
  system, reference lengths from a nested list;
- ``new``: :meth:`TER.prepare` (reference ids once per corpus, in one flat array) and
  :meth:`TER.kernel_pairs` (all hypothesis tokens of a system mapped in one pass).

Both sides' kernel inputs are checked equal array for array, and both sides' per-segment
statistics (through the same kernel) are checked identical: the maximum absolute difference of
every statistic (edits, reference length) must be 0, at word level and at character level, case
kept and lowercased. The figures go under the key ``ter_setup`` of ``benchmarks/results.json``
(read, update that key only, atomic replace).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.bench import DATA, REPO, check_arguments, data_errors
from benchmarks.store import update_key

KEY = "ter_setup"
SEGMENTERS = ("jieba", "pkuseg", "char")


# --- the previous implementation, kept to time against ------------------------------------
def old_prepare(metric, refs) -> tuple[dict[str, int], tuple[tuple[np.ndarray, ...], ...]]:  # noqa: ANN001
    """Reference ids per segment, as the previous ``TER.prepare``."""
    vocab: dict[str, int] = {}
    ids = tuple(
        tuple(
            np.fromiter((vocab.setdefault(t, len(vocab)) for t in _old_tokens(metric, seg)), dtype=np.int64)
            for seg in ref_set
        )
        for ref_set in refs
    )
    return vocab, ids


def _old_tokens(metric, tokens):  # noqa: ANN001, ANN202
    return tokens if metric.case_sensitive else [t.lower() for t in tokens]


def old_setup(metric, hyps, prepared) -> tuple[np.ndarray, ...]:  # noqa: ANN001
    """Kernel inputs and reference lengths as the previous ``segment_stats``/``best_edits`` built them."""
    from metaeval.metrics import tercom

    vocab, ref_ids = prepared
    hyp_ids = [np.fromiter((vocab.get(t, -1) for t in _old_tokens(metric, seg)), dtype=np.int64) for seg in hyps]
    n_refs, n_seg = len(ref_ids), len(hyp_ids)
    all_hyps = [h for _ in range(n_refs) for h in hyp_ids]
    all_refs = [r for ref_set in ref_ids for r in ref_set]
    hyp_flat, hyp_off = tercom._flatten(all_hyps)
    ref_flat, ref_off = tercom._flatten(all_refs)
    lengths = np.array([[len(r) for r in ref_set] for ref_set in ref_ids], dtype=np.float64).reshape(n_refs, n_seg)
    return hyp_flat, hyp_off, ref_flat, ref_off, lengths


def old_finish(edits: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    n_refs, n_seg = lengths.shape
    edits = edits.reshape(n_refs, n_seg)
    out = np.empty((n_seg, 2), dtype=np.float64)
    out[:, 0] = edits.min(axis=0)
    out[:, 1] = lengths.mean(axis=0)
    return out


def new_setup(metric, hyps, prepared) -> tuple[np.ndarray, ...]:  # noqa: ANN001
    """Kernel inputs and reference lengths as ``segment_stats`` builds them now."""
    hyp_flat, hyp_off, ref_flat, ref_off = metric.kernel_pairs(hyps, prepared)
    lengths = np.diff(ref_off).astype(np.float64).reshape(len(prepared.counts), len(hyps))
    return hyp_flat, hyp_off, ref_flat, ref_off, lengths


# --- measurement -------------------------------------------------------------------------
def tokens_of(corpus, name: str) -> tuple[list, dict[str, list]]:  # noqa: ANN001
    """References ``[n_refs][n_seg]`` and system hypotheses as token lists of segmenter ``name``,
    as :func:`metaeval.scoring.score_corpus` hands them to a metric: one string object per
    distinct token (:func:`metaeval.scoring.shared_tokens`)."""
    from metaeval.scoring import get_segmenter, segment_unique, shared_tokens

    seg = get_segmenter(name, corpus)
    refs = corpus.refs_list()
    texts = [t for r in refs for t in r] + [t for h in corpus.systems.values() for t in h]
    table = shared_tokens(segment_unique(seg, texts))
    return [[table[t] for t in r] for r in refs], {s: [table[t] for t in h] for s, h in corpus.systems.items()}


def measure(metric, refs, systems: dict[str, list], repeat: int) -> dict[str, Any]:  # noqa: ANN001
    """Old and new setup timed alternately over every system (best of ``repeat``), kernel inputs
    compared, and both sides' statistics compared through the kernel."""
    from metaeval.metrics import tercom

    def run_old() -> list:
        prepared = old_prepare(metric, refs)
        return [old_setup(metric, hyps, prepared) for hyps in systems.values()]

    def run_new() -> list:
        prepared = metric.prepare(refs)
        return [new_setup(metric, hyps, prepared) for hyps in systems.values()]

    old_times, new_times = [], []
    for _ in range(repeat):
        start = time.process_time()
        old = run_old()
        old_times.append(time.process_time() - start)
        start = time.process_time()
        new = run_new()
        new_times.append(time.process_time() - start)
    inputs_equal = all(
        all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(o, n)) for o, n in zip(old, new)
    )
    start = time.process_time()
    old_stats = [old_finish(tercom._batch_edits(*o[:4], np.zeros(1, dtype=np.int64)), o[4]) for o in old]
    kernel = time.process_time() - start
    prepared = metric.prepare(refs)
    new_stats = [metric.segment_stats(hyps, prepared) for hyps in systems.values()]
    diff = max(float(np.max(np.abs(a - b), initial=0.0)) for a, b in zip(old_stats, new_stats))
    shapes_equal = all(a.shape == b.shape for a, b in zip(old_stats, new_stats))
    pairs = sum(len(h) for h in systems.values()) * len(refs)
    return {
        "pairs": pairs,
        "tokens": int(sum(len(seg) for h in systems.values() for seg in h) * len(refs)),
        "old_setup_seconds": min(old_times),
        "new_setup_seconds": min(new_times),
        "speedup": min(old_times) / min(new_times),
        "kernel_seconds": kernel,
        "kernel_inputs_equal": inputs_equal,
        "max_abs_diff_per_segment_stats": diff if shapes_equal else float("inf"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", action="append", help="under the shared data folder (repeatable; "
                        "default wmt24-esa/en-zh and wmt21/en-zh, which has two references)")
    parser.add_argument("--segmenter", action="append", help=f"default {', '.join(SEGMENTERS)}")
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    check_arguments(parser, args.dataset or [], args.segmenter or [])
    from metaeval import corpora
    from metaeval.metrics.ter import TER

    load = os.getloadavg()
    rows: dict[str, Any] = {}
    print("| dataset | segmenter | case | pairs | old setup s | new setup s | speedup | kernel s | max abs diff |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dataset in args.dataset or ["wmt24-esa/en-zh", "wmt21/en-zh"]:
        with data_errors("ter_setup"):
            corpus, _ = corpora.read(DATA / dataset)
        for name in args.segmenter or SEGMENTERS:
            refs, systems = tokens_of(corpus, name)
            for case_sensitive in (True, False):
                metric = TER(case_sensitive=case_sensitive)
                metric.segment_stats(next(iter(systems.values()))[:2], metric.prepare([r[:2] for r in refs]))
                row = measure(metric, refs, systems, args.repeat)
                if not row["kernel_inputs_equal"] or row["max_abs_diff_per_segment_stats"] != 0:
                    raise SystemExit(f"{dataset} {name}: the new setup changed a number: {row}")
                case = "mixed" if case_sensitive else "lc"
                rows[f"{dataset}|{name}|case:{case}"] = row
                print(f"| {dataset} | {name} | {case} | {row['pairs']} | {row['old_setup_seconds']:.3f} "
                      f"| {row['new_setup_seconds']:.3f} | {row['speedup']:.2f}x | {row['kernel_seconds']:.2f} "
                      f"| {row['max_abs_diff_per_segment_stats']:g} |")
    speedups = [r["speedup"] for k, r in rows.items() if "|char|" not in k]
    entry = {
        "definition": "TER setup (token ids, flat pair arrays, reference lengths; the tercom kernel excluded) for "
                      "every system of a corpus, previous implementation / current, CPU seconds of this process, "
                      "best of repeats, both in one process",
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "load_average_1_5_15_at_start": list(load),
        "load_average_1_5_15_at_end": list(os.getloadavg()),
        "rows": rows,
        "word_level_min_speedup": min(speedups) if speedups else None,
        "all_numbers_identical": True,
    }
    update_key(KEY, entry, args.out)
    if speedups:
        print(f"word-level setup: {min(speedups):.2f}x to {max(speedups):.2f}x faster (target 2x), numbers identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
