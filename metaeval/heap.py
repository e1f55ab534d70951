"""Giving freed memory back to the operating system.

CPython frees a large structure's small objects into the C library's heap, which keeps pages
it could return. After a model drops such a structure (pkuseg's 2.6-million-entry feature
map), :func:`return_freed_memory` asks glibc to release them (``malloc_trim(0)``), so that
the process's resident size, and what a forked child shares of it, is what it still holds.
Elsewhere (no glibc) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
from functools import cache
from typing import Callable


@cache
def _malloc_trim() -> "Callable[[int], int] | None":
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None


def return_freed_memory() -> bool:
    """Collect garbage, then return the heap's free pages to the system; False where the C
    library cannot (then only the collection happened)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
