"""A command timed on an earlier commit and on this tree, in turn, in one command.

    python -m benchmarks.ab [--base COMMIT] [--only run,warm,li2011,large] [--max-ratio 1.10]
    python -m benchmarks.ab [--base COMMIT] [--repeat 3] [--key NAME] -- MODULE ARG ...

Without a command, the benchmarks behind ``benchmarks.targets`` (:mod:`benchmarks.ab_targets`:
the cold and the warm ``metaeval run`` of the workload, the li2011 study, the large corpus) are
compared, each under the key ``ab_target_NAME``; the command fails (exit 1) when a benchmark's outputs
differ or its median CPU seconds on this tree exceed ``--max-ratio`` times the base's. The
default ``--base`` is the previous commit on ``main``: ``main`` itself from any other state of
the tree, ``main^`` when this tree is ``main``'s tip without changes.

    python -m benchmarks.ab --base b394384 -- metaeval run ../shared/data/wmt24-esa/en-zh --cache-dir {cache}
    python -m benchmarks.ab --base b394384 --repeat 1 -- experiments.li2011 --data ../shared/data --out {tmp}

``python -m MODULE ARG ...`` runs in a fresh process with the working directory at the root of
each side (a detached ``git worktree`` of ``--base``, and this repository), so each side imports
its own ``metaeval``, and its own ``metaeval.segmenters`` and ``metaeval.corpora`` from the
folders the side's pyproject.toml names for them (``package-dir``; an editable install would map
them to this repository's folders on both sides: :data:`FROM_TREE`); an argument after the module naming an existing file or folder (from the current directory)
is given as an absolute path. ``{tmp}`` (an output folder) and ``{cache}`` (a cache folder) in an argument
are replaced by empty temporary folders for every run, so every run is cold; ``{warm}`` by one
folder per side kept over the rounds (a cache the untimed first run fills). Each side is run once untimed first
(compiled kernels are cached per tree; ``--warmup "MODULE ARG ..."`` runs that shorter command
instead, e.g. a small ``metaeval score`` that loads every kernel), then the two sides alternate ``--repeat`` times, so a
change of the machine's speed during the command reaches both alike. Wall and CPU seconds
(the process and its children) are the medians of the rounds; the ratio is this tree / base.
Each round's own ratio is also taken (its two runs are adjacent in time, so a drift of the
machine's speed between rounds cancels in it): their median, its distribution-free interval and
a sign test (:func:`paired_ratios`) say whether the rounds resolve a difference at all: on a
2-core machine, 15 rounds of the default run gave per-round ratios from 0.83 to 1.10 and an
interval about 5% wide, so a change of a few percent needs 15 rounds or more.

The two sides must produce the same bytes: the standard output of every run, and every file
written under ``{tmp}`` except ``store/`` and ``runtime.json`` (they hold cached pieces and
timings; ``{cache}`` is not compared either); the command fails otherwise, and the figures are still
written, marked as differing (with ``--why-different TEXT`` beside them when the change of bytes is
intended and explained). The figures go under ``--key`` (default ``ab``) of
``benchmarks/results.json`` (read, update that key only, atomic replace).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks import ab_targets
from benchmarks.store import update_key

REPO = Path(__file__).resolve().parents[1]
#: Files under the temporary folder that are not compared between the sides.
UNCOMPARED = ("store", "runtime.json")


def _files(folder: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and rel.parts[0] not in UNCOMPARED and rel.name not in UNCOMPARED:
            out[str(rel)] = path.read_bytes()
    return out


#: ``python -c FROM_TREE FOLDERS MODULE ARG ...`` is ``python -m MODULE ARG ...`` with the
#: packages of FOLDERS (JSON: package name -> folder, :func:`package_dirs`) found there first,
#: before any installed mapping of them.
FROM_TREE = """
import importlib.util, json, runpy, sys
from pathlib import Path
folders = {name: Path(folder) for name, folder in json.loads(sys.argv[1]).items()}
class FromTree:
    @staticmethod
    def find_spec(name, path=None, target=None):
        folder = folders.get(name)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
sys.meta_path.insert(0, FromTree)
sys.argv = sys.argv[2:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def package_dirs(root: Path) -> dict[str, str]:
    """The packages that ``root``'s pyproject.toml places outside their parent's folder
    (``[tool.setuptools] package-dir``), each with its folder under ``root``."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    found = root / "pyproject.toml"
    if not found.is_file():
        return {}
    mapping = tomllib.loads(found.read_text(encoding="utf-8")).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    return {name: str(root / folder) for name, folder in mapping.items() if name}


def timed(root: Path, argv: list[str], warm: Path | None = None) -> tuple[dict[str, float], bytes, dict[str, bytes]]:
    """Wall and CPU seconds of ``python -m ARGV`` run in ``root``, its output (the run's temporary
    folders written back as ``{tmp}`` and ``{cache}``) and its files (``{warm}`` in an argument is ``warm``)."""
    with tempfile.TemporaryDirectory(prefix="ab-") as tmp:
        args = [a.replace("{tmp}", str(Path(tmp) / "out")).replace("{cache}", str(Path(tmp) / "cache"))
                .replace("{warm}", str(warm)) for a in argv]  # fmt: skip
        if any("{tmp}/" in a for a in argv):
            (Path(tmp) / "out").mkdir()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", FROM_TREE, json.dumps(package_dirs(root)), *args], cwd=root,
                              capture_output=True, check=False)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"ab: python -m {' '.join(args)} in {root} failed ({proc.returncode}): "
                             f"{proc.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out = Path(tmp) / "out"
        # a command that names its output folder (``wrote /tmp/ab-x1y2/out: ...``) prints another
        # folder on every run: compared as written in the command
        stdout = proc.stdout.replace(str(out).encode(), b"{tmp}").replace(str(Path(tmp) / "cache").encode(), b"{cache}")
        return {"seconds": seconds, "cpu_seconds": cpu}, stdout, _files(out) if out.is_dir() else {}


def _absolute(command: list[str]) -> list[str]:
    """``command`` with every argument after the module that names an existing path made absolute."""
    return command[:1] + [str(Path(a).resolve()) if "{" not in a and not a.startswith("-") and Path(a).exists() else a
                          for a in command[1:]]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)


def default_base() -> str:
    """The previous commit on ``main``: ``main^`` when this tree is ``main``'s tip without
    changes, else ``main`` (HEAD^ where there is no ``main``)."""
    main = _git("rev-parse", "--verify", "main^{commit}")
    if main.returncode != 0:
        return "HEAD^"
    head = _git("rev-parse", "HEAD").stdout.strip()
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no").stdout.strip())
    return "main^" if main.stdout.strip() == head and not dirty else "main"


def compare(sides: dict[str, Path], command: list[str], warmup: list[str], repeat: int) -> dict[str, Any]:
    """``command`` on each side once untimed (``warmup``), then the sides in turn ``repeat``
    times: rounds, medians, ratios this / base and whether every output is the same."""
    with tempfile.TemporaryDirectory(prefix="ab-warm-") as keep:
        warm = {name: Path(keep) / name for name in sides}
        for name, root in sides.items():  # untimed: compiles and caches each tree's kernels, fills {warm}
            timed(root, warmup, warm[name])
        load = os.getloadavg()
        rounds: list[dict[str, dict[str, float]]] = []
        outputs = []
        for _ in range(repeat):
            entry = {}
            for name, root in sides.items():
                entry[name], stdout, files = timed(root, command, warm[name])
                outputs.append((stdout, files))
            rounds.append(entry)
    median = {name: {m: statistics.median(r[name][m] for r in rounds) for m in ("seconds", "cpu_seconds")} for name in sides}
    return {
        "repeat": repeat, "cpus": os.cpu_count(), "load_average_1_5_15_at_start": list(load), "rounds": rounds,
        "median": median, "identical_outputs": all(output == outputs[0] for output in outputs),
        "ratio_seconds": median["this"]["seconds"] / median["base"]["seconds"],
        "ratio_cpu_seconds": median["this"]["cpu_seconds"] / median["base"]["cpu_seconds"],
        "paired": {m: paired_ratios([r["this"][m] / r["base"][m] for r in rounds]) for m in ("seconds", "cpu_seconds")},
    }  # fmt: skip


#: Coverage asked of the interval of :func:`paired_ratios` (at least this much).
INTERVAL_LEVEL = 0.95


def paired_ratios(ratios: list[float], level: float = INTERVAL_LEVEL) -> dict[str, Any]:
    """The median of per-round ratios this / base, a distribution-free interval for it, and the
    two-sided sign test of "neither side is faster".

    The two runs of a round follow each other, so a change of the machine's speed between
    rounds, which moves both, cancels in their ratio. The interval is the order-statistic
    (sign-test) interval of the median (Conover 1999, sec. 3.2): the ``k``-th smallest and
    ``k``-th largest ratio, with the largest ``k`` whose coverage ``1 - 2 P(B < k)``, ``B`` ~
    Binomial(n, 1/2), is at least ``level``; None when no ``k`` reaches it (fewer than 6 rounds
    at 95%). The sign test counts the rounds above and below 1 (ties left out) against
    Binomial(m, 1/2). ``verdict``: ``faster``/``slower`` when the interval lies below/above 1,
    else ``not resolved``."""
    ordered = sorted(ratios)
    n = len(ordered)

    def below(k: int, m: int) -> float:  # P(B < k), B ~ Binomial(m, 1/2)
        return sum(math.comb(m, i) for i in range(k)) / 2**m

    k = 0
    while k + 1 <= n // 2 and 1 - 2 * below(k + 1, n) >= level:
        k += 1
    interval = [ordered[k - 1], ordered[n - k]] if k else None
    above, under = sum(r > 1 for r in ordered), sum(r < 1 for r in ordered)
    m = above + under
    sign_p = min(1.0, 2 * below(min(above, under) + 1, m)) if m else 1.0
    verdict = "not resolved"
    if interval is not None and interval[1] < 1:
        verdict = "faster"
    elif interval is not None and interval[0] > 1:
        verdict = "slower"
    return {"rounds": n, "median": statistics.median(ordered), "interval": interval,
            "coverage": 1 - 2 * below(k, n) if k else None, "rounds_above_1": above, "rounds_below_1": under,
            "sign_test_p": sign_p, "verdict": verdict}  # fmt: skip


@contextlib.contextmanager
def base_tree(commit: str) -> Iterator[Path]:
    """A detached ``git worktree`` of ``commit``, removed afterwards."""
    worktree = Path(tempfile.mkdtemp(prefix="ab-base-"))
    subprocess.run(["git", "worktree", "add", "--detach", "--force", str(worktree), commit], cwd=REPO,
                   capture_output=True, check=True)
    try:
        yield worktree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=REPO, capture_output=True, check=False)
        shutil.rmtree(worktree, ignore_errors=True)


def _line(result: dict[str, Any], commit: str) -> str:
    median = result["median"]
    return (f"{result['command']}: base {commit[:7]} {median['base']['seconds']:.1f} s ({median['base']['cpu_seconds']:.1f} CPU-s), "
            f"this {median['this']['seconds']:.1f} s ({median['this']['cpu_seconds']:.1f} CPU-s): "
            f"{result['ratio_seconds']:.3f}x wall, {result['ratio_cpu_seconds']:.3f}x CPU, medians of {result['repeat']}; "
            f"ratio per round: {paired_text(result['paired'])}; "
            f"outputs {'identical' if result['identical_outputs'] else 'DIFFER'}")  # fmt: skip


def interval_text(entry: dict[str, Any]) -> str:
    """`` [low, high]`` of a :func:`paired_ratios` result, or nothing when it has no interval."""
    return f" [{entry['interval'][0]:.3f}, {entry['interval'][1]:.3f}]" if entry["interval"] else ""


def paired_text(paired: dict[str, dict[str, Any]]) -> str:
    """The per-round ratios of wall and CPU seconds (:func:`paired_ratios`) in words."""
    parts = []
    for metric, label in (("seconds", "wall"), ("cpu_seconds", "CPU")):
        entry = paired[metric]
        if entry["interval"] is None:
            span = f"no {INTERVAL_LEVEL:.0%} interval from {entry['rounds']} round{'s' if entry['rounds'] != 1 else ''}"
        else:
            span = f"{interval_text(entry).lstrip()} ({entry['coverage']:.1%})"
        parts.append(f"{label} {entry['median']:.3f}× {span}, {entry['verdict']}")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=None, help="the commit to compare this tree against (default: the previous commit on main)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--key", default="ab", help="key of benchmarks/results.json to write (a given command)")
    parser.add_argument("--warmup", default=None, help='"MODULE ARG ..." run once untimed on each side (default: the command)')
    parser.add_argument("--only", default=",".join(ab_targets.NAMES),
                        help=f"without a command: the benchmarks to compare (default {','.join(ab_targets.NAMES)})")
    parser.add_argument("--max-ratio", type=float, default=1.10,
                        help="without a command: the largest CPU-seconds ratio this / base that passes (default 1.10)")
    parser.add_argument("--large-lines", type=int, default=10_000)
    parser.add_argument("--large-systems", type=int, default=50)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    parser.add_argument("--why-different", default=None,
                        help="when outputs are expected to differ: why, stored beside the figures and shown with them")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- MODULE ARG ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    given, command = command, _absolute(command)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    names = tuple(n.strip() for n in args.only.split(",") if n.strip())
    unknown = sorted(set(names) - set(ab_targets.NAMES))
    if not command and (unknown or not names):
        parser.error(f"--only takes {', '.join(ab_targets.NAMES)} (comma-separated), not {args.only!r}")
    base_name = args.base or default_base()
    base = _git("rev-parse", "--verify", f"{base_name}^{{commit}}")
    if base.returncode != 0:
        parser.error(f"--base {base_name!r} is not a commit of {REPO}")
    commit = base.stdout.strip()
    head = _git("rev-parse", "HEAD").stdout.strip()
    this = head + ("+changes" if _git("status", "--porcelain", "--untracked-files=no").stdout.strip() else "")
    if command:
        warmup = _absolute(shlex.split(args.warmup)) if args.warmup else command
        with base_tree(commit) as worktree:
            result = compare({"base": worktree, "this": REPO}, command, warmup, args.repeat)
        result = {"command": "python -m " + " ".join(given), "base": commit, "this": this,
                  "warmup": "python -m " + (args.warmup or " ".join(given)), **result}  # fmt: skip
        if args.why_different and not result["identical_outputs"]:
            result["why_different"] = args.why_different
        update_key(args.key, result, args.out)
        print(f"{_line(result, commit)}; written: {args.out} [{args.key}]")
        return 0 if result["identical_outputs"] else 1
    return _targets(names, commit, this, args)


def _targets(names: tuple[str, ...], commit: str, this: str, args: argparse.Namespace) -> int:
    """Every benchmark of ``names`` compared on the base and this tree; 1 if one's outputs differ
    or its CPU ratio exceeds ``--max-ratio``."""
    failed = []
    with tempfile.TemporaryDirectory(prefix="ab-large-") as tmp, base_tree(commit) as worktree:
        large = None
        if "large" in names:
            from benchmarks.large import build

            large = Path(tmp) / "corpus"
            build(large, args.large_lines, args.large_systems)
        for name, command in ab_targets.commands(names, large).items():
            result = compare({"base": worktree, "this": REPO}, command, command, args.repeat)
            shown = " ".join("CORPUS" if a == str(large) else a for a in command)
            result = {"command": "python -m " + shown, "base": commit, "this": this, "max_ratio": args.max_ratio, **result}
            if name == "large":
                result.update(lines=args.large_lines, systems=args.large_systems)
            slower = result["ratio_cpu_seconds"] > args.max_ratio
            if args.why_different and not result["identical_outputs"]:
                result["why_different"] = args.why_different
            update_key(f"ab_target_{name}", result, args.out)
            print(f"{name}: {_line(result, commit)}" + (f"; SLOWER than {args.max_ratio:.2f}x" if slower else ""), flush=True)
            if slower or not result["identical_outputs"]:
                failed.append(name)
    print(f"written: {args.out} [{', '.join('ab_target_' + n for n in names)}]; "
          + (f"FAILED: {', '.join(failed)}" if failed else f"every benchmark within {args.max_ratio:.2f}x, outputs identical"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
