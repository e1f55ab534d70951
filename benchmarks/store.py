"""``benchmarks/results.json`` is shared by several benchmarks: each updates its own key only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def update_key(key: str, entry: Any, path: Path) -> None:
    """Set ``key`` of the JSON object in ``path`` to ``entry``, leaving the other keys as read;
    written to a temporary file and renamed over ``path`` (atomic)."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data[key] = entry
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
