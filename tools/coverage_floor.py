"""Fail when any module of metaeval/, segmenters/ or corpora/ has less branch coverage than the floor.

    python -m pytest --cov --cov-report=json && python tools/coverage_floor.py [coverage.json] [--floor 85]

Reads the JSON report of coverage.py (``branch = true`` in pyproject.toml, so a module's percentage
counts its lines and its branch outcomes together) and prints every module, lowest first.

The bodies of numba-jitted kernels (``@njit``) are excluded from the report in pyproject.toml:
compiled code does not run through Python's tracer, so they would show as never executed. They
are measured apart, with the JIT off, by ``python tools/coverage_floor.py --jitted`` (not part of
CI: the kernels run interpreted, which takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("metaeval/", "segmenters/", "corpora/")
#: tests that run the jitted kernels of each metric module
JITTED = {
    "metaeval/metrics/tercom.py": "tests/metrics/test_ter.py",
    "metaeval/metrics/gtm.py": "tests/metrics/test_gtm.py",
    "metaeval/metrics/meteor.py": "tests/metrics/test_meteor.py",
}


def module_percentages(report: dict) -> dict[str, float]:
    """Module path -> percent of lines and branch outcomes covered."""
    out = {}
    for name, data in report["files"].items():
        path = Path(name).resolve()
        try:
            rel = path.relative_to(REPO).as_posix()
        except ValueError:
            rel = Path(name).as_posix()
        if rel.startswith(PACKAGES):
            out[rel] = float(data["summary"]["percent_covered"])
    return out


def check(report_path: Path, floor: float) -> int:
    if not report_path.is_file():
        print(f"coverage_floor: error: {report_path} not found (run pytest with --cov --cov-report=json)", file=sys.stderr)
        return 1
    percentages = module_percentages(json.loads(report_path.read_text(encoding="utf-8")))
    if not percentages:
        print(f"coverage_floor: error: {report_path} covers no module of {', '.join(PACKAGES)}", file=sys.stderr)
        return 1
    below = {name: pct for name, pct in percentages.items() if pct < floor}
    for name, pct in sorted(percentages.items(), key=lambda item: (item[1], item[0])):
        print(f"{pct:6.1f}%  {name}{'  < floor' if name in below else ''}")
    lowest = min(percentages, key=percentages.get)
    print(f"coverage_floor: {len(percentages)} modules, lowest {lowest} {percentages[lowest]:.1f}%, floor {floor:g}%")
    if below:
        print(f"coverage_floor: error: {len(below)} module(s) below {floor:g}%: {', '.join(sorted(below))}", file=sys.stderr)
        return 1
    return 0


def jitted(floor: float) -> int:
    """Coverage of the jitted kernels run as Python (NUMBA_DISABLE_JIT=1), exclusion lifted."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    rcfile = REPO / ".coveragerc-jitted"
    rcfile.write_text("[run]\nbranch = true\n[report]\nexclude_also =\n    if __name__ == .__main__.:\n", encoding="utf-8")
    try:
        tests = sorted(set(JITTED.values()))
        report = REPO / "coverage-jitted.json"
        code = subprocess.call(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests,
             *[f"--cov={m.removesuffix('.py').replace('/', '.')}" for m in JITTED],
             f"--cov-config={rcfile}", f"--cov-report=json:{report}"],
            cwd=REPO, env=env,
        )
        if code:
            return code
        percentages = module_percentages(json.loads(report.read_text(encoding="utf-8")))
    finally:
        rcfile.unlink(missing_ok=True)
    for name in JITTED:
        print(f"{percentages.get(name, 0.0):6.1f}%  {name} (JIT off, kernels included)")
    return 0 if all(percentages.get(name, 0.0) >= floor for name in JITTED) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", nargs="?", type=Path, default=REPO / "coverage.json")
    parser.add_argument("--floor", type=float, default=85.0, help="lowest percentage allowed per module (default 85)")
    parser.add_argument("--jitted", action="store_true", help="measure the jitted kernels with the JIT off")
    args = parser.parse_args(argv)
    return jitted(args.floor) if args.jitted else check(args.report, args.floor)


if __name__ == "__main__":
    sys.exit(main())
