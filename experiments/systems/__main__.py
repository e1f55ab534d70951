"""System leaderboards by granularity on WMT24 English→Chinese, English→Japanese and WMT21
English→Chinese: how the ranking of MT systems moves with the unit.

    python -m experiments.systems [--data DIR] [--out DIR] [--jobs N]

For each dataset of :data:`experiments.systems.config.DATASETS` this runs what
``metaeval systems`` runs (:func:`metaeval.systems.corpus_board`: Li et al.'s metrics
under characters, two BPE vocabularies and the word segmenters, 10,000 paired-bootstrap
resamples, seed 12345, WMT24's Wilcoxon tests on the human side) and writes into
``experiments/results/systems/<dataset>/``: ``board.md`` (every leaderboard and pair table),
``leaderboard.tsv``, ``pairs.tsv``, ``granularities.tsv``, ``latin_share.tsv``, ``readme_view.tsv``
(the README's table) and ``bump.png`` (every p-value: ``metaeval systems CORPUS -f json``). Across datasets: ``findings.tsv`` (per dataset and metric: the best word
segmenter, the systems whose rank depends on the granularity, the pairs that swap between
characters and that segmenter and how many of them either side of the swap separates
significantly, and Spearman's rho between the systems' share of Latin letters and digits and
their change of rank from ``char`` to ``cjk-char``), ``wmt24_en-zh_human.tsv`` (WMT24's published
English-Chinese ranking, then WMT's procedure on the shared paragraphs changed one step at a time
into ``metaeval systems``), ``wmt24_en-zh_domains.tsv`` (paragraphs per domain), ``summary.md`` and
``runtime.json``. Computed pieces stay in ``OUT/store``. Every file but ``runtime.json`` is the
same bytes on a rerun.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path
from typing import Sequence

import pandas as pd
from scipy import stats

from experiments.runtime import Clock
from experiments.systems.config import ADJUST, ALPHA, BOOTSTRAP, DATASETS, METRICS, README_METRIC, SEED, SUBWORD_LADDER, Dataset
from experiments.systems.wmt import domain_sizes, steps
from metaeval import corpora
from metaeval.compute import usable_cpus, workers
from metaeval.report.bump import bumps, png
from metaeval.report.equivalence import frame_section
from metaeval.report.files import write_atomic
from metaeval.report.systems import moved_systems, render_board, separated_moves
from metaeval.report.text import render_markdown
from metaeval.scoring import get_segmenter, reference_lines
from metaeval.sweep import subword_specs
from metaeval.systemrank.board import SystemBoard
from metaeval.systems import corpus_board

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data"))
OUT = REPO / "experiments" / "results" / "systems"
STORE = "store"


def tsv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep="\t", index=False, lineterminator="\n", float_format="%.10g")
    return buffer.getvalue()


def best_word_segmenter(board: SystemBoard, metric: str) -> str:
    """The word segmenter that orders fewest pairs against the humans under ``metric``; ties:
    fewer such pairs that both sides separate, then the sweep's order."""
    words = board.granularities[board.granularities["family"] == "words"]["name"].tolist()
    rows = board.pairs[(board.pairs["metric"] == metric) & board.pairs["segmenter"].isin(words)].copy()
    rows["position"] = rows["segmenter"].map({name: i for i, name in enumerate(words)})
    return str(rows.sort_values(["inverted", "inverted_both_significant", "position"]).iloc[0]["segmenter"])


def swaps(board: SystemBoard, metric: str, a: str, b: str) -> tuple[list[tuple[str, str]], int, int]:
    """The pairs of systems ``metric`` orders one way under segmenter ``a`` and the other under
    ``b``, and how many of them its test separates significantly under ``a``, and under ``b``."""
    table = board.table[(board.table["source"] == "metric") & (board.table["metric"] == metric)]
    rank_a = table[table["segmenter"] == a].set_index("system")["rank"]
    rank_b = table[table["segmenter"] == b].set_index("system")["rank"]
    systems = list(rank_a.index)
    found = [(s, t) for i, s in enumerate(systems) for t in systems[i + 1 :]
             if (rank_a[s] - rank_a[t]) * (rank_b[s] - rank_b[t]) < 0]  # fmt: skip
    winners = board.comparisons[(board.comparisons["source"] == "metric") & (board.comparisons["metric"] == metric)]
    winner = {(r.segmenter, frozenset((r.system_a, r.system_b))): r.winner for r in winners.itertuples(index=False)}
    under_a = sum(bool(winner[(a, frozenset(pair))]) for pair in found)
    under_b = sum(bool(winner[(b, frozenset(pair))]) for pair in found)
    return found, under_a, under_b


def latin_rank_correlation(board: SystemBoard, metric: str, shares: pd.DataFrame) -> float:
    """Spearman's rho between each system's share of Latin letters and digits and the change of
    its rank under ``metric`` from ``char`` to ``cjk-char`` (which split only those differently)."""
    table = board.table[(board.table["source"] == "metric") & (board.table["metric"] == metric)]
    ranks = table.pivot(index="system", columns="segmenter", values="rank")
    shift = ranks["cjk-char"] - ranks["char"]
    share = shares[shares["kind"] == "system"].set_index("name")["latin_share"].loc[shift.index]
    if shift.nunique() < 2:
        return float("nan")
    return float(stats.spearmanr(share, shift).statistic)


def findings(ds: Dataset, board: SystemBoard, shares: pd.DataFrame) -> list[dict]:
    """One row per metric: best word segmenter, movers, swaps between char and it."""
    rows = []
    for metric in METRICS:
        word = best_word_segmenter(board, metric)
        found, under_char, under_word = swaps(board, metric, "char", word)
        pairs = board.pairs[board.pairs["metric"] == metric].set_index("segmenter")
        moved = moved_systems(board, ds.kind, metric)
        rows.append({
            "dataset": ds.path, "kind": ds.kind, "metric": metric, "systems": int(board.signature["systems"]),
            "best_word_segmenter": word, "segmenters": " / ".join(board.granularities["name"]),
            "moved": len(moved), "moved_systems": "; ".join(s for s, _ in moved),
            "moved_apart": "; ".join(separated_moves(board, ds.kind, metric)),
            "moved_ranks": "; ".join(f"{s} {'/'.join(str(int(r)) for r in ranks)}" for s, ranks in moved),
            "char_inverted": int(pairs.at["char", "inverted"]), "word_inverted": int(pairs.at[word, "inverted"]),
            "pairs": int(pairs.at["char", "pairs"]), "swaps_char_word": len(found),
            "swapped_pairs": "; ".join(f"{s} / {t}" for s, t in found),
            "swaps_significant_char": under_char, "swaps_significant_word": under_word,
            "latin_share_rho": latin_rank_correlation(board, metric, shares),
        })  # fmt: skip
    return rows


def leaderboard_view(board: SystemBoard, kind: str, metric: str, word: str) -> pd.DataFrame:
    """The README's view: human score, rank range and cluster, then ``metric`` under ``char``
    and ``word``: score, rank (displacement) and cluster."""
    table = board.table[board.table["judgment_kind"] == kind]
    human = table[table["source"] == "human"].set_index("system")
    out = pd.DataFrame({
        "human_rank": human["rank"].astype(int), "system": human.index, "human": human["score"],
        "human_range": [f"{int(lo)}-{int(hi)}" if lo != hi else str(int(lo)) for lo, hi in zip(human["rank_low"], human["rank_high"])]
        if human["rank_low"].notna().all() else "", "human_cluster": human["cluster"].astype("Int64"),
    })  # fmt: skip
    for seg in ("char", word):
        rows = table[(table["metric"] == metric) & (table["segmenter"] == seg)].set_index("system").loc[out["system"]]
        out[f"{seg}_score"] = rows["score"].to_numpy()
        out[f"{seg}_rank"] = rows["rank"].astype(int).to_numpy()
        out[f"{seg}_displacement"] = rows["displacement"].astype(int).to_numpy()
        out[f"{seg}_cluster"] = rows["cluster"].astype(int).to_numpy()
    return out.reset_index(drop=True)


def run_dataset(ds: Dataset, data: Path, out: Path, jobs: int, executor, store: Path) -> tuple[SystemBoard, pd.DataFrame, pd.DataFrame]:  # noqa: ANN001
    folder = data / ds.path
    if not folder.is_dir():
        raise SystemExit(f"systems: {folder}: corpus folder not found (set METAEVAL_DATA or pass --data)")
    corpus, judgments = corpora.read(folder)
    specs = list(ds.segmenters[:2]) + subword_specs(reference_lines(corpus), SUBWORD_LADDER) + list(ds.segmenters[2:])
    # built here, as the sweep builds them: a SentencePiece model learns from this corpus's references
    segmenters = [get_segmenter(spec, corpus, store) for spec in specs]
    board = corpus_board(corpus, segmenters, METRICS, judgments=judgments, kinds=[ds.kind], bootstrap=BOOTSTRAP, seed=SEED,
                         alpha=ALPHA, adjust=ADJUST, jobs=jobs, executor=executor, cache_dir=store)  # fmt: skip
    target = out / ds.slug
    target.mkdir(parents=True, exist_ok=True)
    files = {
        "board.md": render_board(board, "markdown"), "leaderboard.tsv": render_board(board, "tsv"),
        "pairs.tsv": tsv(board.pairs), "granularities.tsv": tsv(board.granularities),
    }  # fmt: skip
    for name, text in files.items():
        write_atomic(target / name, text, overwrite=True)
    png(bumps(board.table, list(board.granularities["name"]), board.dataset), target / "bump.png", overwrite=True)
    shares = latin_share(corpus)
    write_atomic(target / "latin_share.tsv", tsv(shares), overwrite=True)
    return board, judgments.table, shares


def latin_share(corpus) -> pd.DataFrame:  # noqa: ANN001
    """Per reference and system: the share of ASCII letters and digits among the non-whitespace
    characters of its text (``char`` makes each of them a token; ``cjk-char`` and the word
    segmenters keep a Latin word or a number whole)."""
    rows = []
    for kind, texts in [("reference", corpus.references), ("system", corpus.systems)]:
        for name, lines in texts.items():
            chars = [c for line in lines for c in line if not c.isspace()]
            rows.append({"kind": kind, "name": name, "latin_share": sum(c.isascii() and c.isalnum() for c in chars) / len(chars)})
    return pd.DataFrame(rows)


def summary_markdown(found: pd.DataFrame, views: dict[str, pd.DataFrame], wmt: pd.DataFrame) -> str:
    sections = [frame_section("Per dataset and metric: best word segmenter, systems whose rank depends on the granularity, swaps", found)]
    for path, view in views.items():
        sections.append(frame_section(f"{path}: {README_METRIC} under char and the best word segmenter", view))
    sections.append(frame_section("WMT24 English-Chinese human ranking, rank range (cluster): published, then WMT's procedure on the "
                                  "634 paragraphs changed one step at a time into metaeval systems'", wmt))
    signature = [("datasets", ", ".join(d.path for d in DATASETS)), ("metrics", ", ".join(METRICS)), ("n_bootstrap", str(BOOTSTRAP)),
                 ("seed", str(SEED)), ("alpha", str(ALPHA)), ("adjust", ADJUST)]  # fmt: skip
    return render_markdown("System leaderboards by granularity: summary", signature, sections)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.systems", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"shared data folder (default {DATA})")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default {OUT})")
    parser.add_argument("--jobs", type=int, default=usable_cpus(), help="worker processes (results do not depend on it)")
    args = parser.parse_args(argv)
    store = args.out / STORE
    clock = Clock(store)
    rows, views, wmt = [], {}, pd.DataFrame()
    with workers(args.jobs) as (executor, jobs):
        for ds in DATASETS:
            print(f"systems: {ds.path}", file=sys.stderr, flush=True)
            board, judgments, shares = run_dataset(ds, args.data, args.out, jobs, executor, store)
            found = findings(ds, board, shares)
            rows += found
            word = next(r["best_word_segmenter"] for r in found if r["metric"] == README_METRIC)
            views[ds.path] = leaderboard_view(board, ds.kind, README_METRIC, word)
            write_atomic(args.out / ds.slug / "readme_view.tsv", tsv(views[ds.path]), overwrite=True)
            if ds.path == "wmt24-esa/en-zh":
                wmt = steps(args.data / ds.path, judgments, board.table)
                write_atomic(args.out / "wmt24_en-zh_domains.tsv", tsv(domain_sizes(args.data / ds.path)), overwrite=True)
    found_frame = pd.DataFrame(rows)
    write_atomic(args.out / "findings.tsv", tsv(found_frame), overwrite=True)
    write_atomic(args.out / "wmt24_en-zh_human.tsv", tsv(wmt), overwrite=True)
    write_atomic(args.out / "summary.md", summary_markdown(found_frame, views, wmt), overwrite=True)
    clock.write(args.out / "runtime.json", {"datasets": [d.path for d in DATASETS], "jobs": args.jobs, "cpus": os.cpu_count(),
                                            "n_bootstrap": BOOTSTRAP, "adjust": ADJUST})  # fmt: skip
    print(json.dumps({r["dataset"] + " " + r["metric"]: r["moved_systems"] for r in rows}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
