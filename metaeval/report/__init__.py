"""Reports: leaderboards in text, Markdown, CSV, TSV, JSON and HTML; atomic writes; plots.

- :func:`render` and :func:`select` (:mod:`metaeval.report.leaderboard`)
- :func:`load_results` reads CSV/TSV/JSON written by :func:`render` back (:mod:`metaeval.report.data`)
- :func:`write_atomic` (:mod:`metaeval.report.files`), used by every command that writes a file
- :mod:`metaeval.report.plots` (matplotlib, imported only when used)
"""

from __future__ import annotations

from metaeval.report.data import load_results
from metaeval.report.files import write_atomic, write_bytes_atomic
from metaeval.report.leaderboard import FORMATS, render, select
from metaeval.report.layout import LAYOUTS

__all__ = ["FORMATS", "LAYOUTS", "load_results", "render", "select", "write_atomic", "write_bytes_atomic"]
