"""What keeps large runs small: shared token objects, and a scores table written piece by piece
that is the same text as the whole table rendered at once."""

from __future__ import annotations

import io

import pytest

from metaeval.cli.common import table_text as _table_text
from metaeval.cli.score import write_table as _write_table
from metaeval.scoring import score_corpus, shared_tokens
from tests.test_scoring import SpaceSegmenter, UnigramPrecision, make_corpus


def test_shared_tokens_keep_every_token_and_share_each_token_type():
    table = {"a b a": ["a", "b", "a"], "b c": ["b", "c"], "": []}
    table["a b a"][2] = "".join(["a"])  # an equal string that is another object
    shared = shared_tokens(table)
    assert shared == {"a b a": ["a", "b", "a"], "b c": ["b", "c"], "": []}
    assert shared["a b a"][0] is shared["a b a"][2] and shared["a b a"][1] is shared["b c"][0]


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
@pytest.mark.parametrize("levels", [["seg", "doc", "sys"], ["sys"], ["doc", "seg"]])
def test_table_written_piece_by_piece_is_the_whole_table_text(fmt, levels):
    result = score_corpus(make_corpus(), [SpaceSegmenter()], ["bleu", "1-ter", "chrf"])
    handle = io.StringIO()
    _write_table(result, levels, fmt, handle)
    assert handle.getvalue() == _table_text(result.table(levels), fmt)


def test_empty_table_written_piece_by_piece_is_its_header():
    result = score_corpus(make_corpus(), [SpaceSegmenter()], [UnigramPrecision()])
    result.configs = []
    handle = io.StringIO()
    _write_table(result, ["seg"], "tsv", handle)
    assert handle.getvalue() == _table_text(result.table(["seg"]), "tsv") == "metric\tsegmenter\tsystem\tlevel\tdoc_id\tseg_id\tscore\tconfig\n"
