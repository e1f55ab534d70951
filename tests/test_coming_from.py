"""docs/coming-from-sacrebleu-and-mt-metrics-eval.md: its worked examples run and print what the page
shows under them; the mt-metrics-eval numbers it quotes are the golden ones (computed by
mt-metrics-eval's own code), and metaeval's printed numbers equal them; and the page maps every
option of sacrebleu's command line and every function of mt-metrics-eval a user carries over.

An example is a fenced ``sh`` or ``python`` block after a line ``<!-- example: NAME -->``,
followed by a ``text`` block: the output. Commands run from the repository root with ``sacrebleu``
and ``metaeval`` resolving to this Python's packages; paths under ``../shared`` follow
``$METAEVAL_SHARED``.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.golden_util import GOLDEN, SHARED

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "coming-from-sacrebleu-and-mt-metrics-eval.md"
MTME = GOLDEN / "mtme-stats" / "en-zh"
pytestmark = pytest.mark.skipif(not MTME.is_dir(), reason=f"golden folder not found: {MTME}")

_BLOCK = re.compile(r"<!-- (example|quoted): ([\w-]+) -->\n```(\w+)\n(.*?)```\n(?:\n[^`<]*?)?(?:```text\n(.*?)```)?", re.S)


def blocks() -> dict[str, tuple[str, str, str, str | None]]:
    """``name -> (kind, language, code, output)`` of every marked block of the page."""
    found = {m.group(2): (m.group(1), m.group(3), m.group(4), m.group(5)) for m in _BLOCK.finditer(PAGE.read_text(encoding="utf-8"))}
    assert found, "no marked block found"
    return found


EXAMPLES = [name for name, (kind, *_) in blocks().items() if kind == "example"]


def test_the_page_has_the_worked_examples():
    assert set(EXAMPLES) == {"sacrebleu-command", "metaeval-score", "sentence-bleu", "metaeval-correlate"}
    assert all(blocks()[name][3] for name in EXAMPLES), "every example shows its output"


def _bin(tmp_path: Path) -> Path:
    """A folder with ``sacrebleu`` and ``metaeval`` running this Python's packages."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("sacrebleu", "metaeval"):
        script = folder / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {name} "$@"\n', encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


def run_example(name: str, tmp_path: Path) -> str:
    _, language, code, _ = blocks()[name]
    code = code.replace("../shared/", f"{SHARED}/")
    env = {**os.environ, "PATH": f"{_bin(tmp_path)}{os.pathsep}{os.environ.get('PATH', '')}"}
    if language == "sh":
        argv = ["bash", "-o", "pipefail", "-c", code]
    else:
        script = tmp_path / f"{name}.py"
        script.write_text(code, encoding="utf-8")
        argv = [sys.executable, str(script)]
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_prints_what_the_page_shows(name, tmp_path):
    assert run_example(name, tmp_path) == blocks()[name][3]


def test_the_sacrebleu_command_and_metaeval_agree_number_for_number():
    theirs = [float(v) for v in re.findall(r"\d+\.\d+", blocks()["sacrebleu-command"][3])]
    lines = [line.split("\t") for line in blocks()["metaeval-score"][3].splitlines()]
    mine = [float(score) for metric, segmenter, system, score in lines if segmenter == "char:invisible=keep"]
    assert len(theirs) == len(mine) == 2
    assert [round(100 * v, 4) for v in mine] == theirs


def _golden_numbers() -> list[float]:
    golden = pd.read_csv(MTME / "golden.tsv", sep="\t")
    numbers = list(golden["value"]) + [float(e) for e in golden["extra"].dropna() if re.fullmatch(r"[\d.e-]+", str(e))]
    averaged = pd.read_csv(Path(__file__).with_name("fixtures") / "mtme-averaged-p.tsv", sep="\t")
    return numbers + list(averaged["value"]) + list(averaged["p_value"])


def test_the_quoted_mt_metrics_eval_numbers_are_the_golden_ones_and_metaeval_prints_them():
    quoted = [float(v) for v in re.findall(r"\d+\.\d{6,}", blocks()["mt-metrics-eval"][2])]
    assert len(quoted) == 6
    golden = _golden_numbers()
    for value in quoted:
        assert any(abs(value - g) <= 1e-15 for g in golden), f"{value} is not a value mt-metrics-eval computed"
    printed = [float(v) for v in re.findall(r"\d+\.\d{12}", blocks()["metaeval-correlate"][3])]
    assert len(printed) == 6
    for value in printed:  # metaeval prints 12 decimals: each is an mt-metrics-eval number rounded
        assert any(abs(value - q) <= 5e-13 for q in quoted), f"metaeval's {value} matches no quoted number"


def test_every_option_of_sacrebleus_command_line_is_mapped(monkeypatch):
    import argparse

    import sacrebleu.sacrebleu as command

    parsers = []

    def keep(parser, *args, **kwargs):  # noqa: ANN001, ANN202
        parsers.append(parser)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", keep)
    with pytest.raises(SystemExit):
        command.parse_args()
    options = {s for action in parsers[0]._actions for s in action.option_strings if s.startswith("--")} - {"--help"}  # noqa: SLF001
    assert len(options) > 40
    page = PAGE.read_text(encoding="utf-8")
    missing = sorted(o for o in options if not re.search(re.escape(o) + r"(?![a-z-])", page))
    assert not missing, f"the page maps no {missing}"


#: mt-metrics-eval's public functions, methods and arguments a user carries over (stats.py, data.py,
#: tasks.py at commit 68a481a).
MTME_NAMES = (
    "EvalSet", "Correlation", "AverageCorrelation", "Pearson", "Spearman", "Kendall", "KendallLike", "KendallVariants",
    "KendallWithTiesOpt", "PairwiseConfidenceError", "Agreement", "PermutationSigDiff", "PermutationSigDiffParams",
    "PairwisePermutationSigDiff", "WilliamsSigDiff", "WilliamsTest", "Sample", "GetCorrelations", "CompareMetrics",
    "CompareMetricsWithGlobalAccuracy", "CompareMetricsWithPairwiseConfidenceError", "ComputeSigMatrix", "AssignRanks",
    "TaskSet", "average_by", "macro", "replace_nans_with_zeros", "filter_nones", "sample_rate", "variant", "epsilon",
    "thresh", "pdp", "num_sys", "perm_test",
)  # fmt: skip


def test_every_function_and_argument_of_mt_metrics_eval_is_mapped():
    page = PAGE.read_text(encoding="utf-8")
    missing = [name for name in MTME_NAMES if not re.search(r"`[^`]*\b" + name + r"\b[^`]*`", page)]
    assert not missing, f"the page maps no {missing}"
