"""Benchmark: throughput of every segmenter on 1,000 WMT24 paragraphs, in one command.

    python -m benchmarks.segmenters            # writes the key "segmenter_throughput" of benchmarks/results.json

The 1,000 paragraphs are the first 1,000 distinct non-empty lines of the reference and then
the system outputs of WMT24 en-zh (Chinese segmenters and ``spm``) or en-ja (Japanese
segmenters). Each segmenter runs in a fresh process: ``load_seconds`` is building it and
segmenting one line (model loading, SentencePiece training on the 634 reference lines),
``lines_per_second`` is ``segment_many`` over the 1,000 lines after that. The ratio compares
with the language's existing word segmenter (jieba for Chinese, mecab for Japanese) timed in
the same command. Only this benchmark's key of ``results.json`` is replaced (read, modify,
atomic replace), so other benchmarks' results stay.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.store import update_key

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data")).resolve()
KEY = "segmenter_throughput"
N_LINES = 1000
SEGMENTERS = {
    "en-zh": ("jieba", "char", "cjk-char", "pkuseg", "thulac", "spm:vocab=4000,type=unigram", "spm:vocab=4000,type=bpe"),
    "en-ja": ("mecab", "janome", "nagisa", "mecab-ipadic", "mecab-jumandic", "sudachi-a", "sudachi-b", "sudachi-c", "chasen"),
}
BASELINE = {"en-zh": "jieba", "en-ja": "mecab"}

CHILD = r"""
import json, sys, time
from metaeval import corpora, segmenters
from metaeval.scoring import reference_lines
corpus, _ = corpora.read(sys.argv[1])
texts = [t for t in dict.fromkeys(reference_lines(corpus) + [t for h in corpus.systems.values() for t in h]) if t.strip()]
texts = texts[: int(sys.argv[3])]
start = time.perf_counter()
seg = segmenters.get(sys.argv[2], training_text=reference_lines(corpus))
seg(texts[0])
loaded = time.perf_counter()
tokens = seg.segment_many(texts)
done = time.perf_counter()
print(json.dumps({"lines": len(texts), "characters": sum(len(t) for t in texts), "tokens": sum(map(len, tokens)),
                  "load_seconds": loaded - start, "seconds": done - loaded, "signature": seg.signature()}))
"""


def measure(pair: str, name: str, n_lines: int) -> dict[str, Any]:
    """One segmenter in a fresh process; ``{"skipped": reason}`` when it cannot run here."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(DATA / "wmt24-esa" / pair), name, str(n_lines)],
        cwd=REPO, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        return {"skipped": last}
    row = json.loads(done.stdout)
    row["lines_per_second"] = row["lines"] / row["seconds"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results.json")
    parser.add_argument("--lines", type=int, default=N_LINES)
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "lines": args.lines,
        "pairs": {},
    }
    for pair, names in SEGMENTERS.items():
        rows = {name: measure(pair, name, args.lines) for name in names}
        base = rows[BASELINE[pair]].get("lines_per_second")
        for name, row in rows.items():
            if "lines_per_second" in row and base:
                row["ratio_to_" + BASELINE[pair]] = row["lines_per_second"] / base
            shown = f"{row['lines_per_second']:9.0f} lines/s  load {row['load_seconds']:6.2f} s" if "lines_per_second" in row else f"skipped: {row['skipped']}"
            print(f"{pair} {name:30s} {shown}", flush=True)
        result["pairs"][pair] = rows
    update_key(KEY, result, args.out)
    print(f"written: {args.out} [{KEY}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
