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
