"""The answer's choice of metrics: those that say nothing about granularity are left out."""

from __future__ import annotations

import math

import pandas as pd

from metaeval.answer import answer, characters_only, granularity_free
from metaeval.scoretable import ConfigScores


def test_characters_only_are_the_metrics_that_ignore_the_split() -> None:
    specs = ["chrf", "chrf:word_order=2", "bleu", "1-ter", "meteor", "no-such-metric"]
    assert characters_only(specs) == {"chrf"}


def _row(metric: str, segmenter: str, value: float) -> dict:
    return {"dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": "acc_eq", "grouping": "item",
            "tie_policy": "", "metric": metric, "segmenter": segmenter, "value": value, "ci_low": math.nan,
            "ci_high": math.nan}  # fmt: skip


def test_chrf_is_left_out_even_where_segmenters_keep_different_characters() -> None:
    # chrF differs a little between char and jieba (char drops invisible characters), and its
    # jieba configuration is the best of the ranking: the comparison is made on BLEU.
    results = pd.DataFrame([_row("chrf", "char", 0.4975), _row("chrf", "jieba", 0.4976),
                            _row("bleu", "char", 0.40), _row("bleu", "jieba", 0.30)])  # fmt: skip
    [row] = answer(results).to_dict("records")
    assert (row["best_metric"], row["best_segmenter"]) == ("chrf", "jieba")
    assert (row["metric"], row["word_segmenter"], row["left_out"], row["metrics"]) == ("bleu", "jieba", "chrf", 1)
    assert math.isclose(row["delta"], 0.10)


def test_granularity_free_joins_identical_scores_and_character_only_metrics() -> None:
    def config(metric: str, segmenter: str, scores: list[float]) -> ConfigScores:
        return ConfigScores(metric, segmenter, f"{metric}|{segmenter}", ["s"], ["1", "2"],
                            pd.Series(scores).to_numpy()[None, :], pd.Series([sum(scores)]).to_numpy())  # fmt: skip

    configs = [config("chrf", "char", [0.5, 0.6]), config("chrf", "jieba", [0.5, 0.61]),
               config("gtm", "char", [0.2, 0.3]), config("gtm", "jieba", [0.2, 0.3]),
               config("bleu", "char", [0.1, 0.2]), config("bleu", "jieba", [0.1, 0.3])]  # fmt: skip
    assert granularity_free(configs) == ["chrf", "gtm"]
