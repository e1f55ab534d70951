"""The output folder of ``metaeval run --out DIR`` (and :meth:`metaeval.api.Study.write`).

Files, each written atomically, all or nothing (on a failure the folder is put back as it was):

- ``answer.tsv``: the answer (:mod:`metaeval.answer`), a plain table;
- ``results.tsv``: the ResultTable, a plain table; ``results.json``: the same rows with the
  signature, the answer and the tie-free references;
- ``signature.json``: every option and version behind the numbers;
- ``leaderboard.md``, ``leaderboard.html``: the reports, answer first;
- ``scores.tsv.gz``: segment- and system-level scores, gzip-compressed (deterministic bytes);
- ``systems.html``, ``systems.tsv``: the system leaderboard of every human score of the run
  (:mod:`metaeval.systemrank`, :mod:`metaeval.report.systems`);
- ``charts/<kind>.<level>.<statistic>[.<grouping>].png``: one chart per ranking.

Every name is checked before any work (:data:`RUN_OUTPUTS`,
:func:`metaeval.report.files.check_output_folder`).
"""

from __future__ import annotations

import gzip
import io
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd

from metaeval.report.data import signature_json
from metaeval.report import files as _files
from metaeval.report.files import check_output_folder

#: What ``--out`` receives; a name ending in ``/`` is a folder.
RUN_OUTPUTS = (
    "answer.tsv", "results.tsv", "results.json", "signature.json", "leaderboard.md", "leaderboard.html",
    "scores.tsv.gz", "systems.html", "systems.tsv", "charts/",
)  # fmt: skip
CHARTS = "charts"


def scores_tsv(table: pd.DataFrame) -> str:
    """A scores table as plain TSV (floats with 10 significant digits)."""
    buffer = io.StringIO()
    table.to_csv(buffer, sep="\t", index=False, float_format="%.10g", lineterminator="\n")
    return buffer.getvalue()


def _chart_name(key: dict[str, str]) -> str:
    parts = [key.get("judgment_kind", ""), key.get("level", ""), key.get("statistic", "")]
    if key.get("grouping") not in ("", "-", "none", "segment", "segment+judge"):
        parts.append(key["grouping"])
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", ".".join(p for p in parts if p)) + ".png"


def run_files(study: Any) -> dict[str, bytes]:
    """The bytes of every file of the folder except the charts."""
    from metaeval.report.leaderboard import render

    answer = study.answer
    tie_free = getattr(study, "tie_free", None)
    text = {
        "answer.tsv": scores_tsv(answer) if answer is not None else "",
        "results.tsv": render(study.results, study.signature, "tsv"),
        "results.json": render(study.results, study.signature, "json", answer=answer, tie_free=tie_free),
        "signature.json": signature_json(study.signature),
        "leaderboard.md": render(study.results, study.signature, "markdown", layout="table", answer=answer, tie_free=tie_free),
        "leaderboard.html": render(study.results, study.signature, "html", layout="table", answer=answer, tie_free=tie_free),
    }
    text.update(systems_files(study))
    files = {name: value.encode("utf-8") for name, value in text.items()}
    files["scores.tsv.gz"] = gzip.compress(scores_tsv(study.scores).encode("utf-8"), mtime=0)
    return files


def systems_files(study: Any) -> dict[str, str]:
    """``systems.html`` and ``systems.tsv``: the system leaderboard of the run's scores."""
    from metaeval.report.systems import render_board
    from metaeval.systemrank.study import study_board

    board = study_board(study)
    return {"systems.html": render_board(board, "html"), "systems.tsv": render_board(board, "tsv")}


def write_run_folder(out: Path, study: Any, overwrite: bool = False) -> Path:
    """Write every file of :data:`RUN_OUTPUTS` for ``study`` into ``out``; returns ``out``."""
    from metaeval.report.layout import sections, tie_free_reference
    from metaeval.report.plots import forest
    from metaeval.report.results import normalise

    check_output_folder(out, RUN_OUTPUTS, overwrite)
    from metaeval.paths import forget_written, make_folders, remove_folders, replace_written
    from metaeval.paths import written as recorded_outputs

    files = run_files(study)
    created = make_folders(out)
    previous = {name: (out / name).read_bytes() for name in files if (out / name).exists()}
    charts = out / CHARTS
    charts_before = charts.exists()
    backup = None
    if charts_before:
        backup = out / f".{CHARTS}.previous"
        shutil.rmtree(backup, ignore_errors=True)
        charts.rename(backup)
    written: list[str] = []
    recorded = len(recorded_outputs())
    try:
        for name, data in files.items():
            _files.write_bytes_atomic(out / name, data, overwrite=overwrite)
            written.append(name)
        charts.mkdir()
        for section in sections(normalise(study.results), "ranked"):
            if section.bars and not section.undefined:
                key = dict(section.key)
                reference = tie_free_reference(key, getattr(study, "tie_free", None))
                forest(section.bars, charts / _chart_name(key), title=section.title, statistic=section.statistic,
                       reference=None if reference != reference else reference)
    except BaseException:
        # all or nothing: put back what was there, remove what this run added
        for name in written:
            if name in previous:
                _files.write_bytes_atomic(out / name, previous[name], overwrite=True)
            else:
                (out / name).unlink(missing_ok=True)
        shutil.rmtree(charts, ignore_errors=True)
        if backup is not None:
            backup.rename(charts)
        remove_folders(created)
        forget_written(recorded)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)
    replace_written(recorded, out)
    return out


__all__ = ["RUN_OUTPUTS", "run_files", "scores_tsv", "systems_files", "write_run_folder"]
