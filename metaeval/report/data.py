"""Machine-readable results: CSV, TSV and JSON writers, and :func:`load_results` to read them back.

These formats carry the whole ResultTable (every column, one row per result, rows in
ranking order) whatever the layout, so ``metaeval leaderboard RESULTS`` can re-render
them in any layout or format.

- CSV/TSV: the signature comes first as comment lines, one per top-level key,
  ``# key = <JSON value>`` (a key that is not a plain name is written as a JSON string),
  after a first line ``# metaeval results``. Then a header and the rows. Missing values
  are empty cells; floats are written with ``repr`` (shortest exact text), so they read
  back bit for bit. With ``signature=False`` the file starts directly with the header.
- JSON: ``{"signature": {...}, "columns": [...], "rows": [{column: value}...]}``, with
  ``null`` for missing values.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from metaeval.errors import DataError
from metaeval.report.results import COUNT_COLUMNS, NUMERIC_COLUMNS, normalise, plain, to_json

MARKER = "# metaeval results"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.\-]+\Z")


def _cell(value: Any, column: str) -> str:
    if column not in NUMERIC_COLUMNS:
        return str(value)
    number = float(value)
    if math.isnan(number):
        return ""
    if column in COUNT_COLUMNS and number.is_integer():
        return str(int(number))
    return repr(number)


def render_delimited(table: pd.DataFrame, signature: Mapping[str, Any] | None, delimiter: str) -> str:
    """CSV (``,``) or TSV (``\\t``) text: signature comment lines, header, rows."""
    buffer = io.StringIO()
    if signature is not None:
        buffer.write(MARKER + "\n")
        values = plain(dict(signature))
        for key in sorted(values):
            shown = key if _PLAIN_KEY.match(key) else json.dumps(key, ensure_ascii=False)
            buffer.write(f"# {shown} = {to_json(values[key])}\n")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    columns = list(table.columns)
    writer.writerow(columns)
    for row in table.itertuples(index=False):
        writer.writerow([_cell(v, c) for v, c in zip(row, columns)])
    return buffer.getvalue()


def render_json(table: pd.DataFrame, signature: Mapping[str, Any] | None) -> str:
    """JSON text with the signature (``{}`` when omitted), the columns and the rows."""
    columns = list(table.columns)
    rows = []
    for row in table.itertuples(index=False):
        item = {}
        for value, column in zip(row, columns):
            if column in NUMERIC_COLUMNS:
                number = float(value)
                value = None if math.isnan(number) else (int(number) if column in COUNT_COLUMNS and number.is_integer() else number)
            item[column] = value
        rows.append(item)
    document = {"columns": columns, "rows": rows, "signature": dict(signature or {})}
    return to_json(document, indent=1) + "\n"


def load_results(path: "str | Path") -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read results written as CSV, TSV or JSON by ``render``; return ``(table, signature)``.

    The format is taken from the suffix (``.csv``, ``.tsv``, ``.json``); the table is
    normalised as every report expects it. A file without a signature gives ``{}``.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".tsv", ".json"):
        raise DataError(f"{path}: unknown results format {suffix or '(no suffix)'!r}; expected .csv, .tsv or .json")
    from metaeval.paths import read_input_bytes

    try:
        text = read_input_bytes(path, DataError).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: cannot read results: not UTF-8 (byte at offset {exc.start})") from None
    if suffix == ".json":
        table, signature = _parse_json(text, path)
    else:
        table, signature = _parse_delimited(text, path, "," if suffix == ".csv" else "\t")
    return normalise(table, str(path)), signature


def _parse_json(text: str, path: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
        raise DataError(f"{path}: expected a JSON object with a 'rows' list (as written by --format json)")
    signature = document.get("signature") or {}
    if not isinstance(signature, dict):
        raise DataError(f"{path}: 'signature' must be a JSON object")
    columns = document.get("columns")
    for i, row in enumerate(document["rows"]):
        if not isinstance(row, dict):
            raise DataError(f"{path}: row {i + 1} is not a JSON object")
    table = pd.DataFrame(document["rows"], columns=columns if isinstance(columns, list) else None, dtype=object)
    return table, signature


def _parse_delimited(text: str, path: Path, delimiter: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    lines = text.split("\n")
    signature: dict[str, Any] = {}
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        line = lines[start]
        if line.strip() != MARKER:
            key, value = _parse_comment(line, path, start + 1)
            signature[key] = value
        start += 1
    reader = csv.reader(io.StringIO("\n".join(lines[start:])), delimiter=delimiter)
    rows = [r for r in reader if r]
    if not rows:
        raise DataError(f"{path}:{start + 1}: no header line")
    header = rows[0]
    for offset, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise DataError(f"{path}: data row {offset - 1}: {len(row)} fields, expected {len(header)} as in the header")
    return pd.DataFrame(rows[1:], columns=header, dtype=object), signature


def _parse_comment(line: str, path: Path, number: int) -> tuple[str, Any]:
    body = line[1:].strip()
    try:
        if body.startswith('"'):
            key, end = json.JSONDecoder().raw_decode(body)
            rest = body[end:].lstrip()
        else:
            key, _, rest = body.partition(" ")
            rest = rest.lstrip()
        if not rest.startswith("="):
            raise ValueError("missing '='")
        return str(key), json.loads(rest[1:])
    except ValueError as exc:
        raise DataError(f"{path}:{number}: bad signature line, expected '# key = <JSON>': {exc}") from None
