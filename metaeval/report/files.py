"""Atomic file writes for every command that writes a file.

A write goes to a temporary file in the destination folder, is flushed and fsync'ed, and
is then moved into place with one rename, so a reader sees either the old file or the
whole new one, never a partial file. An existing file is kept unless ``overwrite=True``
(``--overwrite`` on the command line). On any error the temporary file is removed, and
an OS fault (disk full, read-only file system...) becomes one ``FileSystemError`` naming
the file and the cause.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

from metaeval.errors import UsageError
from metaeval.paths import file_system_error, record_written


def check_output_file(path: "str | os.PathLike[str]", overwrite: bool = False) -> Path:
    """Validate an output file location before any work: the one check for ``-o``/``--output``.

    The folder must exist, the path must not be a folder, and an existing file needs
    ``overwrite``. Raises :class:`UsageError` (exit status 2) naming the path; returns it.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{target}: folder {folder} does not exist")
    if target.is_dir():
        raise UsageError(f"{target}: is a folder, expected a file path")
    if target.exists() and not overwrite:
        raise _exists(target)
    return target


def check_output_folder(path: "str | os.PathLike[str]", names: Iterable[str], overwrite: bool = False) -> Path:
    """Validate an output folder (``--out``) before any work: the same rules as
    :func:`check_output_file` for each of the file ``names`` it will receive.

    The folder may be new (its parent must then exist) or an existing folder; a file among
    ``names`` that already exists there needs ``overwrite``. Returns the folder.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: is a file, expected a folder for the outputs")
    if not folder.exists():
        parent = folder.parent if str(folder.parent) else Path(".")
        if not parent.is_dir():
            raise UsageError(f"{folder}: parent folder {parent} does not exist")
        return folder
    for name in names:
        target = folder / name
        if name.endswith("/"):  # a sub-folder of outputs
            if target.exists() and not target.is_dir():
                raise UsageError(f"{target}: is a file, expected a folder for the outputs")
        elif target.is_dir():
            raise UsageError(f"{target}: is a folder, expected a file path")
        if target.exists() and not overwrite:
            raise UsageError(f"{target} exists; pass --overwrite to replace the outputs in {folder}")
    return folder


def write_atomic(path: "str | os.PathLike[str]", text: str, overwrite: bool = False) -> Path:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically; return the path.

    Raises :class:`UsageError` if ``path`` exists and ``overwrite`` is false, or if its
    folder does not exist.
    """
    return write_bytes_atomic(path, text.encode("utf-8"), overwrite=overwrite)


def write_bytes_atomic(path: "str | os.PathLike[str]", data: bytes, overwrite: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`write_atomic`); return the path."""
    return write_stream_atomic(path, lambda handle: handle.write(data), overwrite=overwrite)


def write_stream_atomic(path: "str | os.PathLike[str]", write: Callable[[BinaryIO], object],
                        overwrite: bool = False) -> Path:
    """Let ``write(handle)`` write the content of ``path`` piece by piece into a temporary file
    that replaces ``path`` only once complete (see :func:`write_atomic`); return the path."""
    target = check_output_file(path, overwrite)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise file_system_error(exc, target, "write") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        if overwrite:
            os.replace(tmp, target)
        else:
            _move_no_clobber(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise file_system_error(exc, target, "write") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    record_written(target)
    _fsync_folder(folder)
    return target


def _exists(target: Path) -> UsageError:
    return UsageError(f"{target}: file exists; pass --overwrite (overwrite=True) to replace it")


def _move_no_clobber(tmp: Path, target: Path) -> None:
    """Move ``tmp`` to ``target`` unless ``target`` appeared meanwhile (hard link, no race)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise _exists(target) from None
    except OSError:
        # The file system has no hard links: a check then a rename is the best it allows.
        if target.exists():
            raise _exists(target) from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def _umask() -> int:
    """The process umask, read without changing it where Linux allows (thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable where the platform allows opening a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
