"""``benchmarks.answer_ab``: the answer of an earlier commit, loaded beside this tree's."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks import answer_ab
from metaeval.answer import answer

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, check=False).returncode != 0,
    reason="not a git checkout",
)


def _row(metric: str, segmenter: str, value: float, statistic: str = "acc_eq") -> dict:
    return {"dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": statistic, "grouping": "item",
            "tie_policy": "", "metric": metric, "segmenter": segmenter, "value": value, "ci_low": value - 0.01,
            "ci_high": value + 0.01}  # fmt: skip


def test_the_base_commits_answer_is_a_module_of_its_own_that_gives_the_same_table():
    base = answer_ab.base_answer("HEAD")
    assert base.__name__ == "metaeval_base_answer" and base.answer is not answer
    results = pd.DataFrame([_row(m, s, v, st) for st in ("acc_eq", "pearson")
                            for m, s, v in (("bleu", "char", 0.52), ("bleu", "jieba", 0.50), ("bleu", "pkuseg", 0.51),
                                            ("ter", "char", 0.40), ("ter", "jieba", 0.45), ("chrf", "char", 0.3))])  # fmt: skip
    samples = np.random.default_rng(1).normal(0.5, 0.02, (len(results), 50))
    ours, theirs = answer(results, samples), base.answer(results, samples)
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert list(ours["word_segmenter"]) == ["pkuseg", "pkuseg"] and not math.isnan(ours["p_value"].iloc[0])


def test_a_commit_without_the_file_is_one_clear_error():
    with pytest.raises(SystemExit, match="answer_ab: no-such-commit:metaeval/answer.py"):
        answer_ab.base_answer("no-such-commit")
