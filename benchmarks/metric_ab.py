"""One metric's scoring on an earlier commit and on this tree, call by call, in one process.

    python -m benchmarks.metric_ab --base COMMIT meteor [--passes 3] [--dataset wmt24-esa/en-zh] [--segmenter char ...]

A whole ``metaeval`` process spends most of its time outside any one metric, so a change of a
metric's kernels by a tenth moves the process by a few percent, less than the rounds of
:mod:`benchmarks.ab` can tell apart on a busy 2-core machine. Here the metric's module (``ter``
also brings ``tercom``) is loaded twice in this process: from ``--base`` (its source read with
``git show``, compiled kernels not cached) and from this tree. Every system of the dataset,
segmented once with each of the workload's segmenters, is scored by both; the statistics must be
equal array for array (the run stops otherwise). Then ``--passes`` times over every (segmenter,
system) pair, the two sides score it in turn (which goes first alternates), and each call's CPU
seconds give one ratio this / base: their median, its sign-test interval and verdict
(:func:`benchmarks.ab.paired_ratios`) and the summed CPU seconds of each side go under the key
``metric_ab_<metric>`` of ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable

import numpy as np

from benchmarks import workload
from benchmarks.ab import interval_text, paired_ratios
from benchmarks.bench import DATA, REPO, check_arguments, data_errors
from benchmarks.store import store_and_say

#: Modules of each metric that hold its kernels, loaded from the base commit in dependency order.
MODULES = {
    "meteor": ("meteor",),
    "ter": ("tercom", "ter"),
    "1-ter": ("tercom", "ter"),
    "bleu": ("ngrams", "bleu"),
    "nist": ("ngrams", "nist"),
    "gtm": ("gtm",),
    "chrf": ("chrf",),
}


def module_at(commit: str, path: str, name: str, tool: str, edit: Callable[[str], str] = lambda text: text) -> types.ModuleType:
    """The file ``path`` of ``commit`` (read with ``git show``, its text passed through ``edit``)
    run as the module ``name``, registered in ``sys.modules``; ``tool: COMMIT:PATH: why`` if git
    cannot read it."""
    source = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=REPO, capture_output=True, text=True, check=False)
    if source.returncode != 0:
        raise SystemExit(f"{tool}: {commit}:{path}: {source.stderr.strip()}")
    module = types.ModuleType(name)
    module.__file__ = f"<{commit[:7]}:{path}>"
    sys.modules[name] = module
    exec(compile(edit(source.stdout), module.__file__, "exec"), module.__dict__)  # noqa: S102 - this repository's own source
    return module


def base_modules(commit: str, names: tuple[str, ...]) -> dict[str, types.ModuleType]:
    """``metaeval.metrics.<name>`` of ``commit`` for each of ``names``, as modules of their own
    (``metaeval_base.<name>``; a later one importing an earlier one gets the base's), with numba's
    kernel cache off, since the source has no file of its own."""
    package = types.ModuleType("metaeval_base")
    package.__path__ = []  # a package, so that its modules import by name
    sys.modules.setdefault("metaeval_base", package)
    loaded: dict[str, types.ModuleType] = {}

    def edit(text: str) -> str:
        text = text.replace("cache=True", "cache=False")
        for earlier in loaded:
            text = text.replace(f"from metaeval.metrics.{earlier} import", f"from metaeval_base.{earlier} import")
            text = text.replace(f"from metaeval.metrics import {earlier}", f"import metaeval_base.{earlier} as {earlier}")
        return text

    for name in names:
        loaded[name] = module_at(commit, f"metaeval/metrics/{name}.py", f"metaeval_base.{name}", "metric_ab", edit)
    return loaded


def metric_class(module: types.ModuleType, spec: str) -> Any:
    """The metric of ``spec`` built from ``module``'s class of the registry's metric."""
    from metaeval.metrics import get_metric

    this = get_metric(spec)
    return getattr(module, type(this).__name__)(**{f.name: getattr(this, f.name) for f in dataclasses.fields(this) if f.init})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("metric", choices=sorted(MODULES))
    parser.add_argument("--base", required=True, help="the commit whose kernels are the baseline")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--dataset", default=workload.DATASET)
    parser.add_argument("--segmenter", action="append", help=f"default: the workload's ({', '.join(workload.SEGMENTERS)})")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    parser.add_argument("--no-store", action="store_true")
    args = parser.parse_args(argv)
    if args.passes < 1:
        parser.error("--passes must be at least 1")
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{args.base}^{{commit}}"], cwd=REPO, capture_output=True,
                            text=True, check=False)  # fmt: skip
    if commit.returncode != 0:
        parser.error(f"--base {args.base!r} is not a commit of {REPO}")
    from metaeval import corpora, segmenters

    segmenter_names = args.segmenter or list(workload.SEGMENTERS)
    check_arguments(parser, [args.dataset], segmenter_names)
    with data_errors("metric_ab"):
        corpus, _ = corpora.read(DATA / args.dataset)
        segmenter_of = {name: segmenters.get(name) for name in segmenter_names}
    names = MODULES[args.metric]
    base = base_modules(commit.stdout.strip(), names)
    this = {name: importlib.import_module(f"metaeval.metrics.{name}") for name in names}
    sides = {"base": metric_class(base[names[-1]], args.metric), "this": metric_class(this[names[-1]], args.metric)}
    texts = list(dict.fromkeys([t for ref in corpus.refs_list() for t in ref] + [t for h in corpus.systems.values() for t in h]))
    load = list(os.getloadavg())
    calls = []
    for seg_name in segmenter_names:
        tokens = dict(zip(texts, segmenter_of[seg_name].segment_many(texts)))
        refs = [[tokens[t] for t in ref] for ref in corpus.refs_list()]
        prepared = {side: metric.prepare(refs) for side, metric in sides.items()}
        for system in sorted(corpus.systems):
            hyps = [tokens[t] for t in corpus.systems[system]]
            found = {side: metric.segment_stats(hyps, prepared[side]) for side, metric in sides.items()}
            if not np.array_equal(found["base"], found["this"]):
                raise SystemExit(f"metric_ab: {args.metric} statistics differ between the sides on {seg_name}, {system}")
            calls.append((hyps, prepared))
    ratios, total = [], {"base": 0.0, "this": 0.0}
    for p in range(args.passes):
        for k, (hyps, prepared) in enumerate(calls):
            order = ["base", "this"] if (p + k) % 2 == 0 else ["this", "base"]
            cpu = {}
            for side in order:
                start = time.process_time()
                sides[side].segment_stats(hyps, prepared[side])
                cpu[side] = time.process_time() - start
                total[side] += cpu[side]
            ratios.append(cpu["this"] / cpu["base"])
    paired = paired_ratios(ratios)
    entry = {"metric": args.metric, "dataset": args.dataset, "segmenters": segmenter_names, "base": commit.stdout.strip(),
             "passes": args.passes, "calls": len(ratios), "identical_statistics": True, "cpu_seconds": total,
             "load_average_1_5_15_at_start": load, "paired_per_call": paired}  # fmt: skip
    print(f"{args.metric} on {args.dataset}, {len(calls)} (segmenter, system) calls x {args.passes} passes: base "
          f"{total['base']:.2f} CPU-s, this {total['this']:.2f} CPU-s ({total['this'] / total['base']:.3f}x); ratio per call "
          f"{paired['median']:.3f}x{interval_text(paired)}, {paired['verdict']}; statistics identical")  # fmt: skip
    store_and_say(f"metric_ab_{args.metric}", entry, args.out, not args.no_store)
    return 0


__all__ = ["base_modules", "main", "metric_class"]

if __name__ == "__main__":
    sys.exit(main())
