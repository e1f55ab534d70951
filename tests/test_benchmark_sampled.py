"""benchmarks.sampled: a command's CPU time by stage, sampled in every process it starts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks import sampled
from tests.golden_util import GOLDEN

REPO = Path(__file__).resolve().parents[1]


def test_a_stack_is_named_by_the_first_rule_that_one_of_its_frames_matches() -> None:
    assert sampled.stage_of(["tercom.py:_pair_edits", "ter.py:segment_stats", "scoring.py:_score_chunk"]) == "TER"
    # the innermost frame does not decide: the rules' order does (an import under TER is TER)
    assert sampled.stage_of(["__init__.py:<module>", "tercom.py:work"]) == "TER"
    assert sampled.stage_of(["__init__.py:<module>", "api.py:run"]) == "imports"
    assert sampled.stage_of(["answer.py:answer", "api.py:run"]) == "other"


def test_the_report_adds_up_each_process_by_stage(tmp_path: Path) -> None:
    (tmp_path / "101.json").write_text(json.dumps([[["tercom.py:work"], 3.0], [["meteor.py:_align"], 1.0]]))
    (tmp_path / "102.json").write_text(json.dumps([[["tercom.py:work"], 1.0], [["answer.py:answer"], 0.0]]))
    stages, processes = sampled.report(tmp_path)
    assert stages == {"TER": 4.0, "METEOR": 1.0, "other": 0.0} and processes == {"101": 4.0, "102": 1.0}
    text = sampled.report_text(stages, processes)
    assert text.splitlines()[0] == "2 processes, 5.0 CPU-s sampled"
    assert "| TER | 4.0 | 80% |" in text and "| METEOR | 1.0 | 20% |" in text
    assert text.endswith("processes (pid: CPU-s): 101: 4.0, 102: 1.0")


def test_a_command_is_sampled_in_its_workers_too(tmp_path: Path) -> None:
    out = tmp_path / "samples"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.sampled", "--out", str(out), "--", "score", str(GOLDEN / "en-zh-chars"),
         "-s", "char", "-m", "ter", "-m", "meteor", "-q", "--jobs", "2", "--cache-dir", str(tmp_path / "cache")],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("*.json"))
    assert len(files) >= 2  # this process and at least one pool worker
    stages, processes = sampled.report(out)
    assert stages["TER"] > 0 and stages["METEOR"] > 0
    assert done.stdout.rstrip().endswith(", ".join(f"{pid}: {cpu:.1f}" for pid, cpu in processes.items()))
    # a stack stops at the command: the runner's own frames are in none of them
    rows = [row for f in files for row in json.loads(f.read_text())]
    assert not any(frame.startswith(("sampled.py", "runpy.py")) for stack, _ in rows for frame in stack)
