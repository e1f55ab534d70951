"""The README's numbers on how much data the answer needs, and on system-level intervals when
systems are resampled, are copied from the committed result files of ``metaeval study
experiments/power/study.toml`` (``experiments/results/power``: the li2011 study with
``resample = "both"``) and of the li2011 study (segments resampled only): each check rebuilds the
README's wording from ``answer.tsv`` and ``results.tsv`` and looks for it in README.md."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results"
README = (REPO / "README.md").read_text(encoding="utf-8")
ANSWER = pd.read_csv(RESULTS / "power" / "answer.tsv", sep="\t", keep_default_na=False)
BOTH = pd.read_csv(RESULTS / "power" / "results.tsv", sep="\t", keep_default_na=False)
STUDY = json.loads((RESULTS / "power" / "study.json").read_text(encoding="utf-8"))
SEGMENTS = pd.read_csv(RESULTS / "li2011" / "results.tsv", sep="\t", keep_default_na=False)
#: The README's rows: dataset label, dataset, human score (label, kind), level, statistic, grouping.
ROWS = (
    ("WMT24 en-zh", "wmt24-esa/en-zh", ("ESA", "esa"), "seg", "acc_eq", "item"),
    ("WMT24 en-zh", "wmt24-esa/en-zh", ("ESA", "esa"), "sys", "spearman", "-"),
    ("WMT24 en-ja", "wmt24-esa/en-ja", ("ESA", "esa"), "seg", "acc_eq", "item"),
    ("WMT24 en-ja", "wmt24-esa/en-ja", ("ESA", "esa"), "sys", "spearman", "-"),
    ("WMT21 en-zh ref A", "wmt21/en-zh ref A", ("DA z", "da_z"), "sys", "spearman", "-"),
    ("WMT21 en-zh ref B", "wmt21/en-zh ref B", ("DA z", "da_z"), "sys", "spearman", "-"),
    ("WMT21 en-zh refs A+B", "wmt21/en-zh refs A+B", ("DA z", "da_z"), "sys", "spearman", "-"),
    ("WMT21 en-ja", "wmt21/en-ja", ("DA z", "da_z"), "sys", "spearman", "-"),
    ("WMT23 en-zh", "wmt23/en-zh", ("DA+SQM z", "dasqm_z_mean"), "sys", "spearman", "-"),
    ("WMT23 en-ja", "wmt23/en-ja", ("DA+SQM z", "dasqm_z_mean"), "sys", "spearman", "-"),
    ("MLQE-PE en-zh", "mlqe-pe/en-zh-test20", ("DA z", "da_z"), "seg", "acc_eq", "none"),
)
UNIT = {"segments": "seg", "systems": "sys"}
STATISTIC = {"acc_eq": "`acc_eq`", "spearman": "Spearman"}


def section(title: str) -> str:
    start = README.index(title)
    end = README.find("\n### ", start + 1)
    return README[start : end if end > 0 else None]


def prose(title: str) -> str:
    return " ".join(section(title).split())


def answer_row(dataset: str, kind: str, level: str, statistic: str, grouping: str):  # noqa: ANN201
    (found,) = ANSWER[(ANSWER.dataset == dataset) & (ANSWER.judgment_kind == kind) & (ANSWER.level == level)
                      & (ANSWER.statistic == statistic) & (ANSWER.grouping == grouping)].itertuples()  # fmt: skip
    return found


def units(n: "float | str", unit: str) -> str:
    """``n`` units as the table shows them (``n/a`` for an empty or undefined number)."""
    value = float(n) if n != "" else math.nan
    return f"{int(value):,} {UNIT[unit]}" if math.isfinite(value) else "n/a"


def power_lines() -> list[str]:
    """The README's table, one line per row of :data:`ROWS`."""
    lines = []
    for label, dataset, (human, kind), level, statistic, grouping in ROWS:
        r = answer_row(dataset, kind, level, statistic, grouping)
        n_unit = "segments" if level == "seg" else "systems"
        size = STUDY["correlations"][dataset][n_unit]
        what = f"{level}, {STATISTIC[statistic]}" + (f" ({grouping})" if level == "seg" else "") + f", {human}"
        delta = f"{r.delta:+.3f} ({r.metric})".replace("-", "−")
        lines.append(
            f"| {label} | {what} | {units(size, n_unit)} | {delta} | {r.mde:.3f} | {r.mde_adjusted:.3f} | {units(r.n_needed, n_unit)} |"
        )
    return lines


def test_the_power_table_is_copied_from_the_answer():
    text = section("### How much data the answer needs")
    lines = [line for line in text.splitlines() if line.startswith(("| WMT", "| MLQE"))]
    assert lines == power_lines()


def test_every_system_level_row_counts_systems_and_the_family_level_is_holm_s():
    sys_rows = ANSWER[ANSWER.level == "sys"]
    assert (sys_rows.n_unit == "systems").all() and sys_rows.note.eq("").all()
    assert ((ANSWER.alpha_adjusted - 0.05 / ANSWER.metrics).abs() < 1e-12).all()


def interval_widths() -> pd.DataFrame:
    keys = ["dataset", "judgment_kind", "level", "statistic", "grouping", "metric", "segmenter"]
    both = BOTH[BOTH.level == "sys"]
    joined = both.merge(SEGMENTS[SEGMENTS.level == "sys"], on=keys, suffixes=("_both", "_segments"))
    assert len(joined) == len(both)
    for side in ("both", "segments"):
        joined[f"width_{side}"] = pd.to_numeric(joined[f"ci_high_{side}"]) - pd.to_numeric(joined[f"ci_low_{side}"])
    joined = joined[(joined.width_segments > 0) & joined.width_both.notna()]
    joined["ratio"] = joined.width_both / joined.width_segments
    return joined


def test_the_system_level_intervals_are_quoted_from_both_runs():
    joined = interval_widths()
    assert (pd.to_numeric(joined.value_both) == pd.to_numeric(joined.value_segments)).all()  # the values do not move
    text = prose("### How much data the answer needs")
    per_dataset = joined.groupby("dataset")["ratio"].median()
    assert f"by a median factor of {joined.ratio.median():.1f}" in text
    assert f"({per_dataset.min():.1f}–{per_dataset.max():.1f} per dataset)" in text
    (example,) = joined[(joined.dataset == "wmt24-esa/en-zh") & (joined.judgment_kind == "esa") & (joined.statistic == "spearman")
                        & (joined.metric == "bleu") & (joined.segmenter == "char")].itertuples()  # fmt: skip
    quoted = (f"{float(example.value_both):.3f} [{float(example.ci_low_segments):.3f}, {float(example.ci_high_segments):.3f}] "
              f"with segments resampled, [{float(example.ci_low_both):.3f}, {float(example.ci_high_both):.3f}] with both")
    assert quoted.replace("-", "−") in text


def test_the_findings_on_how_much_data_are_copied_from_the_answer():
    text = prose("### How much data the answer needs")
    table = [answer_row(d, kind, level, s, g) for _, d, (_, kind), level, s, g in ROWS]
    wmt24 = [r for r in table if r.dataset.startswith("wmt24") and r.level == "seg"]
    mde = sorted(f"{r.mde:.3f}" for r in wmt24)
    needed = sorted(int(float(r.n_needed)) for r in wmt24)
    assert f"differences of {mde[0]}–{mde[-1]} in `acc_eq`, and the observed ones would need {needed[0]}–{needed[-1]} paragraphs" in text
    assert needed[-1] < STUDY["correlations"]["wmt24-esa/en-zh"]["segments"] == 634
    mlqe = next(r for r in table if r.dataset.startswith("mlqe"))
    size = STUDY["correlations"][mlqe.dataset]["segments"]
    assert f"MLQE-PE's {mlqe.delta:+.3f} would need {int(float(mlqe.n_needed)):,} segments (it has {size:,})" in text
    spearman = [r for r in table if r.level == "sys"]
    low, high = min(r.mde for r in spearman), max(r.mde for r in spearman)
    assert f"must be {low:.2f}–{high:.2f} to be found with 80% power" in text
    assert f"(|Δ| ≤ {max(abs(r.delta) for r in spearman):.2f})" in text
    counts = sorted(int(float(r.n_needed)) for r in spearman if r.n_needed != "")
    assert f"would need {counts[0]:,}–{counts[-1]:,} systems" in text
    systems = [STUDY["correlations"][r.dataset]["systems"] for r in spearman]
    assert f"against the {min(systems)}–{max(systems)} these test sets have" in text
    (zero,) = [r for r in spearman if r.n_needed == ""]
    assert zero.dataset == "wmt24-esa/en-ja" and zero.delta == 0.0
