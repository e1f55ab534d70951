"""benchmarks.corun: the factor of a run beside a copy of itself, from hand-made CPU times."""

from __future__ import annotations

import pytest

from benchmarks import corun


def test_the_factor_is_the_median_of_each_rounds_pair_over_the_run_alone_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # rounds: alone 30, pair (33, 33) -> 1.1; alone 32, pair (32, 32) -> 1.0; alone 25, pair (26, 24) -> 1.0
    measured = iter([[30.0], [33.0, 33.0], [32.0], [32.0, 32.0], [25.0], [26.0, 24.0]])
    asked: list[int] = []

    def runs(copies: int) -> list[float]:
        asked.append(copies)
        return next(measured)

    monkeypatch.setattr(corun, "_runs", runs)
    entry = corun.measure(3)
    assert asked == [1, 2, 1, 2, 1, 2]
    assert [r["factor"] for r in entry["rounds"]] == pytest.approx([1.1, 1.0, 1.0])
    assert entry["factor"] == pytest.approx(1.0)
    entry["load_average_1_5_15_at_start"] = [0.25, 0.5, 0.5]
    assert corun.text(entry) == ("one-process run 30.0 CPU-s alone; beside a copy of itself: 1.000x "
                                 "(rounds 1.100, 1.000, 1.000; load average 0.25 at the start)")


def test_a_failed_run_is_an_error_naming_its_exit_code() -> None:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(RuntimeError, match="failed with exit code 3"):
        corun._cpu_seconds([child])


def test_the_readme_says_what_the_factor_means_for_the_parallel_runs() -> None:
    from benchmarks.readme import section

    def line(factor: float) -> str:
        entry = {"factor": factor, "rounds": [{"factor": factor, "alone_cpu_seconds": 30.0}],
                 "load_average_1_5_15_at_start": [0.2, 0.2, 0.2]}
        return [x for x in section({"corun": entry}, None).splitlines() if "benchmarks.corun" in x][0]

    assert line(0.99).endswith("nothing measurable: the parallel runs' CPU seconds above the one-process run's are the code's own.")
    assert line(1.2).endswith("pays about this factor in CPU seconds, and its parallel efficiency cannot be below it.")
