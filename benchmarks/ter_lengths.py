"""TER on long segments: the longest segments of the shared data, and seconds per pair by length.

    python -m benchmarks.ter_lengths            # writes benchmarks/ter_lengths.json

Two measurements, in one command:

1. the longest reference and the longest hypothesis, in ``char`` tokens (the longest of the
   built-in segmentations), of every corpus folder under the shared data (read with
   ``metaeval.corpora.read``);
2. seconds for one TER pair (:func:`metaeval.metrics.tercom.pair_edits`, kernels compiled
   before timing) of N = 500, 1000, 2000, 4000 ``char`` tokens a side, built by joining
   consecutive hypothesis and reference paragraphs of one system of WMT24 en-zh (Chinese), and
   N = 500, 1000, 2000 of WMT21 de-en (English, few distinct characters); and, as a worst case,
   the same Chinese hypothesis with its 7-token blocks shuffled (seeded), which gives tercom
   many shifts to try, at N = 250, 500, 750, 1000.

The file is rewritten after every pair, so an interrupted run keeps what it measured. TER's
``max_len`` default and bound (:data:`metaeval.metrics.ter.DEFAULT_MAX_LEN`,
:data:`~metaeval.metrics.ter.MAX_LEN_BOUND`) are chosen from these.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_DATA", REPO.parent / "shared" / "data")).resolve()
OUT = REPO / "benchmarks" / "ter_lengths.json"
REALISTIC = {"zh": ("wmt24-esa/en-zh", "GPT-4"), "en": ("wmt21/de-en", None)}


def longest(segment) -> list[dict]:  # noqa: ANN001
    """Per corpus folder, the longest reference and hypothesis in tokens of ``segment``."""
    from metaeval import corpora

    rows = []
    folders = sorted({p.parent for p in DATA.glob("**/src.*")})
    for folder in folders:
        corpus, _ = corpora.read(folder)
        ref = max((len(segment(t)), name, sid) for name, texts in corpus.references.items()
                  for sid, t in zip(corpus.seg_ids, texts))
        hyp = max((len(segment(t)), name, sid) for name, texts in corpus.systems.items()
                  for sid, t in zip(corpus.seg_ids, texts))
        rows.append({"corpus": str(folder.relative_to(DATA)), "segments": corpus.n_segments,
                     "systems": len(corpus.systems),
                     "longest_ref": {"tokens": ref[0], "ref": ref[1], "seg_id": ref[2]},
                     "longest_hyp": {"tokens": hyp[0], "system": hyp[1], "seg_id": hyp[2]}})
        print(f"{rows[-1]['corpus']}: longest reference {ref[0]} tokens, longest hypothesis {hyp[0]} "
              f"({hyp[1]}, segment {hyp[2]})", flush=True)
    return rows


def pair(segment, language: str, n: int, shuffled: bool) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """``n`` tokens of hypothesis and of reference from consecutive paragraphs, as ids."""
    from metaeval import corpora

    folder, system = REALISTIC[language]
    corpus, _ = corpora.read(DATA / folder)
    hyps = corpus.systems[system or corpus.system_names[0]]
    refs = corpus.refs_list()[0]
    h: list[str] = []
    r: list[str] = []
    for hyp, ref in zip(hyps, refs):
        if len(h) >= n and len(r) >= n:
            break
        h += segment(hyp)
        r += segment(ref)
    if len(h) < n or len(r) < n:
        raise SystemExit(f"{folder}: fewer than {n} tokens in all")
    h, r = h[:n], r[:n]
    if shuffled:
        blocks = [h[k:k + 7] for k in range(0, n, 7)]
        np.random.default_rng(0).shuffle(blocks)
        h = [t for b in blocks for t in b]
    vocab: dict[str, int] = {}
    ids = [np.array([vocab.setdefault(t, len(vocab)) for t in toks], dtype=np.int64) for toks in (h, r)]
    return ids[0], ids[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-longest", action="store_true", help="skip the scan of the shared data")
    parser.add_argument("--lengths", default="500,1000,2000,4000",
                        help="lengths of the paragraph pairs (default 500,1000,2000,4000; 4000 takes minutes)")
    args = parser.parse_args()
    from metaeval.metrics import tercom
    from metaeval.metrics.ter import DEFAULT_MAX_LEN, MAX_LEN_BOUND
    from metaeval.segmenters import get

    segment = get("char")
    tercom.pair_edits([np.array([1, 2, 3])], [np.array([1, 3, 2])])  # compile outside the timings
    result: dict = {"machine": f"{platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}",
                    "load_average_before": [round(x, 2) for x in os.getloadavg()],
                    "default_max_len": DEFAULT_MAX_LEN,
                    "max_len_bound": MAX_LEN_BOUND, "segmenter": "char"}
    if not args.no_longest:
        result["longest"] = longest(segment)
    timings: list[dict] = []
    result["seconds_per_pair"] = timings
    lengths = [int(n) for n in args.lengths.split(",")]
    cases = [("zh", n, False) for n in lengths] + [("en", n, False) for n in lengths if n <= 2000]
    cases += [("zh", n, True) for n in (250, 500, 750, 1000)]
    for language, n, shuffled in cases:
        hyp, ref = pair(segment, language, n, shuffled)
        start = time.perf_counter()
        edits = int(tercom.pair_edits([hyp], [ref])[0])
        seconds = time.perf_counter() - start
        kind = "shuffled 7-token blocks" if shuffled else "consecutive paragraphs"
        timings.append({"language": language, "tokens": n, "pair": kind, "edits": edits, "seconds": round(seconds, 3)})
        print(f"{language} {kind}, {n} tokens a side: {edits} edits, {seconds:.3f} s", flush=True)
        OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
