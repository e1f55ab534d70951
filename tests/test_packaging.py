"""Every top-level package that pyproject.toml declares ships a ``py.typed`` marker (PEP 561)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_declared_package_is_typed_and_ships_the_marker():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    packages = [p.rstrip("*") for p in setuptools["packages"]["find"]["include"]]
    assert packages
    for package in packages:
        assert (REPO / package / "py.typed").is_file(), package
    assert "py.typed" in setuptools["package-data"]["*"]


def test_ruff_runs_clean_with_the_project_configuration():
    import shutil
    import subprocess

    import pytest

    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    done = subprocess.run([ruff, "check", "metaeval", "segmenters", "corpora", "experiments", "benchmarks", "tests"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
