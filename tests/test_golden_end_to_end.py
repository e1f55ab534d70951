"""Every golden row, reproduced through the public API on the golden corpus folders.

Each folder of ``../shared/golden`` is read as a plain corpus folder with the ``whitespace``
segmenter (its texts are already tokenized) and scored with ``metaeval.score``; each row of
``golden.tsv`` is compared with the score at its level. The test counts the rows it
compared and fails if any golden file or row is left out.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import metaeval
from tests.golden_util import DATA, GOLDEN_FOLDERS

METEOR_WORDS = DATA / "meteor" / "english.words"


#: Every tool printed its scores at full double precision (15-17 significant digits; mteval-v13a
#: prints 15), so one tolerance holds for all: 1e-9, far above the largest difference measured
#: (5e-14) and far below any difference a wrong count or formula makes.
TOLERANCE = 1e-9


def spec_and_tolerance(name: str) -> tuple[str, float]:
    """The metric spec that reproduces a golden metric name, and the allowed difference."""
    fixed = {
        "bleu": ("bleu", TOLERANCE),
        "nist": ("nist", TOLERANCE),
        "ter": ("ter", TOLERANCE),
        "meteor_exact_other": ("meteor:params=other", TOLERANCE),
        "meteor_exact_en": (f"meteor:params=en,function_words={METEOR_WORDS}", TOLERANCE),
    }
    if name in fixed:
        return fixed[name]
    if m := re.fullmatch(r"gtm_e(\d)", name):
        return f"gtm:e={m.group(1)}", TOLERANCE
    if m := re.fullmatch(r"bleu_n(\d+)_(none|exp|floor)", name):
        return f"bleu:n={m.group(1)},smooth={m.group(2)}", TOLERANCE
    raise AssertionError(f"golden metric {name!r} has no spec: extend this test")


def test_every_golden_row_is_reproduced_through_score():
    assert len(GOLDEN_FOLDERS) == 4, GOLDEN_FOLDERS
    compared = 0
    expected = 0
    largest = 0.0
    for folder in GOLDEN_FOLDERS:
        golden = pd.read_csv(folder / "golden.tsv", sep="\t", dtype={"seg_id": str}, keep_default_na=False)
        expected += len(golden)
        specs = {name: spec_and_tolerance(name) for name in golden["metric"].unique()}
        table = metaeval.score(folder, segmenters=["whitespace"], metrics=[s for s, _ in specs.values()], levels=["seg", "sys"])
        ours = table.set_index(["metric", "system", "seg_id"])["score"]
        for row in golden.itertuples(index=False):
            spec, tolerance = specs[row.metric]
            value = ours[(spec, row.system, row.seg_id)]
            assert value == pytest.approx(float(row.score), abs=tolerance), (folder.name, row.metric, row.system, row.seg_id)
            largest = max(largest, abs(value - float(row.score)))
            compared += 1
    assert compared == expected == 11_323, (compared, expected)
    assert largest < 1e-12, largest  # what the tools print is reproduced to rounding


def test_meteor_en_without_word_list_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("METAEVAL_METEOR_FUNCTION_WORDS", raising=False)
    with pytest.raises(metaeval.MetaevalError, match="function"):
        metaeval.score(GOLDEN_FOLDERS[0], segmenters=["whitespace"], metrics=["meteor:params=en"])


def test_one_segment_corpus_equals_the_segment_score():
    folder = next(f for f in GOLDEN_FOLDERS if f.name == "edge")
    corpus, _ = metaeval.read_corpus(folder)
    for seg_id in corpus.seg_ids:
        one = corpus.subset(seg_ids=[seg_id])
        table = metaeval.score(one, segmenters=["whitespace"], metrics=["bleu", "ter", "gtm:e=2", "meteor", "chrf"], levels=["seg", "sys"])
        for metric, rows in table.groupby("metric"):
            seg = rows[rows.level == "seg"]["score"].to_numpy()
            sys_ = rows[rows.level == "sys"]["score"].to_numpy()
            assert np.allclose(seg, sys_, atol=1e-12), (metric, seg_id)
