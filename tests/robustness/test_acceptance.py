"""The acceptance scenario, as a new user would meet it: a real-like corpus (the first 30
segments of WMT24 ESA en-zh, 3 systems) with one line dropped from one system file."""

from __future__ import annotations

import pytest

from ._helpers import FAST, assert_error


def test_real_like_corpus_runs(cli, real_corpus):
    """Unmodified, the small corpus is valid: a run ends in a leaderboard."""
    result = cli("run", real_corpus, *FAST)
    assert result.code == 0, result.err
    assert "leaderboard" in result.out and "kind=esa" in result.out


def test_misaligned_system_file_stops_before_scoring(cli, real_corpus, monkeypatch):
    system = real_corpus / "systems" / "Aya23.zh"
    kept = system.read_bytes().splitlines(keepends=True)
    system.write_bytes(b"".join(kept[:12] + kept[13:]))  # line 13 dropped

    def must_not_score(*args, **kwargs):
        pytest.fail("scoring started on a misaligned corpus")

    monkeypatch.setattr("metaeval.api.score_corpus", must_not_score)
    result = cli("run", real_corpus)  # default segmenters and metrics, as a new user types it
    message = assert_error(result, 1, "Aya23.zh", "29 lines, expected 30", "src.en", "off by -1")
    assert str(system) in message  # the full path, so the user can open the file
    assert result.out == ""  # no leaderboard
