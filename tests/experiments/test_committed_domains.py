"""The README's findings per domain of WMT24 are copied from the committed result files of
``metaeval study experiments/domains/study.toml`` (``experiments/results/domains``): each check
rebuilds the README's wording from ``answer.tsv`` and ``study.json`` and looks for it in
README.md, so a rerun that moves a number, or an edit of the README not copied from the files,
fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results" / "domains"
README = (REPO / "README.md").read_text(encoding="utf-8")
ANSWER = pd.read_csv(RESULTS / "answer.tsv", sep="\t", keep_default_na=False)
STUDY = json.loads((RESULTS / "study.json").read_text(encoding="utf-8"))
LANGUAGES = {"wmt24-esa/en-zh": "en-zh", "wmt24-esa/en-ja": "en-ja"}
DOMAINS = ("literary", "news", "social", "speech")
#: The table's columns: (human score, level, statistic), MDE beside the segment-level ones.
COLUMNS = (("esa", "seg", "acc_eq"), ("esa_z", "seg", "pearson"), ("esa_z", "sys", "spearman"))


def section() -> str:
    start = README.index("### Does the answer hold in every domain?")
    return README[start : README.index("\n### ", start + 1)]


def prose() -> str:
    return " ".join(section().split())


def row(dataset: str, subset: str, kind: str, level: str, statistic: str):  # noqa: ANN201
    (found,) = ANSWER[(ANSWER.dataset == dataset) & (ANSWER.subset == subset) & (ANSWER.judgment_kind == kind)
                      & (ANSWER.level == level) & (ANSWER.statistic == statistic)].itertuples()  # fmt: skip
    return found


def test_every_domain_is_answered_and_the_sizes_are_the_recorded_ones():
    for run in STUDY["runs"] if "runs" in STUDY else []:
        assert run["signature"]["by"]["column"] == "domain"
    assert set(ANSWER.subset) == {"all", *DOMAINS}
    sizes = {d["name"]: d for d in STUDY["datasets"]}
    assert set(sizes) == set(LANGUAGES) and all(d["by"] == "domain" for d in sizes.values())
    text = json.dumps(STUDY)
    for domain, n in (("social", 305), ("news", 138), ("speech", 111), ("literary", 80)):
        assert f'"{domain}": {n}' in text
        assert f"{domain} {n}" in prose()


def test_the_domain_table_is_copied_from_the_answer():
    lines = [line for line in section().splitlines() if line.startswith(("| en-zh", "| en-ja"))]
    expected = []
    for dataset, language in LANGUAGES.items():
        for subset in ("all", *DOMAINS):
            cells = []
            for kind, level, statistic in COLUMNS:
                r = row(dataset, subset, kind, level, statistic)
                cells.append(f"{r.char_ahead} of {r.metrics} ({r.char_significant}:{r.word_significant})")
                if level == "seg":
                    cells.append(f"{r.mde:.3f}")
            expected.append(f"| {language} | {subset} | " + " | ".join(cells) + " |")
    assert lines == expected


def test_the_findings_per_domain_are_copied_from_the_answer():
    text = prose()
    zh = "wmt24-esa/en-zh"
    ahead = [row(zh, d, *c).char_ahead for d in DOMAINS for c in COLUMNS[:2]]
    assert f"Characters are ahead on {min(ahead)}–{max(ahead)} of 5 metrics in each domain" in text
    literary, whole = row(zh, "literary", *COLUMNS[0]), row(zh, "all", *COLUMNS[0])
    assert literary.char_significant == literary.word_significant == 0 and whole.char_significant == whole.metrics
    assert f"literary paragraphs `acc_eq` detects differences of {literary.mde:.3f} and none is significant" in text
    assert f"on all 634 paragraphs {whole.mde:.3f}, and all {whole.metrics} are" in text
    ja = "wmt24-esa/en-ja"
    social = row(ja, "social", *COLUMNS[0])
    assert f"({social.char_ahead} of 5 ahead under `acc_eq`, all {social.char_significant} significant)" in text
    for domain in ("news", "speech"):
        r = row(ja, domain, *COLUMNS[0])
        assert (r.metrics - r.char_ahead, r.char_significant, r.word_significant) == (3, 0, 0)
    assert "in news and in speech the word level is ahead on 3 of 5 metrics under `acc_eq` (none significant" in text
    speech = row(ja, "speech", *COLUMNS[0])
    assert speech.metric == "meteor"
    assert f"speech METEOR {speech.delta:+.3f} [{speech.delta_ci_low:+.3f}, {speech.delta_ci_high:+.3f}]".replace("-", "−") in text
    pearson = [row(ja, d, *COLUMNS[1]).char_ahead for d in DOMAINS]
    assert f"Pearson keeps characters ahead on {min(pearson)}–{max(pearson)} of 5 in every domain" in text
    spearman = ANSWER[(ANSWER.level == "sys") & (ANSWER.statistic == "spearman")]
    assert (spearman.char_significant == 0).all() and (spearman.word_significant == 0).all()
    assert "no char-vs-word Spearman difference is significant in any domain of either language" in text
