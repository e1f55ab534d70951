"""An unrecognised judgment file is one error line that tells how to force a format in the
words of the interface in use: ``--judgments-format`` on the command line,
``judgments_format=`` in the Python API, ``format=`` in ``metaeval.corpora.read_judgments``."""

from __future__ import annotations

import sys

import pytest

import metaeval
from metaeval import corpora
from metaeval.errors import DataError
from tests.timing import run

from ._helpers import REPO, Result, assert_error, write

UNKNOWN = "when\twho\thow\n1\ta\tb\n"


def test_run_names_the_cli_flag(corpus, tmp_path):
    bad = write(tmp_path / "odd.tsv", UNKNOWN)
    done = run([sys.executable, "-m", "metaeval", "run", str(corpus), "--judgments", str(bad), "-q"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    err = assert_error(Result(done.returncode, done.stdout, done.stderr), 1, "odd.tsv:1: unrecognised judgment format",
                       "(force one with --judgments-format FORMAT)")
    assert "format=" not in err


def test_correlate_names_the_cli_flag(cli, tmp_path):
    scores = write(tmp_path / "scores.tsv", "metric\tsegmenter\tsystem\tlevel\tdoc_id\tseg_id\tscore\n"
                                            "bleu\tchar\ts1\tseg\t\t1\t0.5\nbleu\tchar\ts1\tsys\t\t\t0.5\n")
    bad = write(tmp_path / "odd.tsv", UNKNOWN)
    err = assert_error(cli("correlate", "--scores", scores, "--judgments", bad), 1, "odd.tsv:1",
                       "--judgments-format FORMAT")
    assert "format=" not in err


def test_python_interfaces_name_their_parameter(tmp_path):
    bad = write(tmp_path / "odd.tsv", UNKNOWN)
    with pytest.raises(DataError, match=r"\(force one with judgments_format=\)$"):
        metaeval.read_judgments(bad)
    with pytest.raises(DataError, match=r"\(force one with format=\)$"):
        corpora.read_judgments(bad)
