"""The metric registry: specs, and the direction of scores read back from a table."""

from __future__ import annotations

import pytest

from metaeval.metrics import higher_is_better


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("ter", False),
        ("ter:case_sensitive=false", False),
        ("ter:invert=true", True),
        ("1-ter", True),
        ("bleu:n=18,smooth=none", True),
        ("chrf++", True),
        ("bleurt-20", True),  # computed elsewhere: higher-better by convention
    ],
)
def test_direction_follows_the_metric(spec, expected):
    assert higher_is_better(spec) is expected


def test_direction_of_a_spec_that_cannot_be_built_here(monkeypatch):
    monkeypatch.delenv("METAEVAL_METEOR_FUNCTION_WORDS", raising=False)
    assert higher_is_better("meteor:params=en") is True
