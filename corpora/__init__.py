"""Reading and validating evaluation data: every format in, one Corpus and one Judgments out.

Entry points: :func:`read` (corpus layouts) and :func:`read_judgments` (judgment files);
:data:`FORMATS` lists the format names. Each reader is also public on its own.
"""

from metaeval.corpora.model import Corpus, Judgments, apply_missing_policy, kind_direction

from .appraise import read_appraise_csv
from .detect import (
    CORPUS_FORMATS,
    FORMATS,
    JUDGMENT_FORMATS,
    detect_corpus_format,
    detect_judgment_format,
    read,
    read_judgments,
)
from .folder import (
    read_corpus_folder,
    read_human_sys,
    read_judgments_folder,
    read_long_judgments,
    read_system_judgments,
)
from .iwslt import read_iwslt_ranks
from .mqm import read_mqm_tsv
from .mtme import read_mtme_folder
from .nist import read_nist_sgml
from .nist_fa import read_nist_fa
from .wmt_da import read_ad_seg_scores
from .wmt_rr import read_wmt_rr_csv

__all__ = [
    "CORPUS_FORMATS",
    "FORMATS",
    "JUDGMENT_FORMATS",
    "Corpus",
    "Judgments",
    "apply_missing_policy",
    "detect_corpus_format",
    "detect_judgment_format",
    "kind_direction",
    "read",
    "read_ad_seg_scores",
    "read_appraise_csv",
    "read_corpus_folder",
    "read_human_sys",
    "read_iwslt_ranks",
    "read_judgments",
    "read_judgments_folder",
    "read_long_judgments",
    "read_mqm_tsv",
    "read_mtme_folder",
    "read_nist_fa",
    "read_nist_sgml",
    "read_system_judgments",
    "read_wmt_rr_csv",
]
