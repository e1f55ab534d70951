"""chrF statistics: sacrebleu's ``CHRF`` against metaeval's character n-gram counts, in one process.

    python -m benchmarks.chrf_stats [--dataset wmt21/en-zh ...] [--repeat 3]

For every system of each dataset (``char`` segmentation), both sides compute the per-segment
``[hyp, ref, match]`` counts of chrF (6 character orders, beta 2), references prepared once
per dataset inside the timing: sacrebleu's ``CHRF(references=...)._extract_corpus_statistics``
and :class:`metaeval.metrics.chrf.ChrF`. Best of ``--repeat``, CPU time of this process. The
statistics must be equal array for array (the run stops otherwise); the figures go under the
key ``chrf_stats`` of ``benchmarks/results.json`` (read, update that key only, atomic replace).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from benchmarks.bench import DATA, REPO, best_cpu, check_arguments, data_errors
from benchmarks.store import update_key

KEY = "chrf_stats"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", action="append", help="default: wmt21/en-zh and wmt24-esa/en-zh")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    check_arguments(parser, args.dataset or [])
    from sacrebleu.metrics.chrf import CHRF

    from metaeval import corpora, segmenters
    from metaeval.metrics.chrf import ChrF

    load = list(os.getloadavg())
    entry: dict = {"datasets": {}, "repeat": args.repeat, "load_average_1_5_15_at_start": load}
    char = segmenters.get("char")
    for name in args.dataset or ["wmt21/en-zh", "wmt24-esa/en-zh"]:
        with data_errors("chrf_stats"):
            corpus, _ = corpora.read(DATA / name)
        refs = [char.segment_many(ref) for ref in corpus.refs_list()]
        systems = {system: char.segment_many(hyps) for system, hyps in corpus.systems.items()}
        joined_refs = [[" ".join(t) for t in ref] for ref in refs]
        joined = {system: [" ".join(t) for t in hyps] for system, hyps in systems.items()}
        metric = ChrF()

        def theirs() -> dict[str, np.ndarray]:
            sb = CHRF(char_order=6, word_order=0, beta=2, references=joined_refs)
            return {s: np.asarray(sb._extract_corpus_statistics(h, None), dtype=float).reshape(len(h), 18)
                    for s, h in joined.items()}

        def ours() -> dict[str, np.ndarray]:
            prepared = metric.prepare(refs)
            return {s: metric.segment_stats(h, prepared) for s, h in systems.items()}

        best, found = best_cpu({"sacrebleu": theirs, "metaeval": ours}, args.repeat)
        if any(not np.array_equal(found["sacrebleu"][s], found["metaeval"][s]) for s in systems):
            print(f"{name}: statistics differ from sacrebleu's", file=sys.stderr)
            return 1
        entry["datasets"][name] = {
            "systems": len(systems), "segments": corpus.n_segments, "references": len(refs),
            "sacrebleu_cpu_seconds": best["sacrebleu"], "metaeval_cpu_seconds": best["metaeval"],
            "speedup": best["sacrebleu"] / best["metaeval"], "statistics_identical": True,
        }
        print(f"{name}: {len(systems)} systems x {corpus.n_segments} segments, {len(refs)} references: sacrebleu "
              f"{best['sacrebleu']:.2f} s, metaeval {best['metaeval']:.2f} s, {best['sacrebleu'] / best['metaeval']:.2f}x, "
              "statistics identical")
    update_key(KEY, entry, args.out)
    print(f"written: {args.out} [{KEY}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
