"""The README's system leaderboards (section "System leaderboards: which systems does the unit
move?") are copied from the committed files in ``experiments/results/systems/``: each check
rebuilds the README's wording from those files and looks for it in the section."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from experiments.systems.config import WMT24_EN_ZH_PUBLISHED, WMT24_EN_ZH_PUBLISHED_CLUSTERS

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results" / "systems"
README = (REPO / "README.md").read_text(encoding="utf-8")
TITLE = "### System leaderboards: which systems does the unit move?"
FINDINGS = pd.read_csv(RESULTS / "findings.tsv", sep="\t", keep_default_na=False)
HUMAN = pd.read_csv(RESULTS / "wmt24_en-zh_human.tsv", sep="\t", keep_default_na=False)
SLUGS = {"wmt24-esa/en-zh": "wmt24-esa_en-zh", "wmt24-esa/en-ja": "wmt24-esa_en-ja", "wmt21/en-zh": "wmt21_en-zh"}


def section() -> str:
    start = README.index(TITLE)
    return README[start : README.index("\n## ", start)]


def prose() -> str:
    return " ".join(section().split())


def minus(text: str) -> str:
    return text.replace("-", "−")


def finding(dataset: str, metric: str, column: str):  # noqa: ANN201
    rows = FINDINGS[(FINDINGS["dataset"] == dataset) & (FINDINGS["metric"] == metric)]
    assert len(rows) == 1
    return rows[column].iloc[0]


def board(dataset: str) -> pd.DataFrame:
    return pd.read_csv(RESULTS / SLUGS[dataset] / "leaderboard.tsv", sep="\t", keep_default_na=False)


def ranks(dataset: str, metric: str = "bleu") -> pd.DataFrame:
    table = board(dataset)
    return table[table["metric"] == metric].pivot(index="system", columns="segmenter", values="rank")


def displacement(value: int) -> str:
    return "0" if value == 0 else f"+{value}" if value > 0 else f"−{-value}"


@pytest.mark.parametrize("dataset, digits, ranges", [("wmt24-esa/en-zh", 2, True), ("wmt24-esa/en-ja", 2, True), ("wmt21/en-zh", 3, False)])
def test_leaderboard_tables(dataset, digits, ranges):
    view = pd.read_csv(RESULTS / SLUGS[dataset] / "readme_view.tsv", sep="\t", keep_default_na=False)
    segmenters = [c[: -len("_score")] for c in view.columns if c.endswith("_score")]
    assert segmenters[0] == "char" and segmenters[1] == finding(dataset, "bleu", "best_word_segmenter")
    text = section()
    for r in view.to_dict(orient="records"):
        cells = [str(r["human_rank"]), r["system"], minus(f"{r['human']:.{digits}f}")]
        if ranges:
            cells += [str(r["human_range"]).replace("-", "–"), str(r["human_cluster"])]
        for seg in segmenters:
            cells += [f"{r[seg + '_score']:.3f}", f"{r[seg + '_rank']} ({displacement(r[seg + '_displacement'])})", str(r[seg + "_cluster"])]
        assert "| " + " | ".join(cells) + " |" in text, cells


def test_the_view_is_the_board():
    """readme_view.tsv holds the board's numbers: human and BLEU columns of leaderboard.tsv."""
    for dataset in SLUGS:
        table = board(dataset)
        view = pd.read_csv(RESULTS / SLUGS[dataset] / "readme_view.tsv", sep="\t", keep_default_na=False).set_index("system")
        human = table[table["source"] == "human"].set_index("system")
        assert view.index.tolist() == human.index.tolist() and (view["human"] == human["score"]).all()
        word = finding(dataset, "bleu", "best_word_segmenter")
        for seg in ("char", word):
            rows = table[(table["metric"] == "bleu") & (table["segmenter"] == seg)].set_index("system").loc[view.index]
            assert (view[f"{seg}_rank"] == rows["rank"]).all()
            assert view[f"{seg}_score"].to_numpy() == pytest.approx(rows["score"].to_numpy(float), abs=1e-9)


def test_moves_and_swaps():
    text = prose()
    for dataset in SLUGS:
        moved = finding(dataset, "bleu", "moved")
        movers = finding(dataset, "bleu", "moved_systems").replace("; ", ", ")
        assert f"moves {moved} of" in text
        if dataset != "wmt21/en-zh":
            assert movers in text
    zh = "wmt24-esa/en-zh"
    assert finding(zh, "bleu", "moved_ranks") in text
    assert f"of the {finding(zh, 'bleu', 'swaps_char_word')} pairs that char and jieba order differently, {finding(zh, 'bleu', 'swaps_significant_char')} is significant at char and {finding(zh, 'bleu', 'swaps_significant_word')} at jieba" in text
    assert f"Char orders {finding(zh, 'bleu', 'char_inverted')} of 66 pairs against the humans, jieba {finding(zh, 'bleu', 'word_inverted')}" in text
    ja = "wmt24-esa/en-ja"
    assert f"Char and MeCab swap {finding(ja, 'bleu', 'swaps_char_word')} pairs, {finding(ja, 'bleu', 'swaps_significant_char')} significant at char and {finding(ja, 'bleu', 'swaps_significant_word')} at MeCab" in text
    assert f"char orders {finding(ja, 'bleu', 'char_inverted')} of 66 pairs against the humans, MeCab {finding(ja, 'bleu', 'word_inverted')}" in text
    w21 = "wmt21/en-zh"
    assert f"{finding(w21, 'bleu', 'swaps_significant_char')} of them significantly at char and {finding(w21, 'bleu', 'swaps_significant_word')} at jieba" in text
    assert f"(char orders {finding(w21, 'bleu', 'char_inverted')} pairs against the humans, jieba {finding(w21, 'bleu', 'word_inverted')})" in text
    assert finding(w21, "bleu", "moved_apart") == "" and "none moves beyond BLEU's own rank ranges" in text
    meteor, gtm = finding(w21, "meteor", "moved_apart").split("; "), finding(w21, "gtm", "moved_apart")
    assert f"(under METEOR {' and '.join(meteor)} do, under GTM {gtm})" in text
    assert f"order {finding('wmt21/en-zh', 'bleu', 'swaps_char_word')} of the 406 pairs differently" in text
    assert finding(zh, "bleu", "moved_apart") == finding("wmt24-esa/en-ja", "bleu", "moved_apart") == ""
    assert all(finding(ja, metric, "moved_apart") == "" for metric in ("bleu", "nist", "meteor", "gtm", "1-ter"))


def test_claims_about_ranks():
    zh = ranks("wmt24-esa/en-zh")
    # ONLINE-B, HW-TSC and IOL-Research are 1, 2, 3 under every granularity; the movers stay in places 4-9
    assert (zh.loc[["ONLINE-B", "HW-TSC", "IOL-Research"]].to_numpy().T == [1, 2, 3]).all()
    table = board("wmt24-esa/en-zh")
    for seg in ("char", "jieba"):  # HW-TSC alone in BLEU's second cluster
        rows = table[(table["metric"] == "bleu") & (table["segmenter"] == seg)]
        assert rows.loc[rows["cluster"] == 2, "system"].tolist() == ["HW-TSC"]
    assert (table.loc[table["source"] == "human", "cluster"] == 1).all()  # one human cluster after Holm
    assert "alone in BLEU's second cluster under char and jieba" in prose() and "form one human cluster" in prose()
    movers = finding("wmt24-esa/en-zh", "bleu", "moved_systems").split("; ")
    assert zh.loc[movers].to_numpy().min() == 4 and zh.loc[movers].to_numpy().max() == 9
    w21 = ranks("wmt21/en-zh")
    steps = {"Lan-Bridge-MT falls from": ("Lan-Bridge-MT", "from", "to"), "P3AI from": ("P3AI", "from", "to"),
             "Online-G from": ("Online-G", "from", "to"), "HappyNewYear rises from": ("HappyNewYear", "from", "to")}  # fmt: skip
    text = prose()
    for lead, (system, _, _) in steps.items():
        assert f"{lead} {int(w21.at[system, 'char'])} to {int(w21.at[system, 'cjk-char'])}" in text
    shares = pd.read_csv(RESULTS / "wmt21_en-zh" / "latin_share.tsv", sep="\t").set_index("name")["latin_share"]
    for name in ("Lan-Bridge-MT", "P3AI", "Online-G", "HappyNewYear"):
        assert f"{name} {100 * shares[name]:.1f}%" in text
    assert f"references {100 * shares['A']:.1f}% and {100 * shares['B']:.1f}%" in text
    for dataset, label in (("wmt21/en-zh", "Spearman ρ = "), ("wmt24-esa/en-zh", "(ρ = ")):
        rho = minus(f"{float(finding(dataset, 'bleu', 'latin_share_rho')):.2f}")
        assert f"{label}{rho}" in text


def test_counts_per_metric():
    for dataset in SLUGS:
        cells = [f"`{dataset}`"]
        for metric in ("bleu", "nist", "meteor", "gtm", "1-ter"):
            apart = finding(dataset, metric, "moved_apart")
            cells.append(f"{finding(dataset, metric, 'moved')} ({len(apart.split('; ')) if apart else 0})")
        assert "| " + " | ".join(cells) + " |" in section()


def test_human_clusters_beside_wmt():
    text = section()
    assert HUMAN["system"].tolist() == [s for _, s, _ in WMT24_EN_ZH_PUBLISHED]
    for r in HUMAN.to_dict(orient="records"):
        cells = [r["system"]] + [r[c].replace("-", "–") or "–" for c in ("published", "wmt_procedure", "without_refA", "pooled_test", "plain_mean", "holm")]
        assert "| " + " | ".join(cells) + " |" in text
    # the published column is the quoted table
    assert HUMAN["published"].str.extract(r"\((\d+)\)")[0].astype(int).tolist() == list(WMT24_EN_ZH_PUBLISHED_CLUSTERS)
    assert (HUMAN["pooled_test"] == HUMAN["plain_mean"]).all()  # step 4 changes no range or cluster
    # step 5, Holm: one cluster; the ranges quoted in the README
    assert set(HUMAN.loc[HUMAN["system"] != "refA", "holm"].str.extract(r"\((\d+)\)")[0]) == {"1"}
    by = HUMAN.set_index("system")
    for system in ("ONLINE-B", "IOL-Research", "IKUN-C"):
        before, after = (by.at[system, c].split(" ")[0].replace("-", "–") for c in ("plain_mean", "holm"))
        assert f"{system} {before} → {after}" in prose()
    by_system = HUMAN.set_index("system")
    words = prose()
    assert f"averages {float(by_system.at['ONLINE-B', 'domain_mean']):.2f} here" in words
    assert f"IKUN rising from 84.4 to {float(by_system.at['IKUN', 'domain_mean']):.2f}" in words
    for system in ("ONLINE-B", "IKUN"):
        assert f"{system} {float(by_system.at[system, 'domain_mean']):.2f} → {float(by_system.at[system, 'plain_mean_score']):.2f}" in words
    domains = pd.read_csv(RESULTS / "wmt24_en-zh_domains.tsv", sep="\t").set_index("domain")["paragraphs"]
    assert f"social media holds {domains['social']} of the {domains.sum()} paragraphs" in words


def test_runtime():
    runtime = json.loads((RESULTS / "runtime.json").read_text(encoding="utf-8"))
    assert (f"about {round(runtime['seconds'] / 60)} minutes on 2 cores from an empty store, {runtime['warm_seconds']:.0f} s on a second run "
            f"(runtime.json: {runtime['cpu_seconds']:.0f} and {runtime['warm_cpu_seconds']:.0f} CPU-s, load average "
            f"{runtime['load_average_at_start']} and {runtime['warm_load_average_at_start']})") in section()
