"""Settings every test shares: Hypothesis examples have no time limit (its default deadline of
200 ms per example fails tests on a loaded machine or under a tracer, such as coverage or a
mutation run, without anything being wrong). Tests that bound time do it through
:mod:`tests.timing`, scaled to the machine. Fixtures used by more than one test module."""

from pathlib import Path

import pytest
from hypothesis import settings

from tests.robustness._helpers import WMT24_ZH
from tests.study_data import slice_corpus

settings.register_profile("metaeval", deadline=None)
settings.load_profile("metaeval")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three datasets of 20 segments each, in ``data/{a,b,c}``, which a spec's ``data = "data"``
    names: ``$METAEVAL_DATA`` and ``$METAEVAL_SHARED`` (set to find the shared data) would
    take precedence over it, so they are unset."""
    monkeypatch.delenv("METAEVAL_DATA", raising=False)
    monkeypatch.delenv("METAEVAL_SHARED", raising=False)
    if not WMT24_ZH.is_dir():
        pytest.skip(f"shared data folder {WMT24_ZH} not found (set METAEVAL_SHARED)")
    root = tmp_path / "data"
    for i, name in enumerate("abc"):
        slice_corpus(root / name, 20 * i, 20 * (i + 1))
    return root
