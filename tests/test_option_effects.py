"""Every statistics option of every subcommand that accepts it changes that subcommand's numbers.

``run``, ``correlate``, ``sweep`` and ``study`` take the same statistics options (one table,
metaeval.stats.settings.OPTIONS). For each subcommand and each option, the subcommand runs twice
on the same data, without and with the option, and the rows or the numbers of its results must
differ: an option a subcommand accepts and then ignores fails here. Text columns (notes, the tie
policy column) are left out of the comparison, so an option must change a number, not only a
label. An option that changes what is called significant and no statistic (``--adjust``) must
change the answer's numbers instead (its adjusted p-values and counts), on a run with a word
segmenter and several metrics. The walk over the parser fails when a subcommand gains an option without a case here, or
when another subcommand takes statistics options.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from metaeval.cli import build_parser, main
from metaeval.stats.settings import OPTIONS
from tests.test_cli import small_corpus

COMMANDS = ("run", "correlate", "sweep", "study")
#: Every other subcommand takes no statistics option (leaderboard renders saved results).
OTHERS = ("list", "segment", "score", "leaderboard", "equivalence")
#: Subcommands that take some statistics options: those that change their numbers.
SOME = {"systems": {"--bootstrap", "--seed", "--adjust"}}
#: Options every run below shares (few resamples and permutations, so that each run is quick).
FAST = ("--bootstrap", "20", "--permutations", "50", "--chance-permutations", "20")
#: Per option key: the statistics that show its effect (given in both runs) and the option's value.
CASES = {
    "statistics": ((), ("--statistic", "seg:kendall_b")),
    "groupings": ((), ("--grouping", "sys")),
    "levels": ((), ("--level", "seg")),
    "tie_policy": (("--statistic", "seg:consistency"), ("--tie-policy", "discordant")),
    "threshold": (("--statistic", "seg:consistency"), ("--threshold", "30")),
    "pair_groups": (("--statistic", "seg:consistency"), ("--pair-groups", "judge")),
    "average": (("--statistic", "seg:pearson@item"), ("--average", "micro")),
    "undefined": (("--statistic", "seg:pearson@item"), ("--undefined", "zero")),
    "refit_epsilon": (("--statistic", "seg:acc_eq@item"), ("--fixed-epsilon",)),
    "permutations": (("--statistic", "sys:soft_pairwise_accuracy"), ("--permutations", "37")),
    "permutation_seed": (("--statistic", "sys:soft_pairwise_accuracy"), ("--permutation-seed", "1")),
    "chance_permutations": ((), ("--chance-permutations", "31")),
    "chance_seed": ((), ("--chance-seed", "1")),
    "bootstrap": ((), ("--bootstrap", "30")),
    "seed": ((), ("--seed", "1")),
    "ci": ((), ("--ci", "0.5")),
}
#: Options that change what is called significant (metaeval.stats.settings.REPORTING_FIELDS), by key.
REPORTING_CASES = {"adjust": ("--adjust", "none")}
#: What of the answer is compared for them.
ANSWER_NUMBERS = ["p_value", "p_adjusted", "delta_ci_low", "delta_ci_high", "char_significant", "word_significant"]
#: The segmenters and metrics of the runs that have an answer.
WORDS = ("-s", "char", "-s", "jieba", "-m", "bleu", "-m", "nist", "-m", "1-ter")
#: What is compared: the rows' keys and every numeric column.
KEYS = ["judgment_kind", "level", "statistic", "grouping", "metric", "segmenter"]
NUMBERS = ["value", "epsilon", "ci_low", "ci_high", "chance", "chance_low", "chance_high", "n", "p_value", "concordant", "discordant", "metric_ties", "human_ties"]


def statistics_options(parser, command: str) -> set[str]:  # noqa: ANN001
    """The statistics options ``command`` takes, by flag (an option of its own may share a flag:
    ``score --level`` chooses score levels, so options are known by their destination)."""
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]  # noqa: SLF001
    flag_of = {option.key: option.flag for option in OPTIONS}
    return {flag_of[action.dest] for action in sub._actions if action.dest in flag_of and flag_of[action.dest] in action.option_strings}  # noqa: SLF001


def test_the_four_commands_take_every_statistics_option_and_the_others_none():
    parser = build_parser()
    assert set(CASES) | set(REPORTING_CASES) == {option.key for option in OPTIONS}, "add a case for each statistics option"
    for command in COMMANDS:
        assert statistics_options(parser, command) == {option.flag for option in OPTIONS}, command
    for command in OTHERS:
        assert statistics_options(parser, command) == set(), command
    for command, flags in SOME.items():
        assert statistics_options(parser, command) == flags, command
    commands = set(next(a for a in parser._actions if a.dest == "command").choices)  # noqa: SLF001
    assert commands == set(COMMANDS) | set(OTHERS) | set(SOME), "say whether the new subcommand takes statistics options"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """WMT24 en-zh, 14 segments, four systems and a fifth that copies two of them (metric ties
    against them), with ESA judgments made to exercise every option: rounded to tens (human
    ties, so tie calibration can help), segment 3 judged the same for every system (a segment
    whose item correlation is undefined) and segment 4 missing one system (groups of unequal size);
    the ESA z-scores are kept as they are."""
    root = tmp_path_factory.mktemp("options")
    corpus = small_corpus(root, n=14)
    (corpus / "human_sys.tsv").unlink()  # system scores derived from the segment judgments
    lines = {name: (corpus / "systems" / f"{name}.zh").read_text(encoding="utf-8").splitlines() for name in ("GPT-4", "IKUN")}
    (corpus / "systems" / "Copy.zh").write_text("\n".join(lines["GPT-4"][:7] + lines["IKUN"][7:]) + "\n", encoding="utf-8")
    table = pd.read_csv(corpus / "judgments.tsv", sep="\t", dtype={"seg_id": str, "judge": str}, keep_default_na=False)
    esa = table.kind == "esa"
    table["value"] = table["value"].astype(float)
    table.loc[esa, "value"] = (table.loc[esa, "value"] / 10).round() * 10
    copy = table[table.system.isin(["GPT-4", "IKUN"])].copy()
    copy = copy[((copy.system == "GPT-4") & copy.seg_id.astype(int).le(7)) | ((copy.system == "IKUN") & copy.seg_id.astype(int).gt(7))]
    copy["system"], copy["judge"], copy["value"] = "Copy", "copy-judge", (copy["value"] - 20).clip(lower=0)
    table = pd.concat([table, copy], ignore_index=True)
    table.loc[table.seg_id == "3", "value"] = 70.0
    table = table[~((table.seg_id == "4") & (table.system == "IKUN"))]
    table.to_csv(corpus / "judgments.tsv", sep="\t", index=False)
    scores = root / "scores.tsv"
    assert main(["score", str(corpus), "-s", "char", "-m", "bleu", "--level", "seg,sys", "-q", "-j", "1", "-o", str(scores)]) == 0
    word_scores = root / "word-scores.tsv"
    assert main(["score", str(corpus), *WORDS, "--level", "seg,sys", "-q", "-j", "1", "-o", str(word_scores)]) == 0
    spec = root / "study.toml"
    spec.write_text(f'[study]\nsegmenters = ["char"]\nmetrics = ["bleu"]\n\n[[dataset]]\npath = "{corpus}"\n', encoding="utf-8")
    word_spec = root / "word-study.toml"
    word_spec.write_text(f'[study]\nsegmenters = ["char", "jieba"]\nmetrics = ["bleu", "nist", "1-ter"]\n\n[[dataset]]\npath = "{corpus}"\n',
                         encoding="utf-8")
    return {"corpus": corpus, "scores": scores, "judgments": corpus / "judgments.tsv", "spec": spec, "root": root,
            "word_scores": word_scores, "word_spec": word_spec}


_RUNS: dict[tuple[str, tuple[str, ...]], pd.DataFrame] = {}


def results(data: dict[str, Path], capsys, command: str, options: tuple[str, ...]) -> pd.DataFrame:  # noqa: ANN001
    """The results table of ``command`` with ``options`` (each distinct run made once)."""
    key = (command, options)
    if key in _RUNS:
        return _RUNS[key]
    out = data["root"] / f"out{len(_RUNS)}"
    argv = {
        "run": ["run", str(data["corpus"]), "-s", "char", "-m", "bleu", "-f", "tsv"],
        "correlate": ["correlate", "--scores", str(data["scores"]), "--judgments", str(data["judgments"])],
        "sweep": ["sweep", str(data["corpus"]), "-s", "char", "-m", "bleu", "--no-subwords", "--no-equivalence", "--out", str(out)],
        "study": ["study", str(data["spec"]), "--out", str(out)],
    }[command]
    if command != "correlate":
        argv += ["-q", "-j", "1"]
    capsys.readouterr()
    code = main([*argv, *FAST, *options])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    text = captured.out if command in ("run", "correlate") else (out / "results.tsv").read_text(encoding="utf-8")
    _RUNS[key] = pd.read_csv(io.StringIO(text), sep="\t", keep_default_na=False, na_values=[""])
    return _RUNS[key]


def numbers(table: pd.DataFrame) -> str:
    """The rows' keys and numbers of a results table, as text (NaN written as empty)."""
    return table[KEYS + NUMBERS].to_csv(index=False, float_format="%.15g")


@pytest.mark.parametrize("key", list(CASES))
@pytest.mark.parametrize("command", COMMANDS)
def test_each_statistics_option_changes_the_numbers(data, capsys, command, key):
    context, option = CASES[key]
    if key == "pair_groups":  # the mode that auto did not choose
        base = results(data, capsys, command, context)
        chose = set(base.loc[base.statistic == "consistency", "grouping"])
        option = ("--pair-groups", "segment" if chose == {"segment+judge"} else "judge")
    base = results(data, capsys, command, context)
    changed = results(data, capsys, command, (*context, *option))
    assert len(base) > 0
    assert numbers(changed) != numbers(base), f"{command} {' '.join(option)} changes no number"


def answer_of(data: dict[str, Path], capsys, command: str, options: tuple[str, ...]) -> pd.DataFrame:  # noqa: ANN001
    """The answer of ``command`` on char and jieba with three metrics, 200 resamples, and ``options``."""
    import json

    out = data["root"] / f"answer-{command}-{len(options)}"
    argv = {
        "run": ["run", str(data["corpus"]), *WORDS, "--out", str(out)],
        "correlate": ["correlate", "--scores", str(data["word_scores"]), "--judgments", str(data["judgments"]), "-f", "json"],
        "sweep": ["sweep", str(data["corpus"]), *WORDS, "--no-subwords", "--no-equivalence", "--out", str(out)],
        "study": ["study", str(data["word_spec"]), "--out", str(out)],
    }[command]
    if command != "correlate":
        argv += ["-q", "-j", "1"]
    capsys.readouterr()
    code = main([*argv, "--bootstrap", "200", "--permutations", "50", *options])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    if command == "correlate":
        return pd.DataFrame(json.loads(captured.out)["answer"])
    return pd.read_csv(out / "answer.tsv", sep="\t")


@pytest.mark.parametrize("key", list(REPORTING_CASES))
@pytest.mark.parametrize("command", COMMANDS)
def test_each_significance_option_changes_the_answer(data, capsys, command, key):
    base = answer_of(data, capsys, command, ())
    changed = answer_of(data, capsys, command, REPORTING_CASES[key])
    assert len(base) > 0 and base["p_value"].notna().any()
    shown = ANSWER_NUMBERS
    assert changed[shown].to_csv(index=False) != base[shown].to_csv(index=False), f"{command} {REPORTING_CASES[key]} changes no number"
