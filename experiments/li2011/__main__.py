"""Li, Zong & Ng 2011 on public data: word level or character level?

    python -m experiments.li2011 [--data DIR] [--out DIR] [--bootstrap N] [--only NAME ...]

Runs the study declared in ``experiments/li2011/study.toml`` (as ``metaeval study`` does:
the same code, the same store of computed pieces in ``OUT/store``, so a second run reads what
the first computed), then writes the paper's tables (rows = segmentation, columns = metrics)
with 95% bootstrap intervals and tests, for every metric, character level against the best
word level (paired bootstrap on shared segment resamples). Outputs in
``experiments/results/li2011/``: the study's ``results.tsv`` (every row), ``answer.tsv`` and
``study.json``; one Markdown file per dataset, ``summary.md`` with the headline comparison,
``char_vs_word.tsv``, ``ties.md``, ``references.md``, ``forest.png``, ``results.json`` with the
signatures, and ``runtime.json`` with the wall-clock time of the run from an empty store
(``seconds``) and of the last run that found the store filled (``warm_seconds``).
Deterministic: the same data and seed give byte-identical files (all but ``runtime.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

from experiments.li2011.config import DATASETS, SEED, SPEC, WORD_SEGMENTERS, Dataset
from experiments.runtime import Clock
from metaeval.compute import process_pool, usable_cpus, workers
from metaeval.answer import char_against_best_word
from metaeval.stats.adjust import adjust_p_values
from metaeval.stats.defaults import ADJUST
from metaeval.stats.paired import measure
from metaeval.report.files import write_atomic
from metaeval.report.leaderboard import render, select
from metaeval.studies import STORE, StudyResult, run_study
from metaeval.studyspec import StudySpec, load_spec

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "experiments" / "results" / "li2011"
#: Metrics left out of the counts and of the families of adjusted p-values: chrF ignores spaces,
#: so it is identical at every granularity.
GRANULARITY_FREE = ("chrf",)


def dataset_runs(result: StudyResult, ds: Dataset) -> list[tuple[str, object]]:
    """``(label, Study)`` of each reference variant of ``ds`` in the study: the study's datasets
    on the folder ``ds.path``, named ``ds.name + label``."""
    return [(d.name.removeprefix(ds.name), study) for d, study in result.runs if d.path == ds.path]


def analyse_dataset(result: StudyResult, ds: Dataset, n_bootstrap: int, store=None) -> tuple[pd.DataFrame, dict, list]:  # noqa: ANN001
    """Results of every reference variant of one dataset, its signature, and the paired tests."""
    frames, tests = [], []
    signature: dict = {}
    runs = dataset_runs(result, ds)
    for label, study in runs:
        results = study.results.copy()
        results["dataset"] = f"{ds.name}{label}"
        frames.append(results)
        signature = dict(study.signature)
        signature["reference_variants"] = [name for name, _ in runs]
        adjust = result.spec.settings_for(None).adjust
        for kind, level, statistic, grouping in ds.tests:
            tests += char_vs_word(study, study.judgments, ds, label, kind, level, statistic, grouping, n_bootstrap, store=store,
                                  adjust=adjust)
    return pd.concat(frames, ignore_index=True), signature, tests


def char_vs_word(study, judgments, ds, label, kind, level, statistic, grouping, n_bootstrap, store=None, adjust=ADJUST):  # noqa: ANN001, ANN201
    """For each metric: char against the best word-level segmenter on one statistic, the best
    chosen in each bootstrap resample (:func:`metaeval.answer.char_against_best_word`; with
    ``adjust="none"`` the one best on the full sample), with the p-values of the metrics that
    depend on segmentation (all but :data:`GRANULARITY_FREE`) adjusted together as ``adjust``
    says (``p_adjusted``; NaN for a metric outside the family). The resampled values are kept
    in ``store``, the study's, when given."""
    rows = []
    for metric in dict.fromkeys(c.metric for c in study.configs):
        configs = [c for c in study.configs if c.metric == metric and (c.segmenter == "char" or c.segmenter in WORD_SEGMENTERS)]
        if len(configs) < 2:
            continue
        items = measure(configs, judgments, kind, statistic, level, grouping=grouping, n_bootstrap=n_bootstrap, seed=SEED, store=store)
        values = {item.config.segmenter: item.result for item in items}
        words = {s: r for s, r in values.items() if s in WORD_SEGMENTERS and r.defined}
        if "char" not in values or not values["char"].defined or not words:
            continue
        test = char_against_best_word(values["char"], words, selection=adjust != "none")
        rows.append({
            "dataset": f"{ds.name}{label}", "metric": metric, "judgment_kind": kind, "level": level,
            "statistic": statistic, "grouping": grouping, "char": test["char_value"], "best_word": test["word_segmenter"],
            "best_word_value": test["word_value"], "delta": test["delta"],
            "delta_ci_low": test["delta_ci_low"], "delta_ci_high": test["delta_ci_high"], "p_value": test["p_value"],
        })  # fmt: skip
    family = [r for r in rows if r["metric"] not in GRANULARITY_FREE]
    for r, p in zip(family, adjust_p_values([r["p_value"] for r in family], adjust)):
        r["p_adjusted"] = float(p)
    for r in rows:
        r.setdefault("p_adjusted", float("nan"))
    return rows


def dataset_markdown(ds: Dataset, results: pd.DataFrame, signature: dict) -> str:
    parts = [f"# {ds.name}: {ds.description}\n"]
    for kind, level, statistic, grouping in ds.tables:
        chosen = select(results, judgment_kind=kind, level=level, statistic=statistic)
        if grouping is not None:
            chosen = chosen[chosen.grouping == grouping]
        if chosen.empty:
            continue
        table = render(chosen, None, "markdown", layout="table")
        parts.append("\n".join(line for line in table.splitlines() if not line.startswith("# metaeval leaderboard")))
    parts.append("## Signature\n\n```\n" + json.dumps(signature, indent=1, sort_keys=True, ensure_ascii=False) + "\n```\n")
    return "\n".join(parts)


def headline(tests: pd.DataFrame) -> pd.DataFrame:
    """Per language, level and human score: how often char beats the best word level, and how
    often significantly (adjusted p <= 0.05, each family's p-values adjusted together).

    chrF ignores spaces, so it cannot differ between segmenters and is left out.
    """
    rows = []
    tests = tests[~tests.metric.isin(GRANULARITY_FREE)].copy()
    tests["language"] = tests.dataset.str.extract(r"en-(zh|ja)", expand=False).map({"zh": "Chinese", "ja": "Japanese"})
    for (language, level, statistic, kind), group in tests.groupby(["language", "level", "statistic", "judgment_kind"], sort=True):
        rows.append({
            "language": language, "level": level, "statistic": statistic, "human": kind,
            "datasets": ", ".join(sorted(set(group.dataset))), "comparisons": len(group),
            "char_ahead": int((group.delta > 0).sum()), "words_ahead": int((group.delta < 0).sum()),
            "char_significant": int(((group.delta > 0) & (group.p_adjusted <= 0.05)).sum()),
            "words_significant": int(((group.delta < 0) & (group.p_adjusted <= 0.05)).sum()),
            "mean_delta": float(group.delta.mean()),
        })  # fmt: skip
    return pd.DataFrame(rows)


def summary_markdown(tests: pd.DataFrame) -> str:
    head = headline(tests)
    lines = [
        "# Character level against the best word level (Li et al. 2011's question)\n",
        "For each metric (BLEU, NIST, METEOR, GTM, 1−TER), character level (`char`) against the best",
        "word-level segmenter (jieba or pkuseg for Chinese, MeCab for Japanese) on the same statistic;",
        "p from a two-sided paired bootstrap over 1000 shared segment resamples, the best word-level",
        "segmenter chosen in each resample (for Chinese the larger of jieba and pkuseg; Japanese has MeCab",
        "alone), so that p and the interval include the choice. The five metrics of one dataset, human score, level and statistic are one",
        "family: their p-values are adjusted together by Holm's procedure (familywise error rate), and",
        "a difference counts as significant at adjusted p ≤ .05. chrF is left out of the counts and the",
        "families: it ignores spaces, so it is identical at every granularity.\n",
        "| language | level | statistic | human | datasets | comparisons | char ahead (adj. p ≤ .05) | words ahead (adj. p ≤ .05) | mean delta |",
        "|---|---|---|---|---|---:|---:|---:|---:|",
    ]
    for r in head.itertuples(index=False):
        lines.append(
            f"| {r.language} | {r.level} | {r.statistic} | {r.human} | {r.datasets} | {r.comparisons} | "
            f"{r.char_ahead} ({r.char_significant}) | {r.words_ahead} ({r.words_significant}) | {r.mean_delta:+.3f} |"
        )
    lines += [
        "",
        "## Every comparison\n",
        "delta = char − best word-level segmenter; p adjusted: Holm over the metrics of the row's dataset,",
        "human score, level and statistic (empty for chrF, outside the families).\n",
        "| dataset | level | statistic | human | metric | char | best word | its value | delta | p | p adjusted |",
        "|---|---|---|---|---|---:|---|---:|---:|---:|---:|",
    ]
    for _, r in tests.iterrows():
        adjusted = "" if pd.isna(r.p_adjusted) else f"{r.p_adjusted:.3f}"
        lines.append(
            f"| {r.dataset} | {r.level} | {r.statistic} | {r.judgment_kind} | {r.metric} | {r.char:.3f} | "
            f"{r.best_word} | {r.best_word_value:.3f} | {r.delta:+.3f} | {r.p_value:.3f} | {adjusted} |"
        )
    return "\n".join(lines) + "\n"


def references_markdown(results: pd.DataFrame, base: str = "wmt21/en-zh", kind: str = "da_z") -> str:
    """System-level Spearman under each reference set of a multi-reference dataset."""
    chosen = results[
        results.dataset.str.startswith(base + " ")
        & (results.level == "sys") & (results.statistic == "spearman") & (results.judgment_kind == kind)
    ]
    if chosen.empty:
        return ""
    variants = list(dict.fromkeys(chosen.dataset))
    table = chosen.pivot_table(index=["metric", "segmenter"], columns="dataset", values="value", sort=True)[variants]
    lines = [
        f"# Number of references: {base}, system-level Spearman against {kind}\n",
        "| metric | segmenter | " + " | ".join(v.removeprefix(base + " ") for v in variants) + " |",
        "|---|---|" + "---:|" * len(variants),
    ]
    for (metric, segmenter), row in table.iterrows():
        lines.append(f"| {metric} | {segmenter} | " + " | ".join(f"{row[v]:.3f}" for v in variants) + " |")
    return "\n".join(lines) + "\n"


#: The segment-level statistics that answer "how much came from ties", in the order shown.
TIE_LADDER = (("consistency", "ties excluded (Li et al. 2011)"), ("kendall_acc23", "ties count, eps = 0"),
              ("acc_eq", "ties count, calibrated eps"))  # fmt: skip


def tie_rates(results: pd.DataFrame) -> pd.DataFrame:
    """Share of human-ordered pairs the metric ties, per dataset, kind, metric and segmenter,
    from the pair counts of the consistency rows: ``metric_ties / (C + D + metric_ties)``."""
    rows = results[(results.statistic == "consistency") & results.concordant.notna()].copy()
    compared = rows.concordant + rows.discordant + rows.metric_ties
    rows["metric_tie_rate"] = rows.metric_ties / compared
    return rows[["dataset", "judgment_kind", "metric", "segmenter", "metric_tie_rate"]].reset_index(drop=True)


def ties_markdown(tests: pd.DataFrame, rates: pd.DataFrame) -> str:
    """Char minus best word level on the same pairs under three treatments of ties, with the
    metric tie rates of the two segmenters: the part of the 2011 advantage that ties explain."""
    seg = tests[(tests.level == "seg") & tests.statistic.isin([s for s, _ in TIE_LADDER]) & ~tests.metric.isin(GRANULARITY_FREE)]
    lines = [
        "# How much of the character advantage comes from ties?\n",
        "Segment level, pairs of systems within a segment. Δ = char − best word-level segmenter (best on that",
        "statistic, chosen in each bootstrap resample), 95% paired-bootstrap interval, two-sided p and, after",
        "the semicolon, p adjusted by Holm over the five metrics. `consistency` drops human and metric ties",
        "(Li et al. 2011); `kendall_acc23` counts every pair, a metric tie being wrong unless the humans tie",
        "too; `acc_eq` lets each configuration choose the metric difference below which it declares a tie",
        "(Deutsch et al. 2023). Tie rate: share of human-ordered pairs the metric scores equal.\n",
        "| dataset | metric | " + " | ".join(f"Δ {s} [95% CI] (p; adj.)" for s, _ in TIE_LADDER) + " | tie rate char | tie rate word |",
        "|---|---|" + "---:|" * (len(TIE_LADDER) + 2),
    ]
    for (dataset, metric), group in seg.groupby(["dataset", "metric"], sort=True):
        cells = []
        for statistic, _ in TIE_LADDER:
            hit = group[group.statistic == statistic]
            if hit.empty:
                cells.append("")
                continue
            r = hit.iloc[0]
            cells.append(f"{r.delta:+.4f} [{r.delta_ci_low:+.4f}, {r.delta_ci_high:+.4f}] ({r.p_value:.3f}; {r.p_adjusted:.3f})")
        word = group[group.statistic == "consistency"].best_word
        shown = []
        for segmenter in ["char", word.iloc[0] if len(word) else ""]:
            hit = rates[(rates.dataset == dataset) & (rates.metric == metric) & (rates.segmenter == segmenter)]
            shown.append(f"{hit.metric_tie_rate.iloc[0]:.4f} ({segmenter})" if len(hit) else "")
        lines.append(f"| {dataset} | {metric} | " + " | ".join(cells + shown) + " |")
    return "\n".join(lines) + "\n"


#: Resolution of ``forest.png``, inches per row of a panel, and the tallest a panel may be.
FOREST_DPI = 150
FOREST_ROW_INCHES = 0.16
FOREST_PANEL_MAX_PX = 1600


def forest_panels(tests: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The forest plot's panels: one per (level, statistic), its rows grouped by dataset (then
    grouping and metric), chrF left out (identical at every granularity)."""
    rows = tests[~tests.metric.isin(GRANULARITY_FREE)]
    panels = []
    for (level, statistic), group in rows.groupby(["level", "statistic"], sort=True):
        ordered = group.sort_values(["dataset", "grouping", "metric"], kind="mergesort").reset_index(drop=True)
        panels.append((f"{'system' if level == 'sys' else 'segment'} {statistic}", ordered))
    return panels


def forest_figure(tests: pd.DataFrame, columns: int = 2):  # noqa: ANN201 - a matplotlib Figure
    """Δ(char − best word) with its 95% paired-bootstrap interval: one panel per statistic
    (:func:`forest_panels`), each row a dataset × metric (× grouping), the datasets of a panel
    separated by a rule; panels placed in ``columns`` columns, each column as tall as its rows."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = forest_panels(tests)
    stacks: list[list[int]] = [[] for _ in range(max(1, min(columns, len(panels))))]
    sizes = [len(rows) + 5 for _, rows in panels]  # rows, plus room for the title above and the axis below
    for index in sorted(range(len(panels)), key=lambda i: -sizes[i]):  # tallest first, into the shortest column
        min(stacks, key=lambda stack: sum(sizes[i] for i in stack)).append(index)
    tallest = max(sum(sizes[i] for i in stack) for stack in stacks)
    figure = Figure(figsize=(7.0 * len(stacks), FOREST_ROW_INCHES * tallest + 0.8), dpi=FOREST_DPI)
    FigureCanvasAgg(figure)
    grid = figure.add_gridspec(tallest, len(stacks), left=0.2 / len(stacks) * 1.6, right=0.98, top=1 - 0.5 / (FOREST_ROW_INCHES * tallest + 0.8),
                               bottom=0.3 / (FOREST_ROW_INCHES * tallest + 0.8), wspace=0.9)  # fmt: skip
    for column, stack in enumerate(stacks):
        top = 0
        for index in sorted(stack):
            title, rows = panels[index]
            ax = figure.add_subplot(grid[top + 2 : top + sizes[index] - 3, column])
            top += sizes[index]
            y = len(rows) - 1 - rows.index.to_numpy()
            # a percentile interval need not contain the point estimate: draw both as they are
            ax.hlines(y, rows.delta_ci_low, rows.delta_ci_high, color="#4c78a8", lw=1)
            ax.plot(rows.delta, y, "o", ms=3, color="#1f3b5c")
            ax.axvline(0.0, color="black", lw=0.8)
            for boundary in (rows.index[rows.dataset.ne(rows.dataset.shift())][1:]).to_numpy():
                ax.axhline(len(rows) - boundary - 0.5, color="0.6", lw=0.5)
            labels = [f"{r.dataset} · {r.metric}" + (f" @{r.grouping}" if r.level == "seg" and r.statistic != "consistency" else "")
                      for r in rows.itertuples()]  # fmt: skip
            ax.set_yticks(y, labels, fontsize=6.5)
            ax.set_ylim(-0.7, len(rows) - 0.3)
            ax.set_title(title, fontsize=8)
            ax.tick_params(axis="x", labelsize=6.5)
            ax.grid(axis="x", lw=0.3)
    figure.suptitle("Δ = char − best word level (95% paired bootstrap interval)", fontsize=9)
    return figure


def forest_plot(tests: pd.DataFrame, path: Path) -> None:
    """``forest.png``: :func:`forest_figure`, written atomically without the Software chunk."""
    figure = forest_figure(tests)
    tmp = path.with_suffix(".tmp.png")
    figure.savefig(tmp, dpi=FOREST_DPI, metadata={"Software": None})
    os.replace(tmp, path)


#: What the forked workers of :func:`analyse_all` read (inherited, not pickled).
_SHARED: dict = {}


def _analyse_one(index: int) -> tuple[pd.DataFrame, dict, list, str]:
    result, datasets, n_bootstrap, store = (_SHARED[k] for k in ("result", "datasets", "n_bootstrap", "store"))
    ds = datasets[index]
    results, signature, tests = analyse_dataset(result, ds, n_bootstrap, store)
    return results, signature, tests, dataset_markdown(ds, results, signature)


def analyse_all(result: StudyResult, datasets: list[Dataset], n_bootstrap: int, store, jobs: int) -> list[tuple]:  # noqa: ANN001
    """:func:`analyse_dataset` and :func:`dataset_markdown` of every dataset, in the order given;
    with ``jobs > 1``, spread over that many forked processes while this one loads matplotlib
    for the forest plot (the results do not depend on it)."""
    _SHARED.update(result=result, datasets=datasets, n_bootstrap=n_bootstrap, store=store)
    try:
        if jobs <= 1 or len(datasets) <= 1:
            return [_analyse_one(i) for i in range(len(datasets))]
        with process_pool(min(jobs, len(datasets))) as pool:
            futures = [pool.submit(_analyse_one, i) for i in range(len(datasets))]
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot  # noqa: F401
            return [future.result() for future in futures]
    finally:
        _SHARED.clear()


def study_spec(data: Path | None, bootstrap: int, only: list[str] | None) -> StudySpec:
    """The study of ``study.toml``, with the data folder, bootstrap and datasets chosen here."""
    spec = load_spec(SPEC, data)
    if spec.settings["seed"] != SEED:
        raise SystemExit(f"li2011: {SPEC}: study.seed must be {SEED}, the seed of the paired tests")
    if spec.settings_for(None).adjust != "holm":
        raise SystemExit(f"li2011: {SPEC}: study.adjust must be holm, the adjustment the reports describe")
    paths = {ds.path for ds in DATASETS if not only or ds.name in only}
    return replace(spec, datasets=tuple(d for d in spec.datasets if d.path in paths),
                   settings={**spec.settings, "bootstrap": bootstrap})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Li, Zong & Ng 2011 on public data")
    parser.add_argument("--data", type=Path, default=None, help="shared data folder (default: the study file's, or $METAEVAL_DATA)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--only", action="append", help="dataset names to run (default: all)")
    parser.add_argument("--jobs", type=int, default=usable_cpus(), help="worker processes (results do not depend on it)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="keep computed pieces here (default: OUT/store)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.only or () if name not in {ds.name for ds in DATASETS}]
    if unknown:
        parser.error(f"--only: unknown dataset {unknown[0]!r}; known: {', '.join(ds.name for ds in DATASETS)}")
    spec = study_spec(args.data, args.bootstrap, args.only)
    store = args.cache_dir if args.cache_dir is not None else args.out / STORE
    clock = Clock(store)
    with workers(args.jobs) as (executor, jobs):
        result = run_study(spec, out=args.out, jobs=jobs, executor=executor, cache_dir=store,
                           log=lambda line: print(f"li2011: {line}", file=sys.stderr, flush=True))
    all_results, all_tests, signatures = [], [], {}
    chosen = [ds for ds in DATASETS if not args.only or ds.name in args.only]
    for ds, (results, signature, tests, markdown) in zip(chosen, analyse_all(result, chosen, args.bootstrap, store, jobs)):
        signatures[ds.name] = signature
        all_results.append(results)
        all_tests += tests
        write_atomic(args.out / f"{ds.slug}.md", markdown, overwrite=True)
    results = pd.concat(all_results, ignore_index=True)
    tests = pd.DataFrame(all_tests)
    # results.tsv is the study's (the same rows, written by metaeval study)
    write_atomic(args.out / "char_vs_word.tsv", tests.to_csv(sep="\t", index=False, float_format="%.6g", lineterminator="\n"), overwrite=True)
    write_atomic(args.out / "summary.md", summary_markdown(tests), overwrite=True)
    write_atomic(args.out / "ties.md", ties_markdown(tests, tie_rates(results)), overwrite=True)
    forest_plot(tests, args.out / "forest.png")
    write_atomic(args.out / "references.md", references_markdown(results), overwrite=True)
    write_atomic(args.out / "results.json", json.dumps({"seed": SEED, "n_bootstrap": args.bootstrap, "signatures": signatures}, indent=1, sort_keys=True, ensure_ascii=False) + "\n", overwrite=True)
    record = {"datasets": list(signatures), "jobs": args.jobs, "cpus": os.cpu_count(), "n_bootstrap": args.bootstrap}
    clock.write(args.out / "runtime.json", record)
    print(summary_markdown(tests).split("## Every comparison")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
