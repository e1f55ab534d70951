"""Checks of the paths the tool reads and writes, with one-line reasons for every fault.

Every layer may use this module (it imports only :mod:`metaeval.errors`). Inputs must be
regular files (a FIFO, device or socket is refused before it is opened, so reading never
blocks); a dangling symbolic link or a folder is named as such. Output folders are checked
for writability before any computation, and folders created for an output are removed
again if writing fails, so a failed command leaves neither files nor empty folders.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

from metaeval.errors import FileSystemError

#: Causes worded for users, by errno; anything else uses ``os.strerror``.
_CAUSES = {
    errno.ENOSPC: "no space left on device (disk full)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a path component is a file, not a folder",
    errno.EISDIR: "is a folder, expected a file",
    errno.EEXIST: "already exists",
    errno.ELOOP: "too many levels of symbolic links",
    errno.ENAMETOOLONG: "file name too long",
    errno.EIO: "input/output error",
    errno.EMFILE: "too many open files",
}


def os_cause(exc: OSError) -> str:
    """A short, lower-case cause for an OS error (``read-only file system``...)."""
    if exc.errno in _CAUSES:
        return _CAUSES[exc.errno]
    if exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def os_error_message(exc: OSError, path: "str | os.PathLike[str] | None" = None, action: str = "") -> str:
    """``<path>: [cannot <action>: ]<cause>`` for an OS error, naming the file it concerns."""
    where = path if path is not None else exc.filename
    prefix = f"cannot {action}: " if action else ""
    return f"{where}: {prefix}{os_cause(exc)}" if where is not None else f"{prefix}{os_cause(exc)}"


def file_system_error(exc: OSError, path: "str | os.PathLike[str] | None" = None, action: str = "") -> FileSystemError:
    """The :class:`FileSystemError` for an OS error (see :func:`os_error_message`)."""
    return FileSystemError(os_error_message(exc, path, action))


def replace_atomically(path: Path, write: Callable[[BinaryIO], object], prefix: str) -> None:
    """Write ``path`` through ``write(handle)`` into a temporary file in its folder
    (``<prefix>...tmp``), then move it into place with ``os.replace``: a reader sees the old
    file or the whole new one, never a part of it. If anything fails, the temporary file is
    removed and the error raised as it came."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _kind(mode: int) -> str | None:
    """What a non-regular, non-folder file is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def input_problem(path: "str | os.PathLike[str]") -> str | None:
    """Why ``path`` cannot be read as an input file, or None if it is a regular file."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.lexists(path):
            return f"is a broken symbolic link (to {os.readlink(path)})"
        return "no such file"
    except OSError as exc:
        return os_cause(exc)
    kind = _kind(mode)
    if kind is None:
        return None
    if kind == "a folder":
        return "is a folder, expected a file"
    return f"is {kind}, not a regular file"


def check_input_file(path: "str | os.PathLike[str]", error: type = FileSystemError) -> Path:
    """``path`` as a Path if it is a readable regular file; else ``error('<path>: <why>')``."""
    problem = input_problem(path)
    if problem is not None:
        raise error(f"{path}: {problem}")
    return Path(path)


def read_input_bytes(path: "str | os.PathLike[str]", error: type = FileSystemError) -> bytes:
    """The bytes of a regular file; any fault becomes one ``error`` naming the path and cause."""
    check_input_file(path, error)
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # replaced since the check
                raise error(f"{path}: is not a regular file")
            return handle.read()
    except OSError as exc:
        raise error(os_error_message(exc, path, "read")) from None


def _nearest_existing(path: Path) -> Path:
    """The closest ancestor of ``path`` (or itself) that exists."""
    current = path
    while not os.path.lexists(current) and current != current.parent:
        current = current.parent
    return current


def _probe_writable(folder: Path, what: str, path: Path) -> None:
    """Create and remove a file in ``folder``; a fault becomes one FileSystemError."""
    try:
        fd, name = tempfile.mkstemp(prefix=".metaeval-probe-", dir=folder)
    except OSError as exc:
        where = "" if folder == path else f" in {folder}"
        raise FileSystemError(f"{path}: cannot write {what}{where}: {os_cause(exc)}") from None
    os.close(fd)
    os.unlink(name)


def check_writable_folder(path: "str | os.PathLike[str]", what: str = "output") -> None:
    """Fail now, before any work, if ``path`` cannot become a folder holding new files.

    ``path`` may not exist yet: then the closest existing ancestor must be a writable
    folder. Nothing is left behind by the check.
    """
    path = Path(path)
    existing = _nearest_existing(path)
    if not existing.is_dir():
        problem = input_problem(existing) or "is a file"
        if existing == path:
            raise FileSystemError(f"{path}: {what} folder {problem.replace(', not a regular file', '')}, expected a folder")
        raise FileSystemError(f"{path}: cannot create {what} folder: {existing} {problem.replace(', not a regular file', '')}, not a folder")
    _probe_writable(existing, what, path)


def make_folders(path: "str | os.PathLike[str]") -> list[Path]:
    """Create ``path`` and missing parents; return the folders created, deepest first."""
    path = Path(path)
    missing = []
    current = path
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    created: list[Path] = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            created.insert(0, folder)
    except OSError as exc:
        remove_folders(created)
        raise file_system_error(exc, folder, "create folder") from None
    return created


def remove_folders(created: list[Path]) -> None:
    """Remove folders made by :func:`make_folders` if they are empty (deepest first)."""
    for folder in created:
        try:
            folder.rmdir()
        except OSError:
            pass


#: Outputs this process has put in place, in order: files, or a whole output folder in
#: place of its files (:func:`written`, :func:`forget_written`, :func:`replace_written`).
_WRITTEN: list[Path] = []


def written() -> list[Path]:
    """The outputs put in place since :func:`forget_written` was last called (an interrupted
    command names them: they are complete, and nothing else was written)."""
    return list(_WRITTEN)


def forget_written(since: int = 0) -> None:
    """Forget the outputs recorded after the first ``since`` (all of them by default)."""
    del _WRITTEN[since:]


def record_written(output: Path) -> None:
    """Record an output just put in place."""
    _WRITTEN.append(output)


def replace_written(since: int, output: Path) -> None:
    """Record ``output`` (a folder) in place of the files recorded after the first ``since``."""
    forget_written(since)
    record_written(output)
