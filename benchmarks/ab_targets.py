"""The benchmarks behind :mod:`benchmarks.targets`, as the commands :mod:`benchmarks.ab` times on
an earlier commit and on this tree, in turn, when it is given no command of its own:

- ``run``: the fixed workload (:mod:`benchmarks.workload`, the default ``metaeval run`` of WMT24
  English→Chinese as the targets were set) with ``--jobs 1`` from an empty cache (cold);
- ``warm``: the same on a cache the side's untimed first run filled (the second run);
- ``li2011``: the li2011 study of the CPU-time targets (``benchmarks/li2011_study.toml``) with
  ``--jobs 1`` from an empty store, its tables and figures compared;
- ``large``: ``metaeval score`` of the synthetic corpus of :mod:`benchmarks.large` (char + jieba,
  BLEU + TER + chrF) with ``--jobs 1``; ``--large-lines``/``--large-systems`` shrink it.

Every command runs in one process (``--jobs 1``) so that its CPU seconds, the figure compared,
do not depend on how the machine shares its cores at the moment.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import workload
from benchmarks.bench import DATA, REPO

#: Every target, in the order they run.
NAMES = ("run", "warm", "li2011", "large")
LI2011_SPEC = REPO / "benchmarks" / "li2011_study.toml"


def commands(names: tuple[str, ...], large_corpus: Path | None = None) -> dict[str, list[str]]:
    """``python -m`` arguments of each of ``names``. ``{cache}`` and ``{tmp}`` are new empty folders
    for every run, ``{warm}`` one folder per side kept over the rounds (see :mod:`benchmarks.ab`)."""
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        raise ValueError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(NAMES)}")
    corpus = DATA / workload.DATASET
    out: dict[str, list[str]] = {}
    for name in names:
        if name == "run":
            out[name] = ["metaeval", *workload.run_arguments(corpus, "1", "{cache}")]
        elif name == "warm":
            out[name] = ["metaeval", *workload.run_arguments(corpus, "1", "{warm}")]
        elif name == "li2011":
            out[name] = ["metaeval", "study", str(LI2011_SPEC), "--out", "{tmp}", "--data", str(DATA), "-q", "--jobs", "1"]
        else:
            from benchmarks.large import METRICS, SEGMENTERS

            if large_corpus is None:
                raise ValueError("the large benchmark needs its corpus built first")
            out[name] = ["metaeval", "score", str(large_corpus), *[a for s in SEGMENTERS for a in ("-s", s)],
                         *[a for m in METRICS for a in ("-m", m)], "--quiet", "--jobs", "1", "-o", "{tmp}/scores.tsv"]  # fmt: skip
    return out


__all__ = ["LI2011_SPEC", "NAMES", "commands"]
