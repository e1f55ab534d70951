"""Access to the shared data and to the golden values of the reference tools.

The shared folder is ``$METAEVAL_SHARED`` or ``../shared`` beside the repository root.
Golden folders hold pre-tokenized text: tokens are separated by single spaces, and
segment ids are 1-based line numbers (``../shared/golden/README.md``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("METAEVAL_SHARED", REPO.parent / "shared")).resolve()
DATA = SHARED / "data"
GOLDEN = SHARED / "golden"
GOLDEN_FOLDERS = sorted(p for p in GOLDEN.glob("*") if (p / "golden.tsv").is_file()) if GOLDEN.is_dir() else []


def read_tokens(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip("\n").split() for line in handle]


def load_golden_folder(folder: Path) -> tuple[list[list[list[str]]], dict[str, list[list[str]]], pd.DataFrame]:
    """References ``[n_refs][n_seg]``, systems ``{name: [n_seg]}`` as token lists, and golden.tsv.

    References are taken in the order of ``spec.json``'s ``refs`` when present, else by file name.
    """
    ref_files = sorted(folder.glob("ref.*"))
    spec_path = folder / "spec.json"
    if spec_path.is_file():
        order = json.loads(spec_path.read_text(encoding="utf-8")).get("refs", [])
        rank = {name: i for i, name in enumerate(order)}
        ref_files.sort(key=lambda p: rank.get(p.name.split(".")[1], len(rank)))
    refs = [read_tokens(p) for p in ref_files]
    systems = {p.name.rsplit(".", 1)[0]: read_tokens(p) for p in sorted((folder / "systems").glob("*"))}
    golden = pd.read_csv(folder / "golden.tsv", sep="\t", dtype={"seg_id": str}, keep_default_na=False)
    golden["score"] = golden["score"].astype(float)
    return refs, systems, golden


def shared_corpora() -> list[Path]:
    """The corpus folders of ``../shared/data`` (``<dataset>/<pair>``, each with ``systems/``;
    the ``original/`` copies of WMT24 are not separate corpora): the ten of its README."""
    return sorted(p.parent for p in DATA.glob("*/*/systems")) if DATA.is_dir() else []
