"""mt-metrics-eval's ``sample_rate`` (tie calibration) in a ported configuration: 1.0 (every pair,
what metaeval's exact search always does) is accepted and changes nothing; any other value is one
usage error that explains why, wherever a configuration enters: the Python API, the command line
and a study file."""

from __future__ import annotations

import pytest

from metaeval.cli import main
from metaeval.errors import UsageError
from metaeval.stats.settings import Settings
from tests.golden_util import GOLDEN

MTME = GOLDEN / "mtme-stats" / "en-zh"
needs_golden = pytest.mark.skipif(not MTME.is_dir(), reason=f"golden folder not found: {MTME}")
EXPLAINED = r"sample_rate=0\.1: metaeval's tie calibration searches every pair exactly"


def test_settings_accept_one_and_refuse_anything_else_with_the_reason():
    assert Settings.build(sample_rate=1.0) == Settings() == Settings.build(sample_rate=1)
    assert Settings.build(Settings(n_bootstrap=0), sample_rate=1.0) == Settings(n_bootstrap=0)
    for bad in (0.1, 0.999, 1.5, 0, -1.0, True, "1.0"):
        with pytest.raises(UsageError, match=r"only value accepted; leave it out or give 1\.0"):
            Settings.build(sample_rate=bad)
    assert "sample_rate" not in Settings().signature()


@needs_golden
def test_the_python_api_takes_it_as_a_keyword():
    from metaeval.api import correlate

    options = dict(statistics=["seg:acc_eq@item"], levels=["seg"], bootstrap=0)
    plain = correlate(MTME / "scores.tsv", MTME / "judgments.tsv", **options)
    ported = correlate(MTME / "scores.tsv", MTME / "judgments.tsv", sample_rate=1.0, **options)
    assert plain.equals(ported)
    with pytest.raises(UsageError, match=EXPLAINED):
        correlate(MTME / "scores.tsv", MTME / "judgments.tsv", sample_rate=0.1, **options)


@needs_golden
@pytest.mark.parametrize("command", ["run", "correlate", "sweep", "study"])
def test_every_command_taking_statistics_options_explains_before_reading_anything(command, tmp_path, capsys):
    missing = str(tmp_path / "no-such-corpus")
    argv = {
        "run": ["run", missing],
        "correlate": ["correlate", "--scores", missing, "--judgments", missing],
        "sweep": ["sweep", missing, "--out", str(tmp_path / "out")],
        "study": ["study", missing],
    }[command]
    assert main([*argv, "--sample-rate", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "sample_rate=0.1" in err and "exact" in err and "no-such-corpus" not in err and len(err.strip().splitlines()) == 1


@needs_golden
def test_the_command_line_accepts_one_and_prints_the_same_numbers(capsys):
    argv = ["correlate", "--scores", str(MTME / "scores.tsv"), "--judgments", str(MTME / "judgments.tsv"),
            "--statistic", "seg:acc_eq@item", "--level", "seg", "--bootstrap", "0", "-f", "tsv"]
    assert main(argv) == 0
    plain = capsys.readouterr().out
    assert main([*argv, "--sample-rate", "1.0"]) == 0
    assert capsys.readouterr().out == plain


def test_a_study_file_takes_the_key(tmp_path):
    from metaeval.studyspec import load_spec

    def spec(value: str):  # noqa: ANN202
        path = tmp_path / "s.toml"
        path.write_text(f'[study]\nout = "o"\nsample_rate = {value}\n\n[[dataset]]\npath = "d"\n', encoding="utf-8")
        return load_spec(path, check=False)

    assert spec("1.0").settings_for(None) == Settings()
    with pytest.raises(UsageError, match=r"s\.toml: study\.sample_rate: " + EXPLAINED):
        spec("0.1")
    with pytest.raises(UsageError, match=r"study\.sample_rate: expected a number"):
        spec('"all"')
