"""The analysis of the Denoual & Lepage (2005) reproduction: which datasets get which tables.

What is computed (corpora, word segmenters, the character segmenter, orders and thresholds) is
declared in ``study.toml`` beside this file and run by ``metaeval study``; this module reads
it (without loading any model) and adds what only the report needs: which datasets have
English targets (Tables 1-4 and the figures) and where the outputs go.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metaeval.studyspec import load_spec

REPO = Path(__file__).resolve().parents[2]
#: The study: datasets, word segmenters, character segmenter, orders.
SPEC = Path(__file__).with_name("study.toml")
OUT = REPO / "experiments" / "results" / "denoual2005"
#: English targets, as in the paper (which used 4 systems x 510 sentences, 13 references):
#: Tables 1-4 and Figures 1-2. The others are the new question, Table 5.
ENGLISH_PATHS = ("wmt21/ja-en", "wmt21/de-en")


@dataclass(frozen=True)
class Dataset:
    """A corpus folder (relative to the data folder) and the word segmenters compared with
    the character segmenter. ``figures``: draw Figure 1 (scatter) and Figure 2 (fraction under
    the diagonal)."""

    path: str
    word_segmenters: tuple[str, ...]
    figures: bool = False

    @property
    def slug(self) -> str:
        return self.path.replace("/", "_")


_STUDY = load_spec(SPEC, check=False)
SETTINGS = _STUDY.equivalence
CHAR_SEGMENTER = _STUDY.char_segmenter
#: Figure 1 plots BLEUw4 against BLEUc18 (the paper's equivalent order for N = 4).
SCATTER_ORDERS = (4, 18)

DATASETS = tuple(
    Dataset(d.path, tuple(_STUDY.choice(d, "word_segmenters") or ()), figures=d.path in ENGLISH_PATHS) for d in _STUDY.datasets
)
ENGLISH = tuple(d for d in DATASETS if d.path in ENGLISH_PATHS)
CJK = tuple(d for d in DATASETS if d.path not in ENGLISH_PATHS)
