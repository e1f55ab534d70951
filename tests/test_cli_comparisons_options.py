"""``--comparisons`` tests the statistics that ``--tie-policy`` and ``--threshold`` define: the
values it compares are the hand-counted ones of tests/test_cli_correlate_options.py."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from metaeval.cli import main
from tests.test_cli_correlate_options import METRIC, files  # noqa: F401 (fixture)

#: a second metric on the same segments, so that there is a pair of configurations to compare
OTHER = {1: (0.1, 0.5, 0.5), 2: (0.2, 0.9, 0.4), 3: (0.6, 0.3, 0.6), 4: (0.2, 0.4, 0.3)}


@pytest.mark.parametrize(
    "options, consistency",
    [([], 7 / 9), (["--tie-policy", "half"], 8 / 11), (["--threshold", "10", "--tie-policy", "discordant"], 4 / 6),
     (["--threshold", "10"], 4 / 5)],
)  # fmt: skip
def test_comparisons_use_the_tie_policy_and_threshold(capsys, files, tmp_path, options, consistency):  # noqa: F811
    add_configs(files["scores"], twin=False)
    out = tmp_path / "comparisons.tsv"
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency", "--bootstrap", "20", "--comparisons", str(out), *options]
    assert main(argv) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#")
    value = dict(zip(rows.config, rows.value))
    (test,) = pd.read_csv(out, sep="\t").itertuples()
    compared = {test.config_a: test.value_a, test.config_b: test.value_b}
    toy = next(c for c in compared if c.startswith("toy"))
    assert compared[toy] == pytest.approx(consistency, abs=1e-12)
    assert compared == pytest.approx({c: value[c] for c in compared}, abs=1e-12)


def add_configs(scores: Path, twin: bool = True) -> None:
    """``other`` (OTHER) and ``twin`` (the toy scores again, under another name)."""
    with scores.open("a", encoding="utf-8") as handle:
        for seg, values in OTHER.items():
            for system, value in zip("ABC", values):
                handle.write(f"other\tchar\t{system}\tseg\t{seg}\t{value}\n")
        for seg, values in METRIC.items() if twin else ():
            for system, value in zip("ABC", values):
                handle.write(f"twin\tchar\t{system}\tseg\t{seg}\t{value}\n")


@pytest.mark.parametrize("statistic", ["seg:consistency", "seg:pearson", "sys:spearman", "sys:pairwise_accuracy",
                                       "sys:soft_pairwise_accuracy", "sys:kendall_c"])
@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
def test_every_pair_compares_the_reported_values(capsys, files, tmp_path, statistic, method):  # noqa: F811
    add_configs(files["scores"])
    out = tmp_path / "comparisons.tsv"
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", statistic, "--bootstrap", "30", "--compare", method, "--comparisons", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#")
    value = dict(zip(rows.config, rows.value))
    tests = pd.read_csv(out, sep="\t")
    assert len(tests) == 3 and set(tests.method) == {method}
    for t in tests.itertuples():
        assert (t.value_a, t.value_b) == pytest.approx((value[t.config_a], value[t.config_b]), abs=1e-12, nan_ok=True)
        assert 0.0 <= t.p_value <= 1.0
        if {t.config_a, t.config_b} == {c for c in value if not c.startswith("other")}:
            # the same scores under two names: nothing to tell them apart
            assert t.delta == 0.0 and t.p_value == 1.0
            if method == "bootstrap":
                assert (t.delta_ci_low, t.delta_ci_high) == (0.0, 0.0)


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".CSV", ","), (".tsv", "\t"), (".txt", "\t")])
def test_comparisons_format_follows_the_suffix(capsys, files, tmp_path, suffix, sep):  # noqa: F811
    add_configs(files["scores"], twin=False)
    out = tmp_path / f"comparisons{suffix}"
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency", "--bootstrap", "20", "--comparisons", str(out)]
    assert main(argv) == 0
    table = pd.read_csv(out, sep=sep)
    assert len(table) == 1 and {"config_a", "config_b", "p_value"} <= set(table.columns)


@pytest.mark.parametrize("command, option", [("leaderboard", "-o"), ("run", "--out")])
def test_output_is_checked_before_the_input_is_read(capsys, tmp_path, command, option):
    existing = tmp_path / "board.md"
    existing.write_text("kept\n", encoding="utf-8")
    # the input does not exist either: the output (a file in the way) is refused first
    assert main([command, str(tmp_path / "missing"), option, str(existing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"metaeval: error: {existing}") and "missing" not in err.replace(str(existing), "")
    assert existing.read_text(encoding="utf-8") == "kept\n"


def test_correlate_answers_char_against_the_best_word_level(capsys, files):  # noqa: F811
    # jieba's scores are 1 - char's: every pair that char orders right, jieba orders wrong
    with files["scores"].open("a", encoding="utf-8") as handle:
        for seg, values in METRIC.items():
            for system, value in zip("ABC", values):
                handle.write(f"toy\tjieba\t{system}\tseg\t{seg}\t{1 - value:.2f}\n")
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency", "--bootstrap", "20", "-f", "text"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Answer: character level (char) against the best word level" in out
    # hand counts: char C = 7, D = 2 (7/9); jieba C = 2, D = 7 (2/9)
    (line,) = [line for line in out.splitlines() if line.startswith("esa    seg    consistency")]
    # (a value whose interval is not above its chance band carries the mark °, as on 3 systems here)
    assert re.search(r"toy: char 0\.778°?, jieba 0\.222°?", line) and "+0.556" in line, line
    # with the bootstrap samples: an interval of the delta and its p-value
    assert re.search(r"\+0\.556 +\[[-+]?[01]\.\d{3}, [-+]?[01]\.\d{3}\] +[01]\.\d{3} ", line), line


def test_undefined_policy_is_a_choice_of_the_option(capsys, files):  # noqa: F811
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--undefined", "drop"]
    assert main(argv) == 2
    assert "argument --undefined: invalid choice: 'drop'" in capsys.readouterr().err


def test_json_on_standard_output_ends_with_a_newline(capsys, files):  # noqa: F811
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency", "--bootstrap", "0", "-f", "json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.endswith("}\n") and json.loads(out)


def test_leaderboard_layout_option_changes_the_layout(capsys, files, tmp_path):  # noqa: F811
    saved = tmp_path / "results.json"
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency,sys:spearman", "--bootstrap", "0", "-f", "json", "-o", str(saved)]
    assert main(argv) == 0
    capsys.readouterr()
    shown = {}
    for layout in ("ranked", "table"):
        assert main(["leaderboard", str(saved), "--layout", layout, "-f", "markdown"]) == 0
        shown[layout] = capsys.readouterr().out
    assert shown["ranked"] != shown["table"]


@pytest.mark.parametrize("command, option, named", [("leaderboard", "-o", "-o/--output"), ("run", "--out", "--out")])
def test_an_unwritable_output_folder_names_the_option(capsys, tmp_path, monkeypatch, command, option, named):
    import errno
    import tempfile

    def read_only(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)  # the writability probe fails as on a read-only mount
    target = tmp_path / ("board.md" if option == "-o" else "out")
    assert main([command, str(tmp_path / "missing"), option, str(target)]) == 1
    err = capsys.readouterr().err
    where = f"{tmp_path}: cannot write {named}" if option == "-o" else f"{target}: cannot write {named} in {tmp_path}"
    assert err.strip().splitlines() == [f"metaeval: error: {where}: read-only file system"]
