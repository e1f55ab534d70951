"""The granularity sweep: axis, statistics through the public API, boundaries, command line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval import corpora
from metaeval import segmenters
from metaeval import sweep as sweep_module
from metaeval.api import run
from metaeval.cli import main
from metaeval.errors import UsageError
from metaeval.sweep import boundaries, boundary_f1, chars_per_token, subword_specs, sweep

SHARED = Path(os.environ.get("METAEVAL_SHARED", Path(__file__).resolve().parents[1] / ".." / "shared")).resolve()
ESA = SHARED / "data" / "wmt24-esa" / "en-zh"
SYSTEMS = ("Aya23", "GPT-4", "Claude-3.5", "CommandR-plus")
N_SEG = 40


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 40 paragraphs of WMT24 en-zh, four systems, their ESA judgments."""
    if not ESA.is_dir():
        pytest.skip(f"shared data not found: {ESA}")
    folder = tmp_path_factory.mktemp("wmt24-small")
    (folder / "systems").mkdir()

    def head(src: Path, dst: Path) -> None:
        lines = src.read_text(encoding="utf-8").split("\n")[:N_SEG]
        dst.write_text("\n".join(lines) + "\n", encoding="utf-8")

    head(ESA / "src.en", folder / "src.en")
    head(ESA / "ref.refA.zh", folder / "ref.refA.zh")
    for system in SYSTEMS:
        head(ESA / "systems" / f"{system}.zh", folder / "systems" / f"{system}.zh")
    table = pd.read_csv(ESA / "judgments.tsv", sep="\t", dtype={"seg_id": str})
    table = table[table["seg_id"].astype(int).le(N_SEG) & table["system"].isin(SYSTEMS)]
    table.to_csv(folder / "judgments.tsv", sep="\t", index=False)
    return folder


def test_chars_per_token_and_boundaries_by_hand() -> None:
    tokens = [["我们", "在", "北京大学"], ["学习"], []]
    assert chars_per_token(tokens) == (9 / 4, 4, 9)
    # text 1: boundaries after 2 and 3 characters; text 2 starts at offset 7, no inner boundary
    assert boundaries(tokens).tolist() == [2, 3]
    chars = boundaries([list("我们在北京大学"), list("学习")])
    assert chars.tolist() == [1, 2, 3, 4, 5, 6, 8]
    # F1 = 2 * 2 / (2 + 7)
    assert boundary_f1(boundaries(tokens), chars) == pytest.approx(4 / 9)
    assert boundary_f1(np.zeros(0, int), np.zeros(0, int)) == 1.0


def test_subword_ladder_scales_with_the_character_inventory() -> None:
    lines = ["abcde fghij"] * 3  # 10 distinct characters
    ladder = (("unigram", (1.1, 2.0)), ("bpe", (1.5, 3.0)))
    # at least 10 + 4; 2.0 x 10 = 20; 1.5 x 10 = 15; 3.0 x 10 = 30
    assert subword_specs(lines, ladder) == [
        "spm:vocab=14,type=unigram", "spm:vocab=20,type=unigram", "spm:vocab=15,type=bpe", "spm:vocab=30,type=bpe",
    ]  # fmt: skip
    defaults = subword_specs(["我们在北京大学学习自然语言处理。"])  # 15 distinct characters
    # unigram 1.1, 1.5, 2, 3 -> 19 (floor 15 + 4), 22, 30, 45; bpe 1.1 and 1.25 both -> 19, then 22, 30, 45, 60, 90
    assert defaults == [f"spm:vocab={n},type=unigram" for n in (19, 22, 30, 45)] + [
        f"spm:vocab={n},type=bpe" for n in (19, 22, 30, 45, 60, 90)
    ]


def test_the_default_statistics_and_an_unknown_one() -> None:
    assert sweep_module.default_settings().statistics == sweep_module.STATISTICS
    assert sweep_module.default_settings(n_bootstrap=50).n_bootstrap == 50
    with pytest.raises(UsageError, match="unknown statistic 'seg:no_such_statistic'; known: seg:consistency"):
        sweep_module.default_settings(statistics=["seg:consistency", "seg:no_such_statistic"])


def test_sweep_matches_run_and_places_each_granularity(small_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "thulac", None)  # a segmenter whose package is missing
    corpus, judgments = corpora.read(small_corpus)
    result = sweep(
        corpus, judgments, segmenters=["char", "jieba", "thulac"], subwords=["spm:vocab=1200,type=bpe"],
        metrics=["bleu", "1-ter"], n_bootstrap=50,
    )  # fmt: skip
    assert list(result.granularities["name"]) == ["char", "jieba", "spm:vocab=1200,type=bpe"]
    assert result.skipped["name"].tolist() == ["thulac"] and "pip install thulac" in result.skipped["reason"].iloc[0]
    # the axis, computed here independently of the sweep
    texts = [t for ref in corpus.refs_list() for t in ref] + [t for h in corpus.systems.values() for t in h]
    words = segmenters.get("jieba").segment_many(texts)
    n_chars = sum(len("".join(t.split())) for t in texts)
    row = result.granularities.set_index("name")
    assert row.at["char", "chars_per_token"] == 1.0
    assert row.at["jieba", "chars_per_token"] == pytest.approx(n_chars / sum(map(len, words)))
    assert row.at["spm:vocab=1200,type=bpe", "characters"] == n_chars
    # the statistics are those of metaeval.run on the same configurations
    direct = run(corpus, ["char", "jieba"], ["bleu", "1-ter"], judgments=judgments, bootstrap=50)
    keys = ["metric", "segmenter", "judgment_kind", "level", "statistic", "grouping"]
    mine = result.results.set_index(keys)["value"]
    theirs = direct.results.set_index(keys)["value"]
    shared = mine.index.intersection(theirs.index)
    assert len(shared) >= 8
    assert np.allclose(mine.loc[shared].to_numpy(float), theirs.loc[shared].to_numpy(float), equal_nan=True)
    assert set(result.results["statistic"]) >= {"consistency", "pearson", "spearman"}
    assert list(result.equivalence["granularity"]) == list(result.granularities["name"])
    assert set(result.boundaries["a"]) | set(result.boundaries["b"]) == set(result.granularities["name"])
    # the answer (char against the best word segmenter; spm is no word level) tallies as run's does
    counts = ["metrics", "char_ahead", "char_significant", "word_significant"]
    ranking = ["judgment_kind", "level", "statistic", "grouping"]
    mine_answer = result.answer.set_index(ranking)[counts]
    theirs_answer = direct.answer.set_index(ranking)[counts]
    shared = mine_answer.index.intersection(theirs_answer.index)
    assert len(shared) >= 3 and mine_answer.loc[shared].equals(theirs_answer.loc[shared])
    assert (result.answer["word_segmenter"] == "jieba").all() and result.answer["p_adjusted"].notna().all()
    # the slopes: one per (ranking, metric), on the three points
    assert len(result.slopes) == len(result.results.dropna(subset=["value"]).groupby(["judgment_kind", "level", "statistic", "grouping", "tie_policy", "metric"], dropna=False))
    assert (result.slopes["points"] == 3).all() and result.slopes["n_samples"].gt(0).all()


def test_command_writes_the_same_files_twice_and_refuses_to_overwrite(small_corpus: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    args = ["sweep", str(small_corpus), "-s", "char", "-s", "jieba", "--subword", "spm:vocab=1200,type=unigram",
            "-m", "bleu", "--bootstrap", "20", "-q", "--jobs", "1", "--no-equivalence"]  # fmt: skip
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    printed = capsys.readouterr().out
    assert main(args + ["--out", str(tmp_path / "b")]) == 0
    # the verdict is printed, then where the files went; summary.md opens with it and ends with the signature
    verdict = printed[: printed.index(f"\nwrote {tmp_path / 'a'}:\n")].split("\n\n")[0].splitlines()  # then the slopes
    assert verdict and all(line.startswith(("Segment level (esa", "System level (esa")) for line in verdict), printed
    summary = (tmp_path / "a" / "summary.md").read_text(encoding="utf-8")
    assert summary.index("## ") == summary.index("## Verdict") and f"- {verdict[0][:40]}" in summary
    assert summary.rindex("Signature:") > summary.rindex("## ") and summary.rstrip().endswith("```")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(["curve.png", "summary.md", "slopes.tsv", "answer.tsv", "results.tsv", "granularities.tsv", "best.tsv", "spread.tsv",
                            "boundaries.tsv", "equivalence.tsv", "signature.json"])  # fmt: skip
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    printed = capsys.readouterr().out
    assert printed.index("the granularity curve in one number") < printed.index(str(tmp_path / "b" / "curve.png"))
    assert "Slope:" in (tmp_path / "a" / "summary.md").read_text(encoding="utf-8").split("## ")[2]  # after the verdict
    slopes = pd.read_csv(tmp_path / "a" / "slopes.tsv", sep="\t")
    assert (slopes["points"] == 3).all() and slopes["slope_ci_low"].le(slopes["slope_ci_high"]).all()
    assert main(args + ["--out", str(tmp_path / "a")]) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert main(["sweep", str(small_corpus), "--out", str(tmp_path / "c"), "--subword", "spm:vocab=10,type=word"]) == 2


def test_bytes_sit_below_characters_without_ter_and_are_no_word_level(small_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, judgments = corpora.read(small_corpus)
    monkeypatch.setitem(sweep_module.SEGMENTERS, "zh", ("byte", "char", "jieba"))
    result = sweep(corpus, judgments, subwords=[], metrics=["bleu", "1-ter"], n_bootstrap=30, equivalence=False)
    row = result.granularities.set_index("name")
    assert row.at["byte", "family"] == "bytes" and row.at["char", "family"] == "characters"
    # the axis by hand: characters without whitespace over UTF-8 bytes of the same
    texts = [t for ref in corpus.refs_list() for t in ref] + [t for h in corpus.systems.values() for t in h]
    kept = ["".join(chars) for chars in segmenters.get("char").segment_many(texts)]
    n_chars, n_bytes = sum(map(len, kept)), sum(len(t.encode("utf-8")) for t in kept)
    assert (row.at["byte", "tokens"], row.at["byte", "characters"]) == (n_bytes, n_chars)
    assert row.at["byte", "chars_per_token"] == pytest.approx(n_chars / n_bytes)
    assert 0.33 < row.at["byte", "chars_per_token"] < 0.4
    # byte boundaries, in characters, are those of char
    pairs = result.boundaries.set_index(["a", "b"])["f1"]
    assert pairs[("byte", "char")] == 1.0
    # TER is left out at byte, and the notes say so; BLEU is there
    at_byte = result.results[result.results["segmenter"] == "byte"]
    assert set(at_byte["metric"]) == {"bleu"}
    assert set(result.results[result.results["segmenter"] == "char"]["metric"]) == {"bleu", "1-ter"}
    assert "1-ter not computed at byte" in result.signature["notes"][0]
    # byte is not a word segmenter: char is compared with jieba only
    assert (result.answer["word_segmenter"] == "jieba").all()
    assert sweep_module.family_of("byte:invisible=keep") == "bytes" and sweep_module.FAMILIES[0] == "bytes"


def test_ter_at_a_named_byte_point_is_the_usual_length_error(small_corpus: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    args = ["sweep", str(small_corpus), "-s", "byte", "-s", "char", "--no-subwords", "-m", "ter:max_len=100",
            "--bootstrap", "10", "-q", "--jobs", "1", "--no-equivalence", "--out", str(tmp_path / "t")]  # fmt: skip
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "max_len" in err[0] and "Traceback" not in err[0], err


def test_chrf_pp_is_a_default_of_run_and_sweep_and_chrf_the_reference(small_corpus: Path) -> None:
    from metaeval.metrics import DEFAULT_METRICS

    assert {"chrf++", "chrf"} <= set(DEFAULT_METRICS) and {"chrf++", "chrf"} <= set(sweep_module.DEFAULT_METRICS)
    corpus, judgments = corpora.read(small_corpus)
    direct = run(corpus, ["char", "jieba"], judgments=judgments, bootstrap=20)
    rows = direct.results[(direct.results["statistic"] == "pearson") & (direct.results["level"] == "seg")]
    def value(metric: str, segmenter: str) -> np.ndarray:
        return rows[(rows["metric"] == metric) & (rows["segmenter"] == segmenter)]["value"].to_numpy(float)

    # chrF++'s word n-grams follow the segmenter; chrF is the same at both
    assert (value("chrf++", "char") != value("chrf++", "jieba")).all() and len(value("chrf++", "char"))
    assert value("chrf", "char") == pytest.approx(value("chrf", "jieba"), abs=1e-3)
    # the answer counts chrF++ among the metrics that depend on granularity and leaves chrF out
    assert (direct.answer["left_out"] == "chrf").all() and (direct.answer["metrics"] == 6).all()


def test_sizes_that_learn_the_same_model_are_one_point(small_corpus: Path) -> None:
    """On 40 paragraphs a unigram model finds 1,279 pieces at most: asked for 2000 or 3000, both
    sizes learn the same model (same hash), so the sweep draws one point and says which collapsed."""
    corpus, judgments = corpora.read(small_corpus)
    sizes = ["spm:vocab=2000,type=unigram", "spm:vocab=3000,type=unigram"]
    from metaeval.scoring import reference_lines

    refs = reference_lines(corpus)
    hashes = {s: sweep_module.MODEL_HASH.search(segmenters.get(s, training_text=refs).signature()).group(1) for s in sizes}
    assert hashes[sizes[0]] == hashes[sizes[1]]  # checked by hand before the sweep draws its conclusion
    result = sweep(corpus, judgments, segmenters=["char"], subwords=sizes, metrics=["bleu"], n_bootstrap=0, equivalence=False)
    assert list(result.granularities["name"]) == ["char", sizes[0]]
    assert set(result.results["segmenter"]) == {"char", sizes[0]}
    assert result.collapsed.values.tolist() == [[sizes[1], sizes[0], 1279]]
    assert result.signature["collapsed"] == {sizes[1]: sizes[0]}
    from metaeval.report.sweep import summary_markdown

    assert "Sizes that learnt the same model as a smaller one" in summary_markdown(result)


def _one_ranking(rows: list[tuple[str, str, float, float]]) -> pd.DataFrame:
    """A results table of one ranking (esa, seg, pearson, none, bleu): (segmenter, family, value, chars per token)."""
    return pd.DataFrame([{"judgment_kind": "esa", "level": "seg", "statistic": "pearson", "grouping": "none", "metric": "bleu",
                          "segmenter": s, "family": f, "value": v, "chars_per_token": c, "ci_low": v - 0.05, "ci_high": v + 0.05}
                         for s, f, v, c in rows])  # fmt: skip


def test_best_granularities_and_dictionary_spread_counted_by_hand():
    from metaeval.sweep import best_granularities, dictionary_spread

    table = _one_ranking([("char", "characters", 0.50, 1.0), ("jieba", "words", 0.40, 1.6), ("pkuseg", "words", 0.44, 1.7),
                          ("spm:vocab=8000", "subwords", 0.52, 1.3), ("byte", "bytes", np.nan, 0.4)])  # fmt: skip
    [best] = best_granularities(table).to_dict("records")
    assert (best["best"], best["value"], best["chars_per_token"], best["ci_low"]) == ("spm:vocab=8000", 0.52, 1.3, pytest.approx(0.47))
    assert (best["char_value"], best["best_words"], best["best_words_value"]) == (0.50, "pkuseg", 0.44)
    assert (best["best_subwords"], best["best_subwords_value"]) == ("spm:vocab=8000", 0.52)
    [spread] = dictionary_spread(table).to_dict("records")  # two word segmenters are enough
    assert (spread["words"], spread["word_min"], spread["word_max"], spread["char"]) == (2, 0.40, 0.44, 0.50)
    assert spread["word_spread"] == pytest.approx(0.04) and spread["words_minus_char"] == pytest.approx(-0.08)
    assert (spread["judgment_kind"], spread["metric"]) == ("esa", "bleu")
    no_subwords = best_granularities(table[table["family"] != "subwords"]).iloc[0]
    assert no_subwords["best_subwords"] == "" and np.isnan(no_subwords["best_subwords_value"]) and no_subwords["best"] == "char"
    assert dictionary_spread(table[table["segmenter"] != "pkuseg"]).empty  # one word segmenter: no spread


def test_the_equivalence_row_reads_n_equal_4_and_leaves_missing_agreement_undefined():
    from types import SimpleNamespace

    from metaeval.sweep import _equivalence_row

    orders = pd.DataFrame({"N": [3, 4], "pearson_M": [10, 11], "pearson": [0.9, 0.8], "kappa_M": [12, 13], "kappa": [0.5, 0.6],
                           "analogical_M": [14, 15]})  # fmt: skip
    agreement = pd.DataFrame({"N": [4], "M_star": [16]})  # no spearman or kendall column
    row = _equivalence_row("char", SimpleNamespace(orders=orders, ranking_agreement=agreement))
    assert {k: row[k] for k in ("granularity", "pearson_M", "pearson", "kappa_M", "kappa", "analogical_M", "ranking_M")} == {
        "granularity": "char", "pearson_M": 11, "pearson": 0.8, "kappa_M": 13, "kappa": 0.6, "analogical_M": 15, "ranking_M": 16}
    assert np.isnan(row["ranking_spearman"]) and np.isnan(row["ranking_kendall"])
    agreement["spearman"], agreement["kendall_tau_b"] = 0.7, 0.6
    row = _equivalence_row("char", SimpleNamespace(orders=orders, ranking_agreement=agreement))
    assert (row["ranking_spearman"], row["ranking_kendall"]) == (0.7, 0.6)


def test_boundaries_of_no_tokens_are_an_empty_integer_array():
    for texts in ([], [[]], [[], []]):
        found = boundaries(texts)
        assert found.dtype == np.int64 and found.size == 0
    assert boundaries([["ab", "c"], [], ["d", "ef"]]).tolist() == [2, 4]


def test_sweep_takes_its_kinds_default_subwords_store_and_options(small_corpus: Path, tmp_path: Path) -> None:
    """One kind asked for of the two judged; no subwords given: those of ``subword_specs`` on the
    references; ``cache_dir`` holds the statistics store too; a non-default option is signed."""
    from metaeval.scoring import reference_lines

    corpus, judgments = corpora.read(small_corpus)
    assert set(judgments.kinds) >= {"esa", "esa_z"}
    result = sweep(corpus, judgments, segmenters=["char"], metrics=["bleu"], n_bootstrap=0, equivalence=False,
                   kinds=["esa_z"], cache_dir=tmp_path / "cache", average="micro")  # fmt: skip
    assert set(result.results["judgment_kind"]) == {"esa_z"}
    subwords = set(result.granularities["name"]) - {"char"}
    assert subwords and subwords <= set(subword_specs(reference_lines(corpus)))
    assert result.signature["options"] == {"average": "micro"}
    assert any(p.is_file() for p in (tmp_path / "cache" / "stats").rglob("*"))  # the per-segment statistics store
