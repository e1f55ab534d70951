"""A hypothesis that differs from its reference only in Unicode normalisation form (NFD
against NFC, full-width against half-width) is reported through the real command: one
warning line naming the system file, the reference file and the number of segments, unless
every segmenter normalises (``nfkc=true``); no warning when the forms agree."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from metaeval.corpora.model import Corpus
from metaeval.forms import form_only_differences
from tests.timing import run

from ._helpers import REPO, Result, lines, write

REF = ["我喝café。", "价格是100元。", "今天下雨。", "ﬁle在这里。"]
#: segment 1 in NFD, segment 2 with full-width digits; 3 and 4 differ in content
FORMS = [unicodedata.normalize("NFD", REF[0]), "价格是１００元。", "今天有雨。", "file不在这里。"]


def metaeval(*argv: "str | Path") -> Result:
    done = run([sys.executable, "-m", "metaeval", *map(str, argv)], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    return Result(done.returncode, done.stdout, done.stderr)


def corpus_with(root: Path, systems: dict[str, list[str]]) -> Path:
    write(root / "src.en", lines(["a", "b", "c", "d"]))
    write(root / "ref.A.zh", lines(REF))
    for name, texts in systems.items():
        write(root / "systems" / f"{name}.zh", lines(texts))
    return root


def warnings_of(result: Result) -> list[str]:
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    return [line for line in result.err.splitlines() if line.startswith("metaeval: warning:")]


def test_form_only_differences_are_one_warning_line_per_file(tmp_path):
    assert FORMS[0] != REF[0] and unicodedata.normalize("NFC", FORMS[0]) == REF[0]
    corpus = corpus_with(tmp_path / "c", {"forms": FORMS, "same": REF})
    result = metaeval("score", corpus, "-s", "char", "-m", "chrf", "-q", "-l", "sys")
    (line,) = warnings_of(result)
    assert str(corpus / "systems" / "forms.zh") in line and str(corpus / "ref.A.zh") in line
    assert "only in Unicode normalisation form" in line and "in 2 segments (first: segment 1)" in line
    assert "nfkc=true" in line
    assert result.err.splitlines() == [line]
    assert "forms" in result.out  # the scores are still written


def test_no_warning_when_every_segmenter_normalises(tmp_path):
    corpus = corpus_with(tmp_path / "c", {"forms": FORMS, "same": REF})
    assert warnings_of(metaeval("score", corpus, "-s", "char:nfkc=true", "-m", "chrf", "-q")) == []
    # one segmenter that does not normalise is enough for the warning
    assert len(warnings_of(metaeval("score", corpus, "-s", "char:nfkc=true", "-s", "cjk-char", "-m", "chrf",
                                    "-q"))) == 1


def test_no_warning_when_forms_agree(tmp_path):
    corpus = corpus_with(tmp_path / "c", {"other": ["我喝咖啡。", "价格是200元。", "今天有雨。", "file不在这里。"],
                                          "same": REF})
    assert warnings_of(metaeval("score", corpus, "-s", "char", "-m", "chrf", "-q")) == []


def test_detection_by_pair_of_files():
    corpus = Corpus(seg_ids=("1", "2", "3", "4"), sources=("a", "b", "c", "d"),
                    references={"A": tuple(REF), "B": tuple(FORMS)},
                    systems={"forms": tuple(FORMS), "same": tuple(REF)})
    found = {(d.system, d.reference): (d.count, d.first_seg) for d in form_only_differences(corpus)}
    # REF[3] "ﬁle在这里。" against "file不在这里。" differs in content too: not counted
    assert found == {("forms", "A"): (2, "1"), ("same", "B"): (2, "1")}


def test_form_only_differences_of_several_files_are_one_warning_line_per_run(tmp_path):
    corpus = corpus_with(tmp_path / "c", {"forms": FORMS, "again": FORMS, "same": REF})
    (line,) = warnings_of(metaeval("score", corpus, "-s", "char", "-s", "cjk-char", "-m", "chrf", "-q", "-l", "sys"))
    assert str(corpus / "systems" / "forms.zh") in line and str(corpus / "systems" / "again.zh") in line
    assert line.count("segmenters without nfkc=true") == 1  # the advice once
