"""The Python API takes what the command line takes, under the same names, documents every
parameter, is listed by ``dir(metaeval)``, and gives DataFrames."""

from __future__ import annotations

import inspect
import warnings

import pandas as pd
import pytest

import metaeval
from metaeval.cli import build_parser
from tests.robustness._helpers import make_corpus, write

FAST = dict(segmenters=["char", "whitespace"], metrics=["bleu"], bootstrap=20)
#: Command-line destinations that choose how results are shown or saved, not what is computed:
#: ``Study.leaderboard(format, layout)`` and ``Study.write(out, overwrite)`` take them.
#: ``--compare``/``--comparisons`` write paired tests to a file (``metaeval.stats.paired.compare_all`` in Python).
PRESENTATION = {"format", "output", "overwrite", "quiet", "layout", "out", "func", "command", "compare", "comparisons"}
#: Repeatable options are plural in Python; a switch may read the other way round.
PLURAL = {"segmenter": "segmenters", "metric": "metrics", "kind": "kinds", "level": "levels", "text": "texts",
          "statistic": "statistics", "grouping": "groupings", "fixed_epsilon": "refit_epsilon",
          "scheduler": "executor"}  # a Dask scheduler address on the command line, its executor in Python
COMMANDS = {"run": "run", "score": "score", "correlate": "correlate", "segment": "segment", "leaderboard": "leaderboard"}


@pytest.fixture
def corpus(tmp_path):
    return make_corpus(tmp_path / "tiny")


def test_dir_lists_the_api():
    listed = dir(metaeval)
    for name in ("run", "score", "correlate", "leaderboard", "segment", "read_corpus", "read_judgments", "Study"):
        assert name in listed and name in metaeval.__all__
        assert getattr(metaeval, name) is not None


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_api_takes_every_option_of_its_command(command):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    function = getattr(metaeval, COMMANDS[command])
    params = set(inspect.signature(function).parameters)
    if any(p.kind is p.VAR_KEYWORD for p in inspect.signature(function).parameters.values()):
        from metaeval.stats.evaluate import evaluate  # the run options go through to it
        from metaeval.stats.settings import PORTED_OPTIONS, Settings  # the statistics options become its settings

        params |= set(inspect.signature(evaluate).parameters) | set(Settings.__dataclass_fields__) | set(PORTED_OPTIONS)
    for action in sub._actions:
        dest = action.dest
        if dest in PRESENTATION or dest == "help":
            continue
        name = {"scores": "scores", "results": "results"}.get(dest, PLURAL.get(dest, dest))
        if command == "run" and dest == "jobs" or command == "score" and dest == "jobs":
            assert "jobs" in params
            continue
        assert name in params, f"metaeval.{COMMANDS[command]} lacks {name!r} (--{dest.replace('_', '-')})"


@pytest.mark.parametrize("name", ["run", "score", "correlate", "leaderboard", "segment", "read_corpus", "read_judgments"])
def test_docstrings_list_every_parameter(name):
    function = getattr(metaeval, name)
    doc = inspect.getdoc(function) or ""
    assert "Args:" in doc and "Returns:" in doc, name
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        assert f"{param.name}:" in doc, f"{name}: parameter {param.name!r} undocumented"


def test_run_takes_judgment_paths_and_gives_dataframes(corpus, tmp_path):
    judgments = corpus / "judgments.tsv"
    moved = write(tmp_path / "elsewhere" / "esa.tsv", judgments.read_text(encoding="utf-8"))
    judgments.unlink()
    study = metaeval.run(corpus, judgments=str(moved), **FAST)
    assert isinstance(study.results, pd.DataFrame) and isinstance(study.scores, pd.DataFrame)
    assert isinstance(study.answer, pd.DataFrame) and len(study.answer) == study.results.groupby(
        ["judgment_kind", "level", "statistic"]).ngroups
    assert {"metric", "segmenter", "system", "seg_id", "score"} <= set(study.scores.columns)
    assert set(study.scores["level"]) == {"seg", "sys"}
    human = write(tmp_path / "human_sys.tsv", "system\tesa\ns1\t90\ns2\t50\ns3\t10\n")
    study = metaeval.run(corpus, judgments=moved, human_sys=human, **FAST)
    assert "sys" in set(study.results["level"])
    assert "Answer" in study.leaderboard() and study.leaderboard("json").startswith("{")


def test_bootstrap_has_the_cli_name_and_the_old_one_still_works(corpus):
    new = metaeval.run(corpus, segmenters=["char"], metrics=["bleu"], bootstrap=30)
    with pytest.warns(DeprecationWarning, match="bootstrap="):
        old = metaeval.run(corpus, segmenters=["char"], metrics=["bleu"], n_bootstrap=30)
    pd.testing.assert_frame_equal(new.results, old.results)
    assert new.signature["n_bootstrap"] == 30


def test_score_and_correlate_take_paths_like_the_cli(corpus, tmp_path):
    scores = metaeval.score(corpus, ["char"], ["bleu"], levels=["seg", "sys"])
    path = tmp_path / "scores.tsv"
    scores.to_csv(path, sep="\t", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = metaeval.correlate(path, corpus / "judgments.tsv", bootstrap=20)
    assert set(results["statistic"]) >= {"consistency", "pearson"}


def test_study_write_is_run_out(corpus, tmp_path):
    study = metaeval.run(corpus, **FAST)
    out = study.write(tmp_path / "out")
    assert (out / "answer.tsv").is_file() and (out / "scores.tsv.gz").is_file()
    assert metaeval.leaderboard(out / "results.json", "text").startswith(metaeval.leaderboard(study.results, "text")[:20])
