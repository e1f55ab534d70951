"""Packaging: one import name, PEP 561 markers, a linter and a type checker clean, and a built
wheel that works outside the checkout."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, a dependency there
    import tomli as tomllib

from tests.test_cli import small_corpus
from tests.timing import run

REPO = Path(__file__).resolve().parents[1]
SUBPACKAGES = ("metaeval", "metaeval/segmenters", "metaeval/corpora", "metaeval/metrics", "metaeval/report")


def test_the_distribution_declares_one_import_name_and_ships_the_typing_markers():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert all(p == "metaeval" or p.startswith("metaeval.") for p in setuptools["packages"])
    assert "py.typed" in setuptools["package-data"]["*"]
    # the repository's top-level folders are subpackages of metaeval through the package-dir mapping
    for name in ("segmenters", "corpora"):
        assert setuptools["package-dir"][f"metaeval.{name}"] == name
        assert not (REPO / "metaeval" / name).exists(), name
    for package in ("metaeval", "segmenters", "corpora"):
        assert (REPO / package / "py.typed").is_file(), package


def _tool(module: str, *args: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", module, *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_runs_clean_with_the_project_configuration():
    done = _tool("ruff", "check", "metaeval", "segmenters", "corpora", "experiments", "benchmarks", "tests", "tools")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_mypy_runs_clean_with_the_project_configuration():
    """``[tool.mypy]`` in pyproject.toml checks the installed package (metaeval with its subpackages),
    laid out as installed by tools/typecheck.py."""
    done = run([sys.executable, REPO / "tools" / "typecheck.py"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = out.glob("metaeval-*.whl")
    return path


def test_the_wheel_holds_metaeval_alone_with_its_subpackages_and_markers(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"metaeval", next(t for t in top if t.endswith(".dist-info"))}, top
    for package in SUBPACKAGES:
        assert f"{package}/__init__.py" in names, package
    for package in ("metaeval", "metaeval/segmenters", "metaeval/corpora"):
        assert f"{package}/py.typed" in names, package
    assert "metaeval/segmenters/jieba_adapter.py" in names and "metaeval/corpora/folder.py" in names


def running_site_packages() -> list[str]:
    """The folders pip installs into for the interpreter running the tests: a virtual environment's
    own site-packages (and its base interpreter's, when it sees them), or the machine Python's; the
    user's site-packages where Python reads it."""
    folders = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [folder for folder in dict.fromkeys(folders) if Path(folder).is_dir()]


def new_environment_beside_this_one(env_dir: Path) -> Path:
    """A new virtual environment that sees this environment's installed packages after its own.

    ``venv --system-site-packages`` would show the *base* interpreter's site-packages, which inside
    a virtual environment lacks what was installed into it. Instead a ``.pth`` file lists the running
    environment's site-packages folders: they are appended to ``sys.path`` as they are, so the ``.pth``
    files inside them (an editable install of this checkout among them) are not run. pip, too, comes
    from there. Returns the environment's interpreter."""
    run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    python = env_dir / "bin" / "python"
    purelib = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], check=True, capture_output=True,
                  text=True, timeout=120).stdout.strip()  # fmt: skip
    (Path(purelib) / "running-environment.pth").write_text("\n".join(running_site_packages()) + "\n", encoding="utf-8")
    return python


def test_the_wheel_installed_in_a_fresh_environment_runs_a_study(wheel, tmp_path):
    """The wheel in a new virtual environment (dependencies from the running environment's
    site-packages) imports metaeval and its subpackages from its own site-packages, installs no
    generic top-level name, and runs ``metaeval run`` to the checkout's numbers."""
    env_dir = tmp_path / "venv"
    python = new_environment_beside_this_one(env_dir)
    done = run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", "--disable-pip-version-check", wheel],
               capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    away = tmp_path / "elsewhere"  # not the checkout, so nothing is imported from it
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = (
        "import importlib.util, json, metaeval, metaeval.segmenters, metaeval.corpora, pandas\n"
        "print(json.dumps({'files': [metaeval.__file__, metaeval.segmenters.__file__, metaeval.corpora.__file__],"
        " 'pandas': pandas.__file__,"
        " 'generic': [n for n in ('segmenters', 'corpora') if importlib.util.find_spec(n) is not None]}))\n"
    )
    done = run([python, "-c", probe], cwd=away, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    site_dir = str(env_dir.resolve())
    assert all(str(Path(f).resolve()).startswith(site_dir) for f in found["files"]), found
    assert any(Path(found["pandas"]).resolve().is_relative_to(Path(folder).resolve()) for folder in running_site_packages()), found
    assert found["generic"] == []

    corpus = small_corpus(tmp_path, n=15, systems=("Aya23", "GPT-4", "ONLINE-B"))
    argv = ["run", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "chrf", "--bootstrap", "0", "--format", "json", "-q"]
    done = run([env_dir / "bin" / "metaeval", *argv], cwd=away, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    installed = json.loads(done.stdout)
    assert {row["segmenter"] for row in installed["rows"]} == {"char", "jieba"}
    assert {row["metric"] for row in installed["rows"]} == {"bleu", "chrf"}
    # the same numbers as the checkout's own code
    here = run([sys.executable, "-m", "metaeval", *argv], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert here.returncode == 0, here.stderr[-3000:]
    assert installed["rows"] == json.loads(here.stdout)["rows"]
