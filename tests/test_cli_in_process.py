"""Commands run through ``metaeval.cli.main`` in this process: what they print and write where
the other command tests look at the numbers only."""

from __future__ import annotations

import io
import json
import sys
import warnings

import pandas as pd
import pytest

from tests.test_cli_comparisons_options import add_configs
from tests.systemrank.test_command import run_cli
from tests.test_cli_correlate_options import files  # noqa: F401 (fixture)
from tests.test_study_in_process import TINY_STUDY


def test_a_warning_that_is_not_about_the_data_is_shown_as_python_shows_it():
    from metaeval.cli import _show_warning

    out = io.StringIO()
    _show_warning(UserWarning("careful"), UserWarning, "where.py", 12, file=out)
    assert out.getvalue() == warnings.formatwarning(UserWarning("careful"), UserWarning, "where.py", 12) == (
        "where.py:12: UserWarning: careful\n")


def test_a_data_warning_during_a_progress_bar_gets_a_line_of_its_own(capsys):
    import re

    from tqdm import tqdm

    from metaeval.cli import _show_warning
    from metaeval.errors import DataWarning

    bar = tqdm(total=10, desc="scoring", file=sys.stderr, leave=False)
    bar.update(3)
    _show_warning(DataWarning("two systems are the same"), DataWarning, "where.py", 12)
    bar.close()
    pieces = re.split(r"[\r\n]", capsys.readouterr().err)
    assert "metaeval: warning: two systems are the same" in pieces  # not appended to the bar's text


def test_correlate_without_judgments_says_what_to_give(capsys, files):  # noqa: F811
    code, out, err = run_cli(capsys, "correlate", "--scores", files["scores"])
    assert code == 2 and out == ""
    assert err == "metaeval: error: correlate: give the human judgments: --judgments FILE and/or --human-sys FILE\n"


def test_correlate_with_resamples_clusters_the_configurations(capsys, files):  # noqa: F811
    add_configs(files["scores"], twin=False)
    argv = ["correlate", "--scores", files["scores"], "--judgments", files["judgments"], "--kind", "esa", "--statistic", "seg:pearson"]

    def clusters(*extra: str) -> "list | None":
        code, out, err = run_cli(capsys, *argv, *extra)
        assert code == 0, err
        rows = pd.read_csv(io.StringIO(out), sep="\t", comment="#", keep_default_na=False)
        return rows["cluster"].tolist() if "cluster" in rows.columns else None

    assert clusters("--bootstrap", "50") == [1, 2]  # the best first; the second differs significantly from it
    assert clusters("--bootstrap", "0") is None  # no resamples, no clusters


@pytest.mark.parametrize("suffix", [".tex", ".json"])
def test_comparisons_as_latex_and_json(capsys, files, tmp_path, suffix):  # noqa: F811
    add_configs(files["scores"], twin=False)
    out = tmp_path / f"comparisons{suffix}"
    code, _, err = run_cli(capsys, "correlate", "--scores", files["scores"], "--judgments", files["judgments"], "--kind", "esa",
                           "--statistic", "seg:pearson", "--bootstrap", "20", "--compare", "williams", "--comparisons", out)  # fmt: skip
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    if suffix == ".tex":
        assert text.startswith("% needs \\usepackage{booktabs}") and r"\caption{Paired williams tests}" in text
    else:
        (row,) = json.loads(text)
        assert {"config_a", "config_b", "p_value"} <= set(row)


def test_segment_reads_utf8_lines_from_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("今天\n下雨了\n".encode("utf-8")), encoding="utf-8"))
    code, out, _ = run_cli(capsys, "segment", "-s", "char")
    assert code == 0 and out.splitlines()[1:] == ["今 天", "下 雨 了"]


def test_list_names_every_metric_and_statistic(capsys):
    from metaeval.metrics import available_metrics
    from metaeval.stats.registry import STATISTICS

    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    assert all(f"  {name:8s} " in out for name in available_metrics())
    assert all(name in out for name in STATISTICS)
    assert out.index("metrics") < out.index("statistics")


def test_study_by_a_column_evaluates_each_value(capsys, tmp_path):
    from tests.test_by_subsets import ZH, write_corpus

    if not ZH.is_dir():
        pytest.skip(f"shared data not found: {ZH}")
    docs = pd.read_csv(ZH / "docs.tsv", sep="\t", dtype=str)
    chosen = pd.concat([rows.head(4) for _, rows in docs.groupby("domain", sort=True)])
    write_corpus(tmp_path / "whole", sorted(chosen.seg_id.astype(int) - 1))
    spec = tmp_path / "study.toml"
    spec.write_text(TINY_STUDY.replace('"tiny"', '"whole"'), encoding="utf-8")
    code, _, err = run_cli(capsys, "study", spec, "--by", "domain", "-q", "-j", "1")
    assert code == 0, err
    results = pd.read_csv(tmp_path / "out" / "results.tsv", sep="\t", keep_default_na=False)
    assert set(results["subset"]) == {"all", *chosen["domain"]}


def test_study_names_the_cache_folder_option_it_cannot_make(capsys, tmp_path):
    from tests.robustness._helpers import make_corpus

    make_corpus(tmp_path / "tiny")
    spec = tmp_path / "study.toml"
    spec.write_text(TINY_STUDY, encoding="utf-8")
    (tmp_path / "blocker").write_text("a file", encoding="utf-8")
    code, out, err = run_cli(capsys, "study", spec, "--cache-dir", tmp_path / "blocker" / "cache", "-q")
    assert code == 1 and out == "" and "cannot create --cache-dir folder" in err and len(err.splitlines()) == 1


def test_score_hands_the_executor_of_its_workers_to_scoring(capsys, monkeypatch, tmp_path):
    import contextlib

    from metaeval import compute
    from tests.robustness._helpers import make_corpus
    from tests.test_evaluate_paths import Counting

    pool = Counting()

    @contextlib.contextmanager
    def given(jobs, scheduler):  # noqa: ANN001, ANN202
        yield pool, 1

    monkeypatch.setattr(compute, "workers", given)
    code, out, err = run_cli(capsys, "score", make_corpus(tmp_path / "tiny"), "-s", "char", "-m", "bleu", "-q")
    pool.shutdown()
    assert code == 0, err
    assert pool.submitted > 0 and out.startswith("metric\t")


def test_equivalence_takes_the_word_orders_asked_for(tmp_path):
    from tests.test_equivalence import _args, _write_corpus

    from metaeval.cli.equivalence import cmd_equivalence

    _write_corpus(tmp_path / "toy")
    out = tmp_path / "eq.json"
    assert cmd_equivalence(_args(tmp_path / "toy", output=str(out), max_word_order=2, max_char_order=5)) == 0
    orders = json.loads(out.read_text(encoding="utf-8"))["tables"]["orders"]
    assert [row["N"] for row in orders] == [1, 2]


def test_systems_ranks_by_the_kind_named(capsys, tmp_path):
    from tests.robustness._helpers import make_corpus

    code, out, err = run_cli(capsys, "systems", make_corpus(tmp_path / "tiny"), "--kind", "esa", "-s", "char", "-m", "bleu",
                             "--bootstrap", "20", "-q", "-j", "1", "-f", "tsv")  # fmt: skip
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False)
    assert set(table.loc[table["source"] == "human", "judgment_kind"]) == {"esa"}
