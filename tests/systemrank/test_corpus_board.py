"""corpus_board and study_board in Python: their defaults, and what they pass on."""

from __future__ import annotations

import pytest

from metaeval.errors import UsageError
from metaeval.metrics import DEFAULT_METRICS
from metaeval.segmenting import default_segmenters
from metaeval.systems import corpus_board
from tests.robustness._helpers import make_corpus


@pytest.fixture
def corpus(tmp_path):
    return make_corpus(tmp_path / "tiny")


def test_without_segmenters_and_metrics_a_board_scores_the_defaults_of_run(corpus):
    board = corpus_board(corpus, bootstrap=20)
    metric_rows = board.table[board.table["source"] == "metric"]
    assert sorted(set(metric_rows["metric"])) == sorted(DEFAULT_METRICS)
    assert sorted(set(metric_rows["segmenter"])) == sorted(default_segmenters("zh"))
    assert sorted(board.signature["segmenters"]) == sorted(default_segmenters("zh"))


def test_the_judgment_format_given_is_the_one_read(corpus):
    with pytest.raises(UsageError, match="unknown judgment format 'nonsense'"):
        corpus_board(corpus, ["char"], ["bleu"], judgments=corpus / "judgments.tsv", judgments_format="nonsense", bootstrap=20)


def test_a_run_from_before_adjustments_ranks_with_raw_p_values_and_keeps_its_signature(corpus):
    from metaeval import api
    from metaeval.systemrank.study import study_board

    study = api.run(corpus, ["char"], ["bleu"], bootstrap=20)
    study.signature.get("statistics", {}).pop("adjust", None)
    board = study_board(study)
    assert board.signature["adjust"] == "none"
    assert board.signature["segmenters"] == study.signature["segmenters"]
    assert board.signature["metrics"] == study.signature["metrics"]
