"""Exceptions that carry a one-line, user-facing reason.

The CLI turns :class:`MetaevalError` into ``metaeval: <message>`` on stderr and
its ``exit_code`` (1 for bad data, 2 for bad usage); anything else is a bug.
This module imports nothing of the project so every layer may use it.
"""

from __future__ import annotations


class MetaevalError(Exception):
    """Base class: a problem the user can fix, described in one line."""

    exit_code = 1


class DataError(MetaevalError, ValueError):
    """Input data is malformed; the message names the file and line or segment."""


class UsageError(MetaevalError, ValueError):
    """An option, name or combination of arguments is invalid (exit status 2)."""

    exit_code = 2


class MissingDependencyError(MetaevalError, ImportError):
    """An optional package is not installed; the message gives the pip command."""


class UndefinedStatisticError(MetaevalError, ValueError):
    """A statistic is undefined on the given data (constant vector, one system...)."""


class UnknownNameError(UsageError):
    """A segmenter, metric or format name that no registry knows: bad usage (exit status 2).

    The name comes from the caller (an option or an argument), so it is reported as a usage
    error, with the list of known names.
    """


def unknown_name(kind: str, name: str, known: "list[str] | tuple[str, ...]") -> UnknownNameError:
    """Build the error for an unknown registry name, listing the known ones."""
    listing = ", ".join(sorted(known)) or "(none)"
    return UnknownNameError(f"unknown {kind} {name!r}; known {kind}s: {listing}")


class FileSystemError(MetaevalError, OSError):
    """The machine refused a read or write (read-only, disk full, permission, not a regular
    file...); the message names the path and the cause (exit status 1)."""


class PluginError(MetaevalError):
    """A third-party plug-in raised or returned something invalid; the message names the
    plug-in and what it did (exit status 1)."""


class DataWarning(UserWarning):
    """Data that is scored but probably not as the user means it; one line naming the files
    (the CLI prints it as ``metaeval: warning: <message>``)."""
