"""Checks of the arguments a statistic function is called with: a usage error naming the value."""

from __future__ import annotations

from typing import Iterable

from metaeval.errors import UsageError


def check_direction(name: str, direction: int) -> None:
    """``direction`` is +1 (higher is better) or -1 (lower is better)."""
    if direction not in (1, -1):
        raise UsageError(f"{name} must be +1 or -1, got {direction!r}")


def check_choice(label: str, value: str, known: Iterable[str]) -> None:
    """``value`` is one of ``known``; the error lists them."""
    known = tuple(known)
    if value not in known:
        raise UsageError(f"unknown {label} {value!r}; known: {', '.join(known)}")


__all__ = ["check_choice", "check_direction"]
