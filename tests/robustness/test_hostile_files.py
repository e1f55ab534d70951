"""Hostile and malformed SGML/XML and CSV: unclosed tags, mismatched set ids, undefined
entities, external entities (XXE), entity-expansion bombs and quoted newlines.

The SGML reader is a scanner, not an XML parser: nothing is fetched or expanded, and each
problem is one line naming ``file:line``. Read through ``metaeval score`` on a folder of
``src/ref/tst`` ``.sgm`` files, as a user would.
"""

from __future__ import annotations

import socket

import pytest

from ._helpers import assert_error, write

SRC = """<srcset setid="t1" srclang="en">
<doc docid="d1">
<seg id="1">The cat sat.</seg>
<seg id="2">It rains.</seg>
</doc>
</srcset>
"""
REF = """<refset setid="t1" srclang="en" trglang="zh" refid="A">
<doc docid="d1">
<seg id="1">猫坐着。</seg>
<seg id="2">下雨了。</seg>
</doc>
</refset>
"""
TST = """<tstset setid="t1" srclang="en" trglang="zh" sysid="{name}">
<doc docid="d1" sysid="{name}">
<seg id="1">{one}</seg>
<seg id="2">下雨。</seg>
</doc>
</tstset>
"""


def sgml_corpus(root, tst: str | None = None, src: str = SRC, ref: str = REF):
    write(root / "src.sgm", src)
    write(root / "ref.sgm", ref)
    write(root / "tst.sgm", tst if tst is not None else TST_OK)
    return root


def score(cli, root):
    return cli("score", root, "-s", "char", "-m", "bleu", "-l", "seg", "-f", "json", "-q")


def test_valid_sgml_reads(cli, tmp_path):
    result = score(cli, sgml_corpus(tmp_path / "ok"))
    assert result.code == 0, result.err
    assert '"system":"s1"' in result.out.replace(" ", "")


TST_OK = TST.format(name="s1", one="猫坐着。")
BAD_TST = {
    "unclosed seg": (TST_OK.replace("猫坐着。</seg>", "猫坐着。"), ["tst.sgm:3", "<seg> not closed"]),
    "unclosed doc": (TST_OK.replace("</doc>", ""), ["tst.sgm:2", "<doc> not closed"]),
    "unclosed set": (TST_OK.replace("</tstset>", ""), ["tst.sgm:1", "never closed"]),
    "stray close": (TST_OK.replace("</doc>", "</doc></doc>"), ["tst.sgm:5", "</doc> without a matching <doc>"]),
    "truncated tag": (TST_OK.replace('<seg id="2">', '<seg id="2"'), ["tst.sgm:4", "malformed or unclosed tag"]),
    "mismatched setid": (TST_OK.replace('setid="t1"', 'setid="t2"'), ["tst.sgm:1", "t2"]),
    "unknown doc": (TST_OK.replace('docid="d1"', 'docid="d9"'), ["tst.sgm", "d9"]),
    "duplicate seg id": (TST_OK.replace('<seg id="2">', '<seg id="1">'), ["tst.sgm:4", "appears twice"]),
    "undefined entity": (TST_OK.replace("猫坐着。", "猫&nbsp;坐"), ["tst.sgm:3", "undefined entity &nbsp;"]),
    "bad char ref": (TST_OK.replace("猫坐着。", "猫&#0;"), ["tst.sgm:3", "invalid character reference"]),
}


@pytest.mark.parametrize("case", list(BAD_TST))
def test_malformed_sgml_is_one_line(cli, tmp_path, case):
    tst, fragments = BAD_TST[case]
    assert_error(score(cli, sgml_corpus(tmp_path / "c", tst)), 1, *fragments)


XXE = """<?xml version="1.0"?>
<!DOCTYPE tstset [ <!ENTITY xxe SYSTEM "file://{secret}"> ]>
""" + TST.format(name="s1", one="&xxe;")
XXE_REMOTE = """<!DOCTYPE tstset [ <!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote; ]>
""" + TST.format(name="s1", one="猫")
BOMB = (
    '<!DOCTYPE tstset [ <!ENTITY lol "lol">'
    + "".join(f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10))
    + " ]>\n"
    + TST.format(name="s1", one="&lol9;")
)


@pytest.mark.parametrize("kind", ["xxe-file", "xxe-remote-dtd", "billion-laughs"])
def test_entity_declarations_refused_without_fetching(cli, tmp_path, monkeypatch, kind):
    secret = write(tmp_path / "secret.txt", "TOP-SECRET-CONTENT")
    tst = {"xxe-file": XXE.format(secret=secret), "xxe-remote-dtd": XXE_REMOTE, "billion-laughs": BOMB}[kind]

    def no_network(*args, **kwargs):
        raise AssertionError("the reader tried to open a socket")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    result = score(cli, sgml_corpus(tmp_path / "c", tst))
    message = assert_error(result, 1, "tst.sgm", "DOCTYPE declares entities; refused")
    assert "TOP-SECRET" not in message


def test_plain_doctype_without_entities_is_accepted(cli, tmp_path):
    tst = '<!DOCTYPE tstset SYSTEM "mteval.dtd">\n' + TST.format(name="s1", one="猫坐着。")
    result = score(cli, sgml_corpus(tmp_path / "c", tst))
    assert result.code == 0, result.err


MISSING_SEG = TST.format(name="s1", one="猫").replace('<seg id="2">下雨。</seg>\n', "")


def test_missing_segment_policy_error_is_default(cli, tmp_path):
    root = sgml_corpus(tmp_path / "c", MISSING_SEG)
    assert_error(score(cli, root), 1, "tst.sgm", "system 's1' lacks 1 segment(s): 2", "--missing skip|empty")


def test_missing_segment_policy_skip_and_empty(cli, tmp_path):
    import json

    root = sgml_corpus(tmp_path / "c", MISSING_SEG)
    skip = cli("score", root, "-s", "char", "-m", "bleu", "-l", "seg", "-f", "json", "-q", "--missing", "skip")
    assert skip.code == 0, skip.err
    assert [r["seg_id"] for r in json.loads(skip.out)] == ["1"]
    empty = cli("score", root, "-s", "char", "-m", "bleu", "-l", "seg", "-f", "json", "-q", "--missing", "empty")
    assert empty.code == 0, empty.err
    rows = {r["seg_id"]: r["score"] for r in json.loads(empty.out)}
    assert set(rows) == {"1", "2"} and rows["2"] == 0.0


def test_bad_missing_policy_is_usage_error(cli, tmp_path):
    result = cli("score", sgml_corpus(tmp_path / "c"), "--missing", "ignore")
    assert_error(result, 2, "--missing", "invalid choice")


# --- CSV with quoted newlines --------------------------------------------------------------

APPRAISE_ROW = 'ann1,s1,{item},TGT,eng,zho,{score},doc1,False,[],1,2'


def test_appraise_csv_with_quoted_newline(tmp_path):
    """A quoted field spanning lines is refused naming the line, not silently re-joined."""
    from metaeval import corpora
    from metaeval.errors import DataError

    good = APPRAISE_ROW.format(item=1, score=80)
    broken = 'ann1,s1,2,TGT,eng,zho,70,doc1,False,"[{""start"": 1,\n""end"": 2}]",1,2'
    path = write(tmp_path / "esa.csv", good + "\n" + broken + "\n")
    with pytest.raises(DataError, match=r"esa\.csv:2: .*quoted field may span lines") as exc:
        corpora.read_judgments(path, format="appraise")
    assert "\n" not in str(exc.value)


def test_nist_fa_csv_with_quoted_newline_through_cli(cli, tmp_path, corpus):
    header = "system,doc_id,seg_id,judge,fluency,adequacy"
    path = write(tmp_path / "fa.csv", f'{header}\ns1,d1,1,j1,3,4\ns2,d1,1,"j\n2",3,4\n')
    result = cli("run", corpus, "-s", "char", "-m", "bleu", "-q", "--judgments", path)
    assert_error(result, 1, "fa.csv:3", "quoted field may span lines")
