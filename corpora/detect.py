"""Entry points that recognise a corpus layout or a judgment file format and call its reader.

Corpus layouts (:func:`read`): a plain corpus folder (``src.<lang>`` + ``systems/``), an
mt-metrics-eval folder (``sources/`` + ``system-outputs/``), or a NIST SGML triple (a folder
holding ``*src*``, ``*ref*`` and ``*tst*`` ``.sgm``/``.xml`` files, or the files given as
``(src, refs, tst)``).

Judgment formats (:func:`read_judgments`) are recognised by their header or shape; see
:data:`JUDGMENT_FORMATS`. ``format=`` forces one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, UsageError

from ._io import read_text, regular_files, sniff_delimiter, split_fields, split_lines
from .appraise import N_COLUMNS as APPRAISE_COLUMNS
from .appraise import read_appraise_csv
from .folder import read_corpus_folder, read_judgments_folder, read_long_judgments, read_system_judgments
from .iwslt import read_iwslt_ranks
from .mqm import read_mqm_tsv
from .mtme import read_mtme_folder
from .nist import read_nist_sgml
from .nist_fa import read_nist_fa
from .wmt_da import read_ad_seg_scores
from .wmt_rr import read_wmt_rr_csv

#: corpus layouts read by :func:`read`, with a one-line description.
CORPUS_FORMATS = {
    "folder": "plain corpus folder: src.<lang>, ref.<name>.<lang>, systems/<name>.<lang>",
    "mtme": "mt-metrics-eval folder: sources/, references/, system-outputs/, human-scores/",
    "nist-sgml": "NIST MT SGML/XML srcset + refset(s) + tstset(s)",
}

_JUDGMENT_READERS: dict[str, tuple[Callable[..., Judgments], str]] = {
    "long": (read_long_judgments, "long TSV: seg_id, system, judge, kind, value"),
    "human-sys": (read_system_judgments, "system-level TSV: system + one numeric column per human score"),
    "iwslt": (read_iwslt_ranks, "IWSLT ranks, long (seg_id, judge, system, rank) or wide (seg_id, judge, <system>...)"),
    "nist-fa": (read_nist_fa, "NIST fluency/adequacy: system, doc_id, seg_id, judge, fluency, adequacy"),
    "appraise": (read_appraise_csv, "WMT Appraise DA/ESA CSV export (12 columns, no header)"),
    "wmt-rr": (read_wmt_rr_csv, "WMT relative-ranking CSV (5-way or pairwise)"),
    "ad-seg-scores": (read_ad_seg_scores, "WMT DA ad-seg-scores (SYS SID RAW.SCR Z.SCR N)"),
    "mqm": (read_mqm_tsv, "MQM TSV: system, doc, doc_id, seg_id, rater, source, target, category, severity"),
}
#: judgment file formats read by :func:`read_judgments`, with a one-line description.
JUDGMENT_FORMATS = {name: desc for name, (_, desc) in _JUDGMENT_READERS.items()}
#: every format name (for ``metaeval list``).
FORMATS = tuple(CORPUS_FORMATS) + tuple(JUDGMENT_FORMATS)

_SGML_SUFFIXES = (".sgm", ".sgml", ".xml")


def _sgml_triple(folder: Path) -> tuple[Path, list[Path], list[Path]] | None:
    files = regular_files(sorted(p for p in folder.iterdir() if p.suffix.lower() in _SGML_SUFFIXES))
    pick = lambda *keys: [p for p in files if any(k in p.name.lower() for k in keys)]  # noqa: E731
    srcs, refs, tsts = pick("src"), pick("ref"), pick("tst", "sys", "hyp")
    if not files:
        return None
    if len(srcs) != 1 or not refs or not tsts:
        raise DataError(
            f"{folder}: SGML files found but not one *src* file with *ref* and *tst* files "
            f"(found {', '.join(p.name for p in files)})"
        )
    return srcs[0], refs, tsts


def detect_corpus_format(path: str | Path) -> str:
    """``folder``, ``mtme`` or ``nist-sgml`` for a folder; an error saying what was looked for."""
    folder = Path(path)
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder (a corpus is a folder, or give (src, refs, tst) SGML files)")
    if (folder / "sources").is_dir() and (folder / "system-outputs").is_dir():
        return "mtme"
    if any(p.name.startswith("src.") for p in folder.iterdir()) and (folder / "systems").is_dir():
        return "folder"
    if _sgml_triple(folder) is not None:
        return "nist-sgml"
    raise DataError(
        f"{folder}: not a corpus: expected src.<lang> + systems/ (plain folder), sources/ + "
        "system-outputs/ (mt-metrics-eval) or src/ref/tst .sgm files (NIST)"
    )


def read(
    path: str | Path | Sequence[Any],
    format: str | None = None,
    **options: Any,
) -> tuple[Corpus, Judgments | None]:
    """Read a corpus and its judgments (``None`` where the layout holds none).

    ``path`` is a folder, or a ``(src, refs, tst)`` tuple of NIST SGML files (``refs`` and
    ``tst`` may be one path or a list). ``options`` go to the reader: ``missing``,
    ``systems``/``references`` (plain folder), ``lp``/``include_references`` (mt-metrics-eval).
    """
    if isinstance(path, (list, tuple)):
        if len(path) != 3:
            raise UsageError("give NIST files as (src, refs, tst)")
        return read_nist_sgml(*path, **options), None
    assert isinstance(path, (str, Path))
    fmt = format or detect_corpus_format(path)
    if fmt == "folder":
        return read_corpus_folder(path, **options), read_judgments_folder(path)
    if fmt == "mtme":
        return read_mtme_folder(path, **options)
    if fmt == "nist-sgml":
        triple = _sgml_triple(Path(path))
        if triple is None:
            raise DataError(f"{path}: no .sgm/.xml files")
        return read_nist_sgml(*triple, **options), None
    raise UsageError(f"unknown corpus format {fmt!r}; known: {', '.join(CORPUS_FORMATS)}")


def detect_judgment_format(path: str | Path) -> str:
    """Recognise a judgment file by its first line (header or, for Appraise, shape)."""
    lines = [line for line in split_lines(read_text(path)) if line.strip()]
    if not lines:
        raise DataError(f"{path}: empty file")
    first = lines[0]
    fields = split_fields(first, sniff_delimiter(first), str(path), 1)
    header = {f.strip().lower() for f in fields}
    if {"seg_id", "system", "judge", "kind", "value"} <= header:
        return "long"
    if {"system", "doc_id", "seg_id", "judge", "fluency", "adequacy"} <= header:
        return "nist-fa"
    if {"system", "seg_id", "rater", "category", "severity"} <= header:
        return "mqm"
    if {"sys", "sid", "raw.scr", "z.scr"} <= {f.strip().lower() for f in first.split()}:
        return "ad-seg-scores"
    if "system1id" in header and "system1rank" in header:
        return "wmt-rr"
    if {"seg_id", "judge"} <= header:
        return "iwslt"
    if "system" in header and "seg_id" not in header:
        return "human-sys"
    if len(fields) == APPRAISE_COLUMNS and fields[2].strip().isdigit():
        return "appraise"
    raise UnrecognisedJudgmentFormat(
        f"{path}:1: unrecognised judgment format (header {first[:80]!r}); known formats: {', '.join(JUDGMENT_FORMATS)}"
    )


class UnrecognisedJudgmentFormat(DataError):
    """A judgment file whose format is not recognised. The message ends with how to force a
    format, in the words of the caller: ``format=`` here, ``judgments_format=`` in
    :func:`metaeval.api.read_judgments`, ``--judgments-format`` on the command line."""

    def __init__(self, reason: str, option: str = "format=") -> None:
        super().__init__(f"{reason} (force one with {option})")
        self.reason = reason

    def naming(self, option: str) -> "UnrecognisedJudgmentFormat":
        """The same error, telling how to force a format with ``option``."""
        return UnrecognisedJudgmentFormat(self.reason, option)


def read_judgments(path: str | Path, format: str | None = None, **options: Any) -> Judgments:
    """Read a judgment file, detecting its format unless ``format`` is given.

    ``options`` go to the reader (e.g. ``corpus_dir`` for ``appraise``).
    """
    fmt = format or detect_judgment_format(path)
    if fmt not in _JUDGMENT_READERS:
        raise UsageError(f"unknown judgment format {fmt!r}; known: {', '.join(JUDGMENT_FORMATS)}")
    return _JUDGMENT_READERS[fmt][0](path, **options)
