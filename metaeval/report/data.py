"""Machine-readable results: CSV, TSV and JSON writers, and :func:`load_results` to read them back.

These formats carry the whole ResultTable (every column, one row per result, rows in
ranking order) whatever the layout, so ``metaeval leaderboard RESULTS`` can re-render
them in any layout or format.

- CSV/TSV: a plain table (a header, then the rows) that ``pandas.read_csv`` and spreadsheets
  read with default options. Missing values are empty cells; floats are written with
  ``repr`` (shortest exact text), so they read back bit for bit. The signature travels
  beside the file, as JSON in ``<file>.signature.json`` (:func:`write_results`,
  :func:`sidecar_path`); files of earlier versions that start with ``#`` signature lines
  are still read.
- JSON: ``{"signature": {...}, "columns": [...], "rows": [{column: value}...]}``, with
  ``null`` for missing values, ``"answer": [...]`` when the answer is given
  (:mod:`metaeval.answer`), and ``"tie_free": [...]`` when the tie-free references are
  (:func:`metaeval.stats.evaluate.tie_free_references`).
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any, BinaryIO, Callable, Mapping, TextIO

import pandas as pd

from metaeval.errors import DataError
from metaeval.report.results import COUNT_COLUMNS, NUMERIC_COLUMNS, normalise, to_json

MARKER = "# metaeval results"


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
    """CSV (``,``) or TSV (``\\t``) text: a header and the rows. The signature is not part
    of the table: :func:`write_results` puts it in a JSON file beside it."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    columns = list(table.columns)
    writer.writerow(columns)
    for row in table.itertuples(index=False):
        writer.writerow([_cell(v, c) for v, c in zip(row, columns)])
    return buffer.getvalue()


def sidecar_path(path: "str | Path") -> Path:
    """Where the signature of a CSV/TSV file goes: ``<file>.signature.json``."""
    path = Path(path)
    return path.with_name(path.name + ".signature.json")


def signature_json(signature: Mapping[str, Any]) -> str:
    """The signature as deterministic, indented JSON text."""
    return to_json(dict(signature), indent=1) + "\n"


def write_results(path: "str | Path", text: "str | Callable[[TextIO], object]", signature: Mapping[str, Any] | None,
                  overwrite: bool = False) -> Path:
    """Write rendered results to ``path``; a CSV/TSV file gets its signature beside it.
    ``text`` is the content, or a function that writes it piece by piece to a text handle
    (so a large table is never held as one string).

    Both files are checked before either is written, so an existing sidecar without
    ``overwrite`` fails before the table is touched.
    """
    from metaeval.report.files import check_output_file, write_atomic, write_stream_atomic

    path = Path(path)
    delimited = path.suffix.lower() in (".csv", ".tsv") and signature is not None
    if delimited:
        check_output_file(sidecar_path(path), overwrite)
    if callable(text):
        def stream(handle: BinaryIO) -> None:
            wrapper = io.TextIOWrapper(handle, encoding="utf-8", newline="")
            text(wrapper)
            wrapper.flush()
            wrapper.detach()

        write_stream_atomic(path, stream, overwrite=overwrite)
    else:
        write_atomic(path, text, overwrite=overwrite)
    if delimited:
        write_atomic(sidecar_path(path), signature_json(signature or {}), overwrite=overwrite)
    return path


def render_json(table: pd.DataFrame, signature: Mapping[str, Any] | None, answer: pd.DataFrame | None = None,
                tie_free: pd.DataFrame | None = None) -> str:  # fmt: skip
    """JSON text with the signature (``{}`` when omitted), the columns, the rows, the answer and
    the tie-free references."""
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
    document: dict[str, Any] = {"columns": columns, "rows": rows, "signature": dict(signature or {})}
    if answer is not None:
        document["answer"] = answer.to_dict(orient="records")
    if tie_free is not None:
        document["tie_free"] = tie_free.to_dict(orient="records")
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
        if not signature:
            signature = _read_sidecar(path)
    return normalise(table, str(path)), signature


def _read_sidecar(path: Path) -> dict[str, Any]:
    """The signature beside a CSV/TSV file: ``<file>.signature.json``, else ``signature.json``
    of a ``--out`` folder; ``{}`` when there is none."""
    for candidate in (sidecar_path(path), path.with_name("signature.json")):
        if candidate.is_file():
            try:
                value = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise DataError(f"{candidate}: cannot read signature: {exc}") from None
            if not isinstance(value, dict):
                raise DataError(f"{candidate}: expected a JSON object (the signature)")
            return value
    return {}


def _stored(path: Path, key: str) -> Any:
    """The value of ``key`` in a results JSON file (``None`` for other files or when absent)."""
    if path.suffix.lower() != ".json":
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return document.get(key) if isinstance(document, dict) else None


def load_tie_free(path: "str | Path") -> pd.DataFrame | None:
    """The tie-free references stored in a results JSON file (``None`` for other files or when absent)."""
    rows = _stored(Path(path), "tie_free")
    if not isinstance(rows, list):
        return None
    from metaeval.stats.evaluate import TIE_FREE_COLUMNS

    frame = pd.DataFrame(rows, columns=list(TIE_FREE_COLUMNS))
    frame["tie_free"] = pd.to_numeric(frame["tie_free"], errors="coerce")
    return frame


def load_answer(path: "str | Path") -> pd.DataFrame | None:
    """The answer stored in a results JSON file (``None`` for other files or when absent)."""
    rows = _stored(Path(path), "answer")
    if not isinstance(rows, list):
        return None
    from metaeval.answer import ANSWER_COLUMNS

    frame = pd.DataFrame(rows, columns=list(ANSWER_COLUMNS))
    for column in ANSWER_COLUMNS:
        if frame[column].map(lambda v: v is None or isinstance(v, (int, float))).all():
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    if rows and not any(isinstance(row, dict) and "p_adjusted" in row for row in rows):
        frame["p_adjusted"] = frame["p_value"]  # saved before adjustments existed: the raw p-values were counted
    return frame


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
