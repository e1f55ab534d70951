"""What a result row's note and the statistics signature say: the resampling of a system-level
row from a scores table, and every option the signature must record."""

from __future__ import annotations

import io

import pandas as pd

from metaeval.cli import main
from metaeval.evaluate import statistics_signature
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


def test_compare_resamples_as_often_as_the_command_line_by_default():
    import inspect

    from metaeval.cli import build_parser
    from metaeval.evaluate import compare

    run = build_parser().parse_args(["run", "corpus"])
    assert inspect.signature(compare).parameters["n_bootstrap"].default == run.bootstrap == 1000
