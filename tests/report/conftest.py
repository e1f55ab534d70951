"""A small synthetic ResultTable shared by the report tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

HOSTILE = "<script>alert(1)</script>"
NAN = float("nan")


def result_row(metric, segmenter, statistic, value, ci=(NAN, NAN), n=NAN, *, level="seg", kind="rank",
               grouping="none", counts=(NAN, NAN, NAN, NAN), note="", dataset="toy-zh"):  # fmt: skip
    c, d, mt, ht = counts
    return {
        "dataset": dataset, "metric": metric, "segmenter": segmenter, "config": f"{metric}+{segmenter}",
        "judgment_kind": kind, "level": level, "statistic": statistic, "grouping": grouping,
        "tie_policy": "exclude", "value": value, "ci_low": ci[0], "ci_high": ci[1], "n": n,
        "p_value": NAN, "concordant": c, "discordant": d, "metric_ties": mt, "human_ties": ht,
        "sys_human": "derived" if level == "sys" else "", "note": note,
    }  # fmt: skip


def toy_rows() -> list[dict]:
    """Segment-level consistency for 2 metrics x 3 segmenters (one undefined), plus one sys row.

    consistency = C / (C + D): 693/1000 = 0.693, 640/1000 = 0.640, 700/1000 = 0.700, 650/1000 = 0.650,
    660/1000 = 0.660.
    """
    return [
        result_row("bleu", "char", "consistency", 0.693, (0.671, 0.712), 1000, counts=(693, 307, 4, 11)),
        result_row("bleu", "jieba", "consistency", 0.640, (0.620, 0.660), 1000, counts=(640, 360, 2, 11)),
        result_row("bleu", "pkuseg", "consistency", 0.650, (0.628, 0.671), 1000, counts=(650, 350, 0, 11)),
        result_row("nist", "char", "consistency", 0.700, (0.680, 0.720), 1000, counts=(700, 300, 1, 11)),
        result_row("nist", "jieba", "consistency", 0.660, (0.640, 0.680), 1000, counts=(660, 340, 3, 11)),
        result_row("nist", "pkuseg", "consistency", NAN, n=0, counts=(0, 0, 0, 11), note="no comparable pairs"),
        result_row("bleu", "char", "spearman", 0.9, (0.5, 1.0), 7, level="sys", grouping=""),
    ]


def toy_signature() -> dict:
    return {
        "dataset": "toy-zh",
        "seed": 12345,
        "n_bootstrap": 1000,
        "threshold": None,
        "references": ["refA", "refB"],
        "segmenters": {"char": "char|metaeval-0.1.0", "jieba": "jieba-0.42.1|dict:default|hmm:yes"},
        "metrics": {"bleu": "bleu|n:4|smooth:mteval", "nist": "nist|n:5"},
        "versions": {"metaeval": "0.1.0", "numpy": np.__version__},
    }


@pytest.fixture
def results() -> pd.DataFrame:
    return pd.DataFrame(toy_rows())


@pytest.fixture
def signature() -> dict:
    return toy_signature()
