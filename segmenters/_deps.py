"""Optional dependencies, package versions and file fingerprints for signatures."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import warnings
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Callable

from metaeval.errors import MissingDependencyError
from metaeval.segmenters.digests import kept_digest


def require(module: str, segmenter: str, pip: str) -> ModuleType:
    """Import ``module`` or raise MissingDependencyError giving ``pip install <pip>``.

    Warnings raised while the module is imported (e.g. jieba 0.42's invalid escape sequences
    and its use of the deprecated ``pkg_resources``) are silenced: segmenters print nothing.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning)
            return importlib.import_module(module)
    except ImportError as exc:
        raise _missing(module, segmenter, pip, str(exc)) from None


def _missing(module: str, segmenter: str, pip: str, cause: str) -> MissingDependencyError:
    """The one error of a segmenter whose module is missing, with the pip command."""
    return MissingDependencyError(
        f"segmenter {segmenter!r} needs the Python module {module!r} ({cause}); install it with: pip install {pip}"
    )


def require_installed(module: str, segmenter: str, pip: str) -> None:
    """Raise the error of :func:`require` if ``module`` is not installed, without importing it:
    naming a segmenter (its signature, a run whose statistics are stored) needs no import, and
    importing jieba and pkuseg takes 0.3 s."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise _missing(module, segmenter, pip, f"No module named {module!r}")


@lru_cache(maxsize=None)
def version(distribution: str) -> str:
    """Installed version of a distribution, or ``missing``; looked up once per process.

    Every segmenter signature names its package's version, and a signature is asked for at
    each chunk a study segments: ``importlib.metadata`` scans ``sys.path`` on every call
    (about 1.4 ms here): 5 CPU-s of the ``experiments.li2011`` study in a sampled profile."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "missing"


def module_dir(module: str) -> Path | None:
    """Folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@lru_cache(maxsize=None)
def fingerprint(path: str, hash_it: bool = True) -> str:
    """``<name>:<bytes>B`` and, if ``hash_it``, ``:sha256=<first 12 hex>`` of a file.

    Signatures of models and dictionaries always hash (two files of one size may differ);
    ``hash_it=False`` is for listings only. The digest is kept for the next process
    (:mod:`metaeval.segmenters.digests`)."""
    file = Path(path)
    if not file.is_file():
        return f"{file.name}:missing"
    text = f"{file.name}:{file.stat().st_size}B"
    if hash_it:
        text += ":sha256=" + kept_digest("sha256 bytes", (path,), lambda: _sha256_of((path,), lambda name, size: b""))
    return text


def _sha256_of(paths: tuple[str, ...], header: Callable[[str, int], bytes], trailer: bytes = b"") -> str:
    """First 12 hex of the SHA-256 of the files' bytes in order, each after ``header(name,
    size)`` and before ``trailer``."""
    digest = hashlib.sha256()
    for path in paths:
        file = Path(path)
        digest.update(header(file.name, file.stat().st_size))
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(trailer)
    return digest.hexdigest()[:12]


@lru_cache(maxsize=None)
def files_fingerprint(label: str, paths: tuple[str, ...]) -> str:
    """``<label>:<total bytes>B:sha256=<first 12 hex>`` of several files together (name and
    content of each, in the order given): the identity of a model or dictionary folder."""
    for path in paths:
        if not Path(path).is_file():
            return f"{label}:missing:{Path(path).name}"
    total = sum(Path(path).stat().st_size for path in paths)
    digest = kept_digest("sha256 name0 bytes 0", paths, lambda: _sha256_of(paths, lambda name, size: name.encode("utf-8") + b"\0", b"\0"))
    return f"{label}:{total}B:sha256={digest}"


@lru_cache(maxsize=None)
def content_hash(paths: tuple[str, ...]) -> str:
    """``sha256=<first 12 hex>`` of the named files' contents (each file's name, size and bytes,
    in the order given), or ``missing:<name>`` for the first file that does not exist.

    It identifies a dictionary or model by what it contains, whatever its version string says.
    """
    for path in paths:
        if not Path(path).is_file():
            return f"missing:{Path(path).name}"
    digest = kept_digest("sha256 name0size0 bytes", paths, lambda: _sha256_of(paths, lambda name, size: f"{name}\0{size}\0".encode("utf-8")))
    return f"sha256={digest}"


def files_under(folder: Path | None, pattern: str = "*") -> tuple[str, ...]:
    """Files matching ``pattern`` below ``folder`` (recursively, no ``__pycache__``), sorted."""
    if folder is None or not folder.is_dir():
        return ()
    return tuple(
        str(p) for p in sorted(folder.rglob(pattern)) if p.is_file() and "__pycache__" not in p.parts
    )


def dictionary_signature(label: str, distribution: str | None, paths: tuple[str, ...]) -> str:
    """``<label>[:<version>]/<n>files:sha256=...``: a dictionary or model named by content."""
    named = f"{label}:{version(distribution)}" if distribution else label
    if not paths:
        return f"{named}/missing"
    return f"{named}/{len(paths)}files:{content_hash(paths)}"
