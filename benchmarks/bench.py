"""Benchmark: metaeval against sacrebleu on the same data, in one command.

    python -m benchmarks.bench                  # WMT24 en-zh and WMT21 en-zh, writes benchmarks/results.json
    python -m benchmarks.bench --quick          # smaller baselines, for a smoke run

Every ratio compares two timings taken in this command on the same data:
``ours / baseline`` (below 1 is faster). Stages:

- segmentation: each unique text once per segmenter, in a fresh process (model loading included);
- BLEU for every order M = 1..30 at character level, all segments and systems, against a loop
  of sacrebleu ``BLEU(max_ngram_order=M, tokenize='none')`` sentence and corpus scores;
- TER at character and word level against sacrebleu's TER (case-sensitive, no normalisation);
  sacrebleu's TER takes about half a second a pair on character-level paragraphs, so it is
  timed on a seeded sample of pairs and both sides are compared per pair on that sample;
- GTM (e = 1, 2, 3), METEOR exact, NIST: our throughput;
- correlation with 1000 bootstrap samples.

The whole ``metaeval run`` against the segmentation floor is ``benchmarks.scale``. The results
go under the keys ``datasets`` and ``machine`` of ``benchmarks/results.json`` (other keys are
kept), with the load average of the machine at the start and the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource  # noqa: F401  (used by the child snippets)
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from benchmarks.store import update_keys

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data")).resolve()
DATASETS = ("wmt24-esa/en-zh", "wmt21/en-zh")


def check_arguments(parser: argparse.ArgumentParser, datasets: Sequence[str] = (), segmenter_names: Sequence[str] = ()) -> None:
    """End the command as a usage error (one line, exit 2) before any work if a dataset is not a
    folder under the shared data folder or a segmenter spec fails the registry's own check
    (``segmenters.check``, as the command line's: a segmenter that learns from text is not built)."""
    from metaeval import segmenters
    from metaeval.errors import MetaevalError

    for name in datasets:
        if not (DATA / name).is_dir():
            parser.error(f"--dataset {name}: {DATA / name} is not a folder (the shared data folder is METAEVAL_DATA, "
                         f"default ../shared/data)")
    for name in segmenter_names:
        try:
            segmenters.check(name)
        except MetaevalError as error:
            parser.error(str(error))


@contextlib.contextmanager
def data_errors(tool: str) -> Iterator[None]:
    """Inside the block, an error in the data itself (a :class:`~metaeval.errors.MetaevalError`
    once its names were checked by :func:`check_arguments`) ends the command with one line
    naming ``tool``, exit 1, not a traceback."""
    from metaeval.errors import MetaevalError

    try:
        yield
    except MetaevalError as error:
        raise SystemExit(f"{tool}: {error}") from None


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def best_cpu(sides: dict[str, Callable[[], Any]], repeat: int) -> tuple[dict[str, float], dict[str, Any]]:
    """Run every side ``repeat`` times, alternately, each timed as CPU time of this process
    (``time.process_time``: less disturbed than wall time by other processes); returns the
    best time and the last result of each side."""
    best = {side: float("inf") for side in sides}
    results: dict[str, Any] = {}
    for _ in range(repeat):
        for side, fn in sides.items():
            start = time.process_time()
            results[side] = fn()
            best[side] = min(best[side], time.process_time() - start)
    return best, results


def load(name: str):  # noqa: ANN201
    from metaeval import corpora

    corpus, judgments = corpora.read(DATA / name)
    return corpus, judgments


def char_tokens(corpus):  # noqa: ANN001, ANN201
    from metaeval import segmenters
    from metaeval.scoring import segment_unique

    seg = segmenters.get("char")
    texts = [t for r in corpus.refs_list() for t in r] + [t for h in corpus.systems.values() for t in h]
    table = segment_unique(seg, texts)
    refs = [[table[t] for t in r] for r in corpus.refs_list()]
    hyps = {s: [table[t] for t in h] for s, h in corpus.systems.items()}
    return refs, hyps


# --- stages --------------------------------------------------------------------------


def stage_segmentation(name: str, segmenter_names: list[str]) -> dict[str, Any]:
    """Each segmenter in a fresh process: load + segment every unique text once."""
    out = {}
    for seg in segmenter_names:
        code = (
            "import json,sys,time,resource\n"
            "t0=time.perf_counter()\n"
            "from metaeval import corpora, segmenters\n"
            f"c,_=corpora.read({str(DATA / name)!r})\n"
            "texts=list(dict.fromkeys([t for r in c.refs_list() for t in r]+[t for h in c.systems.values() for t in h]))\n"
            "t1=time.perf_counter()\n"
            f"s=segmenters.get({seg!r}); s.segment_many(texts)\n"
            "t2=time.perf_counter()\n"
            "print(json.dumps({'texts':len(texts),'seconds':t2-t1,'read_seconds':t1-t0,"
            "'peak_rss_mb':resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024}))\n"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
        out[seg] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def stage_bleu_orders(corpus, refs, hyps, max_order: int, baseline_orders: list[int]) -> dict[str, Any]:  # noqa: ANN001
    from sacrebleu.metrics import BLEU as SacreBLEU

    from metaeval.metrics.bleu import BLEU

    metric = BLEU(n=max_order, smooth="none")

    def ours() -> tuple[np.ndarray, np.ndarray]:
        prepared = metric.prepare(refs)
        seg_scores, sys_scores = [], []
        for system in corpus.systems:
            stats = metric.segment_stats(hyps[system], prepared)
            seg_scores.append(metric.scores_by_order(stats))
            sys_scores.append(metric.scores_by_order(stats.sum(0)))
        return np.stack(seg_scores), np.stack(sys_scores)

    ours_seconds, (seg_scores, sys_scores) = timed(ours)
    ref_texts = [[" ".join(toks) for toks in r] for r in refs]
    hyp_texts = {s: [" ".join(toks) for toks in h] for s, h in hyps.items()}
    base_seconds = 0.0
    max_diff = 0.0
    for m in baseline_orders:
        bleu = SacreBLEU(max_ngram_order=m, tokenize="none", smooth_method="none")

        def loop() -> tuple[list[list[float]], list[float]]:
            seg = [[bleu.sentence_score(h, [r[i] for r in ref_texts]).score for i, h in enumerate(hyp_texts[s])] for s in corpus.systems]
            sysl = [bleu.corpus_score(hyp_texts[s], ref_texts).score for s in corpus.systems]
            return seg, sysl

        seconds, (seg, sysl) = timed(loop)
        base_seconds += seconds
        max_diff = max(max_diff, float(np.abs(np.asarray(seg) / 100 - seg_scores[:, :, m - 1]).max()))
        max_diff = max(max_diff, float(np.abs(np.asarray(sysl) / 100 - sys_scores[:, m - 1]).max()))
    per_order_base = base_seconds / len(baseline_orders)
    return {
        "orders": max_order,
        "baseline_orders_timed": baseline_orders,
        "ours_seconds_all_orders": ours_seconds,
        "sacrebleu_seconds_timed_orders": base_seconds,
        "sacrebleu_seconds_all_orders": per_order_base * max_order
        if len(baseline_orders) < max_order
        else base_seconds,
        "sacrebleu_extrapolated": len(baseline_orders) < max_order,
        "speedup": per_order_base * max_order / ours_seconds,
        "max_abs_diff_vs_sacrebleu": max_diff,
    }


def stage_ter(corpus, refs, hyps, sample: int, seed: int, level: str) -> dict[str, Any]:  # noqa: ANN001
    from sacrebleu.metrics import TER as SacreTER

    from metaeval.metrics.ter import TER

    metric = TER()
    systems = list(corpus.systems)
    pairs = [(s, i) for s in systems for i in range(corpus.n_segments)]
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(pairs), size=min(sample, len(pairs)), replace=False).tolist())
    sample_pairs = [pairs[k] for k in chosen]

    prepared = metric.prepare(refs)
    ours_all, _ = timed(lambda: [metric.segment_stats(hyps[s], prepared) for s in systems])
    sample_hyps = [hyps[s][i] for s, i in sample_pairs]
    sample_refs = [[r[i] for s, i in sample_pairs] for r in refs]
    ours_sample, ours_stats = timed(lambda: metric.segment_stats(sample_hyps, metric.prepare(sample_refs)))
    ter = SacreTER(case_sensitive=True, normalized=False, no_punct=False, asian_support=False)
    joined_refs = [[" ".join(t) for t in r] for r in sample_refs]

    def baseline() -> list[float]:
        return [
            ter.sentence_score(" ".join(h), [r[k] for r in joined_refs]).score / 100
            for k, h in enumerate(sample_hyps)
        ]

    base_sample, base_scores = timed(baseline)
    ours_scores = metric.score(ours_stats)
    agree = float(np.mean(np.isclose(ours_scores, base_scores, atol=1e-9)))
    return {
        "level": level,
        "pairs_total": len(pairs),
        "pairs_sampled": len(sample_pairs),
        "ours_seconds_all_pairs": ours_all,
        "ours_pairs_per_second": len(pairs) / ours_all,
        "ours_seconds_sample": ours_sample,
        "ours_pairs_per_second_sample": len(sample_pairs) / ours_sample,
        "sacrebleu_seconds_sample": base_sample,
        "sacrebleu_pairs_per_second": len(sample_pairs) / base_sample,
        "speedup": base_sample / ours_sample,  # = ours_pairs_per_second_sample / sacrebleu_pairs_per_second
        "fraction_equal_to_sacrebleu": agree,
    }


def stage_metric_throughput(corpus, refs, hyps, specs: list[str]) -> dict[str, Any]:  # noqa: ANN001
    from metaeval.metrics import get_metric

    out = {}
    n_pairs = corpus.n_segments * len(corpus.systems)
    for spec in specs:
        metric = get_metric(spec)
        seconds, _ = timed(lambda: [metric.segment_stats(hyps[s], metric.prepare(refs)) for s in corpus.systems])
        out[spec] = {"seconds": seconds, "pairs_per_second": n_pairs / seconds}
    return out


def stage_correlation(name: str, n_bootstrap: int) -> dict[str, Any]:
    """evaluate() on the default configurations (4 segmenters x 6 metrics), bootstrap included."""
    from metaeval.api import default_segmenters
    from metaeval.stats.evaluate import evaluate
    from metaeval.metrics import DEFAULT_METRICS
    from metaeval.scoring import score_corpus

    corpus, judgments = load(name)
    scored = score_corpus(corpus, list(default_segmenters(corpus.target_lang)), list(DEFAULT_METRICS))
    seconds, results = timed(
        lambda: evaluate(scored.configs, judgments, n_bootstrap=n_bootstrap, seed=1, clusters=True)
    )
    return {"configs": len(scored.configs), "rows": len(results), "n_bootstrap": n_bootstrap, "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    import logging

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its per-sentence effective_order advice
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer baseline orders and TER pairs")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results.json"))
    parser.add_argument("--ter-sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--stages", default="segmentation,bleu,ter,metrics,correlation")
    args = parser.parse_args(argv)
    stages = set(args.stages.split(","))
    ter_sample = args.ter_sample or (40 if args.quick else 200)
    report: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_average_1_5_15_at_start": list(os.getloadavg())},
        "datasets": {},
    }
    for name in DATASETS:
        corpus, _ = load(name)
        refs, hyps = char_tokens(corpus)
        entry: dict[str, Any] = {"systems": len(corpus.systems), "segments": corpus.n_segments,
                                 "references": len(refs)}
        big = name.startswith("wmt21")
        if "segmentation" in stages:
            entry["segmentation"] = stage_segmentation(name, ["char", "cjk-char", "jieba", "pkuseg"])
        if "bleu" in stages:
            orders = [1, 4, 18, 30] if (args.quick or big) else list(range(1, 31))
            entry["bleu_orders_1_30_char"] = stage_bleu_orders(corpus, refs, hyps, 30, orders)
        if "ter" in stages:
            entry["ter_char"] = stage_ter(corpus, refs, hyps, ter_sample, args.seed, "char")
            from metaeval import segmenters
            from metaeval.scoring import segment_unique

            jieba = segmenters.get("jieba")
            texts = [t for r in corpus.refs_list() for t in r] + [t for h in corpus.systems.values() for t in h]
            table = segment_unique(jieba, texts)
            wrefs = [[table[t] for t in r] for r in corpus.refs_list()]
            whyps = {s: [table[t] for t in h] for s, h in corpus.systems.items()}
            entry["ter_word_jieba"] = stage_ter(corpus, wrefs, whyps, ter_sample, args.seed, "jieba")
        if "metrics" in stages:
            entry["metrics_char"] = stage_metric_throughput(
                corpus, refs, hyps, ["gtm:e=1", "gtm:e=2", "gtm:e=3", "meteor", "nist", "bleu", "chrf"]
            )
        if "correlation" in stages and not big:
            entry["correlation"] = stage_correlation(name, 1000)
        report["datasets"][name] = entry
        print(render_summary(name, entry), flush=True)
    report["machine"]["load_average_1_5_15_at_end"] = list(os.getloadavg())
    update_keys({key: report[key] for key in ("machine", "datasets")}, Path(args.out))
    print(f"written: {args.out} [machine, datasets]")
    return 0


def render_summary(name: str, entry: dict[str, Any]) -> str:
    lines = [f"== {name}: {entry['systems']} systems x {entry['segments']} segments, {entry['references']} reference(s)"]
    for seg, v in entry.get("segmentation", {}).items():
        lines.append(f"segmentation {seg:9s} {v['texts']:6d} texts {v['seconds']:8.2f} s")
    if "bleu_orders_1_30_char" in entry:
        b = entry["bleu_orders_1_30_char"]
        lines.append(
            f"BLEU M=1..30 char: ours {b['ours_seconds_all_orders']:.2f} s, sacrebleu "
            f"{b['sacrebleu_seconds_all_orders']:.1f} s{' (extrapolated)' if b['sacrebleu_extrapolated'] else ''}"
            f" -> {b['speedup']:.0f}x faster, max |diff| {b['max_abs_diff_vs_sacrebleu']:.1e}"
        )
    for key in ("ter_char", "ter_word_jieba"):
        if key in entry:
            t = entry[key]
            lines.append(
                f"TER {t['level']:6s}: on {t['pairs_sampled']} sampled pairs ours "
                f"{t['pairs_sampled'] / t['ours_seconds_sample']:.0f} pairs/s, sacrebleu "
                f"{t['sacrebleu_pairs_per_second']:.1f} pairs/s -> {t['speedup']:.0f}x faster "
                f"({t['fraction_equal_to_sacrebleu']:.1%} equal to sacrebleu); all pairs: ours "
                f"{t['ours_pairs_per_second']:.0f} pairs/s"
            )
    for spec, v in entry.get("metrics_char", {}).items():
        lines.append(f"{spec:10s} char: {v['pairs_per_second']:8.0f} pairs/s ({v['seconds']:.2f} s)")
    if "correlation" in entry:
        c = entry["correlation"]
        lines.append(f"correlation: {c['configs']} configs, {c['n_bootstrap']} bootstrap samples: {c['seconds']:.2f} s")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
