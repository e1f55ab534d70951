"""NIST MT SGML reader: equality with the plain folder, mteval variants, and hostile input."""

from __future__ import annotations

import pytest

from metaeval.corpora import read, read_corpus_folder, read_nist_sgml
from metaeval.errors import DataError

from ._helpers import FIXTURES, WMT24, needs_data, one_line, raises_at, write

NIST = FIXTURES / "nist"


@needs_data
@pytest.mark.parametrize("pair", ["en-zh", "en-ja"])
def test_real_sgml_equals_plain_folder(pair):
    folder = WMT24 / pair
    sgml = read_nist_sgml(folder / "nist/src.sgm", [folder / "nist/ref.sgm"], folder / "nist/tst.sgm")
    plain = read_corpus_folder(folder)
    assert sgml.seg_ids == plain.seg_ids
    assert sgml.doc_ids == plain.doc_ids  # as docs.tsv
    assert sgml.sources == plain.sources
    assert sgml.references == plain.references
    assert sorted(sgml.systems) == sorted(plain.systems)
    for name in plain.systems:
        assert sgml.systems[name] == plain.systems[name], name
    assert (sgml.source_lang, sgml.target_lang, sgml.name) == ("en", pair[3:], f"wmt24-{pair}")


@needs_data
def test_read_detects_sgml_folder():
    corpus, judgments = read(WMT24 / "en-zh/nist")
    assert corpus.n_segments == 634 and len(corpus.systems) == 12 and judgments is None


def test_fixture_variants():
    # Unquoted and single-quoted attributes, upper-case tags, <mteval>/<p> wrappers, an
    # external DOCTYPE (never fetched), per-document segment ids, two refsets listing
    # documents and segments in another order, and <unk> inside a system segment.
    corpus = read_nist_sgml(NIST / "src.sgm", NIST / "ref.sgm", NIST / "tst.sgm", missing="empty")
    assert corpus.seg_ids == ("AFP_ENG_20080101.0001:1", "AFP_ENG_20080101.0001:2", "XIN_ENG_20080102.0007:1")
    assert corpus.doc_ids == ("AFP_ENG_20080101.0001", "AFP_ENG_20080101.0001", "XIN_ENG_20080102.0007")
    # &amp; &quot; &#x4E2D; (U+4E2D) and &#20013; (= 0x4E2D) decoded.
    assert corpus.sources[0] == 'Tom & Jerry said "hello" 中 中.'
    assert corpus.sources[1] == "It rained <all> day."
    assert corpus.references["ref2"] == ("汤姆与杰瑞说：你好。", "整天下雨。", "物价上涨。")
    assert corpus.systems["sys01"][0] == "汤姆 & 杰瑞 说 <unk> 你好"
    assert corpus.systems["sys02"] == ("汤姆杰瑞说你好", "", "价格涨了")  # missing segment -> empty
    assert (corpus.source_lang, corpus.target_lang) == ("English", "Chinese")


def test_missing_system_segment_follows_policy():
    with raises_at(r"tst\.sgm: system 'sys02' lacks 1 segment\(s\): AFP_ENG_20080101\.0001:2"):
        read_nist_sgml(NIST / "src.sgm", NIST / "ref.sgm", NIST / "tst.sgm")
    skipped = read_nist_sgml(NIST / "src.sgm", NIST / "ref.sgm", NIST / "tst.sgm", missing="skip")
    assert skipped.seg_ids == ("AFP_ENG_20080101.0001:1", "XIN_ENG_20080102.0007:1")


SRC = """<srcset setid="s1" srclang="en">
<doc docid="d1">
<seg id="1">one</seg>
<seg id="2">two</seg>
</doc>
</srcset>
"""
REF = """<refset setid="s1" srclang="en" trglang="zh" refid="r">
<doc docid="d1">
<seg id="1">一</seg>
<seg id="2">二</seg>
</doc>
</refset>
"""
TST = """<tstset setid="s1" srclang="en" trglang="zh" sysid="m">
<doc docid="d1" sysid="m">
<seg id="1">一</seg>
<seg id="2">二</seg>
</doc>
</tstset>
"""


def _triple(tmp_path, src=SRC, ref=REF, tst=TST):
    return (write(tmp_path / "src.sgm", src), write(tmp_path / "ref.sgm", ref), write(tmp_path / "tst.sgm", tst))


def test_minimal_triple_reads(tmp_path):
    corpus = read_nist_sgml(*_triple(tmp_path))
    assert corpus.seg_ids == ("1", "2") and corpus.systems["m"] == ("一", "二")
    assert read(_triple(tmp_path))[0].references["r"] == ("一", "二")


@pytest.mark.parametrize(
    "which,old,new,pattern",
    [
        ("tst", '<seg id="2">二</seg>', '<seg id="2">二', r"tst\.sgm:4: <seg> not closed before line 5"),
        ("tst", "</doc>\n</tstset>", "</tstset>", r"tst\.sgm:2: <doc> not closed before </tstset> at line 5"),
        ("src", "</srcset>\n", "", r"src\.sgm:1: <srcset> never closed"),
        ("tst", 'setid="s1" srclang="en" trglang', 'setid="s2" srclang="en" trglang',
         r"tst\.sgm:1: setid 's2' differs from the source's 's1' \(.*src\.sgm:1\)"),
        ("ref", "<seg id=\"2\">二</seg>", "<seg id=\"2\">二&nbsp;</seg>", r"ref\.sgm:4: undefined entity &nbsp;"),
        ("ref", "<seg id=\"2\">二</seg>", "<seg id=\"2\">&#0;</seg>", r"ref\.sgm:4: invalid character reference"),
        ("tst", '<doc docid="d1" sysid="m">', '<doc docid="d9" sysid="m">',
         r"tst\.sgm:2: document 'd9' of 'm' is not in the source"),
        ("tst", '<seg id="2">', '<seg id="7">', r"tst\.sgm:4: segment '7' of document 'd1' is not in the source"),
        ("tst", '<seg id="2">', '<seg id="1">', r"tst\.sgm:4: segment id '1' appears twice in document 'd1' \(first at line 3\)"),
        ("ref", '<seg id="2">二</seg>\n', "", r"ref\.sgm:2: 'r' lacks segment\(s\) 2 of document 'd1'"),
        ("tst", '<doc docid="d1" sysid="m">', '<doc docid="d1" sysid="x">', r"tst\.sgm:2: <doc sysid='x'> inside the set of 'm'"),
        ("tst", "</seg>\n</doc>", "</seg>\n</seg>\n</doc>", r"tst\.sgm:5: </seg> without a matching <seg>"),
        ("tst", "<seg id=\"1\">", "<seg>", r"tst\.sgm:3: <seg> without id"),
        ("tst", '<doc docid="d1" sysid="m">', "<doc>", r"tst\.sgm:2: <doc> without docid"),
        ("src", '<seg id="1">one</seg>', '<seg id="1">one</seg><seg id="1">uno</seg>', r"src\.sgm:3: segment id '1' appears twice"),
        ("tst", "<doc docid", "<doc <docid", r"tst\.sgm:2: malformed or unclosed tag"),
    ],
)
def test_bad_sgml(tmp_path, which, old, new, pattern):
    texts = {"src": SRC, "ref": REF, "tst": TST}
    assert old in texts[which]
    texts[which] = texts[which].replace(old, new, 1)
    with raises_at(pattern) as exc:
        read_nist_sgml(*_triple(tmp_path, **texts))
    one_line(exc)


XXE = """<?xml version="1.0"?>
<!DOCTYPE srcset [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<srcset setid="s1" srclang="en"><doc docid="d1"><seg id="1">&xxe;</seg></doc></srcset>
"""
LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<srcset setid="s1" srclang="en"><doc docid="d1"><seg id="1">&lol3;</seg></doc></srcset>
"""


@pytest.mark.parametrize("hostile", [XXE, LAUGHS], ids=["xxe", "billion-laughs"])
def test_doctype_entities_refused(tmp_path, hostile):
    with raises_at(r"src\.sgm:2: DOCTYPE declares entities; refused") as exc:
        read_nist_sgml(*_triple(tmp_path, src=hostile))
    one_line(exc)


def test_entity_without_declaration_is_undefined(tmp_path):
    src = SRC.replace("<seg id=\"1\">one", "<seg id=\"1\">&xxe;one")
    with raises_at(r"src\.sgm:3: undefined entity &xxe;"):
        read_nist_sgml(*_triple(tmp_path, src=src))


def test_non_utf8_sgml(tmp_path):
    paths = _triple(tmp_path)
    write(paths[2], TST.replace("二", "X").encode("utf-8").replace(b"X", "二".encode("gbk")))
    with raises_at(r"tst\.sgm:4: not UTF-8"):
        read_nist_sgml(*paths)


def test_bare_ampersand_kept_and_multiple_sets_per_file(tmp_path):
    tst = TST.replace("<seg id=\"1\">一", "<seg id=\"1\">AT&T 一") + TST.replace('sysid="m"', 'sysid="n"')
    corpus = read_nist_sgml(*_triple(tmp_path, tst=tst))
    assert corpus.systems["m"][0] == "AT&T 一" and corpus.system_names == ["m", "n"]
    with raises_at(r"tst\.sgm:7: system 'm' appears twice"):
        read_nist_sgml(*_triple(tmp_path, tst=TST + TST))


def test_wrong_set_kind_in_file(tmp_path):
    with raises_at(r"ref\.sgm:1: found <tstset>, expected <refset>"):
        read_nist_sgml(*_triple(tmp_path, ref=REF.replace("refset", "tstset")))


def test_empty_sgml_file(tmp_path):
    with raises_at(r"src\.sgm: no srcset"):
        read_nist_sgml(*_triple(tmp_path, src="\n"))


def test_error_type(tmp_path):
    with pytest.raises(DataError):
        read_nist_sgml(*_triple(tmp_path, tst=TST.replace("</tstset>", "")))
