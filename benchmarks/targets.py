"""The speed and memory targets against what the benchmarks stored.

    python -m benchmarks.targets
    python -m benchmarks.targets --measure [--repeat 3] [--skip li2011,bleu] [--wait-quiet SECONDS]

``--measure`` measures the CPU-time targets (:mod:`benchmarks.cpu_targets`: work besides
segmentation, parallel efficiency, peak memory, the li2011 study, BLEU as whole processes), each
beside what it is compared with in this one command, prints them and stores them under the key
``cpu_targets``; without it, both tables are printed from what is stored.

Reads ``benchmarks/results.json`` (keys ``scale``, ``large``, ``ter_setup``, written by
``benchmarks.scale``, ``benchmarks.large`` and ``benchmarks.ter_setup``) and the runtime that
``python -m experiments.li2011`` records in ``experiments/results/li2011/runtime.json``, and
prints one row per target: measure | measured | target | ratio | met? | load average. Every
ratio is computed here from numbers stored by one run of one script (a cold run and the
segmentation floor it is compared with come from the same command). Nothing is measured here.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results.json"
LI2011_RUNTIME = REPO / "experiments" / "results" / "li2011" / "runtime.json"
GB = 1024.0  # MB


@dataclass(frozen=True)
class Target:
    """One row: ``value`` is compared with ``limit`` (``at_most``: value <= limit; else >=).
    The ratio shown is ``value`` itself where the target is a ratio (``relative``), else
    ``value / limit``."""

    measure: str
    measured: str
    target: str
    value: float | None
    limit: float
    at_most: bool = True
    load: float | None = None
    source: str = ""
    relative: bool = False

    @property
    def ratio(self) -> float | None:
        if self.value is None:
            return None
        return self.value if self.relative else self.value / self.limit

    @property
    def ratio_text(self) -> str:
        if self.ratio is None:
            return "—"
        if self.relative:
            return f"{self.ratio:.2f}× segmentation" if self.limit > 0.5 else f"{self.ratio:.1%} of cold"
        # three decimals where two would round a miss onto the target (0.998 shown as 1.00)
        digits = 3 if round(self.ratio, 2) == 1.0 else 2
        return f"{self.ratio:.{digits}f}× target"

    @property
    def met(self) -> bool | None:
        if self.value is None:
            return None
        return self.value <= self.limit if self.at_most else self.value >= self.limit


def _load(entry: dict[str, Any] | None) -> float | None:
    if not entry:
        return None
    found = entry.get("load_average_1_5_15_at_start") or (entry.get("machine") or {}).get("load_average")
    return float(found[0]) if found else None


def read_results(path: Path = RESULTS) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def read_runtime(path: Path = LI2011_RUNTIME) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def work_bound(floor: float, one_process_cpu_seconds: float, cpus: int, target: float = 0.75) -> dict[str, float]:
    """What the machine allows the cold run: a parallel run does the work of the one-process
    run (``one_process_cpu_seconds``) and more, so it takes at least that over ``cpus``; and it
    can take ``target`` times the segmentation ``floor`` only if the work besides segmentation
    costs at most ``target * cpus * floor - floor`` CPU seconds."""
    bound = one_process_cpu_seconds / cpus
    return {
        "lower_bound_seconds": bound,
        "ratio_lower_bound_to_segmentation": bound / floor,
        "non_segmentation_cpu_seconds": one_process_cpu_seconds - floor,
        "non_segmentation_cpu_seconds_allowed_by_target": target * cpus * floor - floor,
    }


def targets(results: dict[str, Any], li2011: dict[str, Any] | None) -> list[Target]:
    """The rows of the targets table from stored results (None where nothing is stored)."""
    rows: list[Target] = []
    scale = results.get("scale")
    dataset = (scale or {}).get("dataset", "wmt24-esa/en-zh")
    if scale:
        cold, warm, floor = scale["cold"], scale["warm"], scale["segmentation_floor_seconds"]
        load = _load(scale)
        rounds = int(scale.get("repeat", 1))
        of_rounds = f" (medians of {rounds} rounds taken in turn)" if rounds > 1 else ""
        bound = ""
        if "one_process" in scale:
            found = work_bound(floor, scale["one_process"]["cpu_seconds"], int(scale["cpus"]))
            bound = (f"; no run on {scale['cpus']} CPUs can take less than {found['lower_bound_seconds']:.1f} s "
                     f"({found['ratio_lower_bound_to_segmentation']:.2f}×): the run's work in one process is "
                     f"{scale['one_process']['cpu_seconds']:.1f} CPU-s, of which "
                     f"{found['non_segmentation_cpu_seconds']:.1f} besides segmentation, where 0.75× allows "
                     f"{found['non_segmentation_cpu_seconds_allowed_by_target']:.1f}")
        rows.append(Target(
            f"`metaeval run` {dataset}, defaults, cold (`--jobs {scale['jobs']}`, {scale['cpus']} CPUs)",
            f"{cold['seconds']:.1f} s; segmentation alone, one process: {floor:.1f} s{of_rounds}{bound}",
            "≤ 0.75× single-process segmentation", cold["seconds"] / floor, 0.75, load=load, source="scale",
            relative=True))
        rows.append(Target(
            "same, second run with the cache", f"{warm['seconds']:.2f} s against {cold['seconds']:.1f} s cold",
            "≤ 10% of cold", warm["seconds"] / cold["seconds"], 0.10, load=load, source="scale", relative=True))
        rows.append(Target(
            "peak memory of the default run (sum of PSS over its processes)",
            f"{cold['peak_pss_mb'] / GB:.2f} GB PSS ({cold['peak_rss_mb'] / GB:.2f} GB summing RSS)",
            "≤ 1.5 GB", cold["peak_pss_mb"] / GB, 1.5, load=load, source="scale"))
    else:
        rows += [Target("`metaeval run` cold", "not measured", "≤ 0.75× single-process segmentation", None, 0.75),
                 Target("same, second run with the cache", "not measured", "≤ 10% of cold", None, 0.10),
                 Target("peak memory of the default run", "not measured", "≤ 1.5 GB", None, 1.5)]
    if li2011 and "seconds" in li2011:
        n = len(li2011.get("datasets", []))
        rows.append(Target(f"`experiments.li2011` ({n} datasets), cold", f"{li2011['seconds']:.1f} s",
                           "≤ 2 min", li2011["seconds"], 120.0, load=li2011.get("load_average_at_start"),
                           source="li2011 runtime.json"))
        warm_s = li2011.get("warm_seconds")
        rows.append(Target(f"`experiments.li2011` ({n} datasets), warm",
                           "not recorded" if warm_s is None else f"{warm_s:.1f} s", "≤ 20 s", warm_s, 20.0,
                           load=li2011.get("warm_load_average_at_start"), source="li2011 runtime.json"))
    else:
        rows += [Target("`experiments.li2011`, cold", "not recorded", "≤ 2 min", None, 120.0),
                 Target("`experiments.li2011`, warm", "not recorded", "≤ 20 s", None, 20.0)]
    large = results.get("large")
    what = "10,000 lines × 50 systems, char + jieba, bleu + ter + chrf"
    if large:
        what = (f"{large['lines']:,} lines × {large['systems']} systems, {' + '.join(large['segmenters'])}, "
                f"{' + '.join(large['metrics'])}")
        distinct = large.get("distinct_line_outputs")
        computed = (f" ({distinct / (large['lines'] * large['systems']):.0%} of the (line, system) outputs differ "
                    "and are scored)" if distinct else "")
        rows.append(Target(f"{what}: time", f"{large['seconds']:.1f} s{computed}", "≤ 150 s", large["seconds"], 150.0,
                           load=_load(large), source="large"))
        rows.append(Target(f"{what}: peak memory (sum of PSS)",
                           f"{large['peak_pss_mb'] / GB:.2f} GB PSS ({large['peak_rss_mb'] / GB:.2f} GB summing RSS)",
                           "≤ 3 GB", large["peak_pss_mb"] / GB, 3.0, load=_load(large), source="large"))
    else:
        rows += [Target(f"{what}: time", "not measured", "≤ 150 s", None, 150.0),
                 Target(f"{what}: peak memory", "not measured", "≤ 3 GB", None, 3.0)]
    ter = results.get("ter_setup")
    if ter and ter.get("word_level_min_speedup") is not None:
        identical = ter.get("all_numbers_identical") is True
        rows.append(Target("word-level TER per-pair setup", f"{ter['word_level_min_speedup']:.3f}× faster (slowest row), "
                           f"numbers {'identical' if identical else 'NOT identical'}", "2× faster, identical",
                           ter["word_level_min_speedup"] if identical else 0.0, 2.0, at_most=False, load=_load(ter),
                           source="ter_setup"))
    else:
        rows.append(Target("word-level TER per-pair setup", "not measured", "2× faster, identical", None, 2.0, at_most=False))
    return rows


def markdown(rows: list[Target]) -> str:
    """The table as Markdown: measure | measured | target | ratio | met? | load average."""
    lines = ["| measure | measured | target | ratio | met? | load average (1 min) at start |",
             "|---|---|---|---:|---|---:|"]
    for row in rows:
        met = "—" if row.met is None else ("yes" if row.met else "**no**")
        load = "—" if row.load is None else f"{row.load:.2f}"
        lines.append(f"| {row.measure} | {row.measured} | {row.target} | {row.ratio_text} | {met} | {load} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from benchmarks import cpu_targets
    from benchmarks.store import update_key

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="measure the CPU-time targets now (about 15 minutes)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", default="", help="rows not to measure, their stored figures kept and marked: li2011, bleu (comma-separated)")
    parser.add_argument("--wait-quiet", type=float, default=0.0, help="wait up to this many seconds for a quiet machine")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.measure:
        cpu_targets.wait_quiet(args.wait_quiet)
        skipped = {s.strip() for s in args.skip.split(",") if s.strip()}
        entry = cpu_targets.measure(args.repeat, skipped)
        previous = read_results(args.out).get(cpu_targets.KEY) if args.out.exists() else None
        entry = cpu_targets.carry_over(entry, previous, skipped)
        print(cpu_targets.markdown(entry))
        update_key(cpu_targets.KEY, cpu_targets.stored_entry(entry), args.out)
        print(f"written: {args.out} [{cpu_targets.KEY}]")
        return 0
    results = read_results(args.out)
    print(markdown(targets(results, read_runtime())))
    print()
    print(cpu_targets.markdown(results.get(cpu_targets.KEY)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
