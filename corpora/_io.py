"""Strict reading of text and tables: every problem becomes one ``DataError`` naming ``path:line``.

Rules shared by every reader:

- Inputs are regular files: a folder, FIFO, device or dangling symbolic link is refused by
  name before anything is opened (reading never blocks), and an OS fault names the cause.
- Files are UTF-8. A leading UTF-8 byte-order mark is removed. A byte sequence that is not
  UTF-8 is an error naming the line of the first bad byte; a NUL byte is an error.
- Lines end at ``\\n`` only. One ``\\r`` just before the ``\\n`` (CRLF) is removed. A lone
  ``\\r`` inside a line is kept as part of the text: splitting on it (as
  ``str.splitlines`` would) would silently shift every later segment, and ``wc -l`` and the
  campaign tools count ``\\n`` only. The same holds for U+2028, U+0085 and form feeds.
- A final line without ``\\n`` counts; a final ``\\n`` does not open an extra empty line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from metaeval.corpora.model import MISSING_POLICIES
from metaeval.corpora.model import describe  # noqa: F401  (one listing style everywhere)
from metaeval.errors import DataError, UsageError
from metaeval.paths import input_problem, read_input_bytes

BOM = b"\xef\xbb\xbf"


def where(path: str | Path, line: int | None = None) -> str:
    """``path:line`` (or just ``path``) for messages."""
    return f"{path}:{line}" if line is not None else str(path)


def read_text(path: str | Path) -> str:
    """The decoded text of ``path`` (BOM removed, CRLF -> LF), validated as described above."""
    path = Path(path)
    data = read_input_bytes(path, DataError)
    if data.startswith(BOM):
        data = data[len(BOM):]
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DataError(f"{where(path, line)}: NUL byte (binary or UTF-16 file?); expected UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"{where(path, line)}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert the file to UTF-8"
        ) from None
    return text.replace("\r\n", "\n")


def regular_files(paths: Iterable[Path]) -> list[Path]:
    """``paths``, each checked to be a regular file: a folder, FIFO, device or dangling
    symbolic link among them is an error naming it, never silently skipped."""
    paths = list(paths)
    for path in paths:
        problem = input_problem(path)
        if problem is not None:
            raise DataError(f"{path}: {problem} (only names starting with '.' are ignored here)")
    return paths


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` split at ``\\n`` only (see the module docstring)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str | Path, *, allow_empty: bool = False) -> list[str]:
    """The lines of a one-segment-per-line file; an empty file is an error unless allowed."""
    lines = split_lines(read_text(path))
    if not lines and not allow_empty:
        raise DataError(f"{path}: empty file; expected one segment per line")
    return lines


def read_aligned(path: str | Path, n: int, src: str | Path) -> list[str]:
    """The lines of ``path``, which must number ``n`` like the source file ``src``."""
    lines = read_lines(path, allow_empty=True)
    if len(lines) != n:
        raise DataError(
            f"{path}: {len(lines)} lines, expected {n} (as in {Path(src).name}) — off by {len(lines) - n:+d}"
        )
    return lines


def check_missing_policy(missing: str) -> None:
    """Refuse an unknown missing-segment policy before any file is read."""
    if missing not in MISSING_POLICIES:
        raise UsageError(f"unknown missing-segment policy {missing!r}; known: {', '.join(MISSING_POLICIES)}")


@dataclass(frozen=True)
class Table:
    """Rows of a delimited file with their 1-based line numbers.

    ``header`` is empty for files read with ``header=False``.
    """

    path: str
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]
    delimiter: str

    def require(self, names: Iterable[str]) -> dict[str, int]:
        """Column name -> index for the required ``names``; one error listing all missing ones."""
        names = list(names)
        missing = [n for n in names if n not in self.header]
        if missing:
            raise DataError(
                f"{where(self.path, 1)}: missing column(s) {', '.join(missing)}; "
                f"header has {', '.join(self.header) or '(nothing)'}"
            )
        return {n: self.header.index(n) for n in names}


def sniff_delimiter(first_line: str) -> str:
    """Tab if the header line has one, else comma if it has one, else whitespace (``" "``)."""
    if "\t" in first_line:
        return "\t"
    if "," in first_line:
        return ","
    return " "


def split_fields(line: str, delimiter: str, path: str, lineno: int) -> tuple[str, ...]:
    """Fields of one physical line: tabs split plainly, commas as CSV, ``" "`` on whitespace.

    A CSV field quoted across a line break is refused: every format here keeps one record
    per line, and a record spanning lines is a sign of a broken export.
    """
    if delimiter == "\t":
        return tuple(line.split("\t"))
    if delimiter == " ":
        return tuple(line.split())
    try:
        rows = list(csv.reader([line], delimiter=delimiter, strict=True))
    except csv.Error as exc:
        raise DataError(
            f"{where(path, lineno)}: bad CSV ({exc}); a quoted field may span lines, "
            "which is not accepted (one record per line)"
        ) from None
    return tuple(rows[0]) if rows else ()


def read_table(
    path: str | Path,
    *,
    delimiter: str | None = None,
    header: bool = True,
    n_columns: int | None = None,
) -> Table:
    """Read a delimited file, checking that every row has as many fields as the header.

    ``delimiter=None`` sniffs it from the first line. Blank lines are skipped. With
    ``header=False``, ``n_columns`` (if given) is the required field count.
    """
    path = str(path)
    lines = split_lines(read_text(path))
    if not any(line.strip() for line in lines):
        raise DataError(f"{path}: empty file")
    if delimiter is None:
        delimiter = sniff_delimiter(lines[0])
    head: tuple[str, ...] = ()
    start = 0
    if header:
        head = tuple(f.strip() for f in split_fields(lines[0], delimiter, path, 1))
        start = 1
        n_columns = len(head)
        dups = sorted({h for h in head if head.count(h) > 1})
        if dups:
            raise DataError(f"{where(path, 1)}: duplicate column name(s) {', '.join(dups)}")
    rows = []
    for i in range(start, len(lines)):
        if not lines[i].strip():
            continue
        fields = split_fields(lines[i], delimiter, path, i + 1)
        if n_columns is not None and len(fields) != n_columns:
            expected = f"{n_columns} ({', '.join(head)})" if head else str(n_columns)
            raise DataError(f"{where(path, i + 1)}: {len(fields)} fields, expected {expected}")
        rows.append((i + 1, fields))
    return Table(path=path, header=head, rows=tuple(rows), delimiter=delimiter)


def parse_float(text: str, path: str, lineno: int, what: str) -> float:
    """``float(text)`` or an error naming the line and the column; NaN/inf are refused."""
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"{where(path, lineno)}: {what} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise DataError(f"{where(path, lineno)}: {what} {text!r} is not a finite number")
    return value


def parse_int(text: str, path: str, lineno: int, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise DataError(f"{where(path, lineno)}: {what} {text!r} is not an integer") from None

