"""BLEU of every order 1..30 at character level, as whole processes: metaeval against sacrebleu.

    python -m benchmarks.bleu_process [--segments 150] [--repeat 3] [--no-store]

Each side is a fresh ``python -c`` process that imports what it needs, reads the first
``--segments`` paragraphs of WMT24 en-zh (the reference and every system), splits them into
characters and computes, for every order M = 1..30, the sentence BLEU of every segment of every
system and each system's corpus BLEU (no smoothing). metaeval counts the n-grams of the largest
order once (:class:`metaeval.metrics.bleu.BLEU`, ``scores_by_order``); sacrebleu runs
``BLEU(max_ngram_order=M, tokenize="none", smooth_method="none")`` once per order on the
characters joined by spaces. So the ratio includes everything a user waits for: the
interpreter's start, imports, loading compiled kernels and the computation. The sides alternate
``--repeat`` times (sacrebleu's side takes about 100 s, so ``--repeat 1`` is the quick form);
CPU seconds (user + system of the process) are the medians, and the scores of the two sides must
agree to 1e-9. Stored under the key ``bleu_process`` of ``benchmarks/results.json`` with the load
average at the start.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from benchmarks.bench import DATA, REPO
from benchmarks.stages import python_json
from benchmarks.store import store_and_say

KEY = "bleu_process"
ORDERS = 30
DATASET = "wmt24-esa/en-zh"

_READ = """
import json, sys
from pathlib import Path
corpus = Path({corpus!r})
n = {segments}
def lines(path):
    return path.read_text(encoding="utf-8").splitlines()[:n]
refs = lines(next(corpus.glob("ref.*")))
systems = {{p.stem: lines(p) for p in sorted((corpus / "systems").iterdir())}}
"""

METAEVAL = _READ + """
from metaeval import segmenters
from metaeval.metrics.bleu import BLEU
char = segmenters.get("char")
ref_tokens = char.segment_many(refs)
metric = BLEU(n={orders}, smooth="none")
prepared = metric.prepare([ref_tokens])
out = {{}}
for name, hyps in systems.items():
    stats = metric.segment_stats(char.segment_many(hyps), prepared)
    out[name] = [metric.scores_by_order(stats).tolist(), metric.scores_by_order(stats.sum(0)).tolist()]
print(json.dumps(out))
"""

SACREBLEU = _READ + """
from sacrebleu.metrics import BLEU
chars = lambda text: " ".join(ch for ch in text if not ch.isspace())
ref_texts = [chars(t) for t in refs]
out = {{name: [[[] for _ in hyps], []] for name, hyps in systems.items()}}
for m in range(1, {orders} + 1):
    bleu = BLEU(max_ngram_order=m, tokenize="none", smooth_method="none")
    for name, hyps in systems.items():
        texts = [chars(t) for t in hyps]
        for i, h in enumerate(texts):
            out[name][0][i].append(bleu.sentence_score(h, [ref_texts[i]]).score / 100)
        out[name][1].append(bleu.corpus_score(texts, [ref_texts]).score / 100)
print(json.dumps(out))
"""


def run_side(code: str) -> tuple[float, dict[str, Any]]:
    """CPU seconds of ``python -c CODE`` (user + system, the whole process) and what it printed."""
    printed, cpu = python_json(["-c", code])
    return cpu, printed


def largest_difference(ours: dict[str, Any], theirs: dict[str, Any]) -> float:
    worst = 0.0
    for name, (seg, sys_scores) in ours.items():
        their_seg, their_sys = theirs[name]
        for mine, other in zip(seg + [sys_scores], their_seg + [their_sys]):
            worst = max(worst, max(abs(a - b) for a, b in zip(mine, other)))
    return worst


def measure(segments: int, repeat: int) -> dict[str, Any]:
    corpus = DATA / DATASET
    fields = {"corpus": str(corpus), "segments": segments, "orders": ORDERS}
    codes = {"metaeval": METAEVAL.format(**fields), "sacrebleu": SACREBLEU.format(**fields)}
    load = os.getloadavg()
    rounds: list[dict[str, float]] = []
    outputs: dict[str, Any] = {}
    for _ in range(repeat):
        entry = {}
        for side, code in codes.items():
            entry[side], outputs[side] = run_side(code)
        rounds.append(entry)
    median = {side: statistics.median(r[side] for r in rounds) for side in codes}
    return {
        "dataset": DATASET, "segments": segments, "systems": len(outputs["metaeval"]), "orders": ORDERS,
        "repeat": repeat, "cpus": os.cpu_count(), "load_average_1_5_15_at_start": list(load),
        "metaeval_cpu_seconds": median["metaeval"], "sacrebleu_cpu_seconds": median["sacrebleu"],
        "speedup": median["sacrebleu"] / median["metaeval"], "rounds": rounds,
        "max_abs_diff": largest_difference(outputs["metaeval"], outputs["sacrebleu"]),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-store", action="store_true")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    entry = measure(args.segments, args.repeat)
    print(f"BLEU orders 1..{ORDERS}, characters, {entry['segments']} segments x {entry['systems']} systems, whole processes, "
          f"medians of {entry['repeat']}: metaeval {entry['metaeval_cpu_seconds']:.2f} CPU-s, sacrebleu "
          f"{entry['sacrebleu_cpu_seconds']:.1f} CPU-s: {entry['speedup']:.1f}x; largest difference {entry['max_abs_diff']:.1e}; "
          f"load average {entry['load_average_1_5_15_at_start'][0]:.2f}")
    if entry["max_abs_diff"] > 1e-9:
        print("scores DIFFER beyond 1e-9", file=sys.stderr)
        return 1
    store_and_say(KEY, entry, args.out, not args.no_store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
