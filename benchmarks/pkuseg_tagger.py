"""pkuseg's tagger against metaeval's (:mod:`metaeval.segmenters.pkuseg_features`), in one process.

    python -m benchmarks.pkuseg_tagger [--dataset wmt24-esa/en-zh ...] [--repeat 3]

On every distinct reference and system text of the datasets, one ``pkuseg.pkuseg()`` instance
segments with pkuseg's own ``_cut`` (the class method) and with metaeval's tagger installed on
it, alternately, best of ``--repeat`` as CPU time of this process. The tokens of every text
must be equal (the run stops otherwise); the figures go under the key ``pkuseg_tagger`` of
``benchmarks/results.json`` (read, update that key only, atomic replace).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from benchmarks.bench import DATA, REPO, best_cpu, check_arguments, data_errors
from benchmarks.store import update_key

KEY = "pkuseg_tagger"


def texts_of(datasets: list[str]) -> list[str]:
    from metaeval import corpora

    texts: list[str] = []
    for name in datasets:
        with data_errors("pkuseg_tagger"):
            corpus, _ = corpora.read(DATA / name)
        texts += [t for ref in corpus.refs_list() for t in ref]
        texts += [t for hyps in corpus.systems.values() for t in hyps]
    return list(dict.fromkeys(texts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", action="append", help="default: wmt24-esa/en-zh")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    check_arguments(parser, args.dataset or [])
    import pkuseg

    from metaeval.segmenters import pkuseg_features

    datasets = args.dataset or ["wmt24-esa/en-zh"]
    load = list(os.getloadavg())
    texts = texts_of(datasets)
    seg = pkuseg.pkuseg()
    start = time.process_time()
    installed = pkuseg_features.install(seg)
    install_seconds = time.process_time() - start
    if not installed:
        print("pkuseg's model has a **noWord feature: metaeval's tagger does not apply", file=sys.stderr)
        return 1
    tagger = seg._cut

    def with_tagger(cut: Any) -> Callable[[], list[list[str]]]:
        """Segment every text with ``cut`` as the instance's tagger (None: pkuseg's own)."""
        def run() -> list[list[str]]:
            if cut is None:
                seg.__dict__.pop("_cut", None)
            else:
                seg._cut = cut
            return [seg.cut(t) for t in texts]
        return run

    best, tokens = best_cpu({"pkuseg": with_tagger(None), "metaeval": with_tagger(tagger)}, args.repeat)
    differing = sum(a != b for a, b in zip(tokens["pkuseg"], tokens["metaeval"]))
    if differing:
        print(f"{differing} of {len(texts)} texts segmented differently", file=sys.stderr)
        return 1
    entry = {
        "datasets": datasets,
        "texts": len(texts),
        "characters": sum(map(len, texts)),
        "texts_differing": 0,
        "repeat": args.repeat,
        "pkuseg_cpu_seconds": best["pkuseg"],
        "metaeval_cpu_seconds": best["metaeval"],
        "install_cpu_seconds": install_seconds,
        "speedup": best["pkuseg"] / best["metaeval"],
        "load_average_1_5_15_at_start": load,
    }
    update_key(KEY, entry, args.out)
    print(f"{len(texts)} texts, {entry['characters']} characters, tokens identical")
    print(f"pkuseg's tagger {best['pkuseg']:.2f} s, metaeval's {best['metaeval']:.2f} s "
          f"(+{install_seconds:.2f} s once per model load): {entry['speedup']:.2f}x")
    print(f"written: {args.out} [{KEY}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
