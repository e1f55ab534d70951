"""``metaeval list`` names the segmenters, metrics, statistics and corpus formats available."""

from __future__ import annotations

from metaeval import corpora
from metaeval.cli import main
from metaeval.metrics import available_metrics
from metaeval.stats.registry import STATISTICS


def test_list_names_segmenters_metrics_and_formats(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    sections = out.split("\n\n")
    assert sections[1].startswith("segmenters:\n") and "  char " in sections[1]
    assert sections[2].splitlines()[1:] == [f"  {n:8s} {d}" for n, d in available_metrics().items()]
    assert [line.split()[0] for line in sections[3].splitlines()[1:]] == list(STATISTICS)  # one line per registry entry
    assert corpora.FORMATS and sections[4].splitlines() == ["formats:"] + [f"  {n}" for n in corpora.FORMATS]


def test_equivalence_options_reach_the_command():
    from metaeval.cli import build_parser

    args = build_parser().parse_args(["equivalence", "corpus", "--max-char-order", "12", "--missing", "skip"])
    assert (args.max_char_order, args.missing) == (12, "skip")
    default = build_parser().parse_args(["equivalence", "corpus"])
    assert (default.max_char_order, default.missing) == (30, "error")


def test_deeply_nested_input_is_one_error_line(capsys, tmp_path):
    from metaeval.cli import main as cli_main

    nested = tmp_path / "nested.json"
    nested.write_text("[" * 200000 + "]" * 200000, encoding="utf-8")
    assert cli_main(["leaderboard", str(nested)]) == 1
    assert capsys.readouterr().err == "metaeval: error: input nested too deeply (recursion limit reached)\n"


def test_study_cache_dir_reaches_the_command():
    from metaeval.cli import build_parser

    assert build_parser().parse_args(["study", "spec.toml", "--cache-dir", "pieces"]).cache_dir == "pieces"
    assert build_parser().parse_args(["study", "spec.toml"]).cache_dir is None
