"""``metaeval run`` of WMT24 English→Chinese with every judgment multiplied by 1e300 or by 1e-300
(any unit of judgments is legal) gives the values and intervals of the unscaled corpus, to a
relative 1e-9, and writes nothing more to standard error (no numpy warning).

The corpus is copied from the shared data into a temporary folder and its judgment files
(``judgments.tsv``, ``human_sys.tsv``) rewritten scaled; the three runs share one cache, so that
only the statistics are computed again."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from tests.golden_util import DATA

CORPUS = DATA / "wmt24-esa" / "en-zh"
SCALES = {"x1": 1.0, "x1e300": 1e300, "x1e-300": 1e-300}
#: Judgment columns of the corpus (``iwslt_ranks.tsv`` holds ranks: no unit to change).
SCALED = {"judgments.tsv": ["value"], "human_sys.tsv": ["esa", "esa_z"]}

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no {CORPUS}")]


def _scaled_copy(folder, factor: float) -> None:
    shutil.copytree(CORPUS, folder)
    for name, columns in SCALED.items():
        table = pd.read_csv(CORPUS / name, sep="\t", dtype=str, keep_default_na=False)
        for column in columns:
            table[column] = [repr(float(v) * factor) if v else v for v in table[column]]
        table.to_csv(folder / name, sep="\t", index=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``{name: (rows, stderr)}`` of the default ``metaeval run`` of each scaled copy."""
    root = tmp_path_factory.mktemp("scaled")
    out = {}
    for name, factor in SCALES.items():
        _scaled_copy(root / name / "wmt24-esa" / "en-zh", factor)
        proc = subprocess.run([sys.executable, "-m", "metaeval", "run", "wmt24-esa/en-zh", "--jobs", "1", "--quiet", "--format", "json",
                               "--cache-dir", str(root / "cache")], cwd=root / name, capture_output=True, text=True, check=False)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        out[name] = json.loads(proc.stdout), proc.stderr
    return out


def _same(a: object, b: object) -> bool:
    """Numbers equal to a relative 1e-9 (None and NaN alike), anything else equal."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


@pytest.mark.parametrize("name", ["x1e300", "x1e-300"])
def test_judgments_scaled_by_1e300_or_1e_300_give_the_values_and_intervals_of_the_unscaled(runs, name):
    """Every field of every row of the results and of the answer: values, intervals, p-values,
    epsilons, counts and notes."""
    base, scaled = runs["x1"][0], runs[name][0]
    for part in ("rows", "answer"):
        assert len(base[part]) == len(scaled[part]) > 0
        for a, b in zip(base[part], scaled[part]):
            assert a.keys() == b.keys()
            where = {k: a.get(k) for k in ("segmenter", "metric", "level", "statistic", "grouping", "judgment_kind")}
            different = {k: (a[k], b[k]) for k in a if not _same(a[k], b[k])}
            assert not different, (part, where, different)
    intervals = sum(row["ci_low"] is not None and row["ci_high"] is not None for row in base["rows"])
    pearson = [row for row in base["rows"] if row["statistic"] == "pearson"]
    assert intervals > len(base["rows"]) // 2 and pearson and all(row["ci_low"] is not None for row in pearson)


@pytest.mark.parametrize("name", ["x1e300", "x1e-300"])
def test_judgments_scaled_by_1e300_or_1e_300_write_no_warning(runs, name):
    assert runs[name][1] == runs["x1"][1]
    assert "Warning" not in runs[name][1] and "RuntimeWarning" not in runs["x1"][1]
