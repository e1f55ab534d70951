"""Benchmark of the tie-aware statistics on WMT24 en-zh, in one command.

    python -m benchmarks.bench_stats            # writes the "tiestats" key of benchmarks/results.json

Stages (the 24 default configurations: 4 segmenters x 6 metrics; scoring is not timed):

- ``evaluate``: every default statistic (Li et al. 2011's, ``seg:acc_eq`` grouped by item with
  epsilon re-fitted on each resample, pairwise and soft pairwise accuracy) for both judgment kinds,
  1000 bootstrap samples, significance clusters: absolute seconds (target: 30 s on 2 cores).
- ``epsilon_search``: acc_eq (item grouping, ESA) of the 24 configurations by the vectorised sweep
  against a straightforward implementation in the same process: one Python tuple per pair, sorted by
  metric difference, swept one pair at a time (as tau_optimization does). Ratio = ours / baseline
  (below 1 is faster); the values must agree.
- ``pooled_memory``: acc_eq over all 7,608 pooled (system, segment) items in a fresh process: peak of
  numpy/Python allocations (tracemalloc), and the process's resident high-water mark during the search
  (reset just before it) against its resident memory before.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.store import update_key

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data")).resolve()
DATASET = "wmt24-esa/en-zh"
KEY = "tiestats"


def straightforward_acc_eq(metric: np.ndarray, human: np.ndarray) -> tuple[float, float]:
    """acc_eq grouped by item, the plain way: a tuple per pair, sorted, swept pair by pair."""
    pairs, rows = [], {}
    for item in range(metric.shape[1]):
        m, h = metric[:, item], human[:, item]
        keep = [i for i in range(len(m)) if not (np.isnan(m[i]) or np.isnan(h[i]))]
        for a in range(len(keep)):
            for b in range(a + 1, len(keep)):
                i, j = keep[a], keep[b]
                dm, dh = m[i] - m[j], h[i] - h[j]
                correct = (dh == 0 and dm == 0) or (dh != 0 and dm != 0 and (dh > 0) == (dm > 0))
                pairs.append((abs(dm), item, correct, dh == 0))
                total, good = rows.get(item, (0, 0))
                rows[item] = (total + 1, good + correct)
    n_rows = len(rows)
    score = sum(g / t for t, g in rows.values())
    best, best_eps = score / n_rows, 0.0
    pairs.sort(key=lambda p: p[0])
    for k, (diff, item, correct, human_tie) in enumerate(pairs):
        total, good = rows[item]
        new_good = good - correct + human_tie  # the pair becomes a metric tie
        score += (new_good - good) / total
        rows[item] = (total, new_good)
        last_of_threshold = k + 1 == len(pairs) or pairs[k + 1][0] != diff
        if last_of_threshold and score / n_rows > best + 1e-12:  # the first maximum wins
            best, best_eps = score / n_rows, diff
    return best, best_eps


def load_configs():  # noqa: ANN201
    from metaeval import corpora
    from metaeval.api import default_segmenters
    from metaeval.metrics import DEFAULT_METRICS
    from metaeval.scoring import score_corpus

    corpus, judgments = corpora.read(DATA / DATASET)
    cache = os.environ.get("METAEVAL_BENCH_CACHE")
    scored = score_corpus(corpus, list(default_segmenters(corpus.target_lang)), list(DEFAULT_METRICS), cache=cache)
    return scored.configs, judgments


def stage_evaluate(configs, judgments, n_bootstrap: int) -> dict[str, Any]:  # noqa: ANN001
    from metaeval.stats.evaluate import evaluate
    from metaeval.stats.registry import DEFAULT_STATISTICS

    start = time.perf_counter()
    results = evaluate(configs, judgments, n_bootstrap=n_bootstrap, seed=1, clusters=True)
    seconds = time.perf_counter() - start
    return {
        "configs": len(configs), "kinds": sorted(set(results.judgment_kind)), "rows": len(results),
        "statistics": list(DEFAULT_STATISTICS), "n_bootstrap": n_bootstrap, "seconds": seconds,
        "target_seconds": 30,
    }  # fmt: skip


def stage_epsilon_search(configs, judgments) -> dict[str, Any]:  # noqa: ANN001
    from metaeval.stats.kendall import tie_statistic

    human = judgments.segment_matrix("esa", list(configs[0].systems), list(configs[0].seg_ids))
    direction = lambda c: 1.0 if c.higher_is_better else -1.0  # noqa: E731
    start = time.perf_counter()
    ours = [tie_statistic(c.seg_scores * direction(c), human, "acc_eq", "item") for c in configs]
    ours_seconds = time.perf_counter() - start
    start = time.perf_counter()
    plain = [straightforward_acc_eq(c.seg_scores * direction(c), human) for c in configs]
    plain_seconds = time.perf_counter() - start
    diffs = [abs(o.value - p[0]) for o, p in zip(ours, plain)]
    same_eps = sum(o.epsilon == p[1] for o, p in zip(ours, plain))
    return {
        "configs": len(configs), "ours_seconds": ours_seconds, "straightforward_seconds": plain_seconds,
        "ratio": ours_seconds / plain_seconds, "max_abs_diff": max(diffs), "same_epsilon": same_eps,
    }  # fmt: skip


_CHILD = r"""
import json, sys, time, tracemalloc
import numpy as np
from metaeval.stats.kendall import tie_statistic
data = np.load(sys.argv[1])
metric, human = data["metric"], data["human"]
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
try:  # reset the high-water mark so that it measures the search alone (Linux)
    open("/proc/self/clear_refs", "w").write("5")
except OSError:
    pass
before = status("VmRSS:")
tracemalloc.start()
start = time.perf_counter()
result = tie_statistic(metric, human, "acc_eq", "none")
seconds = time.perf_counter() - start
_, peak = tracemalloc.get_traced_memory()
high = status("VmHWM:")
print(json.dumps({"items": int((~np.isnan(human)).sum()), "pairs": result.n, "value": result.value,
                  "epsilon": result.epsilon, "seconds": seconds, "tracemalloc_peak_mb": peak / 2**20,
                  "rss_before_mb": before, "peak_rss_during_search_mb": high, "peak_growth_mb": high - before}))
"""


def stage_pooled_memory(configs, judgments) -> dict[str, Any]:  # noqa: ANN001
    config = next(c for c in configs if c.metric == "bleu" and c.segmenter == "char")
    human = judgments.segment_matrix("esa", list(config.systems), list(config.seg_ids))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.npz"
        np.savez(path, metric=config.seg_scores, human=human)
        out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True, cwd=REPO)
    entry = json.loads(out.stdout)
    entry["config"] = config.config
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results.json"))
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args(argv)
    configs, judgments = load_configs()
    entry = {
        "dataset": DATASET,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load_average": os.getloadavg()},
        "evaluate": stage_evaluate(configs, judgments, args.bootstrap),
        "epsilon_search": stage_epsilon_search(configs, judgments),
        "pooled_memory": stage_pooled_memory(configs, judgments),
    }
    update_key(KEY, entry, Path(args.out))
    print(json.dumps(entry, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
