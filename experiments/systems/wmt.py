"""WMT24's English-Chinese human ranking as published, then step by step from WMT's procedure on
the 634 paragraphs of the shared data to ``metaeval systems``, so that every difference has a cause.

WMT's procedure (wmt24-news-systems, ``humeval/calculate_clusters.py`` and ``tools.py`` at
71cc027): every system and the reference (``refA``, shown as HUMAN-A) ranked as systems; the
score is the mean ESA per domain averaged over the domains; every ordered pair gets a one-sided
Wilcoxon signed-rank test per domain, combined by Stouffer's method; rank ranges and clusters as
:mod:`metaeval.stats.systems.rankranges`. The steps, one change each:

1. ``wmt_procedure``: that procedure on the shared paragraphs (the only change from the
   published table: the ratings);
2. ``without_refA``: the reference left out (it is not a system of the corpus);
3. ``pooled_test``: one Wilcoxon test over all paragraphs instead of one per domain combined;
4. ``plain_mean``: systems ordered by the mean over all paragraphs instead of the mean of the
   domain means;
5. ``holm``: the 132 one-sided tests of the 12 systems adjusted together by Holm's procedure
   before they are compared with alpha (WMT compared the raw p-values): ``metaeval systems``
   (checked against its board).

The reference's ratings and each paragraph's domain come from the shared data's
``original/esa_raw.tsv`` and ``docs.tsv``; the MT systems' ratings there are those of
``judgments.tsv`` (checked).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.systems.config import ADJUST, ALPHA, WMT24_EN_ZH_PUBLISHED, WMT24_EN_ZH_PUBLISHED_CLUSTERS
from metaeval.stats.systems.rankranges import adjusted_pairs, beats_one_sided, rank_ranges
from metaeval.stats.systems.wilcoxon import wilcoxon_p_values

STEPS = ("wmt_procedure", "without_refA", "pooled_test", "plain_mean", ADJUST)


def _cell(low: float, high: float, cluster: float) -> str:
    """``1-4 (1)``: rank range and cluster."""
    span = f"{int(low)}" if low == high else f"{int(low)}-{int(high)}"
    return f"{span} ({int(cluster)})"


def ratings(folder: Path, judgments: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """ESA of every system and the reference on the judged paragraphs (systems x paragraphs),
    and each paragraph's domain."""
    docs = pd.read_csv(folder / "docs.tsv", sep="\t", dtype={"seg_id": str})
    raw = pd.read_csv(folder / "original" / "esa_raw.tsv", sep="\t")
    raw = raw[raw["line_idx"].isin(docs["orig_line"])]
    matrix = raw.pivot(index="system", columns="line_idx", values="score").loc[:, docs["orig_line"]]
    esa = judgments[judgments["kind"] == "esa"].pivot(index="system", columns="seg_id", values="value").loc[:, docs["seg_id"]]
    if not np.array_equal(matrix.loc[esa.index].to_numpy(), esa.to_numpy()):
        raise SystemExit(f"{folder}: original/esa_raw.tsv and judgments.tsv disagree on the MT systems' ratings")
    return matrix, docs["domain"].to_numpy()


def ranking(matrix: pd.DataFrame, domains: np.ndarray, macro: bool, strata: bool, adjust: str = "none") -> pd.DataFrame:
    """Score, rank range and cluster of every row of ``matrix``; ``adjust``: the ordered tests'
    adjustment (WMT: none)."""
    values = matrix.to_numpy(float)
    if macro:
        score = np.mean([values[:, domains == d].mean(axis=1) for d in dict.fromkeys(domains)], axis=0)
    else:
        score = values.mean(axis=1)
    p = wilcoxon_p_values(values, strata=domains if strata else None)
    ranges = rank_ranges(score, beats_one_sided(adjusted_pairs(p, adjust, two_sided=False), ALPHA))
    return pd.DataFrame({"system": list(matrix.index), "score": score, "low": ranges.low, "high": ranges.high, "cluster": ranges.cluster})


def domain_sizes(folder: Path) -> pd.DataFrame:
    """How many of the judged paragraphs each domain holds (``docs.tsv``)."""
    docs = pd.read_csv(folder / "docs.tsv", sep="\t")
    return docs.groupby("domain", sort=True).size().rename("paragraphs").reset_index()


def steps(folder: Path, judgments: pd.DataFrame, board_table: pd.DataFrame) -> pd.DataFrame:
    """One row per system in the published order: the published range and cluster, then each
    step's (:data:`STEPS`), as ``range (cluster)``, and the scores of the published table, of
    the domain-averaged and of the plain mean on the shared paragraphs."""
    matrix, domains = ratings(folder, judgments)
    systems = matrix.drop(index="refA")
    found = {
        "wmt_procedure": ranking(matrix, domains, macro=True, strata=True),
        "without_refA": ranking(systems, domains, macro=True, strata=True),
        "pooled_test": ranking(systems, domains, macro=True, strata=False),
        "plain_mean": ranking(systems, domains, macro=False, strata=False),
        ADJUST: ranking(systems, domains, macro=False, strata=False, adjust=ADJUST),
    }
    ours = board_table[(board_table["source"] == "human") & (board_table["judgment_kind"] == "esa")].set_index("system")
    plain = found[ADJUST].set_index("system").loc[ours.index]
    if not (np.allclose(plain["score"], ours["score"], atol=1e-3) and (plain[["low", "high", "cluster"]].to_numpy() == ours[["rank_low", "rank_high", "cluster"]].to_numpy()).all()):
        raise SystemExit("systems: the last step differs from metaeval systems' human ranking")
    out = pd.DataFrame({"system": [s for _, s, _ in WMT24_EN_ZH_PUBLISHED]})
    out["published_score"] = [v for _, _, v in WMT24_EN_ZH_PUBLISHED]
    out["published"] = [_cell(*map(int, r.split("-")), c) for (r, _, _), c in zip(WMT24_EN_ZH_PUBLISHED, WMT24_EN_ZH_PUBLISHED_CLUSTERS)]
    out["domain_mean"] = out["system"].map(found["wmt_procedure"].set_index("system")["score"])
    out["plain_mean_score"] = out["system"].map(found["plain_mean"].set_index("system")["score"])
    for step in STEPS:
        table = found[step].set_index("system")
        out[step] = [_cell(*table.loc[s, ["low", "high", "cluster"]]) if s in table.index else "" for s in out["system"]]
    return out
