"""The experiment as data: which corpora, which segmenters, which settings, where to write."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from metaeval.equivalence import EquivalenceSettings

REPO = Path(__file__).resolve().parents[2]
#: Shared evaluation data: ``$METAEVAL_DATA`` or ``<repo>/../shared/data``.
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data"))
OUT = REPO / "experiments" / "results" / "denoual2005"


@dataclass(frozen=True)
class Dataset:
    """A corpus folder (relative to :data:`DATA`) and the word segmenters compared with ``char``.

    ``figures``: draw Figure 1 (scatter) and Figure 2 (fraction under the diagonal).
    """

    path: str
    word_segmenters: tuple[str, ...]
    figures: bool = False

    @property
    def slug(self) -> str:
        return self.path.replace("/", "_")


CHAR_SEGMENTER = "char"
SETTINGS = EquivalenceSettings(max_word_order=4, max_char_order=30, n_grades=10, threshold=0.9)
#: Figure 1 plots BLEUw4 against BLEUc18 (the paper's equivalent order for N = 4).
SCATTER_ORDERS = (4, 18)

#: English targets, as in the paper (which used 4 systems x 510 sentences, 13 references).
ENGLISH = (
    Dataset("wmt21/ja-en", ("13a",), figures=True),
    Dataset("wmt21/de-en", ("13a",), figures=True),
)
#: The new question: Chinese and Japanese targets with real word segmenters.
CJK = (
    Dataset("wmt24-esa/en-zh", ("jieba", "pkuseg")),
    Dataset("wmt21/en-zh", ("jieba", "pkuseg")),
    Dataset("wmt24-esa/en-ja", ("mecab",)),
    Dataset("wmt21/en-ja", ("mecab",)),
)
DATASETS = ENGLISH + CJK
