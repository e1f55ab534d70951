"""Rendering of the system leaderboard: cells, notes, escaping and the data formats."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.report.bump import bump_chart, bumps, png, svg
from metaeval.report.systems import grouped_pairs, moved_systems, render_board, separated_moves
from metaeval.scoretable import ConfigScores
from metaeval.systemrank.board import SystemBoard, build_board
from tests.report.conftest import HOSTILE

N_SEG = 25


def _board(systems=("A", "B", "C"), scores=None, n_bootstrap=100) -> SystemBoard:
    """Humans: A > B > C. Metric under char: C best; under jieba: the humans' order."""
    rng = np.random.default_rng(1)
    human = np.array([80.0, 60.0, 40.0])[:, None] + rng.normal(0, 5, size=(3, N_SEG))
    rows = [(str(j + 1), s, "j", "esa", float(human[i, j])) for i, s in enumerate(systems) for j in range(N_SEG)]
    judgments = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    scores = scores or {"char": [0.2, 0.3, 0.5], "jieba": [0.5, 0.3, 0.1]}
    configs = []
    for seg, means in scores.items():
        values = np.array(means)[:, None] + rng.normal(0, 0.01, size=(3, N_SEG))
        stats = np.stack([values, np.ones_like(values)], axis=-1)

        def score(s: np.ndarray) -> np.ndarray:
            return s[..., 0] / s[..., 1]

        configs.append(ConfigScores("bleu", seg, f"bleu+{seg}", list(systems), [str(j + 1) for j in range(N_SEG)], values,
                                    score(stats.sum(axis=1)), True, stats, score))  # fmt: skip
    order = pd.DataFrame({"name": list(scores), "family": ["characters", "words"][: len(scores)], "chars_per_token": [1.0, 1.7][: len(scores)]})
    return build_board(configs, judgments, n_bootstrap=n_bootstrap, granularities=order, dataset="toy")


def test_grouped_pairs():
    assert grouped_pairs("A > B; A > C; D > E", "A > C") == "A > B, C*; D > E"
    assert grouped_pairs("") == "-"


def test_moves_and_moves_beyond_the_rank_ranges():
    board = _board()
    moved = dict(moved_systems(board, "esa", "bleu"))
    assert moved == {"A": [3.0, 1.0], "C": [1.0, 3.0]}  # B is second under both
    # every pair is far apart on 25 segments: the ranges are single places, so A's and C's moves are beyond them
    assert separated_moves(board, "esa", "bleu") == ["A", "C"]
    text = render_board(board, "text")
    assert "Rank depends on the granularity (char / jieba): A 3 / 1; C 1 / 3." in text
    assert "Rank ranges that do not overlap between two granularities: A, C." in text
    assert "A > B*, C*; B > C*" in text  # under char the metric reverses every pair, all significantly
    without = _board(n_bootstrap=0)
    assert separated_moves(without, "esa", "bleu") == []  # no resamples, no ranges


def test_leaderboard_cells():
    text = render_board(_board(), "text")
    line = next(row for row in text.splitlines() if row.strip().startswith("3  C"))
    # human rank, system, score, range, cluster; char: score, rank (displacement), cluster; jieba likewise
    assert line.split()[:5] == ["3", "C", line.split()[2], "3", "3"]
    assert "1 (-2)" in line and "3 (0)" in line
    assert "signature: " in text and text.rstrip().endswith("(full signature: --format json)")


def test_hostile_names_are_escaped_everywhere():
    board = _board(systems=("A", HOSTILE, "C_x&%|*"))
    html = render_board(board, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    markdown = render_board(board, "markdown")  # a < that would open a tag is backslash-escaped; & and % read as written
    assert "<script>" not in markdown.replace("\\<", "") and "\\<script>" in markdown and "C\\_x&%\\|\\*" in markdown
    assert "C\\_x\\&\\%|*" in render_board(board, "latex")
    assert HOSTILE not in svg(bump_chart(board.table, "esa", "bleu", ["char", "jieba"]))


def test_data_formats():
    board = _board()
    table = pd.read_csv(io.StringIO(render_board(board, "tsv")), sep="\t", keep_default_na=False)
    assert table["rank"].tolist() == [1, 2, 3, 3, 2, 1, 1, 2, 3]  # whole numbers, no ".0"
    assert table.loc[0, "chars_per_token"] == "" and table.loc[3, "chars_per_token"] == "1.0"
    document = json.loads(render_board(board, "json"))
    assert document["leaderboard"][0]["chars_per_token"] is None and document["signature"]["seed"] == 12345
    assert render_board(board, "csv").splitlines()[0] == ",".join(board.table.columns)
    with pytest.raises(UsageError, match="unknown format"):
        render_board(board, "docx")


def test_bump_chart_ranks_and_png(tmp_path):
    board = _board()
    chart = bump_chart(board.table, "esa", "bleu", ["char", "jieba"], "toy")
    assert chart.columns == ("human esa", "char", "jieba") and chart.families == ("", "characters", "words")
    assert chart.ranks.tolist() == [[1, 3, 1], [2, 2, 2], [3, 1, 3]]
    assert chart.moving().tolist() == [True, False, True]
    assert chart.slots()[:, 1].tolist() == [2, 1, 0]
    path = png(bumps(board.table, ["char", "jieba"]), tmp_path / "bump.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(UsageError):
        png([], tmp_path / "none.png")


def test_each_system_that_moves_gets_its_own_colour_and_the_steady_one_grey():
    import re

    from metaeval.report.bump import PALETTE, STEADY, Bump

    ranks = np.array([[1, 1, 4], [2, 2, 3], [3, 3, 2], [4, 4, 1], [5, 5, 5]], float)  # four systems move, e stays
    chart = svg(Bump("t", ("humans", "char", "jieba"), ("", "", ""), ("a", "b", "c", "d", "e"), ranks))
    strokes = dict(re.findall(r"<title>(\w): [^<]*</title>\n<polyline [^>]*stroke=\"(#[0-9a-f]{6})\"", chart))
    assert sorted(strokes[s] for s in "abcd") == sorted(PALETTE[:4]) and strokes["e"] == STEADY


def test_the_bump_png_puts_rank_one_on_top_and_labels_both_ends_alike(tmp_path, monkeypatch):
    """Each panel's y axis runs from the last rank at the bottom to rank 1 at the top, every
    system's name and rank at either end in the same 6-point type, the panel's title at 8."""
    from metaeval.report import bump as bump_module
    from metaeval.report.bump import Bump

    drawn = []
    save = bump_module._save
    monkeypatch.setattr(bump_module, "_save", lambda figure, path, overwrite: (drawn.append(figure), save(figure, path, overwrite))[1])
    ranks = np.array([[1, 2, 3], [2, 1, 1], [3, 3, 2]], float)
    png([Bump("t", ("humans", "char", "jieba"), ("", "", ""), ("a", "b", "c"), ranks)], tmp_path / "b.png")
    (axes,) = drawn[0].axes
    assert axes.get_ylim() == (2.5, -0.5)
    labels = list(axes.texts)
    assert len(labels) == 6 and {t.get_fontsize() for t in labels} == {6.0}
    assert sorted(t.get_text() for t in labels if t.get_position()[0] < 0) == ["1 a", "2 b", "3 c"]
    assert sorted(t.get_text() for t in labels if t.get_position()[0] > 0) == ["1 b", "2 c", "3 a"]
    assert axes.title.get_fontsize() == 8.0
