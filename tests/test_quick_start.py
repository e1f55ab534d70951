"""The README's two quick-start commands, pyproject.toml and .ci/run agree: both commands make the
same virtual environment with the same build prerequisites, install extras and a console script
that pyproject.toml declares, and the test command is the one .ci/run finds and runs."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, a dependency there
    import tomli as tomllib

from tests.test_readme import fenced_block_after

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def steps(marker: str) -> list[str]:
    """The ``&&``-separated steps of the one-line command after ``marker``."""
    lines = [line for line in fenced_block_after(marker, README).splitlines() if line.strip()]
    assert len(lines) == 1, f"{marker}: one command line expected, got {lines}"
    return [step.strip() for step in lines[0].split("&&")]


def extras(step: str) -> list[str]:
    """The extras of ``pip install --no-build-isolation -e .[A,B]`` (none for ``-e .``)."""
    words = shlex.split(step)
    assert words[:4] == ["pip", "install", "--no-build-isolation", "-e"] and len(words) == 5, step
    found = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", words[4])
    assert found, step
    return (found.group(1) or "").split(",") if found.group(1) else []


def test_both_commands_make_the_same_environment_and_install_this_checkout():
    run_steps, test_steps = steps("<!-- install-and-run -->"), steps("<!-- install-and-test -->")
    assert run_steps[:3] == test_steps[:3], (run_steps, test_steps)
    venv, activate, prerequisites = run_steps[:3]
    assert venv == "python3 -m venv .venv" and activate == ". .venv/bin/activate"
    assert {".venv", ".venv/", "/.venv", "/.venv/"} & set((REPO / ".gitignore").read_text(encoding="utf-8").split()), "git ignores .venv"
    # what the build needs without isolation: the build-system's requirements and pkuseg's numpy and Cython
    installed = set(shlex.split(prerequisites)[2:])
    assert set(PYPROJECT["build-system"]["requires"]) | {"numpy", "cython"} <= installed, installed
    for step in (run_steps[3], test_steps[3]):
        for extra in extras(step):
            assert extra in PYPROJECT["project"]["optional-dependencies"], f"{step}: no extra {extra!r} in pyproject.toml"


def test_the_run_command_uses_the_console_script_and_the_test_command_the_coverage_floor():
    run_steps, test_steps = steps("<!-- install-and-run -->"), steps("<!-- install-and-test -->")
    assert run_steps[4].split()[0] in PYPROJECT["project"]["scripts"]
    assert "test" in extras(test_steps[3])
    pytest_step, floor_step = test_steps[4:]
    assert pytest_step.startswith("python -m pytest") and "--cov" in pytest_step and "--cov-report=json" in pytest_step
    assert any(req.startswith("pytest-cov") for req in PYPROJECT["project"]["optional-dependencies"]["test"])
    assert floor_step == "python tools/coverage_floor.py" and (REPO / "tools" / "coverage_floor.py").is_file()


def test_ci_runs_the_commands_the_readme_marks():
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for marker in ("<!-- install-and-test -->", "<!-- system-programs -->"):
        assert f'command_after_marker "{marker}"' in script and marker in README, marker
    # .ci/run finds the environment's folder with this pattern, and checks it was installed into
    pattern = re.search(r"sed -n 's/(.*?)/\\1/p'", script)
    assert pattern, "the sed command that finds the environment's folder"
    found = re.search(pattern.group(1).replace(r"\(", "(").replace(r"\)", ")"), " && ".join(steps("<!-- install-and-test -->")))
    assert found and found.group(1) == ".venv"
