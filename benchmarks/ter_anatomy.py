"""Where TER's CPU time goes inside :mod:`metaeval.metrics.tercom`, phase by phase, in one process.

    python -m benchmarks.ter_anatomy [--segmenter char] [--passes 5] [--no-store]

Compiled kernels cannot be timed from inside, so each phase's cost is measured as what running it
twice adds. The kernels' source is read from this tree and compiled as variants, each with one
phase done twice where doing it twice changes nothing (the second call sees the same inputs and
gives the same results):

- ``candidate search``: :func:`~metaeval.metrics.tercom._search` of a candidate shift (its beam
  search from the first changed column, writing the columns it searches);
- ``plain-distance bound``: the bit-parallel bound written into the candidate loop of
  :func:`~metaeval.metrics.tercom._pair_edits` (from ``# (a)`` to ``# end of (a)``);
- ``gathering candidates``: :func:`~metaeval.metrics.tercom._gather_shifts`;
- ``bit-parallel passes``: the forward and reversed :func:`~metaeval.metrics.tercom._bp_columns`;
- ``alignment errors``: :func:`~metaeval.metrics.tercom._align_errors` (the backtrace, read from
  the recorded values);
- ``applying candidate shifts``: :func:`~metaeval.metrics.tercom._shift_into` and undoing it;
- ``first alignment``: the search of each pair's hypothesis as given, from its first column.

A second call finds its data in the processor's caches, so each figure is a lower bound of the
phase's own cost; ``unexplained`` is what the listed phases leave of the base run. Every variant's
edits must equal the base's, pair for pair (the command stops otherwise). The pairs are the
distinct (hypothesis, reference) pairs of the workload's dataset under one segmenter, as the TER
metric passes them to the kernels.

A variant with counters then gives the shape of the search: rounds, candidate searches, and how
far each search runs: over the columns the shift changed, then on through the unchanged rest of
the hypothesis until a column ends as the recorded one plus a constant, in the same rows (it
rejoins the recorded alignment) or the hypothesis ends. For the unchanged columns it counts those
whose beam rows differ from the recorded ones (then no rejoin is possible there).

Results go under the key ``ter_anatomy`` of ``benchmarks/results.json`` (``--no-store``: print only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Callable

import numpy as np

from benchmarks import workload
from benchmarks.bench import DATA, REPO, check_arguments, data_errors
from benchmarks.store import store_and_say

KEY = "ter_anatomy"
SOURCE = REPO / "metaeval" / "metrics" / "tercom.py"

_CALL_SEARCH = ("edits = _search(arr, rloc, first, col, nxt, last + 1, rec, rlo, rhi, state, med, outs[cb],\n"
                "                                        olos[cb], ohis[cb], ostates[cb], res)")
_BOUND_START = "                    # (a) the beam only raises costs"
_CALL_GATHER = ("\n        n, stamp = _gather_shifts(cur, rloc, u, occ_start, occ_pos, herr, rerr_cum, ralign, occ, seen, "
                "stamp, cands)\n")
_CALL_BP = "        _bp_columns(cur, peq, redo, fpv, fmv, words, False)\n        _bp_columns(cur, peq_rev, redo_rev, rpv, rmv, words, True)\n"
_CALL_ALIGN = "        _align_errors(cur, rloc, rec, rlo, rhi, state, herr, rerr, ralign)\n"
_CALL_SHIFT = "                _shift_into(cur, s0, s1, s2, arr)\n"
_CALL_FIRST = "    med = _search(cur, rloc, 0, col, nxt, hl + 1, rec, rlo, rhi, state, 0, rec, rlo, rhi, state, res)\n"


def _bound_block() -> str:
    """The bound's text in the kernels' source, from ``# (a)`` to ``# end of (a)``."""
    text = SOURCE.read_text(encoding="utf-8")
    start = text.find(_BOUND_START)
    end = text.find("# end of (a)\n", start)
    return text[start:end + len("# end of (a)\n")] if start >= 0 and end >= 0 else _BOUND_START


_BOUND = _bound_block()

#: Phase -> edits of the kernels' source that run it twice.
TWICE: dict[str, list[tuple[str, str]]] = {
    "candidate search": [(_CALL_SEARCH, f"{_CALL_SEARCH}\n                        {_CALL_SEARCH}")],
    "plain-distance bound": [(_BOUND, _BOUND * 2)],
    "gathering candidates": [(_CALL_GATHER, _CALL_GATHER + _CALL_GATHER[1:])],
    "bit-parallel passes": [(_CALL_BP, _CALL_BP + _CALL_BP)],
    "alignment errors": [(_CALL_ALIGN, _CALL_ALIGN + _CALL_ALIGN)],
    "applying candidate shifts": [(_CALL_SHIFT, _CALL_SHIFT + "                for i in range(a, z + 1):\n"
                                   "                    arr[i] = cur[i]\n" + _CALL_SHIFT)],
    "first alignment": [(_CALL_FIRST, _CALL_FIRST + _CALL_FIRST)],
}

_REJOIN_CHECK = ("        rejoined = j >= check_from and lo == rlo[j] and chi == rhi[j] and fg == state[j, 1] and "
                 "lg0 == state[j, 2]\n")
#: Counters: [rounds, candidate searches, searched columns, changed columns, unchanged columns, searches to the end,
#: unchanged columns checked with rows other than the recorded ones].
_COUNT_EDITS: list[tuple[str, str]] = [
    ("def _search(seq, ref, k, col, nxt, check_from, rec, rlo, rhi, state, med, out, olo, ohi, ostate, res):",
     "def _search(seq, ref, k, col, nxt, check_from, rec, rlo, rhi, state, med, out, olo, ohi, ostate, res, cnt):"),
    (_REJOIN_CHECK, _REJOIN_CHECK + "        if j >= check_from and not rejoined:\n            cnt[6] += 1\n"),
    ("            return med + delta\n", "            cnt[2] += j + 1 - k\n            cnt[4] += j + 1 - check_from\n"
                                       "            return med + delta\n"),
    ("    return result\n\n\n@njit(cache=True)\ndef _take_columns(",
     "    if check_from <= hl:\n        cnt[2] += hl - k\n        cnt[4] += hl - check_from\n        cnt[5] += 1\n"
     "    return result\n\n\n@njit(cache=True)\ndef _take_columns("),
    (_CALL_SEARCH, _CALL_SEARCH[:-1] + ", cnt)\n                        cnt[1] += 1\n                        cnt[3] += last + 1 - first"),
    (_CALL_FIRST, _CALL_FIRST[:-2] + ", cnt)\n"),
    ("def _pair_edits(hyp, ref, rec_buf, a_buf, sfx_buf, cand_buf, stop):",
     "def _pair_edits(hyp, ref, rec_buf, a_buf, sfx_buf, cand_buf, stop, cnt):"),
    (_CALL_ALIGN, _CALL_ALIGN + "        cnt[0] += 1\n"),
    ("def _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off, stop):",
     "def _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off, stop, cnt):"),
    ("_pair_edits(h, r, rec_buf, a_buf, sfx_buf, cand_buf, stop)", "_pair_edits(h, r, rec_buf, a_buf, sfx_buf, cand_buf, stop, cnt)"),
]


def variant(name: str, edits: list[tuple[str, str]]) -> types.ModuleType:
    """The kernels' source with ``edits`` (each anchor must occur once) as module ``name``, not cached."""
    text = SOURCE.read_text(encoding="utf-8")
    for anchor, replacement in edits:
        if text.count(anchor) != 1:
            raise SystemExit(f"ter_anatomy: {SOURCE}: the variant {name!r} expects this text once, found it "
                             f"{text.count(anchor)} times: {anchor.strip()[:80]!r}")
        text = text.replace(anchor, replacement)
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    sys.modules[name] = module
    exec(compile(text.replace("cache=True", "cache=False"), module.__file__, "exec"), module.__dict__)  # noqa: S102 - this tree's own source
    return module


def distinct_pairs(segmenter: str, dataset: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every distinct (hypothesis, reference) pair of ``dataset`` under ``segmenter``, as the TER
    metric gives them to the kernels, laid out flat."""
    from metaeval import corpora, segmenters
    from metaeval.metrics import get_metric

    corpus, _ = corpora.read(DATA / dataset)
    texts = list(dict.fromkeys([t for ref in corpus.refs_list() for t in ref] + [t for h in corpus.systems.values() for t in h]))
    tokens = dict(zip(texts, segmenters.get(segmenter).segment_many(texts)))
    metric = get_metric("ter")
    seen: set[tuple[bytes, bytes]] = set()
    hyps, refs = [], []
    for ref_texts in corpus.refs_list():
        prepared = metric.prepare([[tokens[t] for t in ref_texts]])
        for system in sorted(corpus.systems):
            hyp_flat, hyp_off, ref_flat, ref_off = metric.kernel_pairs([tokens[t] for t in corpus.systems[system]], prepared)
            for p in range(len(hyp_off) - 1):
                h, r = hyp_flat[hyp_off[p]:hyp_off[p + 1]], ref_flat[ref_off[p]:ref_off[p + 1]]
                key = (h.tobytes(), r.tobytes())
                if len(h) and len(r) and key not in seen:
                    seen.add(key)
                    hyps.append(h)
                    refs.append(r)

    def flat(seqs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return np.concatenate(seqs).astype(np.int64), np.r_[0, np.cumsum([len(s) for s in seqs])].astype(np.int64)

    return (*flat(hyps), *flat(refs))


def cpu(call: Callable[[], np.ndarray]) -> tuple[float, np.ndarray]:
    start = time.process_time()
    out = call()
    return time.process_time() - start, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segmenter", default="char")
    parser.add_argument("--dataset", default=workload.DATASET)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    parser.add_argument("--no-store", action="store_true")
    args = parser.parse_args(argv)
    if args.passes < 1:
        parser.error("--passes must be at least 1")
    check_arguments(parser, [args.dataset], [args.segmenter])
    with data_errors("ter_anatomy"):
        hyp_flat, hyp_off, ref_flat, ref_off = distinct_pairs(args.segmenter, args.dataset)
    stop = np.zeros(1, dtype=np.int64)
    edits = {"base": [], **TWICE}
    names = list(edits)
    kernels = {}
    for number, name in enumerate(names):
        print(f"ter_anatomy: compiling variant {number + 1} of {len(names) + 1} ({name})", file=sys.stderr, flush=True)
        kernels[name] = variant(f"ter_anatomy_{number}", edits[name])._batch_edits
        kernels[name](hyp_flat, hyp_off[:2], ref_flat, ref_off[:2], stop)  # compile
    load = list(os.getloadavg())
    seconds: dict[str, list[float]] = {name: [] for name in names}
    expected = None
    for p in range(args.passes):
        print(f"ter_anatomy: pass {p + 1} of {args.passes} over {len(names)} variants", file=sys.stderr, flush=True)
        for name in names if p % 2 == 0 else names[::-1]:
            took, edits_found = cpu(lambda: kernels[name](hyp_flat, hyp_off, ref_flat, ref_off, stop))
            seconds[name].append(took)
            if expected is None:
                expected = edits_found
            elif not np.array_equal(edits_found, expected):
                raise SystemExit(f"ter_anatomy: the variant {name!r} gives other edits than the base")
    median = {name: statistics.median(values) for name, values in seconds.items()}
    base = median["base"]
    phases = {}
    for phase in TWICE:
        extra = median[phase] - base
        phases[phase] = {"cpu_seconds": extra, "share": extra / base}
    explained = sum(v["cpu_seconds"] for v in phases.values())
    phases["unexplained"] = {"cpu_seconds": base - explained, "share": (base - explained) / base}

    print(f"ter_anatomy: compiling variant {len(names) + 1} of {len(names) + 1} (counters)", file=sys.stderr, flush=True)
    counting = variant("ter_anatomy_counts", _COUNT_EDITS)._batch_edits
    cnt = np.zeros(7, dtype=np.int64)
    if not np.array_equal(counting(hyp_flat, hyp_off, ref_flat, ref_off, stop, cnt), expected):
        raise SystemExit("ter_anatomy: the counting variant gives other edits than the base")
    rounds, evals, columns, changed, unchanged, to_end, rows_differ = (int(c) for c in cnt)
    shape = {
        "pairs": len(hyp_off) - 1, "hypothesis_tokens": int(hyp_off[-1]), "rounds": rounds, "candidate_searches": evals,
        "searched_columns": columns, "changed_columns": changed, "unchanged_columns": unchanged,
        "searches_to_the_end": to_end, "unchanged_columns_with_other_rows": rows_differ,
    }  # fmt: skip
    print(f"TER on {args.dataset}, {args.segmenter}: {shape['pairs']} distinct pairs, base {base:.3f} CPU-s "
          f"(median of {args.passes} passes)")
    for phase, value in phases.items():
        print(f"  {phase:28s} {value['cpu_seconds']:6.3f} CPU-s  {value['share']:5.1%}")
    print(f"  {rounds} rounds of the shift search, {evals} candidate searches over {columns} columns: {changed} changed by "
          f"the shift, {unchanged} after it ({unchanged / max(columns, 1):.0%}); {to_end} searches "
          f"({to_end / max(evals, 1):.0%}) run to the hypothesis's end; {rows_differ} of the unchanged columns checked "
          f"had beam rows other than the recorded ones")  # fmt: skip
    entry = {"dataset": args.dataset, "segmenter": args.segmenter, "passes": args.passes, "base_cpu_seconds": base,
             "cpu_seconds": seconds, "phases": phases, "search": shape, "load_average_1_5_15_at_start": load}  # fmt: skip
    store_and_say(KEY, entry, args.out, not args.no_store)
    return 0


__all__ = ["distinct_pairs", "main", "variant"]

if __name__ == "__main__":
    sys.exit(main())
