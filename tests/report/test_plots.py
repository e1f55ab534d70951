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
    assert list(tmp_path.iterdir()) == []
