"""Bad corpus files through every command that reads a corpus: one line naming the file and
the line (or the count), exit status 1, nothing on stdout, no output file left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._helpers import FAST, HYPS, REF, assert_error, leftovers, lines, make_corpus, write

SYS = Path("systems") / "s2.zh"

#: argv after the corpus folder, per command (cheap settings).
COMMANDS = {
    "score": ("-s", "char", "-m", "bleu", "-q"),
    "run": FAST,
    "equivalence": ("--word-segmenter", "char", "--max-char-order", "4"),
}


def _drop_last(data: bytes) -> bytes:
    return b"".join(data.splitlines(keepends=True)[:-1])


# (corruption of systems/s2.zh, fragments the message must contain)
CORRUPTIONS = {
    "one line short": (_drop_last, ["s2.zh", "3 lines, expected 4", "off by -1"]),
    "one line extra": (lambda b: b + "多余\n".encode(), ["s2.zh", "5 lines, expected 4", "off by +1"]),
    "empty file": (lambda b: b"", ["s2.zh", "0 lines, expected 4", "off by -4"]),
    # line 3 gets a stray 0xff byte
    "invalid UTF-8": (lambda b: b.replace("世界".encode(), b"\xff", 1), ["s2.zh:3", "not UTF-8", "0xff"]),
    "NUL byte": (lambda b: b.replace("晚上".encode(), b"\x00", 1), ["s2.zh:4", "NUL byte"]),
    "UTF-16 file": (lambda b: b.decode().encode("utf-16"), ["s2.zh:1", "NUL byte"]),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_bad_system_file_is_one_line_exit_1(cli, corpus, command, case):
    corrupt, fragments = CORRUPTIONS[case]
    path = corpus / SYS
    path.write_bytes(corrupt(path.read_bytes()))
    result = cli(command, corpus, *COMMANDS[command])
    assert_error(result, 1, *fragments)


def test_bad_reference_and_source_are_named(cli, corpus):
    (corpus / "ref.A.zh").write_bytes(lines(REF[:3]).encode())
    assert_error(cli("score", corpus, "-q"), 1, "ref.A.zh", "3 lines, expected 4")
    make_corpus(corpus)
    (corpus / "src.en").write_bytes(b"")
    # the source defines the segment count; an empty one is refused by name
    assert_error(cli("score", corpus, "-q"), 1, "src.en", "empty file")


def test_score_output_not_created_on_bad_data(cli, corpus, tmp_path):
    (corpus / SYS).write_bytes(b"\x00")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    assert_error(cli("score", corpus, "-q", "--output", out_dir / "scores.tsv"), 1, "s2.zh:1")
    assert leftovers(out_dir) == []


def test_run_out_folder_not_created_on_bad_data(cli, corpus, tmp_path):
    (corpus / SYS).write_bytes(_drop_last((corpus / SYS).read_bytes()))
    out_dir = tmp_path / "out"
    assert_error(cli("run", corpus, *FAST, "--out", out_dir), 1, "s2.zh", "off by -1")
    assert not out_dir.exists()


def _sys_scores(cli, corpus: Path) -> str:
    result = cli("score", corpus, "-s", "char", "-m", "bleu", "-m", "chrf", "-l", "seg,sys", "-q")
    assert result.code == 0, result.err
    return result.out


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda b: b.replace(b"\n", b"\r\n"), id="CRLF"),
        pytest.param(lambda b: b"\xef\xbb\xbf" + b, id="BOM"),
        pytest.param(lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n").rstrip(b"\r\n"), id="BOM+CRLF+no-final-newline"),
    ],
)
def test_crlf_and_bom_read_like_plain_lf(cli, corpus, tmp_path, transform):
    """CRLF line ends and a UTF-8 BOM change no score (the BOM is not a character of line 1)."""
    expected = _sys_scores(cli, corpus)
    for path in [corpus / "src.en", corpus / "ref.A.zh", *sorted((corpus / "systems").iterdir())]:
        path.write_bytes(transform(path.read_bytes()))
    assert _sys_scores(cli, corpus) == expected


def test_empty_lines_are_empty_hypotheses(cli, tmp_path):
    """An empty line in a system file is an empty hypothesis (BLEU 0, chrF 0), not a shift."""
    hyps = {"s1": HYPS["s1"], "s2": ["", "", "", ""]}
    root = make_corpus(tmp_path / "c", hyps=hyps)
    result = cli("score", root, "-s", "char", "-m", "bleu", "-l", "sys", "-f", "json", "-q")
    assert result.code == 0, result.err
    import json

    rows = {r["system"]: r["score"] for r in json.loads(result.out)}
    # s1 matches the reference except one dropped comma: BLEU > 0; s2 has no token at all
    assert rows["s2"] == 0.0 and rows["s1"] > 0.5


def test_one_megabyte_line(cli, corpus):
    """A 1 MB hypothesis line is read and scored (BLEU is cheap on it), not truncated."""
    long = "猫" * ((1 << 20) // 3)  # 349,525 three-byte characters: ~1 MB of UTF-8
    texts = list(HYPS["s2"])
    texts[0] = long
    write(corpus / SYS, lines(texts))
    assert (corpus / SYS).stat().st_size > 1_000_000
    result = cli("score", corpus, "-s", "char", "-m", "bleu", "-l", "seg", "-f", "json", "-q")
    assert result.code == 0, result.err
    import json

    rows = [r for r in json.loads(result.out) if r["system"] == "s2" and r["seg_id"] == "1"]
    # only the unigram 猫 matches the reference (1 of 349,525), so BLEU is tiny but the
    # brevity penalty is 1: the long line was read whole
    assert len(rows) == 1 and 0.0 < rows[0]["score"] < 1e-3


def test_duplicate_system_name_in_two_files(cli, corpus):
    write(corpus / "systems" / "s2.ja", lines(HYPS["s2"]))
    assert_error(cli("score", corpus, "-q"), 1, "s2", "also in")


def test_duplicate_segment_in_docs_tsv(cli, corpus):
    write(corpus / "docs.tsv", lines(["seg_id\tdoc_id", "1\td1", "2\td1", "2\td2", "3\td2", "4\td2"]))
    assert_error(cli("score", corpus, "-q"), 1, "docs.tsv:4", "segment 2 listed twice")


def test_judgment_ids_not_in_corpus(cli, corpus):
    text = (corpus / "judgments.tsv").read_text()
    write(corpus / "judgments.tsv", text + "4\tghost\tj1\tesa\t50\n")
    assert_error(cli("run", corpus, *FAST), 1, "judgments.tsv", "system(s) not in the corpus: ghost")
    write(corpus / "judgments.tsv", text + "99\ts1\tj1\tesa\t50\n")
    assert_error(cli("run", corpus, *FAST), 1, "judgments.tsv", "segment(s) not in the corpus: 99")


def test_duplicate_judgment_row(cli, corpus):
    text = (corpus / "judgments.tsv").read_text()
    write(corpus / "judgments.tsv", text + "1\ts1\tj1\tesa\t90\n")
    assert_error(cli("run", corpus, *FAST), 1, "judgments.tsv:14", "duplicate judgment", "first at line 2")


def test_corpus_system_without_judgments_is_left_out(cli, corpus):
    """The reverse case: a system with output but no judgment takes no part in any pair."""
    rows = [r for r in (corpus / "judgments.tsv").read_text().splitlines(True) if "\ts3\t" not in r]
    write(corpus / "judgments.tsv", "".join(rows))
    result = cli("run", corpus, *FAST, "-f", "json")
    assert result.code == 0, result.err
    import json

    sys_rows = [r for r in json.loads(result.out)["rows"] if r["level"] == "sys"]
    assert sys_rows and all(r["n"] == 2 for r in sys_rows)


def test_judgments_file_with_wrong_column_count(cli, corpus):
    text = (corpus / "judgments.tsv").read_text()
    write(corpus / "judgments.tsv", text + "1\ts1\tj2\tesa\n")
    assert_error(cli("run", corpus, *FAST), 1, "judgments.tsv:14", "4 fields, expected 5")


def test_empty_judgments_file(cli, corpus):
    write(corpus / "judgments.tsv", "")
    assert_error(cli("run", corpus, *FAST), 1, "judgments.tsv", "empty file")


@pytest.mark.parametrize("metric", ["bleu", "nist", "ter", "gtm", "meteor", "chrf", "chrf++"])
def test_empty_reference_and_hypothesis_lines_score_finite(cli, corpus, metric):
    """An empty reference line (segment 2) and empty hypotheses give finite scores, no NaN
    and no crash, for every metric. By hand for TER: hyp "" vs ref "" is 0 edits, so 0;
    a non-empty hyp against "" is scored 1 (tercom's convention for an empty reference)."""
    ref = REF[:]
    ref[1] = ""
    write(corpus / "ref.A.zh", lines(ref))
    s2 = HYPS["s2"][:]
    s2[1] = ""
    write(corpus / SYS, lines(s2))
    result = cli("score", corpus, "-s", "char", "-m", metric, "-l", "seg,sys", "-f", "json", "-q")
    assert result.code == 0, result.err
    import json
    import math

    rows = json.loads(result.out)
    assert len(rows) == 3 * 4 + 3 and all(math.isfinite(r["score"]) for r in rows)
    if metric == "ter":
        seg2 = {r["system"]: r["score"] for r in rows if r["seg_id"] == "2"}
        assert seg2 == {"s1": 1.0, "s2": 0.0, "s3": 1.0}
