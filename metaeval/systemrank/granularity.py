"""The order of granularities on a system leaderboard: the axis of the sweep.

:mod:`metaeval.sweep` places every granularity on one axis, its mean characters per token
(:func:`metaeval.sweep.chars_per_token`), so that characters come first, then subwords, then
words, and any new kind of unit (bytes) falls into place by the same measure, with no list of
names to extend. The leaderboard orders its segmenters the same way, measured on the
references (every reference of the corpus): the text that every configuration shares, and
that a run has already segmented. Ties are broken by name, as in the sweep's tables;
segmenters that cannot be measured (a plug-in object given to the API that cannot be rebuilt
from its label) come last, in the order given.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import pandas as pd

from metaeval.corpora.model import Corpus
from metaeval.errors import MetaevalError

COLUMNS = ("name", "family", "chars_per_token")


def granularity_order(corpus: Corpus, segmenters: Sequence[Any], measured: Mapping[str, float] | None = None,
                      cache_dir: Any = None) -> pd.DataFrame:  # fmt: skip
    """``name, family, chars_per_token`` of each segmenter (a spec, label or object), sorted
    as the sweep's axis (module docstring).

    ``measured``: the value of segmenters already measured, by label (what scoring found:
    :attr:`metaeval.scoring.ScoreResult.reference_chars_per_token`); the others segment the
    references, with the segmentation cache and models of ``cache_dir`` when given.
    """
    from metaeval.scoring import get_segmenter, reference_lines, segmenter_label
    from metaeval.segmenters.cache import SegmentationCache
    from metaeval.sweep import chars_per_token, family_of

    measured = measured or {}
    cache = SegmentationCache(cache_dir)
    references = reference_lines(corpus)
    rows = []
    for position, item in enumerate(dict.fromkeys(segmenters)):
        label = item if isinstance(item, str) else segmenter_label(item)
        if label in measured:
            rows.append((label, family_of(label), float(measured[label]), position))
            continue
        try:
            segmenter = get_segmenter(item, corpus, cache_dir)
            label = segmenter_label(segmenter)
            mean = chars_per_token(cache.segment(segmenter, references))[0]
        except MetaevalError:
            mean = math.nan
        rows.append((label, family_of(label), mean, position))
    rows.sort(key=lambda row: (0.0, row[3], "") if math.isnan(row[2]) else (-1.0, row[2], row[0]))
    return pd.DataFrame([row[:3] for row in rows], columns=list(COLUMNS))


__all__ = ["COLUMNS", "granularity_order"]
