"""Type-check the package as it is installed: ``python tools/typecheck.py [mypy options]``.

mypy finds modules by their paths and cannot follow setuptools' ``package-dir`` mapping, under
which the repository's top-level folders ``segmenters/`` and ``corpora/`` are the subpackages
``metaeval.segmenters`` and ``metaeval.corpora`` (pyproject.toml, docs/design.md "Layout"). This
script lays the three folders out as installed in a temporary folder (symbolic links to the
repository's files, so nothing is copied), runs mypy there with the ``[tool.mypy]`` settings of
pyproject.toml, and prints its report with the repository's paths. The exit status is mypy's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Repository folder -> where it is installed (pyproject.toml, ``[tool.setuptools] package-dir``).
LAYOUT = {"metaeval": "metaeval", "segmenters": "metaeval/segmenters", "corpora": "metaeval/corpora"}


def installed_tree(root: Path) -> None:
    """Under ``root``, every file of the three folders at its installed path (as a link)."""
    for folder, installed in LAYOUT.items():
        for source in sorted((REPO / folder).rglob("*")):
            if "__pycache__" in source.parts or not source.is_file():
                continue
            target = root / installed / source.relative_to(REPO / folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)


def repository_paths(report: str) -> str:
    """mypy's report with installed paths written as the repository's own."""
    for folder, installed in sorted(LAYOUT.items(), key=lambda item: -len(item[1])):
        if folder != installed:
            report = report.replace(f"{installed}/", f"{folder}/")
    return report


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="metaeval-typecheck-") as tmp:
        root = Path(tmp)
        installed_tree(root)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(root / ".mypy_cache"), *argv],
            cwd=root, env=env, capture_output=True, text=True,
        )  # fmt: skip
    sys.stdout.write(repository_paths(done.stdout))
    sys.stderr.write(repository_paths(done.stderr))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
