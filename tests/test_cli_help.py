"""Every option of every subcommand says what it does and its default; ``run --help`` names the
segmenters, metrics and statistics it uses by default; ``metaeval list`` lists statistics and
output formats one line each."""

from __future__ import annotations

import argparse

import pytest

from metaeval.cli import build_parser, main


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def options_without_help() -> list[str]:
    missing = []
    for name, parser in subcommands().items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            text = action.help or ""
            label = f"{name} {'/'.join(action.option_strings) or action.dest}"
            if not text.strip() or text == argparse.SUPPRESS:
                missing.append(f"{label}: no help")
                continue
            has_default = action.default not in (None, False, [], argparse.SUPPRESS) and action.option_strings
            if has_default and "default" not in text:
                missing.append(f"{label}: default {action.default!r} not said")
    return missing


def test_every_option_has_a_help_line_with_its_default():
    assert options_without_help() == []


def test_run_help_names_its_default_segmenters_metrics_and_statistics(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = "".join(capsys.readouterr().out.split())  # argparse wraps lines, also after hyphens
    from metaeval.api import DEFAULT_SEGMENTERS
    from metaeval.metrics import DEFAULT_METRICS

    assert "defaultforzh:" + ",".join(DEFAULT_SEGMENTERS["zh"]) in text
    assert "default:" + ",".join(DEFAULT_METRICS) in text
    assert "seg:acc_eq" in text and "sys:soft_pairwise_accuracy" in text


def test_the_sweep_help_names_the_sweeps_own_default_metrics():
    from metaeval.cli.sweep import SWEEP_METRICS
    from metaeval.sweep import DEFAULT_METRICS

    assert SWEEP_METRICS == DEFAULT_METRICS


def test_list_names_statistics_and_output_formats_one_line_each(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    from metaeval.report.leaderboard import FORMATS
    from metaeval.stats.registry import REGISTRY

    block = out[out.index("output formats"):].splitlines()[1:]
    assert [line.split()[0] for line in block if line.strip()][: len(FORMATS)] == list(FORMATS)
    for name, entry in REGISTRY.items():
        assert any(line.split()[:1] == [name] and entry.description in line for line in out.splitlines()), name


def test_usage_names_the_command_as_it_is_typed(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert capsys.readouterr().out.startswith("usage: metaeval score ")


def test_the_top_level_help_says_what_the_tool_is_for(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: metaeval ") and "\nMeta-evaluation of MT metrics at character and word level.\n" in out


def test_the_grouping_help_says_each_statistic_has_its_own_default(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default: each statistic's own" in text
    from metaeval.stats.defaults import BOOTSTRAP, TIE_POLICY

    assert f"default: {BOOTSTRAP}" in text and f"default: {TIE_POLICY}" in text  # the values, not "none"


def test_the_subword_help_gives_an_example_spec(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert ("--subword SUBWORD subword granularity, e.g. spm:vocab=4000,type=bpe (repeatable; default: a ladder from the "
            "references' character count)") in text


def test_a_statistics_options_help_names_the_statistics_it_changes():
    from metaeval.cli.options import _help
    from metaeval.stats.settings import OPTIONS

    tie_policy = next(o for o in OPTIONS if o.field == "tie_policy")
    assert "consistency" in _help(tie_policy) and "kendall_like" in _help(tie_policy)


def test_the_comparisons_option_takes_a_file(capsys):
    with pytest.raises(SystemExit):
        main(["correlate", "--help"])
    assert "--comparisons FILE" in capsys.readouterr().out
