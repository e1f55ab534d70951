"""What a result row's note and the statistics signature say: the resampling of a system-level
row from a scores table, and every option the signature must record."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.stats.settings import statistics_signature
from tests.test_cli_correlate_options import files  # noqa: F401 (fixture)


def test_system_level_note_of_a_scores_table(capsys, files):  # noqa: F811
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "sys:spearman", "--bootstrap", "10", "--seed", "7"]
    assert main(argv) == 0
    (row,) = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#").itertuples()
    # a scores table has no sufficient statistics: system scores are means of segment scores
    assert row.note == ("bootstrap 10 segment resamples (seed 7); metric as mean of resampled segment scores; "
                        "human recomputed (derived)")


def test_statistics_signature_records_every_option():
    sig = statistics_signature(statistics=["seg:pearson"], groupings=["item"], average="micro", undefined="zero",
                               refit_epsilon=False, permutations=50, permutation_seed=3)
    assert sig["asked"] == ["seg:pearson"] and sig["groupings"] == ["item"]
    assert sig["average"] == "micro" and sig["undefined_groups"] == "zero"
    assert sig["epsilon"] == "fixed at the full-sample value"
    assert sig["soft_pairwise_accuracy"].startswith("50 permutations, seed 3; ")
    default = statistics_signature()
    assert default["average"] == "macro" and default["undefined_groups"] == "skip"
    assert default["epsilon"].startswith("re-fitted on every bootstrap resample")


def test_the_statistics_signature_names_the_groupings_of_the_statistics_asked_for_only(monkeypatch):
    """A run's signature says which grouping each grouped statistic it asked for used, and does not
    change when the registry gains a statistic the run did not ask for."""
    from dataclasses import replace

    import metaeval.stats.registry as registry

    assert statistics_signature()["groupings"] == "default per statistic (pearson: none, acc_eq: item)"
    named = statistics_signature(statistics=["seg:pearson", "seg:kendall_acc23@item", "seg:consistency"])
    assert named["groupings"] == "default per statistic (pearson: none)"
    assert statistics_signature(statistics=["sys:pearson"])["groupings"] == "default per statistic (no grouped statistic asked)"
    before = statistics_signature()
    monkeypatch.setitem(registry.REGISTRY, "extra", replace(registry.REGISTRY["kendall_b"], name="extra"))
    assert statistics_signature() == before


def test_compare_resamples_as_often_as_the_command_line_by_default(files):  # noqa: F811
    from metaeval.api import configs_from_table, read_judgments, read_scores
    from metaeval.cli import build_parser
    from metaeval.cli.options import settings_from_args
    from metaeval.stats.paired import compare
    from tests.test_cli_comparisons_options import add_configs

    assert settings_from_args(build_parser().parse_args(["run", "corpus"])).n_bootstrap == 1000
    add_configs(files["scores"], twin=False)
    configs = configs_from_table(read_scores(files["scores"]), source="scores")
    (row,) = compare(configs, read_judgments(files["judgments"], None, None), "esa").itertuples()
    # two-sided p = 2 k / 1000 for k of the 1000 resamples that flip the sign
    k = row.p_value * 1000 / 2
    assert 0 < row.p_value < 1 and k == pytest.approx(round(k), abs=1e-9)
    with_1001 = compare(configs, read_judgments(files["judgments"], None, None), "esa", n_bootstrap=1001).p_value.iloc[0]
    assert with_1001 * 1001 / 2 == pytest.approx(round(with_1001 * 1001 / 2), abs=1e-9)


def test_judged_systems_without_scores_are_named_with_given_system_scores(capsys, files, tmp_path):  # noqa: F811
    # system D is judged on every segment but has no metric scores and no given system score
    with files["judgments"].open("a", encoding="utf-8") as handle:
        for seg in (1, 2, 3, 4):
            handle.write(f"{seg}\tD\tj{seg}\tesa\t50\n")
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--human-sys", str(files["human_sys"]), "--statistic", "seg:pearson,sys:spearman", "--bootstrap", "0"]
    assert main(argv) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#")
    assert len(rows) == 2
    assert all("judged systems without scores dropped: D" in note for note in rows.note)


def test_skipped_segments_are_counted_in_the_note(capsys, files):  # noqa: F811
    # segment 1 gets one metric score for every system: Pearson across systems is undefined there
    lines = files["scores"].read_text(encoding="utf-8").splitlines()
    fixed = [line.rsplit("\t", 1)[0] + "\t0.5" if line.split("\t")[4] == "1" else line for line in lines]
    files["scores"].write_text("\n".join(fixed) + "\n", encoding="utf-8")
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:pearson@item", "--bootstrap", "0"]
    assert main(argv) == 0, capsys.readouterr().err
    (row,) = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#").itertuples()
    assert row.note == "1 segments skipped (undefined); no bootstrap" and row.n == 3


def test_unknown_undefined_policy_is_named():
    from metaeval.errors import UsageError
    from metaeval.stats.settings import Settings

    with pytest.raises(UsageError, match=r"^unknown undefined policy 'drop'; known: "):
        Settings(undefined="drop")


def test_progress_counts_the_configurations(files):  # noqa: F811
    from metaeval.api import configs_from_table, read_judgments, read_scores
    from metaeval.stats.evaluate import evaluate

    configs = configs_from_table(read_scores(files["scores"]), source="scores")
    calls = []
    evaluate(configs, read_judgments(files["judgments"], None, None), ["esa"], n_bootstrap=0,
             progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert calls == [("correlating", 0, 1), ("correlating", 1, 1)]


def test_no_judged_scored_segment_leaves_pairwise_statistics_undefined(capsys, files):  # noqa: F811
    # the judgments are of segments 11-14, the scores of segments 1-4
    lines = files["judgments"].read_text(encoding="utf-8").splitlines()
    files["judgments"].write_text("\n".join([lines[0]] + ["1" + line for line in lines[1:]]) + "\n", encoding="utf-8")
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency", "--bootstrap", "0"]
    assert main(argv) == 0, capsys.readouterr().err
    (row,) = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#").itertuples()
    assert pd.isna(row.value) and row.concordant == 0 and row.discordant == 0


def test_system_level_note_with_given_system_scores(capsys, files):  # noqa: F811
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--human-sys", str(files["human_sys"]), "--statistic", "sys:spearman", "--bootstrap", "10", "--seed", "7"]
    assert main(argv) == 0
    (row,) = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#").itertuples()
    assert row.note == ("bootstrap 10 segment resamples (seed 7); metric as mean of resampled segment scores; "
                        "human fixed (given)")


def test_system_level_note_of_a_scored_corpus_resamples_its_statistics(tmp_path):
    """Scored here, a configuration has its sufficient statistics: its resampled system scores
    are recomputed from them, and the note says so."""
    from metaeval import api
    from tests.robustness._helpers import make_corpus

    study = api.run(make_corpus(tmp_path / "tiny"), ["char"], ["bleu"], bootstrap=10, seed=7, statistics=["sys:pearson"])
    (note,) = study.results["note"]
    assert note == "bootstrap 10 segment resamples (seed 7); metric from resampled statistics; human recomputed (derived)"


def test_the_signature_names_the_adjustment_family_and_the_chance_estimate():
    from metaeval.stats.settings import FAMILIES

    sig = statistics_signature()
    assert sig["adjust_families"] == FAMILIES[sig["adjust"]]
    assert statistics_signature(chance_permutations=0)["chance"] == "off"
    assert statistics_signature(chance_permutations=20, chance_seed=3)["chance"].startswith("20 permutations of the metric scores")


@pytest.mark.parametrize("n_bootstrap", [0, 10])
def test_evaluate_without_a_dataset_name_leaves_it_empty_and_gives_chance_levels(files, n_bootstrap):  # noqa: F811
    """With and without resamples (the first block of resamples carries the chance levels)."""
    from metaeval.api import configs_from_table, read_judgments, read_scores
    from metaeval.stats.evaluate import evaluate

    configs = configs_from_table(read_scores(files["scores"]), source="scores")
    rows = evaluate(configs, read_judgments(files["judgments"], None, None), ["esa"], statistics=["seg:pearson"],
                    n_bootstrap=n_bootstrap, chance_permutations=20)  # fmt: skip
    assert rows["dataset"].tolist() == [""]
    assert np.isfinite(rows["chance"]).all() and -1 <= rows["chance"].iloc[0] <= 1
