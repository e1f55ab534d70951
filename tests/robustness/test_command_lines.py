"""Malformed command lines exit 2 with one ``metaeval: error:`` line naming the subcommand
or the option; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._helpers import FAST, assert_error, leftovers


def _usage_cases(corpus, tmp_path):
    judgments = corpus / "judgments.tsv"
    return {
        "unknown option": (["run", corpus, "--frobnicate"], ["unrecognized arguments: --frobnicate"]),
        "non-integer bootstrap": (["run", corpus, "--bootstrap", "many"], ["run:", "--bootstrap"]),
        "negative bootstrap": (["run", corpus, *FAST[:4], "--bootstrap", "-1"], ["--bootstrap", "-1"]),
        "nan threshold": (["run", corpus, *FAST[:4], "--threshold", "nan"], ["threshold", "nan"]),
        "unknown tie policy": (["run", corpus, "--tie-policy", "x"], ["--tie-policy", "'x'"]),
        "unknown missing policy": (["score", corpus, "--missing", "drop"], ["--missing", "'drop'"]),
        "unknown level": (["score", corpus, "-l", "word"], ["unknown level 'word'"]),
        "unknown format": (["score", corpus, "-f", "xml"], ["--format", "'xml'"]),
        "correlate without scores": (["correlate", "--judgments", judgments], ["correlate:", "--scores"]),
        "leaderboard without file": (["leaderboard"], ["leaderboard:", "results"]),
        "equivalence bad order": (["equivalence", corpus, "--max-char-order", "x"], ["--max-char-order"]),
        "metric option typo": (["score", corpus, "-m", "bleu:n=four"], ["bleu:n=four", "not a valid int"]),
        "unknown judgment format": (
            ["run", corpus, *FAST, "--judgments", judgments, "--judgments-format", "zzz"],
            ["unknown judgment format 'zzz'"],
        ),
    }


CASES = list(_usage_cases(Path("corpus"), Path("tmp")))


@pytest.mark.parametrize("case", CASES)
def test_malformed_command_line_exits_2(cli, corpus, tmp_path, case):
    argv, fragments = _usage_cases(corpus, tmp_path)[case]
    assert_error(cli(*argv), 2, *fragments)
    assert leftovers(tmp_path) == ["tiny/" + p for p in leftovers(corpus)]


def test_unknown_names_exit_2_with_the_known_ones(cli, corpus):
    assert_error(cli("score", corpus, "-s", "jiba"), 2, "unknown segmenter 'jiba'", "jieba")
    assert_error(cli("score", corpus, "-m", "blue"), 2, "unknown metric 'blue'", "bleu")


def test_missing_judgment_file_is_named(cli, corpus, tmp_path):
    assert_error(cli("run", corpus, *FAST, "--judgments", tmp_path / "nope.tsv"), 1, "nope.tsv: no such file")


def test_negative_seed_is_a_usage_error(cli, corpus):
    assert_error(cli("run", corpus, *FAST, "--seed", "-1"), 2, "seed", "-1")


def test_run_human_sys_alone_is_read(cli, corpus, tmp_path):
    assert_error(cli("run", corpus, *FAST, "--human-sys", tmp_path / "nope.tsv"), 1, "nope.tsv: no such file")
