"""``metaeval score --confidence`` (each system's 95% interval by bootstrap of segments, as
sacrebleu's --confidence) and ``--scale 100`` (sacrebleu's 0-100 scale; no other number changes)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from metaeval import segmenters
from metaeval.metrics import get_metric
from tests.test_cli import ZH, run_cli, small_corpus


def test_confidence_is_the_percentile_interval_of_corpus_bleu_over_resampled_segments(tmp_path, capsys):
    corpus = small_corpus(tmp_path, n=25, systems=("Aya23", "GPT-4"))
    code, out, err = run_cli(capsys, "score", str(corpus), "-s", "char", "-m", "bleu", "-m", "nist", "--level", "sys",
                             "--confidence", "--confidence-n", "200", "--confidence-seed", "7", "-q")  # fmt: skip
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index(["metric", "system"])
    # an obviously correct slow version: corpus BLEU of each resample of the 25 segments, recomputed from the tokens
    char = segmenters.get("char")
    refs = list(char.segment_many((corpus / "ref.refA.zh").read_text(encoding="utf-8").splitlines()))
    hyps = char.segment_many((corpus / "systems" / "GPT-4.zh").read_text(encoding="utf-8").splitlines())
    bleu = get_metric("bleu")
    draws = np.random.default_rng(7).integers(0, 25, size=(200, 25))
    scores = [bleu.corpus_score([hyps[i] for i in row], [[refs[i] for i in row]]) for row in draws]
    low, high = np.quantile(scores, [0.025, 0.975])
    row = table.loc[("bleu", "GPT-4")]
    assert abs(row.ci_low - low) < 1e-9
    assert abs(row.ci_high - high) < 1e-9 and row.ci_low <= row.score <= row.ci_high
    assert table.loc[("nist", "Aya23")].ci_low < table.loc[("nist", "Aya23")].ci_high


def test_scale_100_multiplies_the_scores_of_unit_metrics_only(tmp_path, capsys):
    corpus = small_corpus(tmp_path, n=10, systems=("Aya23",))
    args = ["score", str(corpus), "-s", "char", "-m", "bleu", "-m", "nist", "-m", "chrf", "--level", "sys", "-q"]
    plain = pd.read_csv(io.StringIO(run_cli(capsys, *args)[1]), sep="\t").set_index("metric").score
    scaled = pd.read_csv(io.StringIO(run_cli(capsys, *args, "--scale", "100")[1]), sep="\t").set_index("metric").score
    assert abs(scaled["bleu"] - 100 * plain["bleu"]) < 1e-7 and abs(scaled["chrf"] - 100 * plain["chrf"]) < 1e-7
    assert scaled["nist"] == plain["nist"]
    assert ZH.is_dir()


def test_bleu_signature_in_sacrebleus_style_matches_sacrebleus_own():
    """Every field but the version as sacrebleu's BLEU prints it for the same options."""
    from sacrebleu.metrics import BLEU

    from metaeval.report.headline import sacrebleu_bleu_signature, sacrebleu_lines

    def theirs(refs, **options) -> str:
        bleu = BLEU(**options)
        bleu.corpus_score(["a b"], refs)
        return bleu.get_signature().format().rsplit("|version:", 1)[0]

    char, lower = segmenters.get("char"), segmenters.get("char:lowercase=true")
    mine = sacrebleu_bleu_signature(get_metric("bleu:smooth=exp").signature(), "char", char.signature(), 1)
    assert mine.rsplit("|version:", 1)[0] == theirs([["a b"]], tokenize="char", smooth_method="exp")
    assert mine.endswith("|version:metaeval-" + get_metric("bleu").signature().rsplit("version:", 1)[1])
    mine = sacrebleu_bleu_signature(get_metric("bleu:smooth=exp,effective_order=true").signature(), "char", lower.signature(), 2)
    assert mine.rsplit("|version:", 1)[0] == theirs([["a b"], ["a c"]], tokenize="char", smooth_method="exp", lowercase=True,
                                                    effective_order=True)  # fmt: skip
    signature = {"references": ["A"], "metrics": {"bleu": get_metric("bleu").signature(), "nist": "nist|n:5"},
                 "segmenters": {"char": char.signature(), "jieba": "jieba|hmm:yes|norm:none"}}  # fmt: skip
    (line,) = sacrebleu_lines(signature)
    assert line.startswith("bleu (sacrebleu style): nrefs:1|case:mixed|eff:no|tok:char|smooth:mteval|") and "tok:jieba" in line
