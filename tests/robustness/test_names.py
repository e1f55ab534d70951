"""Names with markup, quotes and ``..`` in them: read as plain names, and HTML output shows
them as text (escaped), never as markup."""

from __future__ import annotations

import json

from ._helpers import FAST, HYPS, ESA, make_corpus, write

EVIL = '<img src=x onerror=alert(1)>'
EVIL_SYS = '<b>x<i>"\'&'


def test_html_escapes_dataset_and_system_names(cli, tmp_path):
    """The folder name becomes the dataset name; a judged system without output is named in
    the note. Both reach the HTML page only escaped."""
    root = make_corpus(tmp_path / EVIL)
    (root / "judgments.tsv").unlink()
    write(root / "human_sys.tsv", f"system\tesa\ns1\t90\ns2\t50\ns3\t10\n{EVIL_SYS}\t70\n")
    out = tmp_path / "out"
    # the ranked layout has a note column (the table layout shows notes of undefined cells only)
    result = cli("run", root, *FAST, "-f", "html", "--layout", "ranked", "--out", out)
    assert result.code == 0, result.err
    for page in (result.out, (out / "leaderboard.html").read_text(encoding="utf-8")):
        assert "<img" not in page and "<b>x" not in page and "onerror=alert(1)>" not in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;b&gt;x&lt;i&gt;&quot;&#x27;&amp;" in result.out


def test_markup_and_dotdot_system_names_are_plain_names(cli, tmp_path):
    """System files named ``<b>x<i>.zh`` and ``a..b.zh`` (system ``a..b``) are systems like
    any other; no path is built from a system name."""
    hyps = {"<b>x<i>": HYPS["s1"], "a..b": HYPS["s2"], "s3": HYPS["s3"]}
    esa = {"<b>x<i>": ESA["s1"], "a..b": ESA["s2"], "s3": ESA["s3"]}
    root = make_corpus(tmp_path / "c", hyps=hyps, esa=esa)
    result = cli("score", root, "-s", "char", "-m", "bleu", "-l", "sys", "-f", "json", "-q")
    assert result.code == 0, result.err
    assert sorted(r["system"] for r in json.loads(result.out)) == ["<b>x<i>", "a..b", "s3"]
    out = tmp_path / "out"
    result = cli("run", root, *FAST, "--out", out)
    assert result.code == 0, result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c", "out"]
    assert all(".." not in p.name for p in (out / "charts").iterdir())
    import gzip

    scores = gzip.decompress((out / "scores.tsv.gz").read_bytes()).decode("utf-8")
    assert "\ta..b\t" in scores and "\t<b>x<i>\t" in scores
    html = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert "<b>x" not in html


def test_markdown_and_text_keep_names_on_one_line(cli, tmp_path):
    """A name with a tab or newline cannot come from a file name, but a folder name with a
    newline can: every format keeps each row on one line."""
    root = make_corpus(tmp_path / "line\nbreak")
    for fmt in ("text", "markdown"):
        result = cli("run", root, *FAST, "-f", fmt)
        assert result.code == 0, result.err
        assert "line\nbreak" not in result.out


def test_hidden_system_file_is_ignored(cli, corpus):
    """Documented policy of the plain folder: names starting with ``.`` are hidden files
    (editor backups, ``.DS_Store``), so ``systems/...zh`` (a system ``..``) is not read."""
    write(corpus / "systems" / "...zh", "".join(t + "\n" for t in HYPS["s1"]))
    result = cli("score", corpus, "-s", "char", "-m", "bleu", "-l", "sys", "-f", "json", "-q")
    assert result.code == 0, result.err
    assert sorted(r["system"] for r in json.loads(result.out)) == ["s1", "s2", "s3"]


def test_judgment_system_with_path_separators_is_not_a_path(cli, corpus):
    text = (corpus / "judgments.tsv").read_text()
    write(corpus / "judgments.tsv", text + "1\t../../etc/passwd\tj1\tesa\t5\n")
    result = cli("run", corpus, *FAST)
    assert result.code == 1 and "system(s) not in the corpus: ../../etc/passwd" in result.err
