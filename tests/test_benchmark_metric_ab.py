"""``benchmarks.metric_ab``: a metric's kernels on an earlier commit and on this tree, call by call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import metric_ab
from tests.golden_util import DATA

REPO = Path(__file__).resolve().parents[1]
SMALL = "mlqe-pe/en-zh-dev"

pytestmark = [
    pytest.mark.skipif(subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, check=False).returncode != 0,
                       reason="not a git checkout"),
    pytest.mark.skipif(not (DATA / SMALL).is_dir(), reason="shared data not found (set METAEVAL_SHARED)"),
]  # fmt: skip


def test_the_same_kernels_on_both_sides_give_the_same_statistics_and_a_ratio_near_one(capsys):
    assert metric_ab.main(["ter", "--base", "HEAD", "--passes", "1", "--dataset", SMALL, "--segmenter", "char", "--no-store"]) == 0
    line = capsys.readouterr().out
    assert "1 (segmenter, system) calls x 1 passes" in line and "statistics identical" in line
    assert "metaeval_base.tercom" in sys.modules  # ter's search came from the base's tercom


def test_the_base_is_loaded_from_the_commit_not_from_this_tree():
    modules = metric_ab.base_modules("HEAD", ("ngrams", "bleu"))
    assert modules["bleu"].__file__.endswith(":metaeval/metrics/bleu.py>")
    # bleu's n-gram helpers are the base's own module, not this tree's
    assert modules["bleu"].__dict__["clipped_matches"].__module__ == "metaeval_base.ngrams"


def test_statistics_that_differ_stop_the_comparison(monkeypatch):
    real = metric_ab.metric_class

    def skewed(module, spec):  # noqa: ANN001, ANN202 - the base side adds one to every statistic
        metric = real(module, spec)
        if module.__name__.startswith("metaeval_base"):
            original = metric.segment_stats
            object.__setattr__(metric, "segment_stats", lambda hyps, prepared: original(hyps, prepared) + 1.0)
        return metric

    monkeypatch.setattr(metric_ab, "metric_class", skewed)
    with pytest.raises(SystemExit, match="gtm statistics differ between the sides on char, "):
        metric_ab.main(["gtm", "--base", "HEAD", "--passes", "1", "--dataset", SMALL, "--segmenter", "char", "--no-store"])


def test_an_unknown_base_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        metric_ab.main(["meteor", "--base", "no-such-commit", "--no-store"])
    assert stop.value.code == 2 and "is not a commit" in capsys.readouterr().err
