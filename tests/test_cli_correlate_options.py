"""Every option of ``metaeval correlate`` changes the number it must change.

Three systems, four segments, one ESA judge per segment: small enough to count every pair by
hand. Per segment, pairs (A,B), (A,C), (B,C):

======  =====================  ==============  ================  ========================
seg     metric A / B / C       human A / B / C  |human diff|      outcome (no threshold)
======  =====================  ==============  ================  ========================
1       .5 / .5 / .1           80 / 60 / 50     20, 30, 10        metric tie, C, C
2       .9 / .2 / .4           90 / 70 / 85     20, 5, 15         C, C, C
3       .3 / .6 / .6           40 / 50 / 40     10, 0, 10         C, human tie, metric tie
4       .4 / .2 / .3           30 / 35 / 90     5, 60, 55         D, D, C
======  =====================  ==============  ================  ========================

No threshold: C = 7, D = 2, metric ties T = 2, human ties = 1.
``--threshold 10`` turns every pair with |human diff| <= 10 into a human tie: seg 1 keeps
(T, C), seg 2 keeps (C, C), seg 3 keeps nothing, seg 4 keeps (D, C): C = 4, D = 1, T = 1,
human ties = 6.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from metaeval.cli import main

METRIC = {1: (0.5, 0.5, 0.1), 2: (0.9, 0.2, 0.4), 3: (0.3, 0.6, 0.6), 4: (0.4, 0.2, 0.3)}
HUMAN = {1: (80, 60, 50), 2: (90, 70, 85), 3: (40, 50, 40), 4: (30, 35, 90)}
SYSTEMS = ("A", "B", "C")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    scores = ["metric\tsegmenter\tsystem\tlevel\tseg_id\tscore"]
    judgments = ["seg_id\tsystem\tjudge\tkind\tvalue"]
    for seg, values in METRIC.items():
        for system, value in zip(SYSTEMS, values):
            scores.append(f"toy\tchar\t{system}\tseg\t{seg}\t{value}")
    for seg, values in HUMAN.items():
        for system, value in zip(SYSTEMS, values):
            judgments.append(f"{seg}\t{system}\tj{seg}\tesa\t{value}")
            # a lower-is-better kind with the same order, so --kind has something to choose from
            judgments.append(f"{seg}\t{system}\tj{seg}\tmqm\t{100 - value}")
    paths = {"scores": tmp_path / "scores.tsv", "judgments": tmp_path / "judgments.tsv", "human_sys": tmp_path / "human_sys.tsv"}
    paths["scores"].write_text("\n".join(scores) + "\n", encoding="utf-8")
    paths["judgments"].write_text("\n".join(judgments) + "\n", encoding="utf-8")
    # given system scores order the systems A > B > C (derived means give C > A > B)
    paths["human_sys"].write_text("system\tesa\nA\t30\nB\t20\nC\t10\n", encoding="utf-8")
    return paths


def correlate(capsys, files: dict[str, Path], *extra: str, kind: str = "esa") -> pd.DataFrame:
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--bootstrap", "0"]
    if kind:
        argv += ["--kind", kind]
    code = main([*argv, *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return pd.read_csv(io.StringIO(captured.out), sep="\t", comment="#")


def pairwise(rows: pd.DataFrame, statistic: str = "consistency") -> pd.Series:
    chosen = rows[(rows.level == "seg") & (rows.statistic == statistic)]
    assert len(chosen) == 1
    return chosen.iloc[0]


def test_hand_counted_pairs_without_threshold(capsys, files):
    row = pairwise(correlate(capsys, files))
    assert (row.concordant, row.discordant, row.metric_ties, row.human_ties) == (7, 2, 2, 1)
    assert row.value == pytest.approx(7 / 9, abs=1e-12)
    assert row.n == 9 and row.tie_policy == "exclude"


@pytest.mark.parametrize(
    "policy, consistency, kendall_like, n",
    [
        ("exclude", 7 / 9, (7 - 2) / 9, 9),
        ("discordant", 7 / 11, (7 - 4) / 11, 11),  # ties join D
        ("half", 8 / 11, (8 - 3) / 11, 11),  # half of the ties to each side
    ],
)
def test_tie_policy_decides_where_metric_ties_go(capsys, files, policy, consistency, kendall_like, n):
    rows = correlate(capsys, files, "--tie-policy", policy)
    row = pairwise(rows)
    assert row.value == pytest.approx(consistency, abs=1e-12)
    assert row.n == n and row.tie_policy == policy
    assert pairwise(rows, "kendall_like").value == pytest.approx(kendall_like, abs=1e-12)


@pytest.mark.parametrize(
    "policy, consistency", [("exclude", 4 / 5), ("discordant", 4 / 6), ("half", 4.5 / 6)]
)
def test_threshold_turns_close_pairs_into_human_ties(capsys, files, policy, consistency):
    row = pairwise(correlate(capsys, files, "--threshold", "10", "--tie-policy", policy))
    assert (row.concordant, row.discordant, row.metric_ties, row.human_ties) == (4, 1, 1, 6)
    assert row.value == pytest.approx(consistency, abs=1e-12)


def test_threshold_below_the_smallest_difference_changes_nothing(capsys, files):
    row = pairwise(correlate(capsys, files, "--threshold", "4.9"))
    assert (row.concordant, row.discordant, row.metric_ties, row.human_ties) == (7, 2, 2, 1)


def test_kind_selects_the_judgments(capsys, files):
    both = correlate(capsys, files, kind="")
    assert set(both.judgment_kind) == {"esa", "mqm"}
    only = correlate(capsys, files, kind="mqm")
    assert set(only.judgment_kind) == {"mqm"}
    # mqm = 100 - esa and is lower-is-better: the same pairs, the same hand counts
    row = pairwise(only)
    assert (row.concordant, row.discordant, row.metric_ties, row.human_ties) == (7, 2, 2, 1)


def test_human_sys_replaces_derived_system_scores(capsys, files):
    derived = correlate(capsys, files)
    given = correlate(capsys, files, "--human-sys", str(files["human_sys"]))

    def spearman(rows: pd.DataFrame) -> pd.Series:
        chosen = rows[(rows.level == "sys") & (rows.statistic == "spearman")]
        assert len(chosen) == 1
        return chosen.iloc[0]

    # metric system scores are segment means: A .525 > B .375 > C .35
    # derived human means: A 60, B 53.75, C 66.25 -> ranks 2, 1, 3 against 3, 2, 1: rho = -0.5
    assert spearman(derived).value == pytest.approx(-0.5, abs=1e-12)
    assert spearman(derived).sys_human == "derived"
    # given: A 30 > B 20 > C 10, the metric's order: rho = 1
    assert spearman(given).value == pytest.approx(1.0, abs=1e-12)
    assert spearman(given).sys_human != "derived"


def test_human_sys_alone_gives_system_level_rows_only(capsys, files):
    code = main(["correlate", "--scores", str(files["scores"]), "--human-sys", str(files["human_sys"]), "--bootstrap", "0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = pd.read_csv(io.StringIO(captured.out), sep="\t", comment="#")
    assert set(rows.level) == {"sys"}
    assert rows[rows.statistic == "spearman"].value.iloc[0] == pytest.approx(1.0, abs=1e-12)


def test_bootstrap_and_seed_drive_the_intervals(capsys, files):
    none = pairwise(correlate(capsys, files))
    assert math.isnan(none.ci_low) and math.isnan(none.ci_high)
    first = pairwise(correlate(capsys, files, "--bootstrap", "200", "--seed", "1"))
    again = pairwise(correlate(capsys, files, "--bootstrap", "200", "--seed", "1"))
    other = pairwise(correlate(capsys, files, "--bootstrap", "200", "--seed", "2"))
    few = pairwise(correlate(capsys, files, "--bootstrap", "3", "--seed", "1"))
    assert first.value == other.value == pytest.approx(7 / 9, abs=1e-12)
    assert "bootstrap 200" in first.note and "seed 1" in first.note and "seed 2" in other.note
    assert "bootstrap 3 " in few.note
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert first.ci_low <= 7 / 9 <= first.ci_high
    # the pairwise statistic of 4 resampled segments takes few values; a different seed or
    # sample count moves at least one bound of one of the statistics
    all_first = correlate(capsys, files, "--bootstrap", "200", "--seed", "1")
    all_other = correlate(capsys, files, "--bootstrap", "200", "--seed", "2")
    assert not all_first[["ci_low", "ci_high"]].equals(all_other[["ci_low", "ci_high"]])


def test_signature_records_the_options(capsys, files, tmp_path):
    output = tmp_path / "results.tsv"
    code = main(["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]),
                 "--bootstrap", "7", "--seed", "99", "--tie-policy", "half", "--threshold", "10", "-o", str(output)])
    assert code == 0
    assert not output.read_text(encoding="utf-8").startswith("#")  # a plain table; the signature goes beside it
    signature = json.loads((tmp_path / "results.tsv.signature.json").read_text(encoding="utf-8"))
    assert signature["n_bootstrap"] == 7 and signature["seed"] == 99 and signature["tie_policy"] == "half"
    assert signature["threshold"] == 10.0
    assert signature["scores"] == str(files["scores"]) and signature["judgments"] == str(files["judgments"])
    assert signature["statistics"]["asked"] and signature["statistics"]["average"] == "macro"


def test_judgments_format_is_passed_to_the_reader(capsys, files):
    # the long file read as system-level scores has no numeric score column for "seg_id" text
    code = main(["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]),
                 "--judgments-format", "iwslt", "--bootstrap", "0"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("metaeval: error: ") and "judgments.tsv" in err
    code = main(["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]),
                 "--judgments-format", "long", "--bootstrap", "0", "--kind", "esa"])
    out = capsys.readouterr().out
    assert code == 0 and "\t0.7777777777777" in out


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_formats_carry_the_same_values(capsys, files, fmt):
    tsv = correlate(capsys, files, "--threshold", "10")
    code = main(["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]),
                 "--bootstrap", "0", "--kind", "esa", "--threshold", "10", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0
    other = pd.read_csv(io.StringIO(out), comment="#") if fmt == "csv" else pd.DataFrame(json.loads(out)["rows"])
    merged = tsv.merge(other, on=["level", "statistic"], suffixes=("", "_other"))
    assert len(merged) == len(tsv)
    assert merged.value.tolist() == pytest.approx(merged.value_other.tolist(), abs=1e-12)


def test_output_file_and_overwrite(capsys, files, tmp_path):
    target = tmp_path / "results.tsv"
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--bootstrap", "0"]
    assert main([*argv, "--output", str(target)]) == 0
    assert capsys.readouterr().out == ""
    first = target.read_text(encoding="utf-8")
    assert "\t0.7777777777777778\t" in first
    assert main([*argv, "--output", str(target), "--threshold", "10"]) == 2
    assert "--overwrite" in capsys.readouterr().err and target.read_text(encoding="utf-8") == first
    assert main([*argv, "--output", str(target), "--threshold", "10", "--overwrite"]) == 0
    assert "\t0.8\t" in target.read_text(encoding="utf-8")


def test_scores_as_csv_by_suffix(capsys, files, tmp_path):
    table = pd.read_csv(files["scores"], sep="\t", dtype=str)
    csv = tmp_path / "scores.csv"
    table.to_csv(csv, index=False)
    files = dict(files, scores=csv)
    row = pairwise(correlate(capsys, files))
    assert row.value == pytest.approx(7 / 9, abs=1e-12)
    assert row.dataset == "scores"
