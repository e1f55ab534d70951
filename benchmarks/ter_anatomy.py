"""Where TER's CPU time goes inside :mod:`metaeval.metrics.tercom`, phase by phase, in one process.

    python -m benchmarks.ter_anatomy [--segmenter char] [--passes 5] [--no-store]

Compiled kernels cannot be timed from inside, so each phase's cost is measured as what running it
twice adds. The kernels' source is read from this tree and compiled as variants, each with one
phase done twice where doing it twice changes nothing (the second call sees the same inputs and
gives the same results):

- ``beam evaluation``: :func:`~metaeval.metrics.tercom._eval_columns` of a candidate shift;
- ``plain-distance bound``: :func:`~metaeval.metrics.tercom._unbeamed_exceeds`;
- ``gathering candidates``: :func:`~metaeval.metrics.tercom._gather_shifts`;
- ``bit-parallel passes``: the forward and reversed :func:`~metaeval.metrics.tercom._bp_columns`;
- ``alignment errors``: :func:`~metaeval.metrics.tercom._align_errors`;
- ``applying candidate shifts``: :func:`~metaeval.metrics.tercom._shift_into` and undoing it;
- ``recording the alignment``: :func:`~metaeval.metrics.tercom._record_columns` run a second time
  on copies of its records, less a variant that only makes the copies.

A second call finds its data in the processor's caches, so each figure is a lower bound of the
phase's own cost; ``unexplained`` is what the listed phases leave of the base run. Every variant's
edits must equal the base's, pair for pair (the command stops otherwise). The pairs are the
distinct (hypothesis, reference) pairs of the workload's dataset under one segmenter, as the TER
metric passes them to the kernels.

A variant with counters then gives the shape of the search: rounds, evaluations, and how far each
evaluation runs: over the columns the shift changed, then on through the unchanged rest of the
hypothesis until its columns rejoin the recorded alignment (equal up to a constant, in the same
rows) or the hypothesis ends. For the unchanged columns it counts those whose beam rows differ from
the recorded ones (then no rejoin is possible there).

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

_CALL_EVAL = "edits = _eval_columns(arr, rloc, first, col, nxt, last + 1, col_in, in_lo, in_hi, state, med)"
_CALL_BOUND = "if not _unbeamed_exceeds(arr, peq, fpv, fmv, first, last, tpv, tmv, words, rl, sfx, smin, sfx_ok,"
_CALL_GATHER = "        cand_buf, n, stamp = _gather_shifts(cur, rloc, u, occ_start, occ_pos, herr, rerr_cum, ralign, occ, seen,"
_CALL_BP = "        _bp_columns(cur, peq, redo, fpv, fmv, words, False)\n        _bp_columns(cur, peq_rev, redo_rev, rpv, rmv, words, True)\n"
_CALL_ALIGN = "        _align_errors(path, hl, rl, herr, rerr, ralign)\n"
_CALL_SHIFT = "                _shift_into(cur, s0, s1, s2, arr)\n"
_RECORD_START = "        if redo == 0:\n            col[0] = 0\n"
_COPIES = ("        s_col_in = col_in.copy(); s_in_lo = in_lo.copy(); s_in_hi = in_hi.copy(); s_state = state.copy(); "
           "s_path = path.copy()\n")  # fmt: skip
_RECORD_AGAIN = """        if redo == 0:
            col[0] = 0
            _record_columns(cur, rloc, 0, col, nxt, 0, 0, _INF, 0, 0, s_col_in, s_in_lo, s_in_hi, s_state, s_path,
                            hl + 1, med)
        else:
            for r in range(s_in_lo[redo], s_in_hi[redo] + 1):
                col[r] = s_col_in[redo, r]
            _record_columns(cur, rloc, redo, col, nxt, s_in_lo[redo], s_in_hi[redo], s_state[redo, 0], s_state[redo, 1],
                            s_state[redo, 2], s_col_in, s_in_lo, s_in_hi, s_state, s_path, rejoin_from, med)
"""

#: Phase -> edits of the kernels' source that run it twice.
TWICE: dict[str, list[tuple[str, str]]] = {
    "beam evaluation": [(_CALL_EVAL, f"{_CALL_EVAL}\n                        {_CALL_EVAL}")],
    "plain-distance bound": [(_CALL_BOUND, "_unbeamed_exceeds(arr, peq, fpv, fmv, first, last, tpv, tmv, words, rl, sfx, smin, "
                                           "sfx_ok, rpv, rmv, limit)\n                    " + _CALL_BOUND)],
    "gathering candidates": [(_CALL_GATHER, _CALL_GATHER + " stamp, cand_buf)\n" + _CALL_GATHER)],
    "bit-parallel passes": [(_CALL_BP, _CALL_BP + _CALL_BP)],
    "alignment errors": [(_CALL_ALIGN, _CALL_ALIGN + _CALL_ALIGN)],
    "applying candidate shifts": [(_CALL_SHIFT, _CALL_SHIFT + "                for i in range(a, z + 1):\n"
                                   "                    arr[i] = cur[i]\n" + _CALL_SHIFT)],
    "recording the alignment": [(_RECORD_START, _COPIES + _RECORD_AGAIN + _RECORD_START)],
}
#: Subtracted from a phase's extra time: the variant that only adds the scaffolding.
SCAFFOLD = {"recording the alignment": [(_RECORD_START, _COPIES + _RECORD_START)]}

#: Counters: [rounds, evaluations, evaluated columns, changed columns, unchanged columns, evaluations to the end,
#: unchanged columns checked with rows other than the recorded ones].
_COUNT_EDITS: list[tuple[str, str]] = [
    ("def _eval_columns(seq, ref, k, col, nxt, check_from, col_in, in_lo, in_hi, state, med):",
     "def _eval_columns(seq, ref, k, col, nxt, check_from, col_in, in_lo, in_hi, state, med, cnt):"),
    ("        if j >= check_from and lo == in_lo[j] and hi == in_hi[j] and cur_fg == state[j, 1] and cur_lg == state[j, 2]:",
     "        if j >= check_from and not (lo == in_lo[j] and hi == in_hi[j] and cur_fg == state[j, 1] and cur_lg == state[j, 2]):\n"
     "            cnt[6] += 1\n"
     "        if j >= check_from and lo == in_lo[j] and hi == in_hi[j] and cur_fg == state[j, 1] and cur_lg == state[j, 2]:"),
    ("                return med + delta\n", "                cnt[2] += j - k\n                cnt[4] += j - check_from\n"
                                           "                return med + delta\n"),
    ("    result = col[rl]\n    for r in range(lo, chi + 1):\n        col[r] = _UNSET\n    return result",
     "    result = col[rl]\n    for r in range(lo, chi + 1):\n        col[r] = _UNSET\n    cnt[2] += hl - k\n"
     "    cnt[4] += hl - check_from\n    cnt[5] += 1\n    return result"),
    (_CALL_EVAL, _CALL_EVAL[:-1] + ", cnt)\n                        cnt[1] += 1\n                        cnt[3] += last + 1 - first"),
    ("def _pair_edits(hyp, ref, col_buf, path_buf, sfx_buf, cand_buf, stop):",
     "def _pair_edits(hyp, ref, col_buf, path_buf, sfx_buf, cand_buf, stop, cnt):"),
    (_CALL_ALIGN, _CALL_ALIGN + "        cnt[0] += 1\n"),
    ("def _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off, stop):",
     "def _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off, stop, cnt):"),
    ("_pair_edits(h, r, col_buf, path_buf, sfx_buf, cand_buf, stop)", "_pair_edits(h, r, col_buf, path_buf, sfx_buf, cand_buf, stop, cnt)"),
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
    edits = {"base": [], **TWICE, **{f"{phase} (scaffold)": e for phase, e in SCAFFOLD.items()}}
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
        if phase in SCAFFOLD:
            extra = median[phase] - median[f"{phase} (scaffold)"]
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
        "pairs": len(hyp_off) - 1, "hypothesis_tokens": int(hyp_off[-1]), "rounds": rounds, "beam_evaluations": evals,
        "evaluated_columns": columns, "changed_columns": changed, "unchanged_columns": unchanged,
        "evaluations_to_the_end": to_end, "unchanged_columns_with_other_rows": rows_differ,
    }  # fmt: skip
    print(f"TER on {args.dataset}, {args.segmenter}: {shape['pairs']} distinct pairs, base {base:.3f} CPU-s "
          f"(median of {args.passes} passes)")
    for phase, value in phases.items():
        print(f"  {phase:28s} {value['cpu_seconds']:6.3f} CPU-s  {value['share']:5.1%}")
    print(f"  {rounds} rounds of the shift search, {evals} beam evaluations over {columns} columns: {changed} changed by "
          f"the shift, {unchanged} after it ({unchanged / max(columns, 1):.0%}); {to_end} evaluations "
          f"({to_end / max(evals, 1):.0%}) run to the hypothesis's end; {rows_differ} of the unchanged columns checked "
          f"had beam rows other than the recorded ones")  # fmt: skip
    entry = {"dataset": args.dataset, "segmenter": args.segmenter, "passes": args.passes, "base_cpu_seconds": base,
             "cpu_seconds": seconds, "phases": phases, "search": shape, "load_average_1_5_15_at_start": load}  # fmt: skip
    store_and_say(KEY, entry, args.out, not args.no_store)
    return 0


__all__ = ["distinct_pairs", "main", "variant"]

if __name__ == "__main__":
    sys.exit(main())
