"""TER's length guard through the real command: a segment above ``max_len`` tokens is one
error line naming the corpus, the file, the segment, its length and the limit; at the limit
it is scored; ``max_len`` is bounded and changes no number."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from metaeval.metrics import get_metric
from metaeval.metrics.ter import DEFAULT_MAX_LEN, MAX_LEN_BOUND, SegmentTooLong
from tests.timing import run

from ._helpers import REPO, assert_error, make_corpus, Result


def metaeval(*argv: "str | Path") -> Result:
    done = run([sys.executable, "-m", "metaeval", *map(str, argv)], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    return Result(done.returncode, done.stdout, done.stderr)


def long_corpus(root: Path, n_chars: int) -> Path:
    """The tiny corpus with segment 3 of system s2 made ``n_chars`` characters long."""
    hyps = {"s1": ["猫坐着。", "今天下雨。", "你好世界。", "晚安。"],
            "s2": ["一只猫坐。", "今天有雨。", ("你好" * n_chars)[:n_chars], "晚上好。"]}
    return make_corpus(root, hyps, esa={})


def test_segment_above_the_default_limit_is_one_error_line(tmp_path):
    corpus = long_corpus(tmp_path / "long", DEFAULT_MAX_LEN + 1)
    err = assert_error(metaeval("score", corpus, "-s", "char", "-m", "ter", "-q"), 1,
                       "corpus '", "long', system 's2'", str(corpus / "systems" / "s2.zh"), "segment 3",
                       f"{DEFAULT_MAX_LEN + 1} tokens under char", f"limit of {DEFAULT_MAX_LEN} tokens of metric 'ter'",
                       f"-m ter:max_len=N (up to {MAX_LEN_BOUND})")
    assert err.count("metaeval: error:") == 1


def test_segment_at_the_limit_is_scored(tmp_path):
    corpus = long_corpus(tmp_path / "long", DEFAULT_MAX_LEN)
    result = metaeval("score", corpus, "-s", "char", "-m", "ter", "-q", "-l", "seg", "-f", "csv")
    assert result.code == 0, result.err
    rows = [line.split(",") for line in result.out.splitlines()[1:]]
    (score,) = [float(r[6]) for r in rows if r[2] == "s2" and r[5] == "3"]
    # 1000 hypothesis tokens against the 6 of "你好，世界。": each edit but a shift changes the
    # length by at most one, so at least 994 edits; 6 substitutions and 994 insertions suffice
    assert 994 / 6 <= score <= 1000 / 6


def test_option_lowers_and_raises_the_limit(tmp_path):
    corpus = long_corpus(tmp_path / "long", 30)
    assert_error(metaeval("score", corpus, "-s", "char", "-m", "1-ter:max_len=29", "-q"), 1,
                 "system 's2'", "segment 3", "30 tokens under char", "limit of 29 tokens of metric '1-ter:max_len=29'",
                 "-m 1-ter:max_len=N")
    assert metaeval("score", corpus, "-s", "char", "-m", "1-ter:max_len=30", "-q").code == 0


def test_reference_above_the_limit_is_named(tmp_path):
    corpus = make_corpus(tmp_path / "c", {"s1": ["猫", "狗"]}, esa={})
    (corpus / "ref.A.zh").write_text("猫坐着。\n" + "狗" * 12 + "\n", encoding="utf-8")
    assert_error(metaeval("score", corpus, "-s", "char", "-m", "ter:max_len=10", "-q"), 1,
                 "reference 'A'", str(corpus / "ref.A.zh"), "segment 2", "12 tokens under char", "limit of 10")


@pytest.mark.parametrize("value", ["0", str(MAX_LEN_BOUND + 1), "many"])
def test_max_len_out_of_bounds_is_a_usage_error(tmp_path, value):
    corpus = make_corpus(tmp_path / "c", esa={})
    assert_error(metaeval("score", corpus, "-s", "char", "-m", f"ter:max_len={value}", "-q"), 2,
                 f"ter:max_len={value}")


def test_max_len_changes_no_number_and_no_signature():
    hyps = [list("今天有雨"), list("你好世界")]
    refs = [[list("今天下雨"), list("你好，世界")]]
    default, wide = get_metric("ter"), get_metric(f"ter:max_len={MAX_LEN_BOUND}")
    assert default.signature() == wide.signature()
    # hand-counted: one substitution over 4; one deletion over 5
    assert default.sentence_scores(hyps, refs).tolist() == wide.sentence_scores(hyps, refs).tolist() == [0.25, 0.2]
    with pytest.raises(SegmentTooLong, match="the hypothesis of segment 1 has 4 tokens, above the limit of 3"):
        get_metric("ter:max_len=3").sentence_scores(hyps, [[list("今天"), list("你好")]])
