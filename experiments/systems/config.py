"""What the system-leaderboard experiment computes, and the published ranking it is set beside.

Every dataset is scored with Li et al. 2011's metrics (those whose value depends on the
segmentation; chrF does not) under the characters, two SentencePiece BPE vocabularies from
the sweep's ladder and the word segmenters of the study, and ranked against the human score
WMT ranked by (raw ESA for WMT24, the DA z-score for WMT21).
"""

from __future__ import annotations

from dataclasses import dataclass

SEED = 12345
#: Resamples of the paired bootstrap between systems: enough for Holm's adjustment over WMT21's
#: 406 pairs of 29 systems to call a pair significant at all (8,120 at least:
#: :func:`metaeval.stats.systems.rankranges.resamples_needed`; with 1,000 the smallest p-value,
#: 1/1001, times 66 pairs of WMT24's 12 systems is already above 0.05).
BOOTSTRAP = 10_000
ALPHA = 0.05
#: p-values of each ranking's pairs of systems adjusted together (metaeval's default).
ADJUST = "holm"
METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter")
#: SentencePiece BPE vocabularies as multiples of the references' distinct characters
#: (two rungs of the sweep's ladder, :data:`metaeval.sweep.SUBWORD_LADDER`)
SUBWORD_LADDER = (("bpe", (1.5, 3.0)),)
#: The metric whose leaderboards the README shows.
README_METRIC = "bleu"


@dataclass(frozen=True)
class Dataset:
    path: str
    segmenters: tuple[str, ...]
    kind: str
    description: str

    @property
    def slug(self) -> str:
        return self.path.replace("/", "_")


DATASETS = (
    Dataset("wmt24-esa/en-zh", ("char", "cjk-char", "jieba", "pkuseg"), "esa",
            "WMT24 English→Chinese, ESA, 634 judged paragraphs × 12 systems"),
    Dataset("wmt24-esa/en-ja", ("char", "cjk-char", "mecab"), "esa",
            "WMT24 English→Japanese, ESA, 634 judged paragraphs × 12 systems"),
    Dataset("wmt21/en-zh", ("char", "cjk-char", "jieba", "pkuseg"), "da_z",
            "WMT21 English→Chinese, system-level DA z-scores, 1,002 segments × 29 systems, references A and B"),
)  # fmt: skip

#: WMT24's published English-Chinese ranking, quoted from wmt-conference/wmt24-news-systems,
#: humeval/generated_human_ranking.tex at commit 71cc027 (table "English-Chinese (1040
#: segments per system)"): rank range, system (HUMAN-A is the reference refA), human score
#: (ESA averaged over domains), in the table's order; its rules close clusters after the 8th,
#: 10th and 12th rows.
WMT24_EN_ZH_PUBLISHED = (
    ("1-7", "ONLINE-B", 89.8), ("1-6", "refA", 89.6), ("1-4", "Unbabel-Tower70B", 89.5), ("7-8", "IOL-Research", 89.4),
    ("2-7", "GPT-4", 89.4), ("1-7", "Gemini-1.5-Pro", 89.0), ("2-6", "Claude-3.5", 88.8), ("4-8", "CommandR-plus", 87.8),
    ("9-10", "Llama3-70B", 86.7), ("9-10", "HW-TSC", 85.8), ("11-12", "IKUN", 84.4), ("11-12", "Aya23", 84.3),
    ("13-13", "IKUN-C", 81.5),
)  # fmt: skip
WMT24_EN_ZH_PUBLISHED_CLUSTERS = (1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4)
WMT24_EN_ZH_PUBLISHED_SEGMENTS = 1040
