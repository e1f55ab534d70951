"""``benchmarks/results.json`` is shared by several benchmarks: each updates its own key only."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping


def update_keys(entries: Mapping[str, Any], path: Path) -> None:
    """Set the ``entries`` keys of the JSON object in ``path``, leaving the other keys as read;
    written to a temporary file and renamed over ``path`` (atomic; no temporary file is left
    if writing fails)."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data.update(entries)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_key(key: str, entry: Any, path: Path) -> None:
    """:func:`update_keys` of one key."""
    update_keys({key: entry}, path)


def store_and_say(key: str, entry: Any, path: Path, store: bool = True) -> None:
    """:func:`update_key` unless ``store`` is false (a benchmark's ``--no-store``), saying where."""
    if store:
        update_key(key, entry, path)
        print(f"written: {path} [{key}]")
