"""``benchmarks.ab``: a command on an earlier commit and on this tree, in turn, outputs compared."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from benchmarks import ab

REPO = Path(__file__).resolve().parents[1]


def _head() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def _worktrees() -> str:
    return subprocess.run(["git", "worktree", "list"], cwd=REPO, capture_output=True, text=True, check=True).stdout


@pytest.fixture(autouse=True)
def _needs_git():
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, check=False).returncode != 0:
        pytest.skip("not a git checkout")


def test_the_same_command_on_the_same_commit_gives_identical_outputs(tmp_path):
    before = _worktrees()
    out = tmp_path / "results.json"
    assert ab.main(["--base", "HEAD", "--repeat", "2", "--key", "ab_test", "--out", str(out), "--", "metaeval", "--version"]) == 0
    entry = json.loads(out.read_text(encoding="utf-8"))["ab_test"]
    assert entry["base"] == _head() and entry["identical_outputs"] is True and len(entry["rounds"]) == 2
    assert entry["command"] == "python -m metaeval --version"
    assert entry["ratio_seconds"] == entry["median"]["this"]["seconds"] / entry["median"]["base"]["seconds"]
    assert _worktrees() == before  # the base's worktree is removed


def test_a_command_that_prints_its_output_folder_prints_the_same_on_every_run(tmp_path):
    """``{tmp}`` and ``{cache}`` are other folders on every run; a command that names them in its
    output (a study's ``wrote FOLDER``) is compared as the command wrote them."""
    (tmp_path / "echo_args.py").write_text("import sys\nprint('wrote', *sys.argv[1:])\n", encoding="utf-8")
    outputs = {ab.timed(tmp_path, ["echo_args", "{tmp}", "{tmp}/a.tsv", "{cache}"])[1] for _ in range(2)}
    assert outputs == {b"wrote {tmp} {tmp}/a.tsv {cache}\n"}


def test_outputs_that_differ_fail_the_comparison(tmp_path, monkeypatch):
    out = tmp_path / "results.json"
    seen = []

    def fake(root, argv, warm=None):  # noqa: ANN001, ANN202 - the base side prints something else
        seen.append(root == ab.REPO)
        return {"seconds": 2.0 if root == ab.REPO else 4.0, "cpu_seconds": 1.0}, b"this" if root == ab.REPO else b"base", {}

    monkeypatch.setattr(ab, "timed", fake)
    assert ab.main(["--base", "HEAD", "--repeat", "2", "--key", "ab_test", "--out", str(out), "--", "metaeval", "--version"]) == 1
    entry = json.loads(out.read_text(encoding="utf-8"))["ab_test"]
    assert entry["identical_outputs"] is False and entry["ratio_seconds"] == 0.5
    assert "why_different" not in entry
    assert seen == [False, True] * 3  # warm-up, then the sides in turn: base first in every round
    # An intended change of bytes is still a failure, with its explanation stored and shown.
    assert ab.main(["--base", "HEAD", "--repeat", "1", "--key", "ab_test", "--out", str(out), "--why-different", "rounding",
                    "--", "metaeval", "--version"]) == 1
    entry = json.loads(out.read_text(encoding="utf-8"))["ab_test"]
    assert entry["why_different"] == "rounding"
    from benchmarks import readme

    text = readme.section(json.loads(out.read_text(encoding="utf-8")), None)
    assert "outputs DIFFERENT. Why: rounding" in text
    # one round: its ratio, and no interval
    assert "Per round, this / base: wall 0.500× no 95% interval from 1 round, not resolved; CPU 1.000× no 95% interval from 1 round" in text


def test_an_unknown_base_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        ab.main(["--base", "no-such-commit", "--out", str(tmp_path / "r.json"), "--", "metaeval", "--version"])
    assert stop.value.code == 2 and "no-such-commit" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_without_a_command_every_benchmark_is_compared_and_a_slower_one_fails(tmp_path, monkeypatch):
    out = tmp_path / "results.json"
    monkeypatch.setattr(ab.ab_targets, "commands", lambda names, large: {n: ["metaeval", "--version", n] for n in names})
    cpu = {"run": (10.0, 10.5), "warm": (1.0, 1.3)}  # base, this: warm 1.3x slower

    def fake(root, argv, warm=None):  # noqa: ANN001, ANN202
        base, this = cpu[argv[-1]]
        assert warm is not None and warm.name == ("this" if root == ab.REPO else "base")
        return {"seconds": 1.0, "cpu_seconds": this if root == ab.REPO else base}, b"same", {}

    monkeypatch.setattr(ab, "timed", fake)
    assert ab.main(["--base", "HEAD", "--only", "run,warm", "--repeat", "1", "--out", str(out)]) == 1
    stored = json.loads(out.read_text(encoding="utf-8"))
    assert stored["ab_target_run"]["ratio_cpu_seconds"] == 1.05 and stored["ab_target_warm"]["ratio_cpu_seconds"] == 1.3
    assert stored["ab_target_run"]["identical_outputs"] and stored["ab_target_run"]["max_ratio"] == 1.10
    assert ab.main(["--base", "HEAD", "--only", "run,warm", "--repeat", "1", "--max-ratio", "1.5", "--out", str(out)]) == 0
    assert ab.main(["--base", "HEAD", "--only", "run", "--repeat", "1", "--out", str(out)]) == 0


def test_an_unknown_benchmark_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        ab.main(["--only", "run,fast", "--out", str(tmp_path / "r.json")])
    assert stop.value.code == 2 and "fast" in capsys.readouterr().err


def test_the_default_base_is_main_or_its_previous_commit(monkeypatch):
    def git(head: str, main: str, dirty: str):
        def run(*args):  # noqa: ANN002, ANN202
            text = {"rev-parse": head if args[-1] == "HEAD" else main, "status": dirty}[args[0]]
            return subprocess.CompletedProcess(args, 0 if text is not None else 128, text or "", "")

        return run

    monkeypatch.setattr(ab, "_git", git("abc", "abc", ""))
    assert ab.default_base() == "main^"
    monkeypatch.setattr(ab, "_git", git("abc", "abc", " M x.py"))
    assert ab.default_base() == "main"
    monkeypatch.setattr(ab, "_git", git("def", "abc", ""))
    assert ab.default_base() == "main"
    monkeypatch.setattr(ab, "_git", git("def", None, ""))
    assert ab.default_base() == "HEAD^"


def test_the_benchmarks_are_those_of_the_targets():
    from benchmarks import ab_targets, workload

    found = ab_targets.commands(("run", "warm", "li2011"))
    assert found["run"][1:] == workload.run_arguments(ab_targets.DATA / workload.DATASET, "1", "{cache}")
    assert "{warm}" in found["warm"] and "{tmp}" in found["li2011"] and str(ab_targets.LI2011_SPEC) in found["li2011"]
    with pytest.raises(ValueError, match="large"):
        ab_targets.commands(("large",))


def test_each_side_imports_its_own_segmenters_and_corpora(tmp_path):
    """``metaeval.segmenters`` and ``metaeval.corpora`` live outside ``metaeval/``; an editable
    install maps them to this repository's folders, which would put this tree's segmenters on
    both sides of a comparison. Each side finds them where its own pyproject.toml puts them."""
    root = tmp_path / "side"
    for folder in ("metaeval", "segmenters", "corpora"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("", encoding="utf-8")
    (root / "segmenters" / "rules.py").write_text("", encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = { "metaeval.segmenters" = "segmenters", "metaeval.corpora" = "corpora" }\n',
        encoding="utf-8")
    (root / "probe.py").write_text(
        "import sys\nimport metaeval, metaeval.corpora, metaeval.segmenters.rules\n"
        "for m in (metaeval, metaeval.corpora, metaeval.segmenters.rules):\n    print(m.__file__)\n"
        "print(sys.argv[1:])\n", encoding="utf-8")  # fmt: skip
    _, out, _ = ab.timed(root, ["probe", "--flag", "x"])
    assert out.decode().splitlines() == [str(root / "metaeval" / "__init__.py"), str(root / "corpora" / "__init__.py"),
                                         str(root / "segmenters" / "rules.py"), "['--flag', 'x']"]


def test_the_folders_a_side_maps_are_its_pyproject_package_dirs():
    assert ab.package_dirs(REPO) == {"metaeval.segmenters": str(REPO / "segmenters"), "metaeval.corpora": str(REPO / "corpora")}



def test_paired_ratios_give_the_sign_test_interval_of_the_median():
    # n = 6: P(B < 1) = 1/64, so k = 1 covers 1 - 2/64 = 96.9% >= 95% and k = 2 (1 - 14/64) does
    # not: the interval is the smallest and largest ratio; all six above 1: p = 2/64
    found = ab.paired_ratios([1.10, 1.20, 1.05, 1.15, 1.30, 1.12])
    assert found["median"] == pytest.approx(1.135)
    assert found["interval"] == [1.05, 1.30]
    assert found["coverage"] == pytest.approx(1 - 2 / 64)
    assert found["sign_test_p"] == pytest.approx(2 / 64)
    assert found["verdict"] == "slower"
    # n = 15: P(B < 4) = 576/32768 = 0.0176 and P(B < 5) = 0.059, so k = 4: the 4th and 12th
    ratios = [0.90 + 0.01 * i for i in range(15)]  # 0.90 ... 1.04, eleven below 1, four above
    found = ab.paired_ratios(ratios)
    assert found["interval"] == [pytest.approx(0.93), pytest.approx(1.01)]
    assert found["coverage"] == pytest.approx(1 - 2 * 576 / 32768)
    assert found["verdict"] == "not resolved"
    assert (found["rounds_below_1"], found["rounds_above_1"]) == (10, 4)  # 1.00 is a tie
    # two-sided sign test on 14 untied rounds, 4 above: 2 P(B <= 4), B ~ Binomial(14, 1/2)
    assert found["sign_test_p"] == pytest.approx(2 * sum(math.comb(14, i) for i in range(5)) / 2**14)


def test_five_rounds_give_no_95_percent_interval():
    found = ab.paired_ratios([0.9, 0.91, 0.92, 0.93, 0.94])
    assert found["interval"] is None and found["coverage"] is None
    assert found["verdict"] == "not resolved"  # all five below 1, but 2/32 = 6.25% by chance
    assert found["sign_test_p"] == pytest.approx(2 / 32)
    assert "no 95% interval from 5 rounds" in ab.paired_text({"seconds": found, "cpu_seconds": found})
