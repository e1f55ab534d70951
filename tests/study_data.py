"""Study data shared by the study tests: slices of WMT24 ESA en-zh as small datasets, and the
smallest study file. The ``data`` fixture that lays three of them out is in ``conftest.py``."""

from __future__ import annotations

from pathlib import Path

from tests.robustness._helpers import WMT24_ZH, lines, write

SYSTEMS = ("GPT-4", "Aya23", "IKUN", "ONLINE-B")

#: The smallest study: one dataset, ``tiny``, 20 resamples, written to ``out``.
BASE = '[study]\nout = "out"\nbootstrap = 20\n\n[[dataset]]\npath = "tiny"\n'


def slice_corpus(root: Path, start: int, stop: int) -> Path:
    """Lines start+1..stop of WMT24 ESA en-zh, four systems, judgments renumbered from 1."""

    def part(path: Path) -> bytes:
        return b"".join(path.read_bytes().splitlines(keepends=True)[start:stop])

    write(root / "src.en", part(WMT24_ZH / "src.en"))
    write(root / "ref.refA.zh", part(WMT24_ZH / "ref.refA.zh"))
    for name in SYSTEMS:
        write(root / "systems" / f"{name}.zh", part(WMT24_ZH / "systems" / f"{name}.zh"))
    rows = (WMT24_ZH / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    kept = [rows[0]]
    for row in rows[1:]:
        seg, system, *rest = row.split("\t")
        if system in SYSTEMS and start < int(seg) <= stop:
            kept.append("\t".join([str(int(seg) - start), system, *rest]))
    write(root / "judgments.tsv", lines(kept))
    return root
