"""PNG plots: written atomically, same data gives the same bytes, no software stamp."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.errors import UsageError
from metaeval.report import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_scatter_is_deterministic_png(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.random(200), rng.random(200)
    a = plots.scatter(x, y, tmp_path / "a.png", xlabel="BLEUw3", ylabel="BLEUc18", diagonal=True)
    b = plots.scatter(x, y, tmp_path / "b.png", xlabel="BLEUw3", ylabel="BLEUc18", diagonal=True)
    assert a.read_bytes().startswith(PNG_MAGIC)
    assert a.read_bytes() == b.read_bytes()
    assert b"Software" not in a.read_bytes() and b"matplotlib" not in a.read_bytes()
    with pytest.raises(UsageError, match="file exists"):
        plots.scatter(x, y, a)


def test_line_several_series(tmp_path):
    m = np.arange(1, 31)
    series = {"pearson": np.linspace(0.2, 0.9, 30), "kappa": np.linspace(0.1, 0.6, 30)}
    path = plots.line(m, series, tmp_path / "sweep.png", xlabel="M", hline=0.9)
    again = plots.line(m, series, tmp_path / "sweep.png", xlabel="M", hline=0.9, overwrite=True)
    assert path == again and path.read_bytes().startswith(PNG_MAGIC)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.png"]


def test_length_mismatch_is_usage_error(tmp_path):
    with pytest.raises(UsageError, match=r"same length, got \[3, 2\]"):
        plots.scatter([1, 2, 3], [1, 2], tmp_path / "x.png")
    with pytest.raises(UsageError, match="series 'b' has 2 values, xs has 3"):
        plots.line([1, 2, 3], {"a": [1, 2, 3], "b": [1, 2]}, tmp_path / "y.png")
    with pytest.raises(UsageError, match=r"^ys has 2 values, xs has 3$"):  # one unnamed series
        plots.line([1, 2, 3], [1, 2], tmp_path / "z.png")
    assert list(tmp_path.iterdir()) == []


def test_curve_lines_join_one_family_each_with_its_marker(tmp_path):
    x = [0.36, 1.0, 1.1, 1.4, 1.6, 1.8]
    families = ["bytes", "characters", "subwords", "subwords", "words", "words"]
    y = [0.50, 0.55, 0.54, 0.53, 0.52, 0.51]
    series = {"bleu": (x, y, y, y, families), "gtm": (x[::-1], y[::-1], y[::-1], y[::-1], families[::-1])}  # any order
    figure = plots.curve_figure([("seg pearson", series)], xlabel="chars/token")
    (axes,) = figure.axes
    drawn = [line for line in axes.lines if len(line.get_xdata())]
    # four lines per metric, one per family: never a line from one family to another
    assert len(drawn) == 8
    by_marker = {}
    for line in drawn:
        by_marker.setdefault(line.get_marker(), []).append(sorted(line.get_xdata()))
    assert by_marker == {"s": [[0.36]] * 2, "o": [[1.0]] * 2, "^": [[1.1, 1.4]] * 2, "D": [[1.6, 1.8]] * 2}
    # word segmenters are separate tools: their points are not joined
    assert all((line.get_linewidth() == 0) == (line.get_marker() == "D") for line in drawn)
    # the legend names the metrics and the families
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["bleu", "gtm", "bytes", "characters", "subwords", "words"]
    # without families a series is one line, as before
    plain = plots.curve_figure([("p", {"bleu": (x, y, y, y)})])
    assert len(plain.axes[0].lines) == 1 and list(plain.axes[0].lines[0].get_xdata()) == sorted(x)
    path = plots.curve_panels([("seg pearson", series)], tmp_path / "c.png")
    assert path.read_bytes() == plots.curve_panels([("seg pearson", series)], tmp_path / "c.png", overwrite=True).read_bytes()


def test_a_forest_marks_an_undefined_value_n_a_at_the_axis_start(tmp_path, monkeypatch):
    """A configuration without a value gets no point, only a grey "n/a" at the left end of the
    axis in the labels' small type; a defined one gets its point and no such text."""
    from metaeval.report.layout import Bar

    drawn = []
    save = plots._save
    monkeypatch.setattr(plots, "_save", lambda figure, path, overwrite: (drawn.append(figure), save(figure, path, overwrite))[1])
    bars = [Bar("bleu char", 0.4, 0.3, 0.5), Bar("bleu jieba", float("nan"), 0.2, 0.45)]
    plots.forest(bars, tmp_path / "f.png", statistic="pearson")
    (axes,) = drawn[0].axes
    notes = [t for t in axes.texts if t.get_text().strip() == "n/a"]
    assert len(notes) == 1
    x, y = notes[0].get_position()
    assert x == axes.get_xlim()[0] and y == 0  # the second bar, drawn at the bottom
    assert notes[0].get_fontsize() == axes.get_yticklabels()[0].get_fontsize() and notes[0].get_color() == "0.4"
    points = [line for line in axes.lines if line.get_marker() == "o"]
    assert [list(p.get_ydata()) for p in points] == [[1]]
