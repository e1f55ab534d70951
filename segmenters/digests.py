"""Digests of model and dictionary files, kept from one process to the next.

A segmenter's signature names its model or dictionary by the SHA-256 of its files
(:mod:`metaeval.segmenters._deps`): pkuseg's 187 MB took 0.13 s to hash, unidic-lite's 260 MB
more, in every process that asked, on the serial start of every run. A
digest is kept in a folder, ``$METAEVAL_DIGEST_CACHE`` (empty: off), by default
``share/metaeval/digests`` of the Python environment, as the compiled kernels are: one small
file per set of files hashed together, named by the SHA-256 of what identifies those files
without reading them, each file's resolved path, device, inode, size and modification and
status-change times in nanoseconds. Writing to a file changes its status-change time, which a
program cannot set back short of changing the system clock, so a kept digest is only read for
the bytes it was computed from.

A digest is not kept when a file changed less than :data:`SETTLE_NS` before it was hashed:
a write within the clock's resolution after the hash could then leave every time as it was
(git's "racy" entries). A folder that cannot be read or written, or an entry that does not hold
what it should, only means that the files are hashed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Callable

from metaeval.paths import replace_atomically

#: Environment variable naming the folder of kept digests (empty: none are kept).
DIGEST_CACHE_ENV = "METAEVAL_DIGEST_CACHE"
#: A file changed less than this many nanoseconds before it was hashed: its digest is not kept.
SETTLE_NS = 2_000_000_000


def digest_cache_dir() -> Path | None:
    """The folder of kept digests (None: off)."""
    found = os.environ.get(DIGEST_CACHE_ENV)
    if found is not None:
        return Path(found).expanduser() if found else None
    return Path(sys.prefix) / "share" / "metaeval" / "digests"


def _identity(paths: tuple[str, ...]) -> list[list] | None:
    """Per file: resolved path, device, inode, size, modification and status-change times (ns);
    None if one is not a regular file (its digest then says so and is not kept)."""
    out = []
    for path in paths:
        try:
            real = os.path.realpath(path)
            found = os.stat(real)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(found.st_mode):
            return None
        out.append([real, found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns])
    return out


def kept_digest(kind: str, paths: tuple[str, ...], compute: Callable[[], str]) -> str:
    """``compute()`` (a digest of ``paths``, named by ``kind``, which holds every option of the
    computation), read from the folder of kept digests if it was computed before on the same
    files, else computed and kept there."""
    folder = digest_cache_dir()
    identity = _identity(paths) if folder is not None else None
    if folder is None or identity is None:
        return compute()
    key = hashlib.sha256(json.dumps([kind, identity], ensure_ascii=False).encode("utf-8")).hexdigest()
    entry = folder / f"{key[:32]}.json"
    found = _read(entry, key)
    if found is not None:
        return found
    started = time.time_ns()
    value = compute()
    if all(max(mtime, ctime) <= started - SETTLE_NS for *_, mtime, ctime in identity) and _identity(paths) == identity:
        _write(entry, key, value)
    return value


def _read(entry: Path, key: str) -> str | None:
    try:
        with open(entry, "rb") as handle:
            data = json.loads(handle.read(1 << 16))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("key") == key and isinstance(data.get("digest"), str):
        return data["digest"]
    return None


def _write(entry: Path, key: str, value: str) -> None:
    data = json.dumps({"key": key, "digest": value}, ensure_ascii=False).encode("utf-8")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(entry, lambda handle: handle.write(data), ".digest-")
    except OSError:
        pass


__all__ = ["DIGEST_CACHE_ENV", "SETTLE_NS", "digest_cache_dir", "kept_digest"]
