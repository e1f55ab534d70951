"""The analysis of the Li et al. 2011 reproduction: which tables and tests each dataset gets.

What is computed (datasets, reference subsets, segmenters, metrics, statistics, bootstrap,
seed) is declared in ``study.toml`` beside this file and run by ``metaeval study``. Here each
entry names a dataset of that study (its ``path``; the study's datasets with that path are its
reference variants, named ``<name><label>``), the tables to write (judgment kind, level,
statistic, grouping) and the char-vs-word significance tests to run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: The study: datasets x segmenters x metrics x statistics, bootstrap and seed.
SPEC = Path(__file__).with_name("study.toml")
#: The seed of the paired char-vs-word tests (the study's seed).
SEED = 12345
#: Word-level segmenters (cjk-char mixes characters with Latin words and is reported apart).
WORD_SEGMENTERS = ("jieba", "pkuseg", "mecab")

#: (judgment kind, level, statistic, grouping): None in a table means any grouping; the
#: tests pass "none" (it only matters for segment-level correlations)
Table = tuple


@dataclass(frozen=True)
class Dataset:
    name: str
    path: str
    description: str
    tables: tuple[Table, ...]
    tests: tuple[Table, ...] = ()

    @property
    def slug(self) -> str:
        return self.name.replace("/", "_")


#: The WMT23-24 statistics next to Li et al.'s: acc23 at eps = 0 and acc_eq (tie calibration),
#: both grouped by item as WMT23, and the WMT21-24 system-level pairwise accuracies.
TIE_TABLES = (
    ("esa", "seg", "kendall_acc23", "item"), ("esa", "seg", "acc_eq", "item"),
    ("esa", "sys", "pairwise_accuracy", None), ("esa", "sys", "soft_pairwise_accuracy", None),
)  # fmt: skip
TIE_TESTS = (
    ("esa", "seg", "kendall_acc23", "item"), ("esa", "seg", "acc_eq", "item"),
    ("esa", "sys", "pairwise_accuracy", "none"), ("esa", "sys", "soft_pairwise_accuracy", "none"),
)  # fmt: skip


def _esa(name: str, path: str, lang: str) -> Dataset:
    seg = (("esa", "seg", "consistency", None), ("esa_z", "seg", "pearson", "none"))
    sys_ = (("esa", "sys", "spearman", None), ("esa_z", "sys", "spearman", None))
    tests = (("esa", "seg", "consistency", "none"), ("esa_z", "seg", "pearson", "none"), ("esa", "sys", "spearman", "none"))
    return Dataset(
        name, path, f"WMT24 English→{lang}, ESA (634 paragraphs × 12 systems, one rating each)",
        tables=seg + sys_ + TIE_TABLES, tests=tests + TIE_TESTS,
    )


def _sys(name: str, path: str, description: str, kind: str) -> Dataset:
    return Dataset(name, path, description,
                   tables=((kind, "sys", "spearman", None), (kind, "sys", "pearson", None), (kind, "sys", "pairwise_accuracy", None)),
                   tests=((kind, "sys", "spearman", "none"), (kind, "sys", "pairwise_accuracy", "none")))


DATASETS: tuple[Dataset, ...] = (
    _esa("wmt24-esa/en-zh", "wmt24-esa/en-zh", "Chinese"),
    _esa("wmt24-esa/en-ja", "wmt24-esa/en-ja", "Japanese"),
    _sys("wmt21/en-zh", "wmt21/en-zh", "WMT21 English→Chinese, 29 systems, system-level DA (z)", "da_z"),
    _sys("wmt21/en-ja", "wmt21/en-ja", "WMT21 English→Japanese, 15 systems, system-level DA (z)", "da_z"),
    _sys("wmt23/en-zh", "wmt23/en-zh", "WMT23 English→Chinese, 14 systems, system-level DA+SQM (z)", "dasqm_z_mean"),
    _sys("wmt23/en-ja", "wmt23/en-ja", "WMT23 English→Japanese, 15 systems, system-level DA+SQM (z)", "dasqm_z_mean"),
    Dataset(
        "mlqe-pe/en-zh-test20", "mlqe-pe/en-zh-test20",
        "MLQE-PE English→Chinese test20, one system, segment-level DA and HTER (reference = post-edit)",
        tables=(("da_z", "seg", "pearson", "none"), ("da", "seg", "pearson", "none"), ("hter", "seg", "pearson", "none"),
                ("da", "seg", "kendall_acc23", "none"), ("da", "seg", "acc_eq", "none")),
        tests=(("da_z", "seg", "pearson", "none"), ("hter", "seg", "pearson", "none"),
               ("da", "seg", "kendall_acc23", "none"), ("da", "seg", "acc_eq", "none")),
    ),
)
