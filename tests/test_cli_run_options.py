"""Every option of ``metaeval run`` and ``metaeval score`` changes the number it must change,
checked against independent oracles: pair counts brute-forced here from the written scores and
the judgment file, sacrebleu for BLEU, scipy for system-level correlations."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import jieba
import pandas as pd
import pytest
import sacrebleu
import scipy.stats

from metaeval.cli import main
from tests.test_cli import ZH, small_corpus

pytestmark = pytest.mark.skipif(not ZH.is_dir(), reason=f"shared data not found: {ZH} (set METAEVAL_SHARED)")


def cli(capsys, *argv: str) -> str:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def rows_of(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), sep="\t", comment="#", dtype={"seg_id": str}, keep_default_na=False)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return small_corpus(tmp_path_factory.mktemp("run-options"), n=25)


@pytest.fixture(scope="module")
def ter_scores(corpus, tmp_path_factory) -> pd.DataFrame:
    """Segment-level character TER of the corpus, as `metaeval score` writes it."""
    out = tmp_path_factory.mktemp("ter") / "scores.tsv"
    assert main(["score", str(corpus), "-s", "char", "-m", "ter", "--level", "seg", "-q", "-j", "1", "-o", str(out)]) == 0
    table = pd.read_csv(out, sep="\t", dtype={"seg_id": str}, keep_default_na=False)
    assert len(table) == 4 * 25
    return table


def brute_force_counts(scores: pd.DataFrame, judgments: pd.DataFrame, threshold: float) -> dict[str, int]:
    """Pairs of systems on the same segment (TER: lower is better). WMT24 ESA has one rating
    per (segment, system), by different judges, so pairs are formed within a segment."""
    assert not judgments.duplicated(["seg_id", "system"]).any()
    metric = {(r.system, r.seg_id): r.score for r in scores.itertuples()}
    counts = {"concordant": 0, "discordant": 0, "metric_ties": 0, "human_ties": 0}
    for _, group in judgments.groupby("seg_id"):
        for a, b in itertools.combinations(list(group.itertuples()), 2):
            dh = a.value - b.value
            if abs(dh) <= threshold:
                counts["human_ties"] += 1
                continue
            dm = metric[(b.system, a.seg_id)] - metric[(a.system, a.seg_id)]  # lower TER is better
            if dm == 0:
                counts["metric_ties"] += 1
            elif (dm > 0) == (dh > 0):
                counts["concordant"] += 1
            else:
                counts["discordant"] += 1
    return counts


@pytest.fixture(scope="module")
def esa(corpus) -> pd.DataFrame:
    table = pd.read_csv(corpus / "judgments.tsv", sep="\t", dtype={"seg_id": str})
    return table[table.kind == "esa"]


@pytest.mark.parametrize(
    "policy, threshold",
    [("exclude", None), ("half", None), ("discordant", None), ("exclude", 25.0), ("discordant", 10.0)],
)
def test_run_tie_policy_and_threshold_match_brute_force(capsys, corpus, ter_scores, esa, policy, threshold):
    argv = ["run", str(corpus), "-s", "char", "-m", "ter", "--kind", "esa", "--bootstrap", "0", "-f", "tsv", "-q",
            "-j", "1", "--tie-policy", policy]
    if threshold is not None:
        argv += ["--threshold", str(threshold)]
    rows = rows_of(cli(capsys, *argv))
    row = rows[(rows.level == "seg") & (rows.statistic == "consistency")].iloc[0]
    assert row.grouping == "segment"
    expected = brute_force_counts(ter_scores, esa, threshold or 0.0)
    assert expected["discordant"] > 0
    if threshold is None:
        assert expected["metric_ties"] > 0  # the policy has something to decide
    else:
        assert expected["human_ties"] > brute_force_counts(ter_scores, esa, 0.0)["human_ties"]
    assert {k: int(row[k]) for k in expected} == expected
    c, d, t = expected["concordant"], expected["discordant"], expected["metric_ties"]
    value = {"exclude": c / (c + d), "half": (c + t / 2) / (c + d + t), "discordant": c / (c + d + t)}[policy]
    assert row.value == pytest.approx(value, abs=1e-12)
    assert row.tie_policy == policy


def test_run_judgments_and_human_sys_files_are_used(capsys, corpus, esa, tmp_path):
    base = ["run", str(corpus), "-s", "char", "-m", "ter", "--kind", "esa", "--bootstrap", "0", "-f", "tsv", "-q", "-j", "1"]
    plain = rows_of(cli(capsys, *base))
    # the same judgments turned upside down: every concordant pair becomes discordant
    flipped = esa.copy()
    flipped["value"] = 100 - flipped["value"]
    path = tmp_path / "flipped.tsv"
    flipped.to_csv(path, sep="\t", index=False)
    # system scores in an order chosen here
    human_sys = tmp_path / "human_sys.tsv"
    human_sys.write_text("system\tesa\nAya23\t1\nGPT-4\t2\nIKUN\t4\nONLINE-B\t3\n", encoding="utf-8")
    other = rows_of(cli(capsys, *base, "--judgments", str(path), "--human-sys", str(human_sys)))

    def seg(rows: pd.DataFrame) -> pd.Series:
        return rows[(rows.level == "seg") & (rows.statistic == "consistency")].iloc[0]

    assert (seg(other).concordant, seg(other).discordant) == (seg(plain).discordant, seg(plain).concordant)
    assert seg(other).value == pytest.approx(1 - seg(plain).value, abs=1e-12)
    sys_scores = rows_of(cli(capsys, "score", str(corpus), "-s", "char", "-m", "ter", "--level", "sys", "-q", "-j", "1"))
    ter = sys_scores.set_index("system").score
    systems = ["Aya23", "GPT-4", "IKUN", "ONLINE-B"]
    expected = scipy.stats.spearmanr([-ter[s] for s in systems], [1, 2, 4, 3]).statistic
    spearman = other[(other.level == "sys") & (other.statistic == "spearman")].iloc[0]
    assert spearman.value == pytest.approx(expected, abs=1e-12)
    assert spearman.value != pytest.approx(plain[(plain.level == "sys") & (plain.statistic == "spearman")].value.iloc[0])


def test_run_kind_bootstrap_seed_and_signature(capsys, corpus, tmp_path):
    base = ["run", str(corpus), "-s", "char", "-m", "bleu", "-f", "tsv", "-q", "-j", "1"]
    plain = rows_of(cli(capsys, *base, "--bootstrap", "0"))
    assert set(plain.judgment_kind) == {"esa", "esa_z"}
    assert plain.ci_low.eq("").all()
    one = cli(capsys, *base, "--kind", "esa_z", "--bootstrap", "40", "--seed", "1", "--out", str(tmp_path / "one"))
    two = rows_of(cli(capsys, *base, "--kind", "esa_z", "--bootstrap", "40", "--seed", "2"))
    signature = json.loads((tmp_path / "one" / "signature.json").read_text(encoding="utf-8"))
    assert signature["seed"] == 1 and signature["n_bootstrap"] == 40
    one = rows_of(one)
    assert set(one.judgment_kind) == {"esa_z"}
    same = plain[plain.judgment_kind == "esa_z"].reset_index(drop=True)
    assert one.value.astype(float).tolist() == pytest.approx(same.value.astype(float).tolist(), abs=1e-12)
    lows = one.ci_low.astype(float)
    assert lows.notna().all() and (lows <= one.value.astype(float) + 1e-12).all()
    assert not one.ci_low.equals(two.ci_low)
    assert all("bootstrap 40" in note and "seed 1" in note for note in one.note)


def test_run_layout_table_and_ranked(capsys, corpus):
    base = ["run", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "chrf", "--kind", "esa",
            "--bootstrap", "0", "-q", "-j", "1", "-f", "markdown"]
    table = cli(capsys, *base, "--layout", "table")
    ranked = cli(capsys, *base, "--layout", "ranked")
    assert table != ranked
    rows = rows_of(cli(capsys, *base[:-2], "-f", "tsv"))
    value = rows[(rows.level == "seg") & (rows.statistic == "consistency") & (rows.segmenter == "jieba")
                 & (rows.metric == "bleu")].value.iloc[0]
    shown = f"{float(value):.3f}"
    assert shown in table and shown in ranked
    # table layout: one row per segmenter with the metrics as columns
    assert any(line.startswith(("| char", "| `char`")) for line in table.splitlines())


def test_run_segmenters_and_metrics_select_the_configurations(capsys, corpus):
    rows = rows_of(cli(capsys, "run", str(corpus), "-s", "jieba", "-m", "chrf", "-m", "1-ter", "--kind", "esa",
                       "--bootstrap", "0", "-f", "tsv", "-q", "-j", "1"))
    assert set(zip(rows.metric, rows.segmenter)) == {("chrf", "jieba"), ("1-ter", "jieba")}


def test_jobs_1_and_2_byte_identical_with_every_default_metric(capsys, corpus, tmp_path):
    """The default segmenters and metrics on a real slice: the same bytes with and without workers."""
    outputs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        text = cli(capsys, "run", str(corpus), "--bootstrap", "30", "-q", "-j", jobs, "--out", str(out), "-f", "tsv")
        outputs[jobs] = (text, {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert outputs["1"] == outputs["2"]
    results = rows_of(outputs["1"][0])
    assert set(results.segmenter) == {"char", "cjk-char", "jieba", "pkuseg"}
    assert set(results.metric) >= {"bleu", "nist", "ter", "gtm", "meteor", "chrf"} or len(set(results.metric)) >= 6


def test_score_jobs_1_and_2_byte_identical(capsys, corpus):
    argv = ["score", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "nist", "-m", "ter", "-m", "gtm",
            "-m", "meteor", "-m", "chrf", "-q"]
    assert cli(capsys, *argv, "-j", "1") == cli(capsys, *argv, "-j", "2")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_score_segmenter_and_metric_against_sacrebleu(capsys, corpus):
    """System BLEU at char level and on jieba words is sacrebleu's corpus BLEU of the same tokens."""
    table = rows_of(cli(capsys, "score", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu:smooth=none",
                        "--level", "sys", "-q", "-j", "1"))
    refs = _lines(corpus / "ref.refA.zh")
    jieba_tokenizer = jieba.Tokenizer()
    jieba_tokenizer.initialize()

    def words(line: str) -> str:
        return " ".join(w for w in jieba_tokenizer.lcut(line, HMM=True) if w.strip())

    for system in ("Aya23", "GPT-4"):
        hyps = _lines(corpus / "systems" / f"{system}.zh")
        char = sacrebleu.corpus_bleu(hyps, [refs], tokenize="char", smooth_method="none").score / 100
        word = sacrebleu.corpus_bleu([words(h) for h in hyps], [[words(r) for r in refs]], tokenize="none",
                                     smooth_method="none").score / 100
        got = table[table.system == system].set_index("segmenter").score.astype(float)
        assert got["char"] == pytest.approx(char, abs=1e-9)
        assert got["jieba"] == pytest.approx(word, abs=1e-9)
        assert got["char"] != pytest.approx(got["jieba"], abs=1e-3)


def test_score_levels(capsys, corpus):
    seg_sys = rows_of(cli(capsys, "score", str(corpus), "-m", "chrf", "--level", "seg", "--level", "sys", "-q", "-j", "1"))
    assert seg_sys.level.value_counts().to_dict() == {"seg": 4 * 25, "sys": 4}
    doc = rows_of(cli(capsys, "score", str(corpus), "-m", "chrf", "--level", "doc", "-q", "-j", "1"))
    assert set(doc.level) == {"doc"}
    every = rows_of(cli(capsys, "score", str(corpus), "-m", "chrf", "-q", "-j", "1"))
    assert set(every.level) == {"seg", "doc", "sys"}
    # the system row of chrF is sacrebleu's corpus chrF
    hyps = _lines(corpus / "systems" / "IKUN.zh")
    expected = sacrebleu.corpus_chrf(hyps, [_lines(corpus / "ref.refA.zh")]).score / 100
    got = seg_sys[(seg_sys.level == "sys") & (seg_sys.system == "IKUN")].score.astype(float).iloc[0]
    assert got == pytest.approx(expected, abs=1e-9)


def test_score_output_and_overwrite(capsys, corpus, tmp_path):
    target = tmp_path / "s.json"
    argv = ["score", str(corpus), "-m", "chrf", "--level", "sys", "-q", "-j", "1", "-f", "json", "-o", str(target)]
    assert cli(capsys, *argv) == ""
    first = json.loads(target.read_text(encoding="utf-8"))
    assert {r["system"] for r in first} == {"Aya23", "GPT-4", "IKUN", "ONLINE-B"}
    assert main([*argv[:-4], "-m", "bleu", "-f", "json", "-o", str(target)]) == 2
    capsys.readouterr()
    assert json.loads(target.read_text(encoding="utf-8")) == first
    assert main([*argv[:-4], "-m", "bleu", "-f", "json", "-o", str(target), "--overwrite"]) == 0
    assert {r["metric"] for r in json.loads(target.read_text(encoding="utf-8"))} == {"chrf", "bleu"}


def test_quiet_silences_the_progress_bar(capsys, corpus, monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    argv = ["score", str(corpus), "-m", "chrf", "--level", "sys", "-j", "1"]
    assert main(argv) == 0
    noisy = capsys.readouterr()
    assert main([*argv, "-q"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and noisy.err != ""
    assert quiet.out == noisy.out
