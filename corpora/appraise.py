"""WMT Appraise CSV exports of DA/ESA campaigns (WMT24 ESA: Kocmi et al. 2024) -> :class:`Judgments`.

The export has no header and 12 columns: annotator, system, item id, item type, source
language, target language, score, doc id, flag, error spans (JSON), start time, end time.
The rules below reproduce, row for row, how ``judgments.tsv`` of the WMT24 ESA folders was
derived from ``original/appraise_esa_waves2-3.csv`` (checked on en-zh and en-ja):

1. tutorial rows (system or doc id containing ``tutorial``) are dropped;
2. only ``TGT`` items count: ``BAD`` items are quality-control copies with a deliberately
   degraded translation (their doc id carries ``#bad``);
3. rows whose doc id carries a ``#`` marker are filler, not part of the test set:
   ``#incomplete`` (a document cut to fill a task) and ``#dup`` (a repeated document);
4. when the same annotator rated the same (system, item) more than once, only the latest
   rating counts (greatest end time; on a tie the later row of the file);
5. ``<kind>_z`` is the per-annotator z-score ``(score - mean) / sd`` over all of that
   annotator's ratings kept by 1-4 (every system, including a reference judged as a
   system), with the population standard deviation (ddof = 0). This matches
   ``esa_z`` of the WMT24 files to the 6 printed decimals; an annotator whose kept scores
   are all equal gets z = 0.

Item ids are 0-based line indices into the campaign's full text files (line 0 of WMT24 is
a canary). With a corpus folder, ids are mapped to segments through the ``orig_line``
column of its ``docs.tsv`` (a folder holding only the judged lines), or else to the 1-based
line ``id + 1``; the doc id of every counted row must then equal the corpus's doc id of
that segment, and its system must be a corpus system (ratings of a corpus reference judged
as a system are dropped unless ``keep_references``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from metaeval.corpora.folder import read_corpus_folder
from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError

from ._io import parse_float, parse_int, read_table, where
from ._rows import JudgmentRows

N_COLUMNS = 12
#: ISO 639-3/-2 codes used by Appraise -> the 2-letter codes of corpus file suffixes.
LANG_CODES = {
    "eng": "en", "zho": "zh", "chi": "zh", "jpn": "ja", "deu": "de", "ger": "de", "ces": "cs",
    "cze": "cs", "rus": "ru", "ukr": "uk", "spa": "es", "hin": "hi", "isl": "is", "kor": "ko",
    "fra": "fr", "fre": "fr", "pol": "pl", "heb": "he", "hau": "ha", "tur": "tr", "est": "et",
}


@dataclass(frozen=True)
class Rating:
    """One row of an Appraise export."""

    line: int
    annotator: str
    system: str
    item: int
    item_type: str
    source_lang: str
    target_lang: str
    score: float
    doc_id: str
    start: float
    end: float

    @property
    def base_doc(self) -> str:
        """The doc id without Appraise's ``#...`` markers."""
        return self.doc_id.split("#", 1)[0]


def parse_appraise_csv(path: str | Path) -> list[Rating]:
    """Every row of an export, validated (12 fields, integer item id, numeric score/times)."""
    table = read_table(path, delimiter=",", header=False, n_columns=N_COLUMNS)
    out = []
    for line, f in table.rows:
        p = table.path
        out.append(
            Rating(
                line=line,
                annotator=f[0].strip(),
                system=f[1].strip(),
                item=parse_int(f[2], p, line, "item id"),
                item_type=f[3].strip(),
                source_lang=f[4].strip(),
                target_lang=f[5].strip(),
                score=parse_float(f[6], p, line, "score"),
                doc_id=f[7].strip(),
                start=parse_float(f[10], p, line, "start time"),
                end=parse_float(f[11], p, line, "end time"),
            )
        )
    return out


def _drop_reason(r: Rating) -> str | None:
    if "tutorial" in r.system.lower() or "tutorial" in r.doc_id.lower():
        return "tutorial"
    if r.item_type != "TGT":
        return "qc/bad-ref item"
    if "#" in r.doc_id:
        marker = r.doc_id.split("#")[1]
        return f"#{marker} filler"
    return None


def filter_ratings(ratings: list[Rating]) -> tuple[list[Rating], dict[str, int]]:
    """Apply rules 1-4 of the module docstring: the kept ratings (file order) and the
    number dropped per reason (``tutorial``, ``qc/bad-ref item``, ``#<marker> filler``,
    ``superseded re-rating``)."""
    dropped: Counter[str] = Counter()
    candidates = []
    for r in ratings:
        reason = _drop_reason(r)
        if reason:
            dropped[reason] += 1
        else:
            candidates.append(r)
    latest: dict[tuple[str, str, int], Rating] = {}
    for r in candidates:
        key = (r.annotator, r.system, r.item)
        old = latest.get(key)
        if old is None or (r.end, r.line) >= (old.end, old.line):
            latest[key] = r
    kept = sorted(latest.values(), key=lambda r: r.line)
    dropped["superseded re-rating"] = len(candidates) - len(kept)
    return kept, dict(dropped)


def annotator_z(ratings: list[Rating]) -> dict[int, float]:
    """Line -> per-annotator z-score (population SD) over ``ratings`` (rule 5)."""
    by_annotator: dict[str, list[float]] = {}
    for r in ratings:
        by_annotator.setdefault(r.annotator, []).append(r.score)
    stats = {}
    for annotator, scores in by_annotator.items():
        mean = math.fsum(scores) / len(scores)
        sd = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
        stats[annotator] = (mean, sd)
    out = {}
    for r in ratings:
        mean, sd = stats[r.annotator]
        out[r.line] = (r.score - mean) / sd if sd > 0 else 0.0
    return out


def _item_map(corpus_dir: Path, corpus: Corpus) -> dict[int, str]:
    docs = corpus_dir / "docs.tsv"
    if docs.is_file():
        table = read_table(docs, delimiter="\t")
        if "orig_line" in table.header:
            cols = table.require(["seg_id", "orig_line"])
            return {
                parse_int(f[cols["orig_line"]], table.path, line, "orig_line"): f[cols["seg_id"]].strip()
                for line, f in table.rows
            }
    return {int(s) - 1: s for s in corpus.seg_ids if s.isdigit()}


def _check_lang(r: Rating, path: str, code: str, expected: str, what: str) -> None:
    mapped = LANG_CODES.get(code.lower(), code.lower())
    if expected and mapped != expected.lower():
        raise DataError(f"{where(path, r.line)}: {what} language {code!r} but the corpus is {expected!r}")


def read_appraise_csv(
    path: str | Path,
    corpus_dir: str | Path | None = None,
    *,
    kind: str = "esa",
    z: bool = True,
    keep_references: bool = False,
    item_map: Mapping[int, str] | None = None,
) -> Judgments:
    """Judgments ``<kind>`` (raw score) and ``<kind>_z`` (per-annotator z) from an Appraise export.

    Without ``corpus_dir`` the segment id is the item id (or ``item_map[item]``) and no
    text-based check is made. ``kind`` is ``esa`` for ESA campaigns and ``da`` for DA ones.
    """
    path = str(path)
    kept, _ = filter_ratings(parse_appraise_csv(path))
    if not kept:
        raise DataError(f"{path}: no TGT ratings left after dropping tutorials, QC items and fillers")
    zscores = annotator_z(kept) if z else {}
    corpus = None
    if corpus_dir is not None:
        corpus = read_corpus_folder(corpus_dir)
        if item_map is None:
            item_map = _item_map(Path(corpus_dir), corpus)
    seg_index = {s: i for i, s in enumerate(corpus.seg_ids)} if corpus else {}
    rows = JudgmentRows(path)
    for r in kept:
        seg = item_map.get(r.item) if item_map is not None else str(r.item)
        if corpus is not None:
            _check_lang(r, path, r.source_lang, corpus.source_lang, "source")
            _check_lang(r, path, r.target_lang, corpus.target_lang, "target")
            if r.system not in corpus.systems:
                if r.system in corpus.references and not keep_references:
                    continue
                if r.system not in corpus.references:
                    raise DataError(
                        f"{where(path, r.line)}: system {r.system!r} is neither a system nor a reference "
                        f"of corpus {corpus.name!r}"
                    )
            if seg is None or seg not in seg_index:
                raise DataError(f"{where(path, r.line)}: item {r.item} is not a segment of corpus {corpus.name!r}")
            expected_doc = corpus.doc_ids[seg_index[seg]]
            if expected_doc and expected_doc != r.base_doc:
                raise DataError(
                    f"{where(path, r.line)}: item {r.item} is in document {r.base_doc!r}, but segment {seg} of "
                    f"corpus {corpus.name!r} is in {expected_doc!r} (misaligned item ids?)"
                )
        elif seg is None:
            raise DataError(f"{where(path, r.line)}: item {r.item} has no entry in item_map")
        rows.add(seg, r.system, r.annotator, kind, r.score, r.line)
        if z:
            rows.add(seg, r.system, r.annotator, f"{kind}_z", zscores[r.line], r.line)
    return rows.judgments()
