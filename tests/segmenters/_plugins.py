"""Segmenter plug-ins in tests.

:func:`project_segmenters` names the segmenters metaeval itself provides, which tests of "every
segmenter" compare with, so that a plug-in installed beside metaeval breaks none of them.
:func:`install` makes a throwaway plug-in: a ``pyproject.toml`` declaring entry points of the group
``metaeval.segmenters`` and its modules, built and installed by pip (no index, no build isolation,
no wheel cache) into a folder of its own, which a child process puts on ``PYTHONPATH``
(:func:`environment_with`)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from metaeval import segmenters
from tests.timing import run


def project_segmenters() -> list[str]:
    """The segmenters metaeval registers itself, sorted: its built-ins and the entry points of its
    own distribution; not those of other installed distributions."""
    names = {row.name for row in segmenters.info() if row.source == "builtin"}
    try:
        entry_points = metadata.distribution("metaeval").entry_points
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        entry_points = metadata.EntryPoints()
    names.update(ep.name for ep in entry_points if ep.group == segmenters.ENTRY_POINT_GROUP)
    return sorted(names)


PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "{version}"

[project.entry-points."metaeval.segmenters"]
{entry_points}
[tool.setuptools]
py-modules = {modules}
"""


def install(root: Path, name: str, version: str, entry_points: dict[str, str], modules: dict[str, str]) -> Path:
    """Install the distribution ``name`` ``version`` declaring ``entry_points`` (segmenter name ->
    ``module:attribute``) with ``modules`` (module name -> its text) into ``root / "site"``; returns
    that folder."""
    project = root / "project"
    project.mkdir(parents=True)
    declared = "".join(f'{key} = "{value}"\n' for key, value in entry_points.items())
    text = PYPROJECT.format(name=name, version=version, entry_points=declared, modules=json.dumps(list(modules)))
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    for module, source in modules.items():
        (project / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    site = root / "site"
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index", "--no-cache-dir",
        "--disable-pip-version-check", "--target", site, project,
    ]  # fmt: skip
    done = run(command, capture_output=True, text=True, timeout=120, cwd=root)
    if done.returncode != 0:
        pytest.fail(f"pip could not install the test plug-in: {done.stderr.strip()}")
    return site


def environment_with(site: Path) -> dict[str, str]:
    """This process's environment with ``site`` first on ``PYTHONPATH``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
