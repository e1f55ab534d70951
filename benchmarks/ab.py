"""A command timed on an earlier commit and on this tree, in turn, in one command.

    python -m benchmarks.ab --base COMMIT [--repeat 3] [--key NAME] -- MODULE ARG ...

    python -m benchmarks.ab --base b394384 -- metaeval run ../shared/data/wmt24-esa/en-zh --cache-dir {cache}
    python -m benchmarks.ab --base b394384 --repeat 1 -- experiments.li2011 --data ../shared/data --out {tmp}

``python -m MODULE ARG ...`` runs in a fresh process with the working directory at the root of
each side (a detached ``git worktree`` of ``--base``, and this repository), so each side imports
its own ``metaeval``; an argument after the module naming an existing file or folder (from the current directory)
is given as an absolute path. ``{tmp}`` (an output folder) and ``{cache}`` (a cache folder) in an argument
are replaced by empty temporary folders for every run, so every run is cold. Each side is run once untimed first
(compiled kernels are cached per tree; ``--warmup "MODULE ARG ..."`` runs that shorter command
instead, e.g. a small ``metaeval score`` that loads every kernel), then the two sides alternate ``--repeat`` times, so a
change of the machine's speed during the command reaches both alike. Wall and CPU seconds
(the process and its children) are the medians of the rounds; the ratio is this tree / base.

The two sides must produce the same bytes: the standard output of every run, and every file
written under ``{tmp}`` except ``store/`` and ``runtime.json`` (they hold cached pieces and
timings; ``{cache}`` is not compared either); the command fails otherwise, and the figures are still
written, marked as differing (with ``--why-different TEXT`` beside them when the change of bytes is
intended and explained). The figures go under ``--key`` (default ``ab``) of
``benchmarks/results.json`` (read, update that key only, atomic replace).
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def timed(root: Path, argv: list[str]) -> tuple[dict[str, float], bytes, dict[str, bytes]]:
    """Wall and CPU seconds of ``python -m ARGV`` run in ``root``, its output and its files."""
    with tempfile.TemporaryDirectory(prefix="ab-") as tmp:
        args = [a.replace("{tmp}", str(Path(tmp) / "out")).replace("{cache}", str(Path(tmp) / "cache")) for a in argv]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", *args], cwd=root, capture_output=True, check=False)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"ab: python -m {' '.join(args)} in {root} failed ({proc.returncode}): "
                             f"{proc.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out = Path(tmp) / "out"
        return {"seconds": seconds, "cpu_seconds": cpu}, proc.stdout, _files(out) if out.is_dir() else {}


def _absolute(command: list[str]) -> list[str]:
    """``command`` with every argument after the module that names an existing path made absolute."""
    return command[:1] + [str(Path(a).resolve()) if "{" not in a and not a.startswith("-") and Path(a).exists() else a
                          for a in command[1:]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare this tree against")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--key", default="ab", help="key of benchmarks/results.json to write")
    parser.add_argument("--warmup", default=None, help='"MODULE ARG ..." run once untimed on each side (default: the command)')
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    parser.add_argument("--why-different", default=None,
                        help="when outputs are expected to differ: why, stored beside the figures and shown with them")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- MODULE ARG ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    given, command = command, _absolute(command)
    if not command or args.repeat < 1:
        parser.error("give the module and its arguments after --, and --repeat >= 1")
    warmup = _absolute(shlex.split(args.warmup)) if args.warmup else command
    base = subprocess.run(["git", "rev-parse", "--verify", f"{args.base}^{{commit}}"], cwd=REPO, capture_output=True,
                          text=True, check=False)
    if base.returncode != 0:
        parser.error(f"--base {args.base!r} is not a commit of {REPO}")
    commit = base.stdout.strip()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                                capture_output=True, text=True, check=True).stdout.strip())
    worktree = Path(tempfile.mkdtemp(prefix="ab-base-"))
    subprocess.run(["git", "worktree", "add", "--detach", "--force", str(worktree), commit], cwd=REPO,
                   capture_output=True, check=True)
    try:
        sides = {"base": worktree, "this": REPO}
        for root in sides.values():  # untimed: compiles and caches each tree's kernels
            timed(root, warmup)
        load = os.getloadavg()
        rounds: list[dict[str, dict[str, float]]] = []
        outputs = []
        for _ in range(args.repeat):
            entry = {}
            for name, root in sides.items():
                entry[name], stdout, files = timed(root, command)
                outputs.append((stdout, files))
            rounds.append(entry)
        same = all(output == outputs[0] for output in outputs)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=REPO, capture_output=True, check=False)
        shutil.rmtree(worktree, ignore_errors=True)
    median = {name: {m: statistics.median(r[name][m] for r in rounds) for m in ("seconds", "cpu_seconds")} for name in sides}
    result = {
        "command": "python -m " + " ".join(given), "base": commit, "this": head + ("+changes" if dirty else ""),
        "warmup": "python -m " + (args.warmup or " ".join(given)), "repeat": args.repeat, "cpus": os.cpu_count(),
        "load_average_1_5_15_at_start": list(load),
        "rounds": rounds, "median": median, "identical_outputs": same,
        "ratio_seconds": median["this"]["seconds"] / median["base"]["seconds"],
        "ratio_cpu_seconds": median["this"]["cpu_seconds"] / median["base"]["cpu_seconds"],
    }  # fmt: skip
    if args.why_different and not same:
        result["why_different"] = args.why_different
    update_key(args.key, result, args.out)
    print(f"{result['command']}: base {commit[:7]} {median['base']['seconds']:.1f} s ({median['base']['cpu_seconds']:.1f} CPU-s), "
          f"this {median['this']['seconds']:.1f} s ({median['this']['cpu_seconds']:.1f} CPU-s): "
          f"{result['ratio_seconds']:.3f}x wall, {result['ratio_cpu_seconds']:.3f}x CPU, medians of {args.repeat}; "
          f"outputs {'identical' if same else 'DIFFER'}; written: {args.out} [{args.key}]")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
