"""The fixed workload that the speed targets are measured on.

The default ``metaeval run`` of WMT24 English→Chinese as it stood when these targets were set,
with every choice written out, so that what is later added to the defaults (another statistic, a
chance level, another metric) is measured on its own and does not move these figures:

- segmenters ``char``, ``cjk-char``, ``jieba``, ``pkuseg`` (the Chinese defaults);
- metrics ``bleu``, ``nist``, ``meteor``, ``gtm``, ``1-ter``, ``chrf`` (the default metrics);
- statistics: Li et al. 2011's consistency, Kendall-like τ and Pearson at segment level,
  ``acc_eq`` by item, Pearson, Spearman and Kendall at system level, pairwise and soft pairwise
  accuracy; 1000 bootstrap resamples, seed 12345;
- no chance levels (``--chance-permutations 0``): they came to the defaults after these targets
  were set, and ``benchmarks.chance_cost`` measures what they add.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

DATASET = "wmt24-esa/en-zh"
SEGMENTERS = ("char", "cjk-char", "jieba", "pkuseg")
METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter", "chrf")
STATISTICS = (
    "seg:consistency", "seg:kendall_like", "seg:pearson", "seg:acc_eq", "sys:pearson", "sys:spearman",
    "sys:kendall", "sys:pairwise_accuracy", "sys:soft_pairwise_accuracy",
)  # fmt: skip
BOOTSTRAP = 1000
SEED = 12345


def run_arguments(corpus: Path, jobs: str, cache: str, *, segmenters: Sequence[str] = SEGMENTERS,
                  metrics: Sequence[str] = METRICS, quiet: bool = True) -> list[str]:
    """``metaeval run`` arguments of the workload on ``corpus``, with ``--jobs`` and an empty
    ``--cache-dir``: JSON to standard output, no progress bar unless ``quiet`` is false
    (``segmenters`` and ``metrics``: others than the workload's, for a smaller run)."""
    args = ["run", str(corpus), "--format", "json", *(["--quiet"] if quiet else []), "--jobs", jobs, "--cache-dir", cache]
    for name in segmenters:
        args += ["-s", name]
    for name in metrics:
        args += ["-m", name]
    for name in STATISTICS:
        args += ["--statistic", name]
    return args + ["--bootstrap", str(BOOTSTRAP), "--seed", str(SEED), "--chance-permutations", "0"]
