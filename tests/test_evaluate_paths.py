"""The ways evaluate computes items give the same rows: through an executor's workers, from a
store (with every kind asked for), and for configurations with the same scores."""

from __future__ import annotations

import concurrent.futures as cf

import pandas as pd

from metaeval.api import configs_from_table, read_judgments, read_scores
from metaeval.stats.evaluate import evaluate
from tests.test_cli_correlate_options import files  # noqa: F401 (fixture)

OPTIONS = {"statistics": ["seg:pearson", "sys:pearson", "seg:acc_eq"], "n_bootstrap": 40, "seed": 3, "chance_permutations": 10}


class Counting(cf.ThreadPoolExecutor):
    """A thread pool that counts the tasks submitted to it."""

    def __init__(self) -> None:
        super().__init__(2)
        self.submitted = 0

    def submit(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        self.submitted += 1
        return super().submit(*args, **kwargs)


def inputs(files):  # noqa: ANN001, ANN201, F811
    return configs_from_table(read_scores(files["scores"]), source="scores"), read_judgments(files["judgments"], None, None)


def test_an_executors_workers_give_the_rows_of_this_process(files):  # noqa: F811
    configs, judgments = inputs(files)
    alone = evaluate(configs, judgments, ["esa", "mqm"], **OPTIONS)
    with Counting() as executor:
        pooled = evaluate(configs, judgments, ["esa", "mqm"], executor=executor, **OPTIONS)
    assert executor.submitted >= 1
    pd.testing.assert_frame_equal(alone, pooled)


def test_a_store_keeps_every_kind_asked_for_and_sends_the_work_to_the_executor(files, tmp_path):  # noqa: F811
    configs, judgments = inputs(files)
    alone = evaluate(configs, judgments, ["esa", "mqm"], **OPTIONS)
    assert set(alone["judgment_kind"]) == {"esa", "mqm"}
    with Counting() as executor:
        stored = evaluate(configs, judgments, ["esa", "mqm"], store=tmp_path / "store", executor=executor, **OPTIONS)
    assert executor.submitted >= 1
    pd.testing.assert_frame_equal(alone, stored)
    again = evaluate(configs, judgments, ["esa", "mqm"], store=tmp_path / "store", **OPTIONS)
    pd.testing.assert_frame_equal(alone, again)


def test_configurations_with_the_same_scores_share_their_items_even_when_there_are_none():
    """A twin (same scores under another segmenter) gets its first's items under its own name;
    when the levels asked for leave no statistic, every configuration has none, twins included."""
    import dataclasses

    from tests.test_statistics_registry import _configs_and_judgments

    configs, judgments, _ = _configs_and_judgments(0)
    twins = [*configs, dataclasses.replace(configs[0], config="m0+other", segmenter="other")]
    rows = evaluate(twins, judgments, statistics=["seg:pearson", "sys:pearson"], n_bootstrap=0, chance_permutations=0)
    first, twin = rows[rows.config == "m0+char"], rows[rows.config == "m0+other"]
    assert len(twin) == len(first) == 2 and twin["value"].tolist() == first["value"].tolist()
    assert set(twin["segmenter"]) == {"other"}
    none = evaluate(twins, judgments, statistics=["seg:pearson"], levels=["sys"], n_bootstrap=0, chance_permutations=0)
    assert none.empty


def test_a_store_computes_only_the_kinds_asked_for(files, tmp_path):  # noqa: F811
    configs, judgments = inputs(files)
    alone = evaluate(configs, judgments, ["mqm"], **OPTIONS)
    stored = evaluate(configs, judgments, ["mqm"], store=tmp_path / "store", **OPTIONS)
    assert set(stored["judgment_kind"]) == {"mqm"}
    pd.testing.assert_frame_equal(alone, stored)


def test_with_system_scores_only_a_statistic_needing_segments_is_left_out_and_the_next_one_kept(files):  # noqa: F811
    """soft pairwise accuracy needs segment judgments; PDP, after it in the registry, does not."""
    configs, _ = inputs(files)
    human = read_judgments(None, files["human_sys"], None)
    rows = evaluate(configs, human, ["esa"], statistics=["sys:pearson", "sys:soft_pairwise_accuracy", "sys:pdp"], n_bootstrap=0,
                    chance_permutations=0)  # fmt: skip
    assert rows["statistic"].tolist() == ["pearson", "pdp"]


def test_resamples_drawn_in_several_blocks_give_the_rows_of_one_block(files, monkeypatch):  # noqa: F811
    """The blocks' samples are joined before the intervals are taken: the same draws, the same
    intervals, at the level asked for."""
    from metaeval.stats import evaluate as module

    configs, judgments = inputs(files)
    options = {**OPTIONS, "ci": 0.8}
    one = evaluate(configs, judgments, ["esa"], **options)
    monkeypatch.setattr(module, "BOOTSTRAP_BLOCK_ELEMENTS", 3 * len(configs[0].seg_ids))  # blocks of 3 resamples
    several = evaluate(configs, judgments, ["esa"], **options)
    pd.testing.assert_frame_equal(one, several)
    assert one["ci_low"].notna().any()
