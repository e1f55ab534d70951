"""Scale: 10,000 lines x 50 systems, char + jieba, BLEU + TER + chrF, in one fresh process.

    python -m benchmarks.large [--lines 10000] [--systems 50] [--jobs 0] [--keep DIR]

The corpus is built deterministically in a temporary folder from real WMT text: the segments
of WMT21 en-zh (1,002, reference A, 29 systems) and WMT23 en-zh (2,074, reference A, 15
systems) are pooled (3,076 segments) and put in one order by a permutation seeded with
:data:`SEED`; line ``i`` of the corpus is pooled segment ``order[i mod 3076]`` (so each
segment appears three or four times), its reference that segment's reference, and system
``j``'s line ``i`` the output of system ``(i + j) mod k`` of that segment's dataset (``k`` its
number of systems), so every line of every system is a real translation of its reference. A
line has at most 29 different outputs among its 50 systems, and per-segment statistics are
computed once per different output (``distinct_line_outputs`` records how many there are).
Then ``metaeval score CORPUS -s char -s jieba -m bleu -m ter -m chrf -o scores.tsv`` (every
level: segment, document, system) runs in a fresh process, with its wall time and the peak
memory of its process tree sampled every 50 ms as the sum of proportional set sizes (PSS, a
page shared by k processes counts 1/k) and as the sum of resident set sizes (RSS, shared pages
counted in every process). Stored under the key ``large`` of ``benchmarks/results.json``,
with the load average of the machine at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench import DATA, REPO
from benchmarks.store import update_key

KEY = "large"
SEED = 20261123
SOURCES = ("wmt21/en-zh", "wmt23/en-zh")
SEGMENTERS = ("char", "jieba")
METRICS = ("bleu", "ter", "chrf")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def build(folder: Path, lines: int, systems: int, seed: int = SEED) -> dict[str, Any]:
    """Write the corpus described in the module docstring into ``folder``; returns its sizes."""
    pool: list[tuple[str, str, list[str]]] = []
    for name in SOURCES:
        src_dir = DATA / name
        src = _lines(src_dir / "src.en")
        ref = _lines(next(iter(sorted(src_dir.glob("ref.A.zh")) + sorted(src_dir.glob("ref.refA.zh")))))
        outputs = [_lines(p) for p in sorted((src_dir / "systems").glob("*.zh"))]
        for i in range(len(src)):
            pool.append((src[i], ref[i], [out[i] for out in outputs]))
    order = list(range(len(pool)))
    random.Random(seed).shuffle(order)
    chosen = [pool[order[i % len(pool)]] for i in range(lines)]
    (folder / "systems").mkdir(parents=True)
    clean = [(s.replace("\n", " "), r.replace("\n", " "), hs) for s, r, hs in chosen]
    (folder / "src.en").write_text("".join(s + "\n" for s, _, _ in clean), encoding="utf-8")
    (folder / "ref.A.zh").write_text("".join(r + "\n" for _, r, _ in clean), encoding="utf-8")
    for j in range(systems):
        text = "".join(hs[(i + j) % len(hs)] + "\n" for i, (_, _, hs) in enumerate(clean))
        (folder / "systems" / f"sys{j:02d}.zh").write_text(text, encoding="utf-8")
    unique = len({t for _, r, hs in clean for t in [r, *hs]})
    # the (line, output) pairs that differ: what per-segment statistics are computed for, since
    # a system with the same output as another on a line takes that system's statistics
    distinct = sum(len({hs[(i + j) % len(hs)] for j in range(systems)}) for i, (_, _, hs) in enumerate(clean))
    return {"lines": lines, "systems": systems, "pooled_segments": len(pool), "distinct_texts_at_most": unique,
            "distinct_line_outputs": distinct}


def main(argv: list[str] | None = None) -> int:
    from benchmarks.scale import measured_run

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--jobs", default="0")
    parser.add_argument("--keep", type=Path, help="build the corpus here and keep it (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.keep or Path(tmp) / "corpus"
        sizes = build(corpus, args.lines, args.systems)
        command = ["score", str(corpus), *[a for s in SEGMENTERS for a in ("-s", s)],
                   *[a for m in METRICS for a in ("-m", m)], "--quiet", "--jobs", args.jobs,
                   "-o", str(Path(tmp) / "scores.tsv")]
        measured = measured_run(command)
        output_mb = (Path(tmp) / "scores.tsv").stat().st_size / 2**20
    entry = {
        **sizes,
        "seed": SEED,
        "sources": list(SOURCES),
        "segmenters": list(SEGMENTERS),
        "metrics": list(METRICS),
        "command": "metaeval score CORPUS -s char -s jieba -m bleu -m ter -m chrf --quiet --jobs "
                   f"{args.jobs} -o scores.tsv",
        "jobs": args.jobs,
        "cpus": os.cpu_count(),
        "output_mb": output_mb,
        **measured,
        "load_average_1_5_15_at_start": list(load_start),
        "load_average_1_5_15_at_end": list(os.getloadavg()),
    }
    update_key(KEY, entry, args.out)
    print(f"load average at start {load_start[0]:.2f}; {sizes['lines']:,} lines x {sizes['systems']} systems, "
          f"char + jieba, bleu + ter + chrf: {measured['seconds']:.1f} s, peak PSS sum "
          f"{measured['peak_pss_mb']:.0f} MB (RSS sum {measured['peak_rss_mb']:.0f} MB); "
          f"{sizes['distinct_line_outputs']:,} different (line, output) pairs of {sizes['lines'] * sizes['systems']:,}")
    print(f"written: {args.out} [{KEY}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
