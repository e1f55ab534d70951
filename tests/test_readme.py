"""The README's "Bring your own data" example works as printed, and docs/reference.md
describes every format, statistic, segmenter and metric the code offers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from metaeval import corpora
from metaeval import segmenters
from metaeval.stats.registry import REGISTRY, STATISTICS, StatisticSpec, statistics_taking
from metaeval.stats.settings import OPTIONS, Option
from metaeval.metrics import available_metrics

REPO = Path(__file__).resolve().parents[1]


def fenced_block_after(marker: str, text: str) -> str:
    """The first fenced code block after ``marker``."""
    tail = text[text.index(marker) + len(marker):]
    match = re.search(r"^```[^\n]*\n(.*?)^```", tail, re.S | re.M)
    assert match, f"no code block after {marker}"
    return match.group(1)


def test_bring_your_own_data_example_runs_as_printed(tmp_path):
    block = fenced_block_after("<!-- byod-example -->", (REPO / "README.md").read_text(encoding="utf-8"))
    assert len([line for line in block.splitlines() if line.strip()]) <= 10
    # `metaeval` is this checkout's command (the installed console script may belong to another one)
    shim = tmp_path / "bin" / "metaeval"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m metaeval "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{shim.parent}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(REPO))
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("metaeval leaderboard")
    assert "Answer: character level" in done.stdout and done.stderr == ""
    # the judged ordering good > fair > poor comes back at system level
    assert re.search(r"esa\s+sys\s+spearman\s+\S+ / \S+ 1\.000", done.stdout), done.stdout


def test_reference_page_names_every_format_statistic_segmenter_and_metric():
    page = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([^`\s]+)`", page))
    wanted = {
        "format": list(corpora.FORMATS),
        "statistic": list(STATISTICS),
        "segmenter": segmenters.available(),
        "metric": list(available_metrics()),
    }
    missing = {kind: [n for n in names if n not in documented] for kind, names in wanted.items()}
    assert not any(missing.values()), f"docs/reference.md lacks (add a row in backquotes): {missing}"


def statistic_row(entry: StatisticSpec) -> str:
    """The line of a statistic in docs/reference.md's statistics table, from its registry entry."""
    if entry.groupings:
        groupings = ", ".join(f"`{g}`" for g in entry.groupings) + f" (default `{entry.default_grouping}`)"
    else:
        groupings = "pairs per segment or (segment, judge)" if "seg" in entry.levels else "—"
    return f"| `{entry.name}` | {', '.join(entry.levels)} | {groupings} | {entry.description} | {entry.citation} |"


def option_row(option: Option) -> str:
    """The line of a statistics option in docs/reference.md's options table, from its table entry."""
    default = option.default
    if option.field in ("statistics", "groupings"):
        shown = "see below" if option.field == "statistics" else "each statistic's own"
    else:
        shown = ", ".join(default) if isinstance(default, tuple) else "none" if default is None else "re-fit" if option.kind == "off" else str(default)
    taking = option.changes or ", ".join(f"`{name}`" for name in statistics_taking(option.field)) or "every statistic"
    return f"| `{option.flag}` | `{option.key}` | {shown} | {option.help} | {taking} |"


def test_the_reference_tables_of_statistics_and_options_are_the_registrys():
    """docs/reference.md has one row per statistic of the registry and per statistics option, each
    exactly as the registry describes it, and no other."""
    lines = (REPO / "docs" / "reference.md").read_text(encoding="utf-8").splitlines()
    for row in [statistic_row(entry) for entry in REGISTRY.values()] + [option_row(option) for option in OPTIONS]:
        assert row in lines, f"docs/reference.md lacks (or describes otherwise) the row {row}"
    listed = [line.split("`")[1] for line in lines if line.startswith("| `") and line.split("`")[1] in STATISTICS]
    assert listed == list(STATISTICS)
