"""Optional dependencies, package versions and file fingerprints for signatures."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import threading
import warnings
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable

from metaeval.errors import MissingDependencyError


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


#: The thread :func:`prefetch` started, until it is waited for.
_PREFETCH: threading.Thread | None = None


def prefetch(describes: Iterable[Callable[[], Any]]) -> None:
    """Call each of ``describes`` (built-in segmenters' ``describe``) in a background thread, so
    that hashing the model and dictionary files their signatures name (pkuseg's 187 MB:
    0.12-0.16 s) runs beside what this process does before it asks for them: reading a file
    and hashing it release the GIL. Whatever hashes a file here, and any fork, first waits
    for the thread (:func:`wait_for_prefetch`): nothing is hashed twice, and no process is
    forked while the thread may hold a lock. An error is left for the caller's own call."""
    global _PREFETCH
    wait_for_prefetch()
    calls = list(dict.fromkeys(describes))
    if calls:
        _PREFETCH = threading.Thread(target=_call_each, args=(calls,), name="metaeval-signatures", daemon=True)
        _PREFETCH.start()


def _call_each(calls: list[Callable[[], Any]]) -> None:
    for call in calls:
        try:
            call()
        except Exception:  # noqa: BLE001, S112 - raised again, with its message, where it is asked for
            continue


def wait_for_prefetch() -> None:
    """Wait for :func:`prefetch`'s thread, if one runs (not from that thread itself)."""
    global _PREFETCH
    thread = _PREFETCH
    if thread is not None and thread is not threading.current_thread():
        thread.join()
        _PREFETCH = None


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(before=wait_for_prefetch)


def fingerprint(path: str, hash_it: bool = True) -> str:
    """``<name>:<bytes>B`` and, if ``hash_it``, ``:sha256=<first 12 hex>`` of a file.

    Signatures of models and dictionaries always hash (two files of one size may differ);
    ``hash_it=False`` is for listings only."""
    wait_for_prefetch()
    return _fingerprint(path, hash_it)


@lru_cache(maxsize=None)
def _fingerprint(path: str, hash_it: bool) -> str:
    file = Path(path)
    if not file.is_file():
        return f"{file.name}:missing"
    text = f"{file.name}:{file.stat().st_size}B"
    if hash_it:
        digest = hashlib.sha256()
        _hash_into(digest, file)
        text += f":sha256={digest.hexdigest()[:12]}"
    return text


def files_fingerprint(label: str, paths: tuple[str, ...]) -> str:
    """``<label>:<total bytes>B:sha256=<first 12 hex>`` of several files together (name and
    content of each, in the order given): the identity of a model or dictionary folder."""
    wait_for_prefetch()
    return _files_fingerprint(label, paths)


@lru_cache(maxsize=None)
def _files_fingerprint(label: str, paths: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    total = 0
    for path in paths:
        file = Path(path)
        if not file.is_file():
            return f"{label}:missing:{file.name}"
        digest.update(file.name.encode("utf-8") + b"\0")
        total += _hash_into(digest, file)
        digest.update(b"\0")
    return f"{label}:{total}B:sha256={digest.hexdigest()[:12]}"


def content_hash(paths: tuple[str, ...]) -> str:
    """``sha256=<first 12 hex>`` of the named files' contents (each file's name, size and bytes,
    in the order given), or ``missing:<name>`` for the first file that does not exist.

    It identifies a dictionary or model by what it contains, whatever its version string says.
    """
    wait_for_prefetch()
    return _content_hash(paths)


@lru_cache(maxsize=None)
def _content_hash(paths: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        file = Path(path)
        if not file.is_file():
            return f"missing:{file.name}"
        digest.update(f"{file.name}\0{file.stat().st_size}\0".encode("utf-8"))
        _hash_into(digest, file)
    return f"sha256={digest.hexdigest()[:12]}"


#: Bytes read and hashed at a time. Reading and hashing a block release the GIL; taking it back
#: after each block can wait for another thread's switch interval (5 ms), so a hash run beside
#: other work (:func:`prefetch`) takes few large blocks (pkuseg's 187 MB: 12) rather than many.
HASH_BLOCK = 1 << 24


def _hash_into(digest: Any, file: Path) -> int:
    """Feed the bytes of ``file`` to ``digest``; their number."""
    buffer = bytearray(HASH_BLOCK)
    view = memoryview(buffer)
    total = 0
    with open(file, "rb", buffering=0) as handle:
        while count := handle.readinto(buffer):
            digest.update(view[:count])
            total += count
    return total


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
