"""The Denoual & Lepage (2005) equivalence analysis: hand-computed statistics, brute force,
sacrebleu as the oracle for unsmoothed BLEU of every order, and the command line."""

from __future__ import annotations

import json
import logging
import math
import os
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from sacrebleu.metrics import BLEU as SacreBLEU

from metaeval.cli.equivalence import cmd_equivalence as cli_equivalence
from metaeval.cli import main
from metaeval.report.equivalence import render_equivalence
from metaeval.equivalence import (
    EquivalenceSettings,
    OrderScores,
    analogical_fractions,
    analyse,
    best_orders,
    bleu_by_order,
    cohen_kappa,
    first_reaching,
    grades,
    kappa_matrix,
    pearson_matrix,
)
from metaeval.errors import UsageError

logging.getLogger("sacrebleu").setLevel(logging.ERROR)


# --- Cohen's kappa and grades --------------------------------------------------------


def test_kappa_by_hand():
    # a = 0 0 1 1 2, b = 0 1 1 1 2 (3 classes)
    # observed agreement p_o = 4/5 = 0.8 (items 1, 3, 4, 5)
    # marginals a: (2, 2, 1)/5, b: (1, 3, 1)/5
    # chance p_e = (2*1 + 2*3 + 1*1)/25 = 9/25 = 0.36
    # kappa = (0.8 - 0.36) / (1 - 0.36) = 0.44 / 0.64 = 0.6875
    assert cohen_kappa(np.array([0, 0, 1, 1, 2]), np.array([0, 1, 1, 1, 2]), 3) == pytest.approx(0.6875, abs=1e-12)


def test_kappa_perfect_and_undefined():
    assert cohen_kappa(np.array([0, 1, 2, 2]), np.array([0, 1, 2, 2]), 10) == pytest.approx(1.0)
    # both raters always say grade 4: p_e = 1, kappa undefined
    assert math.isnan(cohen_kappa(np.array([4, 4, 4]), np.array([4, 4, 4]), 10))
    assert math.isnan(cohen_kappa(np.array([], dtype=int), np.array([], dtype=int), 10))


def _kappa_brute(a, b):
    """Disagreement form over all item pairs: kappa = 1 - D_o / D_e, where D_o is the share of
    items the raters label differently and D_e the share of (i, j) pairs with a_i != b_j."""
    n = len(a)
    observed = sum(a[i] != b[i] for i in range(n)) / n
    expected = sum(a[i] != b[j] for i in range(n) for j in range(n)) / n**2
    return 1.0 - observed / expected


def test_kappa_matches_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(2, 40))
        a = rng.integers(0, 10, n)
        b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 10, n))
        if len(set(a)) == 1 and len(set(b)) == 1:
            continue
        assert cohen_kappa(a, b, 10) == pytest.approx(_kappa_brute(a, b), abs=1e-12)


def test_grades_ten_bins_with_one_in_last():
    scores = np.array([0.0, 0.05, 0.1, 0.15, 0.95, 1.0, np.exp(np.log(0.7)), 0.0999])
    # exp(log(0.7)) = 0.6999999999999999 is still grade 7; 1.0 joins [.9, 1]
    assert grades(scores).tolist() == [0, 0, 1, 1, 9, 9, 7, 0]


def test_kappa_matrix_grades_scores():
    # word scores grade to (0, 5, 9), char column 0 to (0, 5, 9) -> kappa 1;
    # char column 1 to (1, 1, 1): p_o = 0; p_e = sum_k p_w(k) p_c(k) = p_w(1) * 1 = 0 -> kappa 0
    word = np.array([[0.01], [0.55], [1.0]])
    char = np.array([[0.02, 0.1], [0.51, 0.12], [0.93, 0.19]])
    assert kappa_matrix(word, char).tolist() == [[pytest.approx(1.0), pytest.approx(0.0)]]


# --- correlation, best M, analogical behaviour ---------------------------------------


def test_pearson_matrix_against_scipy():
    rng = np.random.default_rng(3)
    word = rng.random((50, 3))
    char = rng.random((50, 5))
    char[:, 4] = 0.25  # constant: undefined
    r = pearson_matrix(word, char)
    for i in range(3):
        for j in range(4):
            assert r[i, j] == pytest.approx(sps.pearsonr(word[:, i], char[:, j]).statistic, abs=1e-12)
        assert math.isnan(r[i, 4])


def test_best_orders_synthetic():
    values = np.array(
        [
            [0.1, 0.5, 0.5, 0.2],  # tie between M=2 and M=3: the smaller wins
            [np.nan, 0.3, np.nan, 0.9],  # NaN never wins
            [np.nan] * 4,  # nothing defined
            [-0.2, -0.1, -0.3, -0.4],
        ]
    )
    assert best_orders(values) == [2, 4, None, 2]


def test_analogical_fractions_by_hand():
    # 4 items; word orders 1..3, char orders 1..2
    word = np.array([[0.9, 0.5, 0.2], [0.8, 0.6, 0.0], [1.0, 1.0, 1.0], [0.4, 0.0, 0.0]])
    char = np.array([[0.7, 0.4], [0.7, 0.65], [1.0, 1.0], [0.3, 0.0]])
    # N=2 compares with w1 = (.9, .8, 1, .4):
    #   M=1 c1 = (.7, .7, 1, .3): all four <= -> 4/4
    #   M=2 c2 = (.4, .65, 1, 0): all four <= -> 4/4
    # N=3 compares with w2 = (.5, .6, 1, 0):
    #   M=1: .7>.5, .7>.6, 1<=1, .3>0 -> 1/4
    #   M=2: .4<=.5, .65>.6, 1<=1, 0<=0 -> 3/4
    frac = analogical_fractions(word, char)
    assert np.isnan(frac[:, 0]).all()  # N=1: no order N-1
    assert frac[:, 1].tolist() == [1.0, 1.0]
    assert frac[:, 2].tolist() == [0.25, 0.75]


def test_first_reaching():
    assert first_reaching(np.array([0.5, 0.89, 0.9, 0.95])) == 3
    assert first_reaching(np.array([0.1, 0.2])) is None
    assert first_reaching(np.array([np.nan, np.nan])) is None
    assert first_reaching(np.array([0.5, 0.8]), threshold=0.75) == 2


# --- unsmoothed BLEU of every order ----------------------------------------------------


def _sacre(order):
    return SacreBLEU(max_ngram_order=order, smooth_method="none", tokenize="none", effective_order=False)


def test_sentence_shorter_than_order_scores_zero():
    hyps = {"s": [["a", "b", "c"]]}
    refs = [[["a", "b", "c"]]]
    seg, sys_, _ = bleu_by_order(hyps, refs, 5)
    # 3 tokens: orders 1..3 match perfectly (BLEU 1); orders 4 and 5 have T_n = 0 -> 0
    assert seg[0, 0].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert sys_[0].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert _sacre(4).sentence_score("a b c", ["a b c"]).score == 0.0


def _random_corpus(rng, n_seg=25, vocab=6):
    def sent(lo, hi):
        return [f"t{int(x)}" for x in rng.integers(0, vocab, int(rng.integers(lo, hi)))]

    refs = [[sent(5, 30) for _ in range(n_seg)] for _ in range(2)]
    hyps = {}
    for name in ("x", "y"):
        out = []
        for i in range(n_seg):
            base = list(refs[0][i])
            cut = int(rng.integers(0, len(base)))
            out.append(base[:cut] + sent(0, 6) + base[cut:] if rng.random() < 0.7 else sent(1, 30))
        hyps[name] = out
    return hyps, refs


def test_prefix_orders_equal_direct_orders_and_sacrebleu():
    rng = np.random.default_rng(11)
    hyps, refs = _random_corpus(rng)
    seg30, sys30, _ = bleu_by_order(hyps, refs, 30)
    for m in (1, 2, 4, 7, 18, 30):
        seg_m, sys_m, _ = bleu_by_order(hyps, refs, m)
        np.testing.assert_allclose(seg30[..., m - 1], seg_m[..., m - 1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(sys30[:, m - 1], sys_m[:, m - 1], rtol=0, atol=1e-12)
        sacre = _sacre(m)
        for s, (name, h) in enumerate(hyps.items()):
            joined = [" ".join(t) for t in h]
            ref_texts = [[" ".join(t) for t in ref] for ref in refs]
            corpus = sacre.corpus_score(joined, ref_texts).score / 100
            assert sys30[s, m - 1] == pytest.approx(corpus, abs=1e-9)
            for i in range(len(h)):
                sent = sacre.sentence_score(joined[i], [r[i] for r in ref_texts]).score / 100
                assert seg30[s, i, m - 1] == pytest.approx(sent, abs=1e-9)
    assert (seg30[..., 20:] == 0).any() and (seg30[..., 0] > 0).any()


# --- the analysis on synthetic scores ------------------------------------------------


def _order_scores(seg, sys_, ref_lengths, hyp_lengths, name):
    return OrderScores(
        segmenter=name,
        segmenter_signature=f"{name}|test",
        metric_signature="bleu|test",
        systems=("A", "B", "C"),
        seg_ids=("1", "2", "3", "4"),
        seg=np.asarray(seg, dtype=float),
        sys=np.asarray(sys_, dtype=float),
        ref_lengths=np.asarray(ref_lengths),
        hyp_lengths=np.asarray(hyp_lengths),
    )


def _synthetic():
    rng = np.random.default_rng(5)
    w_seg = np.sort(rng.random((3, 4, 2)), axis=-1)[..., ::-1]  # BLEU decreases with the order
    c_seg = np.sort(rng.random((3, 4, 3)), axis=-1)[..., ::-1]
    w_sys = np.array([[0.5, 0.3], [0.6, 0.4], [0.4, 0.2]])  # ranking B, A, C at both orders
    c_sys = np.array([[0.7, 0.5, 0.3], [0.6, 0.55, 0.35], [0.5, 0.4, 0.2]])  # c2: B, A, C; c1: A, B, C
    ref_words = np.array([[3, 12, 12, 45]])  # bins 1-10, 11-20, 11-20, >40
    word = _order_scores(w_seg, w_sys, ref_words, np.full((3, 4), 9), "w")
    char = _order_scores(c_seg, c_sys, ref_words * 5, np.full((3, 4), 40), "c")
    return word, char


def test_analyse_tables_on_synthetic_scores():
    word, char = _synthetic()
    settings = EquivalenceSettings(max_word_order=2, max_char_order=3, m_star="pearson")
    result = analyse(word, char, settings, corpus_name="toy")
    w_items, c_items = word.seg.reshape(12, 2), char.seg.reshape(12, 3)
    table1 = result.orders.set_index("N")
    for n in (1, 2):
        rs = [sps.pearsonr(w_items[:, n - 1], c_items[:, m]).statistic for m in range(3)]
        assert table1.loc[n, "pearson_M"] == int(np.argmax(rs)) + 1
        assert table1.loc[n, "pearson"] == pytest.approx(max(rs), abs=1e-12)
    assert result.by_length[result.by_length["N"] == 1][["length", "n_segments", "n_items"]].values.tolist() == [
        ["1-10", 1, 3],
        ["11-20", 2, 6],
        [">40", 1, 3],
    ]
    agree = result.ranking_agreement.set_index("N")
    m2 = int(agree.loc[2, "M_star"])
    assert agree.loc[2, "criterion"] == "pearson"
    expected_rho = sps.spearmanr(word.sys[:, 1], char.sys[:, m2 - 1]).statistic
    assert agree.loc[2, "spearman"] == pytest.approx(expected_rho, abs=1e-12)
    assert result.ranking["system"].tolist() == ["B", "A", "C"]
    lengths = result.lengths.set_index(["texts", "unit"])
    # reference words 3, 12, 12, 45: mean 72/4 = 18, median 12, quartiles 9.75 and 20.25
    assert lengths.loc[("references", "words"), "mean"] == 18.0
    assert lengths.loc[("references", "words"), ["q1", "median", "q3"]].tolist() == [9.75, 12.0, 20.25]
    hist = result.length_histogram
    assert hist[hist["unit"] == "words"]["references"].tolist() == [1, 2, 0, 0, 1]
    data = json.loads(render_equivalence(result, "json"))
    assert data["signature"]["corpus"] == "toy"
    assert set(data["tables"]) >= {"orders", "by_length", "ranking", "lengths", "analogical"}
    assert "Table 1" in render_equivalence(result, "markdown") and "Table 1" in render_equivalence(result, "text")


def test_analyse_rejects_mismatched_scores():
    word, char = _synthetic()
    with pytest.raises(UsageError):
        analyse(word, char, EquivalenceSettings(max_word_order=3, max_char_order=3))


@pytest.mark.parametrize(
    "kwargs",
    [{"max_word_order": 0}, {"max_char_order": True}, {"threshold": 1.5}, {"n_grades": 1},
     {"length_edges": (10, 5)}, {"m_star": "best"}],
)
def test_settings_validation(kwargs):
    with pytest.raises(ValueError):
        EquivalenceSettings(**kwargs)


# --- command line ----------------------------------------------------------------------


def _write_corpus(folder):
    refs = ["the cat sat on the mat", "a dog ran in the park today", "it is raining", "we like green tea very much"]
    good = ["the cat sat on a mat", "a dog ran in the park", "it is raining now", "we like green tea much"]
    bad = ["cat the mat", "dog park", "rain", "tea green we"]
    folder.mkdir()
    (folder / "src.xx").write_text("\n".join(f"s{i}" for i in range(4)) + "\n", encoding="utf-8")
    (folder / "ref.A.en").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (folder / "systems").mkdir()
    (folder / "systems" / "good.en").write_text("\n".join(good) + "\n", encoding="utf-8")
    (folder / "systems" / "bad.en").write_text("\n".join(bad) + "\n", encoding="utf-8")


def _args(corpus, **kw):
    base = dict(corpus=str(corpus), word_segmenter="13a", char_segmenter="char", max_word_order=4,
                max_char_order=30, missing="error", format="json", output=None, overwrite=False)
    base.update(kw)
    return Namespace(**base)


def test_cli_equivalence_json(tmp_path, capsys):
    corpus = tmp_path / "toy"
    _write_corpus(corpus)
    out = tmp_path / "eq.json"
    assert cli_equivalence(_args(corpus, output=str(out))) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [row["N"] for row in data["tables"]["orders"]] == [1, 2, 3, 4]
    lengths = {(r["texts"], r["unit"]): r for r in data["tables"]["lengths"]}
    # reference words 6, 7, 3, 6 -> mean 22/4 = 5.5; characters 17, 21, 11, 22 -> mean 71/4 = 17.75
    assert lengths[("references", "words")]["mean"] == 5.5
    assert lengths[("references", "characters")]["mean"] == 17.75
    ranking = data["tables"]["ranking"]
    assert [r["system"] for r in ranking] == ["good", "bad"]
    # "bad" has no 4-gram in any sentence: corpus BLEUw4 without smoothing is 0
    assert ranking[1]["BLEUw4"] == 0.0
    assert data["signature"]["word_segmenter"].startswith("13a")
    # the same output twice, byte for byte; without --overwrite the file is kept
    with pytest.raises(UsageError):
        cli_equivalence(_args(corpus, output=str(out)))
    assert cli_equivalence(_args(corpus, output=str(out), overwrite=True)) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == data


def test_cli_main_text_and_errors(tmp_path, capsys):
    corpus = tmp_path / "toy"
    _write_corpus(corpus)
    assert main(["equivalence", str(corpus), "--format", "markdown", "--max-char-order", "12"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# BLEU in words") and "Table 3" in text
    assert main(["equivalence", str(corpus), "--max-char-order", "0"]) == 2
    assert main(["equivalence", str(corpus), "--word-segmenter", "nope"]) == 2  # an unknown name is a usage error, with the known names
    assert main(["equivalence", str(tmp_path / "absent")]) == 1
    (corpus / "systems" / "bad.en").write_text("one line\n", encoding="utf-8")
    assert main(["equivalence", str(corpus)]) == 1


# --- the experiment ------------------------------------------------------------------

_DATA = Path(os.environ.get("METAEVAL_SHARED", Path(__file__).resolve().parents[1] / ".." / "shared")) / "data"


@pytest.mark.slow
@pytest.mark.skipif(not (_DATA / "wmt21" / "ja-en").is_dir(), reason=f"shared data {_DATA} does not exist")
def test_experiment_is_deterministic(tmp_path):
    from experiments.denoual2005.__main__ import main as experiment

    outputs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert experiment(["--data", str(_DATA), "--out", str(out), "--only", "wmt21/ja-en"]) == 0
        runtime = json.loads((out / "runtime.json").read_text(encoding="utf-8"))
        assert runtime["datasets"] == ["wmt21/ja-en"] and runtime["seconds"] > 0  # the one file that records time
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name != "runtime.json" and p.is_file()})
        assert (out / "store").is_dir()  # the study's computed pieces, read back by a rerun
    assert outputs[0] == outputs[1]
    assert set(outputs[0]) == {"summary.md", "results.json", "wmt21_ja-en.13a.md", "equivalence.tsv", "study.json",
                               "figure1_wmt21_ja-en.png", "figure2_wmt21_ja-en.png"}
    data = json.loads(outputs[0]["results.json"])
    orders = data["runs"]["wmt21_ja-en.13a"]["tables"]["orders"]
    assert [row["n_items"] for row in orders] == [16 * 1005] * 4  # 16 systems x 1005 segments
