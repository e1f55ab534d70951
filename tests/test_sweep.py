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


def test_command_writes_the_same_files_twice_and_refuses_to_overwrite(small_corpus: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    args = ["sweep", str(small_corpus), "-s", "char", "-s", "jieba", "--subword", "spm:vocab=1200,type=unigram",
            "-m", "bleu", "--bootstrap", "20", "-q", "--jobs", "1", "--no-equivalence"]  # fmt: skip
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    assert main(args + ["--out", str(tmp_path / "b")]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(["curve.png", "summary.md", "answer.tsv", "results.tsv", "granularities.tsv", "best.tsv", "spread.tsv",
                            "boundaries.tsv", "equivalence.tsv", "signature.json"])  # fmt: skip
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    capsys.readouterr()
    assert main(args + ["--out", str(tmp_path / "a")]) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert main(["sweep", str(small_corpus), "--out", str(tmp_path / "c"), "--subword", "spm:vocab=10,type=word"]) == 2
