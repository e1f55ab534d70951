"""The CPU-time targets, each measured beside what it is compared with, in one command.

    python -m benchmarks.targets --measure [--repeat 3] [--skip li2011,bleu]

Rows (every ratio from two figures taken in turn in this command, on the same machine state):

1. work besides segmentation: the fixed workload (:mod:`benchmarks.workload`) with ``--jobs 1``
   from an empty cache, CPU seconds, less the segmentation floor (every unique text once with
   each segmenter, in a process of its own), over that floor, taken beside it in the same round:
   the median of the rounds' ratios (:mod:`benchmarks.stages`, whose per-stage figures are
   stored with it); target at most 0.77;
2. parallel efficiency of the workload: its wall time with the default ``--jobs`` (one process per
   CPU) over (its CPU seconds with ``--jobs 1``, in the same round) / CPUs, the median of the
   rounds' ratios; target at most 1.15. Beside it, the ratio's two parts
   (:func:`efficiency_parts`): the parallel run's extra work and the time its cores waited;
3. peak memory of the workload with the default ``--jobs``: the largest sum of proportional set
   sizes over its processes, sampled every 50 ms in a run of its own; target at most 1.2 GB;
4. the ``experiments.li2011`` study as it was when these targets were set
   (``benchmarks/li2011_study.toml``) from an empty store with the default ``--jobs``: CPU
   seconds (target at most 170) and, against the same study with ``--jobs 1``, the same parallel
   efficiency as row 2;
5. BLEU of orders 1..30 at character level as whole processes, sacrebleu's CPU seconds over
   metaeval's (:mod:`benchmarks.bleu_process`); target at least 40.

Rows 2 and 4's efficiency are wall-clock ratios: other processes on the machine stretch the
wall time of the parallel run, and not the CPU time of the one-process run. They are stored only
when the 1-minute load average at the start is below :data:`QUIET_LOAD` (printed, marked, and
left out of ``benchmarks/results.json`` otherwise). The entry goes under the key ``cpu_targets``.

A row is met (``yes``) or not (``no``) by its median; when its rounds fall on both sides of the
limit, it is ``not resolved``: three rounds on this machine have given parallel-efficiency ratios
of 0.96, 1.14 and 1.23, and a median that the next round can move across the limit is no answer.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import bleu_process, stages, workload
from benchmarks.bench import DATA, REPO
from benchmarks.scale import measured_run

KEY = "cpu_targets"
#: Below this 1-minute load average (besides this command), wall-clock ratios are stored.
QUIET_LOAD = 0.5
LI2011_SPEC = REPO / "benchmarks" / "li2011_study.toml"
LIMITS = {"work_besides_segmentation": 0.77, "parallel_efficiency": 1.15, "peak_pss_gb": 1.2, "li2011_cpu_seconds": 170.0,
          "li2011_efficiency": 1.15, "bleu_process_speedup": 40.0}  # fmt: skip


def _study(jobs: str) -> dict[str, float]:
    """Wall and CPU seconds of the li2011 study from an empty output folder and store."""
    with tempfile.TemporaryDirectory() as out:
        return measured_run(["study", str(LI2011_SPEC), "--out", str(Path(out) / "out"), "--data", str(DATA), "-q",
                             "--jobs", jobs], memory=False)  # fmt: skip


def measure(repeat: int, skip: set[str]) -> dict[str, Any]:
    """Every row, the sides of each ratio alternated ``repeat`` times; medians, peak memory the largest."""
    load = os.getloadavg()
    corpus = DATA / workload.DATASET
    entry: dict[str, Any] = {"cpus": os.cpu_count() or 1, "repeat": repeat, "load_average_1_5_15_at_start": list(load)}
    entry["stages"] = stages.measure(repeat)
    rounds = []
    for _ in range(repeat):
        found = {}
        with tempfile.TemporaryDirectory() as cache:
            found["parallel"] = measured_run(workload.run_arguments(corpus, "0", cache), memory=False)
        with tempfile.TemporaryDirectory() as cache:
            found["one_process"] = measured_run(workload.run_arguments(corpus, "1", cache), memory=False)
        rounds.append(found)
    with tempfile.TemporaryDirectory() as cache:
        entry["memory"] = measured_run(workload.run_arguments(corpus, "0", cache))
    entry["workload_rounds"] = rounds
    if "li2011" not in skip:
        entry["li2011_rounds"] = [{"parallel": _study("0"), "one_process": _study("1")} for _ in range(repeat)]
    if "bleu" not in skip:
        entry["bleu_process"] = bleu_process.measure(150, max(1, repeat // 3))
    entry["load_average_1_5_15_at_end"] = list(os.getloadavg())
    return entry


def _median(rounds: list[dict[str, Any]], side: str, name: str) -> float | None:
    """Median of ``name`` of ``side`` over ``rounds``; None where it was not stored (wall clock under load)."""
    if any(name not in r[side] for r in rounds):
        return None
    return statistics.median(r[side][name] for r in rounds)


def _round_ratios(rounds: list[dict[str, Any]], cpus: int) -> list[float] | None:
    """Per round: wall seconds of the parallel run over (CPU seconds of the one-process run taken
    beside it) / ``cpus``; None where a wall clock was not stored (under load)."""
    if any("seconds" not in r["parallel"] or "cpu_seconds" not in r["one_process"] for r in rounds):
        return None
    return [r["parallel"]["seconds"] / (r["one_process"]["cpu_seconds"] / cpus) for r in rounds]


def _efficiency(ratios: list[float] | None) -> float | None:
    """The median of the rounds' ratios (:func:`_round_ratios`). Each round's two runs are taken
    one after the other, so a change of the machine's speed between rounds reaches both sides of
    its ratio; the ratio of the two sides' separate medians can pair a fast round's wall time with
    a slow round's CPU time."""
    return None if ratios is None else statistics.median(ratios)


def efficiency_parts(rounds: list[dict[str, Any]] | None, cpus: int) -> tuple[float, float] | None:
    """A round's efficiency ratio, (wall of the parallel run) / ((one-process CPU-s) / cpus),
    is the sum of two parts, each over the one-process run's CPU seconds: the parallel run's own
    CPU seconds (its extra work, 1 when it does the same work), and the core-seconds its cores
    were idle, ``cpus`` x wall less its CPU seconds. The medians of the rounds' two parts (None
    where a wall clock or a CPU time was not stored)."""
    if not rounds or any("seconds" not in r["parallel"] or "cpu_seconds" not in r["parallel"]
                         or "cpu_seconds" not in r["one_process"] for r in rounds):  # fmt: skip
        return None
    work = [r["parallel"]["cpu_seconds"] / r["one_process"]["cpu_seconds"] for r in rounds]
    idle = [(cpus * r["parallel"]["seconds"] - r["parallel"]["cpu_seconds"]) / r["one_process"]["cpu_seconds"] for r in rounds]
    return statistics.median(work), statistics.median(idle)


def figures(entry: dict[str, Any]) -> dict[str, Any]:
    """The measure of each row from a measured entry (None where not measured)."""
    cpus = entry["cpus"]
    out: dict[str, Any] = {"work_besides_segmentation": entry["stages"]["work_besides_segmentation_ratio"]}
    rounds = entry["workload_rounds"]
    li = entry.get("li2011_rounds")
    # each round's own figure, beside the medians: a row is settled only when the rounds agree
    out["rounds"] = {
        "work_besides_segmentation": stages.work_ratios(entry["stages"].get("rounds", [])),
        "parallel_efficiency": _round_ratios(rounds, cpus),
        "li2011_cpu_seconds": [r["parallel"]["cpu_seconds"] for r in li] if li else None,
        "li2011_efficiency": _round_ratios(li, cpus) if li else None,
    }
    out["parallel_seconds"] = _median(rounds, "parallel", "seconds")
    out["one_process_cpu_seconds"] = _median(rounds, "one_process", "cpu_seconds")
    out["parallel_efficiency"] = _efficiency(out["rounds"]["parallel_efficiency"])
    out["parallel_efficiency_parts"] = efficiency_parts(rounds, cpus)
    out["li2011_efficiency_parts"] = efficiency_parts(li, cpus)
    out["peak_pss_gb"] = entry["memory"]["peak_pss_mb"] / 1024
    out["li2011_cpu_seconds"] = _median(li, "parallel", "cpu_seconds") if li else None
    out["li2011_efficiency"] = _efficiency(out["rounds"]["li2011_efficiency"])
    bleu = entry.get("bleu_process")
    out["bleu_process_speedup"] = bleu["speedup"] if bleu else None
    return out


def rows(entry: dict[str, Any] | None) -> list[tuple[str, str, str, str]]:
    """``(measure, measured, target, met)`` per row, from an entry of :func:`measure`."""
    if not entry:
        return [("CPU-time targets", "not measured (python -m benchmarks.targets --measure)", "—", "—")]
    f = figures(entry)
    st = entry["stages"]
    quiet = entry["load_average_1_5_15_at_start"][0] < QUIET_LOAD
    wall_note = "" if quiet else f" (wall clock under load {entry['load_average_1_5_15_at_start'][0]:.1f}: re-measure on a quiet machine)"

    def of_rounds(name: str) -> str:
        each = f["rounds"][name] or []
        return f" (median of the rounds' ratios {', '.join(f'{x:.2f}' for x in each)})" if len(each) > 1 else ""

    def parts(name: str) -> str:
        split = f[f"{name}_parts"]
        if split is None:
            return ""
        medians = " (medians of the rounds)" if len(f["rounds"][name] or []) > 1 else ""
        return f"; over the one-process CPU-s, the parallel run's CPU-s {split[0]:.2f}× and its idle cores {split[1]:.2f}×{medians}"

    def efficiency(wall: float | None, cpu: float | None, ratio: float | None) -> str:
        if ratio is None or wall is None or cpu is None:
            return f"not stored (wall clock under load: {entry.get('wall_clock_left_out', 'not measured')})"
        return (f"{wall:.1f} s against {cpu:.1f} CPU-s / {entry['cpus']}: {ratio:.2f}×{of_rounds('parallel_efficiency')}"
                f"{parts('parallel_efficiency')}{wall_note}")

    def met(name: str, at_most: bool = True, wall: bool = False) -> str:
        value, limit, rounds = f[name], LIMITS[name], f["rounds"].get(name)
        if value is None:
            return "—"
        ok = value <= limit if at_most else value >= limit
        load = "" if quiet or not wall else " (under load)"
        if rounds and len({(x <= limit if at_most else x >= limit) for x in rounds}) > 1:
            return "not resolved (rounds on both sides of the limit)" + load
        return ("yes" if ok else "**no**") + load

    out = [
        ("work besides segmentation, fixed workload, `--jobs 1`",
         f"{st['run_cpu_seconds']:.1f} CPU-s run, {st['segmentation_floor_cpu_seconds']:.1f} CPU-s segmentation floor: "
         f"{f['work_besides_segmentation']:.2f}×{of_rounds('work_besides_segmentation')}", "≤ 0.77× segmentation",
         met("work_besides_segmentation")),
        ("parallel efficiency, fixed workload, default `--jobs`",
         efficiency(f["parallel_seconds"], f["one_process_cpu_seconds"], f["parallel_efficiency"]),
         "≤ 1.15×",
         met("parallel_efficiency", wall=True)),
        ("peak memory, fixed workload, default `--jobs` (sum of PSS)", f"{f['peak_pss_gb']:.2f} GB", "≤ 1.2 GB",
         met("peak_pss_gb")),
    ]  # fmt: skip
    carried = entry.get("carried_over", {})

    def earlier(key: str) -> str:
        return f" (not measured this time: kept from an earlier measurement, {carried[key]} at its start)" if key in carried else ""

    if f["li2011_cpu_seconds"] is not None:
        # CPU-s are the machine's on the day (its speed has differed by a third between days):
        # the floor taken in the same command is the yardstick between two measurements
        floor = st.get("segmentation_floor_cpu_seconds") if "li2011_rounds" not in carried else None
        yardstick = f" ({f['li2011_cpu_seconds'] / floor:.1f}× the segmentation floor above)" if floor else ""
        out.append(("li2011 study (`benchmarks/li2011_study.toml`), empty store, default `--jobs`",
                    f"{f['li2011_cpu_seconds']:.1f} CPU-s{yardstick}; efficiency "
                    + (f"{f['li2011_efficiency']:.2f}×{parts('li2011_efficiency')}{wall_note}"
                       if f["li2011_efficiency"] is not None else "not stored")
                    + earlier("li2011_rounds"),
                    "≤ 170 CPU-s, ≤ 1.15×",
                    met("li2011_cpu_seconds") + " / " + met("li2011_efficiency", wall=True)))
    if f["bleu_process_speedup"] is not None:
        b = entry["bleu_process"]
        out.append(("BLEU orders 1..30, characters, whole processes",
                    f"{b['metaeval_cpu_seconds']:.2f} CPU-s against {b['sacrebleu_cpu_seconds']:.1f} for sacrebleu: "
                    f"{b['speedup']:.1f}×" + earlier("bleu_process"), "≥ 40× sacrebleu", met("bleu_process_speedup", at_most=False)))
    return out


#: The rows ``--skip`` can leave out, by the key of their figures in an entry.
SKIPPABLE = {"li2011": "li2011_rounds", "bleu": "bleu_process"}


def carry_over(entry: dict[str, Any], previous: dict[str, Any] | None, skipped: set[str]) -> dict[str, Any]:
    """``entry`` with the figures of the rows it skipped kept from the ``previous`` stored entry,
    each marked with the load average it was measured at (a skipped row is not lost)."""
    out = dict(entry)
    for name in sorted(skipped):
        key = SKIPPABLE.get(name)
        if key is None or key in out or not previous or key not in previous:
            continue
        out[key] = previous[key]
        earlier = previous.get("carried_over", {}).get(key) or f"load average {previous['load_average_1_5_15_at_start'][0]:.2f}"
        out.setdefault("carried_over", {})[key] = earlier
    return out


def stored_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` without its wall-clock figures when it was measured under load."""
    if entry["load_average_1_5_15_at_start"][0] < QUIET_LOAD:
        return entry
    kept = dict(entry)
    kept["wall_clock_left_out"] = f"load average {entry['load_average_1_5_15_at_start'][0]:.2f} at the start"
    for name in ("workload_rounds", "li2011_rounds"):
        if name in kept:
            kept[name] = [{side: {"cpu_seconds": r[side]["cpu_seconds"]} for side in r} for r in kept[name]]
    kept["memory"] = {k: v for k, v in kept["memory"].items() if k.startswith("peak_")}
    return kept


def markdown(entry: dict[str, Any] | None) -> str:
    lines = ["| measure | measured | target | met? |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows(entry)]
    if entry:
        lines.append(f"\nload average at the start {' '.join(f'{x:.2f}' for x in entry['load_average_1_5_15_at_start'])}, "
                     f"{entry['cpus']} CPUs, medians of {entry['repeat']} rounds taken in turn")
    return "\n".join(lines)


def wait_quiet(timeout: float) -> None:
    """Wait up to ``timeout`` seconds for the load average to fall below :data:`QUIET_LOAD`."""
    deadline = time.monotonic() + timeout
    while os.getloadavg()[0] >= QUIET_LOAD and time.monotonic() < deadline:
        time.sleep(10)
