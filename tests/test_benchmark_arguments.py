"""Benchmarks that read a dataset or build a segmenter named on their command line answer a bad
name with one usage line (exit 2) before any work, never a traceback."""

from __future__ import annotations

import argparse
import importlib

import pytest

from benchmarks import workload
from benchmarks.bench import DATA, check_arguments

BENCHMARKS = {
    "byte_sweep": [],
    "chrf_stats": [],
    "pkuseg_tagger": [],
    "scale": [],
    "ter_setup": [],
    "ter_anatomy": ["--no-store"],
    "metric_ab": ["bleu", "--base", "HEAD", "--no-store"],
}
#: Benchmarks with a --segmenter option.
SEGMENTER_OPTION = ("ter_setup", "ter_anatomy", "metric_ab")


def _usage_error(module: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    main = importlib.import_module(f"benchmarks.{module}").main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()[-1]) > 0
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("module", sorted(BENCHMARKS))
def test_a_dataset_that_is_not_there(module, capsys):
    line = _usage_error(module, [*BENCHMARKS[module], "--dataset", "no-such/pair"], capsys)
    assert "--dataset no-such/pair:" in line and "is not a folder" in line


@pytest.mark.skipif(not (DATA / workload.DATASET).is_dir(), reason="shared data not found (set METAEVAL_DATA)")
@pytest.mark.parametrize("module", SEGMENTER_OPTION)
def test_an_unknown_segmenter(module, capsys):
    line = _usage_error(module, [*BENCHMARKS[module], "--segmenter", "no-such-segmenter"], capsys)
    assert "unknown segmenter 'no-such-segmenter'" in line


def test_a_segmenter_that_learns_from_text_is_checked_not_trained():
    """``spm`` trains on the corpus the benchmark reads later (``ter_setup``): its options are
    checked, as on the command line, and it is not built here."""
    check_arguments(argparse.ArgumentParser(), segmenter_names=["spm:vocab=100"])


@pytest.mark.parametrize("module", sorted(set(BENCHMARKS) - {"scale"}))  # scale reads the data in a child process
def test_a_dataset_folder_that_is_not_a_corpus(module, tmp_path, monkeypatch):
    """The name is there but the data is not readable: one line naming the benchmark, exit 1."""
    import benchmarks.bench

    (tmp_path / "broken" / "pair").mkdir(parents=True)
    benchmark = importlib.import_module(f"benchmarks.{module}")
    monkeypatch.setattr(benchmarks.bench, "DATA", tmp_path)
    monkeypatch.setattr(benchmark, "DATA", tmp_path)
    with pytest.raises(SystemExit) as stop:
        benchmark.main([*BENCHMARKS[module], "--dataset", "broken/pair"])
    message = stop.value.code
    assert isinstance(message, str) and message.startswith(f"{module}: ") and "broken" in message
    assert "\n" not in message
