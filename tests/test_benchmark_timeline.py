"""``benchmarks.timeline``: the busy cores of one run beside its phases."""

from __future__ import annotations

import os

import pytest

from benchmarks import timeline
from tests.golden_util import DATA

SMALL = "mlqe-pe/en-zh-dev"


def test_idle_stretches_join_adjacent_samples_and_count_idle_core_seconds():
    samples = [(0.0, 0.1, 1.0), (0.1, 0.2, 1.2), (0.2, 0.3, 2.0), (0.3, 0.5, 0.0), (0.5, 0.6, 1.9)]
    # two cores: 0-0.2 has one core idle then 0.8 (0.1 + 0.08), 0.3-0.5 both (0.4); 1.9 busy counts as all
    stretches = timeline.idle_stretches(samples, cpus=2)
    assert [(s["start"], s["end"]) for s in stretches] == [(0.0, 0.2), (0.3, 0.5)]
    assert [round(s["idle_core_seconds"], 6) for s in stretches] == [0.18, 0.4]


def test_the_workload_arguments_can_name_other_segmenters_and_metrics():
    from benchmarks import workload

    args = workload.run_arguments(DATA / SMALL, "0", "cache", segmenters=["pkuseg"], metrics=["bleu"], quiet=False)
    assert [args[i + 1] for i, a in enumerate(args) if a == "-s"] == ["pkuseg"]
    assert [args[i + 1] for i, a in enumerate(args) if a == "-m"] == ["bleu"]
    assert "--quiet" not in args and "--quiet" in workload.run_arguments(DATA / SMALL, "0", "cache")


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="needs /proc/stat (Linux)")
@pytest.mark.skipif(not (DATA / SMALL).is_dir(), reason="shared data not found (set METAEVAL_SHARED)")
def test_a_small_run_reports_its_phases_in_order_and_its_idle_core_seconds():
    entry = timeline.measure(0.05, dataset=SMALL, segmenters=("char", "jieba"), metrics=("bleu",))
    phases = entry["phases"]
    for name in ("segmenting char", "scoring", "correlating", "significance clusters", "answer", "tie-free references"):
        assert name in phases and phases[name]["first"] <= phases[name]["last"] <= entry["wall_seconds"]
    assert phases["scoring"]["first"] < phases["correlating"]["first"] < phases["answer"]["first"]
    assert entry["idle_core_seconds"] == pytest.approx(sum(s["idle_core_seconds"] for s in entry["idle_stretches"]))
    assert 0 <= entry["idle_core_seconds"] <= entry["cpus"] * entry["wall_seconds"]
    assert "answer" in timeline.report(entry)
