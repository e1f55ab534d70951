"""Measured cost of each task of a study: segmenting a dataset with one segmenter, scoring it with
one metric, and its memory, for every offline segmenter of WMT24 en-zh and en-ja.

    python -m benchmarks.task_costs [--datasets wmt24-esa/en-zh,wmt24-esa/en-ja]

One fresh process per (dataset, segmenter): it reads the corpus, builds the segmenter and
segments every unique text once (CPU seconds, model load included), then scores every system
with each default metric (CPU seconds per metric: references prepared once, every (system,
segment) computed, without the reuse across systems or segmenters that a run adds, so these are
upper bounds), and reports its peak resident size. The figures go under the key ``task_costs`` of
``benchmarks/results.json``; ``docs/scaling.md`` is computed from them
(:mod:`benchmarks.scaling`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.bench import DATA, REPO
from benchmarks.stages import python_json
from benchmarks.store import store_and_say

KEY = "task_costs"
METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter", "chrf")
#: Offline segmenters per target language (spm learns from the dataset's references).
SEGMENTERS = {
    "zh": ("char", "cjk-char", "jieba", "jieba-nohmm", "pkuseg", "thulac", "spm:vocab=4000"),
    "ja": ("char", "cjk-char", "mecab", "mecab-ipadic", "mecab-jumandic", "janome", "nagisa", "sudachi-a", "sudachi-b",
           "sudachi-c", "chasen", "spm:vocab=4000"),
}  # fmt: skip

CHILD = """
import json, resource, time
from metaeval import corpora
from metaeval.metrics import get_metric
from metaeval.scoring import get_segmenter, shared_tokens
corpus, _ = corpora.read({corpus!r})
texts = list(dict.fromkeys([t for r in corpus.refs_list() for t in r] + [t for h in corpus.systems.values() for t in h]))
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
seg = get_segmenter({segmenter!r}, corpus)
table = shared_tokens(dict(zip(texts, seg.segment_many(texts))))
out = {{"segmentation_cpu_seconds": time.process_time() - start, "texts": len(texts),
        "characters": sum(map(len, texts)), "tokens": sum(len(table[t]) for t in texts),
        "pairs": len(corpus.systems) * corpus.n_segments, "signature": seg.signature()}}
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
refs = [[table[t] for t in ref] for ref in corpus.refs_list()]
hyps = [[table[t] for t in h] for h in corpus.systems.values()]
metrics = {{}}
for spec in {metrics!r}:
    metric = get_metric(spec)
    metric.segment_stats(hyps[0][:1], metric.prepare([r[:1] for r in refs]))  # kernels loaded
    start = time.process_time()
    prepared = metric.prepare(refs)
    for h in hyps:
        metric.segment_stats(h, prepared)
    metrics[spec] = time.process_time() - start
out["metric_cpu_seconds"] = metrics
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["segmenter_rss_mb"] = (rss1 - rss0) / 1024
print(json.dumps(out))
"""


def measure(datasets: list[str]) -> dict[str, Any]:
    load = os.getloadavg()
    out: dict[str, Any] = {}
    for dataset in datasets:
        lang = dataset.rsplit("-", 1)[-1]
        out[dataset] = {}
        for name in SEGMENTERS[lang]:
            code = CHILD.format(corpus=str(DATA / dataset), segmenter=name, metrics=list(METRICS))
            found, cpu = python_json(["-c", code])
            out[dataset][name] = {**found, "process_cpu_seconds": cpu}
            print(f"{dataset} {name}: segmentation {found['segmentation_cpu_seconds']:.2f} CPU-s, "
                  + ", ".join(f"{m} {s:.2f}" for m, s in found["metric_cpu_seconds"].items()), flush=True)
    return {"datasets": out, "metrics": list(METRICS), "load_average_1_5_15_at_start": list(load),
            "load_average_1_5_15_at_end": list(os.getloadavg()), "cpus": os.cpu_count()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="wmt24-esa/en-zh,wmt24-esa/en-ja")
    parser.add_argument("--no-store", action="store_true")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    store_and_say(KEY, measure([d for d in args.datasets.split(",") if d]), args.out, not args.no_store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
