"""Word BLEU against character BLEU: the equivalence analysis of Denoual & Lepage (2005).

Denoual & Lepage, "BLEU in characters: towards automatic MT evaluation in languages without
word delimiters" (IJCNLP 2005) compare sentence-level BLEU over N words (BLEUwN) with BLEU
over M characters (BLEUcM). This module implements that comparison for any word segmenter:

- **Scores.** Sentence BLEU without smoothing (sacrebleu's ``none``: a sentence shorter than
  the order, or with no match at some order, scores 0), multi-reference as BLEU does
  (clipping by the maximum reference count, closest reference length). Statistics are
  computed once at the largest order; every smaller order is a column prefix
  (:meth:`metaeval.metrics.bleu.BLEU.scores_by_order`). Items are (system, segment) pairs.
- **Best M per N** by Pearson's r between BLEUwN and BLEUcM over items, and by Cohen's
  kappa after binning both scores into 10 grades ``[0,.1), ..., [.9,1]`` (1.0 in the last).
  Ties go to the smallest M; an undefined value (constant scores) never wins.
- **Analogical behaviour.** For N >= 2, the fraction of items with BLEUcM <= BLEUw(N-1),
  and the first M at which it reaches 90%. N = 1 has no order N-1: its column is NaN and
  its first M is undefined.
- **By sentence length**: the same three choices within bins of the segment's mean
  reference length in words, ``1-10, 11-20, 21-30, 31-40, >40`` by default (bins of ten
  words, as the length classes of the paper's Table 2; a segment whose references are empty
  falls in the first bin). Every system's item for a segment falls in the same bin.
- **System ranking** under corpus BLEUwN and under corpus BLEUcM* (summed statistics, no
  smoothing), where M* is the M chosen for N by ``m_star`` (default: analogical, falling back
  to Pearson when undefined), with Spearman's rho and Kendall's tau-b between the scores.
- **Length distribution** of references and hypotheses in words and in characters.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.model import Corpus
from metaeval.errors import UsageError
from metaeval.metrics.base import Refs, Tokens

M_STAR_CRITERIA = ("analogical", "pearson", "kappa")
#: Added before flooring a score into grades, so that a score equal to k/10 up to
#: rounding (0.7 computed as 0.69999999999) lands in grade k.
_GRADE_EPS = 1e-9
#: Tolerance of the comparison BLEUcM <= BLEUw(N-1) for scores equal up to rounding.
_LE_EPS = 1e-12


#: Upper bound of --max-word-order and --max-char-order (as for metric orders).
MAX_ORDER = 100


@dataclass(frozen=True)
class EquivalenceSettings:
    """Options of the analysis; every one is recorded in the result's signature.

    ``length_edges`` are inclusive upper bounds (in words) of the length bins, the last bin
    being open; ``char_length_edges`` do the same for the character-length histogram.
    """

    max_word_order: int = 4
    max_char_order: int = 30
    n_grades: int = 10
    threshold: float = 0.9
    length_edges: tuple[int, ...] = (10, 20, 30, 40)
    char_length_edges: tuple[int, ...] = (50, 100, 150, 200)
    m_star: str = "analogical"

    def __post_init__(self) -> None:
        for name in ("max_word_order", "max_char_order", "n_grades"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
            if name != "n_grades" and value > MAX_ORDER:
                raise ValueError(f"{name} must be at most {MAX_ORDER}, got {value!r}")
        if self.n_grades < 2:
            raise ValueError(f"n_grades must be at least 2, got {self.n_grades!r}")
        if not 0.0 < float(self.threshold) <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold!r}")
        for name in ("length_edges", "char_length_edges"):
            edges = tuple(int(e) for e in getattr(self, name))
            if not edges or any(e < 1 for e in edges) or list(edges) != sorted(set(edges)):
                raise ValueError(f"{name} must be increasing positive integers, got {getattr(self, name)!r}")
            object.__setattr__(self, name, edges)
        if self.m_star not in M_STAR_CRITERIA:
            raise ValueError(f"unknown m_star={self.m_star!r}; known: {', '.join(M_STAR_CRITERIA)}")


# --- statistics on score matrices ------------------------------------------------------


def grades(scores: np.ndarray, n_grades: int = 10) -> np.ndarray:
    """Grade of each score in [0, 1]: ``floor(score * n_grades)``, with 1.0 in the last grade."""
    values = np.asarray(scores, dtype=float)
    return np.clip(np.floor(values * n_grades + _GRADE_EPS), 0, n_grades - 1).astype(np.int64)


def cohen_kappa(a: np.ndarray, b: np.ndarray, n_classes: int) -> float:
    """Cohen's (1960) kappa between two labelings with labels ``0..n_classes-1``.

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the observed agreement and
    ``p_e = sum_k p_a(k) p_b(k)`` the chance agreement. NaN when ``p_e = 1`` or no items.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"labelings must be one-dimensional of equal length, got shapes {[a.shape, b.shape]}")
    return float(_kappa_from_confusion(np.bincount(a * n_classes + b, minlength=n_classes**2).reshape(n_classes, n_classes)))


def _kappa_from_confusion(confusion: np.ndarray) -> float:
    n = confusion.sum()
    if n == 0:
        return float("nan")
    p_o = np.trace(confusion) / n
    p_e = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / n**2
    if p_e >= 1.0:
        return float("nan")
    return float((p_o - p_e) / (1.0 - p_e))


def pearson_matrix(word: np.ndarray, char: np.ndarray) -> np.ndarray:
    """Pearson's r between every column of ``word`` (n_items, Nw) and of ``char`` (n_items, Mc).

    Returns ``(Nw, Mc)``; NaN where a column is constant or there are fewer than 2 items.
    """
    word, char = _matrices(word, char)
    if word.shape[0] < 2:
        return np.full((word.shape[1], char.shape[1]), np.nan)
    wc = word - word.mean(axis=0)
    cc = char - char.mean(axis=0)
    norms = np.outer(np.sqrt((wc**2).sum(axis=0)), np.sqrt((cc**2).sum(axis=0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (wc.T @ cc) / norms
    return np.where(norms > 0, np.clip(r, -1.0, 1.0), np.nan)


def kappa_matrix(word: np.ndarray, char: np.ndarray, n_grades: int = 10) -> np.ndarray:
    """Cohen's kappa between the grades of every column of ``word`` and of ``char``: ``(Nw, Mc)``."""
    word, char = _matrices(word, char)
    gw, gc = grades(word, n_grades), grades(char, n_grades)
    out = np.full((word.shape[1], char.shape[1]), np.nan)
    for i in range(word.shape[1]):
        for j in range(char.shape[1]):
            codes = gw[:, i] * n_grades + gc[:, j]
            out[i, j] = _kappa_from_confusion(np.bincount(codes, minlength=n_grades**2).reshape(n_grades, n_grades))
    return out


def best_orders(values: np.ndarray) -> list[int | None]:
    """Per row of ``values`` (Nw, Mc), the 1-based M with the largest value.

    Ties go to the smallest M; NaN never wins; a row of NaN gives ``None``.
    """
    values = np.asarray(values, dtype=float)
    out: list[int | None] = []
    for row in values:
        if np.all(np.isnan(row)):
            out.append(None)
        else:
            out.append(int(np.nanargmax(row)) + 1)
    return out


def analogical_fractions(word: np.ndarray, char: np.ndarray) -> np.ndarray:
    """Fraction of items with BLEUcM <= BLEUw(N-1): array ``(Mc, Nw)``, column N-1 for N.

    Column 0 (N = 1, no order N-1) is NaN, as is every column when there are no items.
    """
    word, char = _matrices(word, char)
    out = np.full((char.shape[1], word.shape[1]), np.nan)
    if word.shape[0] == 0:
        return out
    for n in range(2, word.shape[1] + 1):
        below = char <= word[:, [n - 2]] + _LE_EPS
        out[:, n - 1] = below.mean(axis=0)
    return out


def first_reaching(fractions: np.ndarray, threshold: float = 0.9) -> int | None:
    """The first 1-based M whose fraction is at least ``threshold``, or ``None``."""
    values = np.asarray(fractions, dtype=float)
    hits = np.flatnonzero(values >= threshold - _LE_EPS)
    return int(hits[0]) + 1 if hits.size else None


def _matrices(word: np.ndarray, char: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    word = np.asarray(word, dtype=float)
    char = np.asarray(char, dtype=float)
    if word.ndim != 2 or char.ndim != 2 or word.shape[0] != char.shape[0]:
        raise ValueError(f"expected (n_items, orders) matrices with equal n_items, got shapes {[word.shape, char.shape]}")
    return word, char


# --- scores from a corpus --------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class OrderScores:
    """Unsmoothed BLEU of every order 1..K for one segmenter over one corpus.

    Attributes:
        segmenter, segmenter_signature, metric_signature: what produced the numbers.
        systems, seg_ids: row and column labels.
        seg: sentence BLEU, array (n_systems, n_segments, K); ``seg[..., m-1]`` is order m.
        sys: corpus BLEU from summed statistics, array (n_systems, K).
        ref_lengths: tokens per reference, array (n_refs, n_segments).
        hyp_lengths: tokens per hypothesis, array (n_systems, n_segments).
    """

    segmenter: str
    segmenter_signature: str
    metric_signature: str
    systems: tuple[str, ...]
    seg_ids: tuple[str, ...]
    seg: np.ndarray
    sys: np.ndarray
    ref_lengths: np.ndarray
    hyp_lengths: np.ndarray

    @property
    def max_order(self) -> int:
        return int(self.seg.shape[-1])

    def items(self) -> np.ndarray:
        """Sentence scores as (n_items, K), items ordered system by system."""
        return self.seg.reshape(-1, self.max_order)


def bleu_by_order(hyps: Mapping[str, Sequence[Tokens]], refs: Refs, max_order: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Unsmoothed sentence and corpus BLEU for orders 1..max_order from one pass of statistics.

    ``hyps`` maps system -> token lists per segment; ``refs`` is ``[n_refs][n_segments]``.
    Returns sentence scores (n_systems, n_segments, max_order), corpus scores
    (n_systems, max_order) and the metric signature of the largest order.
    """
    from metaeval.metrics.bleu import BLEU

    bleu = BLEU(n=max_order, smooth="none")
    prepared = bleu.prepare(refs)
    stats = np.stack([bleu.segment_stats(list(h), prepared) for h in hyps.values()])
    return bleu.scores_by_order(stats), bleu.scores_by_order(stats.sum(axis=1)), bleu.signature()


def order_scores(corpus: Corpus, segmenter: Any, max_order: int, cache: Any = None) -> OrderScores:
    """Segment ``corpus`` with ``segmenter`` (name or object) and score BLEU orders 1..max_order.

    Each distinct text is segmented once (texts a :class:`segmenters.SegmentationCache`
    ``cache`` holds are not segmented again).
    """
    from metaeval.scoring import get_segmenter, segment_unique

    seg = get_segmenter(segmenter, corpus)
    refs = corpus.refs_list()
    texts = [t for ref in refs for t in ref] + [t for h in corpus.systems.values() for t in h]
    table = segment_unique(seg, texts, cache)
    ref_tokens = [[table[t] for t in ref] for ref in refs]
    hyp_tokens = {name: [table[t] for t in h] for name, h in corpus.systems.items()}
    seg_scores, sys_scores, metric_sig = bleu_by_order(hyp_tokens, ref_tokens, max_order)
    return OrderScores(
        segmenter=seg.name,
        segmenter_signature=seg.signature(),
        metric_signature=metric_sig,
        systems=tuple(corpus.systems),
        seg_ids=tuple(corpus.seg_ids),
        seg=seg_scores,
        sys=sys_scores,
        ref_lengths=np.array([[len(t) for t in ref] for ref in ref_tokens], dtype=np.int64),
        hyp_lengths=np.array([[len(t) for t in h] for h in hyp_tokens.values()], dtype=np.int64),
    )


# --- the analysis ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EquivalenceResult:
    """The tables of the analysis (pandas DataFrames) and the signature.

    - ``orders`` (Table 1): per N, best-Pearson M, best-kappa M, first M reaching the
      threshold of analogical behaviour, with the values at those M.
    - ``correlations``: Pearson and kappa for every (N, M).
    - ``analogical``: per M, the fraction of items with BLEUcM <= BLEUw(N-1), one column per N >= 2.
    - ``by_length`` (Table 2): Table 1 within each length bin.
    - ``ranking`` (Table 3): systems under corpus BLEUwN (largest N) and BLEUcM*, with ranks.
    - ``ranking_agreement``: per N, M*, Spearman's rho and Kendall's tau-b between system scores.
    - ``lengths`` and ``length_histogram`` (Table 4): length distribution.
    - ``items``: sentence scores per (system, segment), for plots (not in :meth:`to_dict`).
    """

    orders: pd.DataFrame
    correlations: pd.DataFrame
    analogical: pd.DataFrame
    by_length: pd.DataFrame
    ranking: pd.DataFrame
    ranking_agreement: pd.DataFrame
    lengths: pd.DataFrame
    length_histogram: pd.DataFrame
    items: pd.DataFrame
    signature: dict[str, Any] = field(default_factory=dict)

    TABLES = (
        ("orders", "Table 1: character order M equivalent to word order N"),
        ("by_length", "Table 2: equivalent M by reference length (words)"),
        ("ranking", "Table 3: system ranking under word and character BLEU"),
        ("ranking_agreement", "Table 3b: agreement of system rankings"),
        ("lengths", "Table 4: sentence lengths"),
        ("length_histogram", "Table 4b: length histogram"),
        ("analogical", "Fraction of items with BLEUcM <= BLEUw(N-1)"),
        ("correlations", "Pearson and kappa for every (N, M)"),
    )

    def table(self, name: str) -> pd.DataFrame:
        names = [n for n, _ in self.TABLES]
        if name not in names:
            raise UsageError(f"unknown table {name!r}; known: {', '.join(names)}")
        return getattr(self, name)

    def title(self) -> str:
        """Default report title: segmenters and corpus."""
        sig = self.signature
        return f"BLEU in words ({sig.get('word_segmenter', '?')}) vs characters ({sig.get('char_segmenter', '?')}): {sig.get('corpus', '')}".rstrip(": ")


def analyse(
    word: OrderScores,
    char: OrderScores,
    settings: EquivalenceSettings = EquivalenceSettings(),
    corpus_name: str = "",
) -> EquivalenceResult:
    """The whole analysis from word and character scores of the same corpus (see module doc)."""
    if word.systems != char.systems or word.seg_ids != char.seg_ids:
        raise UsageError("word and character scores must cover the same systems and segments")
    if word.max_order < settings.max_word_order or char.max_order < settings.max_char_order:
        raise UsageError(
            f"scores up to orders {word.max_order}/{char.max_order} cannot serve "
            f"max_word_order={settings.max_word_order}, max_char_order={settings.max_char_order}"
        )
    nw, mc = settings.max_word_order, settings.max_char_order
    w_items = word.items()[:, :nw]
    c_items = char.items()[:, :mc]
    n_sys, n_seg = len(word.systems), len(word.seg_ids)

    pear = pearson_matrix(w_items, c_items)
    kap = kappa_matrix(w_items, c_items, settings.n_grades)
    frac = analogical_fractions(w_items, c_items)
    orders = _orders_table(pear, kap, frac, settings, n_items=w_items.shape[0])

    n_idx, m_idx = np.meshgrid(np.arange(1, nw + 1), np.arange(1, mc + 1), indexing="ij")
    correlations = pd.DataFrame({"N": n_idx.ravel(), "M": m_idx.ravel(), "pearson": pear.ravel(), "kappa": kap.ravel()})
    analogical = pd.DataFrame({"M": np.arange(1, mc + 1)})
    for n in range(2, nw + 1):
        analogical[f"N={n}"] = frac[:, n - 1]

    seg_length = word.ref_lengths.mean(axis=0)
    labels = _bin_labels(settings.length_edges)
    seg_bin = _bin_index(seg_length, settings.length_edges)
    item_bin = np.tile(seg_bin, n_sys)
    frames = []
    for b, label in enumerate(labels):
        mask = item_bin == b
        if not mask.any():
            continue
        wb, cb = w_items[mask], c_items[mask]
        part = _orders_table(
            pearson_matrix(wb, cb), kappa_matrix(wb, cb, settings.n_grades), analogical_fractions(wb, cb),
            settings, n_items=int(mask.sum()),
        )
        part.insert(0, "length", label)
        part.insert(1, "n_segments", int((seg_bin == b).sum()))
        frames.append(part)
    by_length = pd.concat(frames, ignore_index=True)

    m_star = _m_star(orders, settings.m_star)
    ranking, agreement = _rankings(word, char, nw, m_star)

    lengths, histogram = _length_tables(word, char, settings)
    items = pd.DataFrame({"system": np.repeat(word.systems, n_seg), "seg_id": np.tile(word.seg_ids, n_sys)})
    for n in range(1, nw + 1):
        items[f"w{n}"] = w_items[:, n - 1]
    for m in range(1, mc + 1):
        items[f"c{m}"] = c_items[:, m - 1]

    signature = {
        "corpus": corpus_name,
        "n_systems": n_sys,
        "n_segments": n_seg,
        "n_refs": int(word.ref_lengths.shape[0]),
        "n_items": int(w_items.shape[0]),
        "word_segmenter": word.segmenter_signature,
        "char_segmenter": char.segmenter_signature,
        "word_metric": f"{word.metric_signature}|orders:1..{nw}",
        "char_metric": f"{char.metric_signature}|orders:1..{mc}",
        "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(settings).items()},
        "versions": _versions(),
    }
    return EquivalenceResult(
        orders=orders,
        correlations=correlations,
        analogical=analogical,
        by_length=by_length,
        ranking=ranking,
        ranking_agreement=agreement,
        lengths=lengths,
        length_histogram=histogram,
        items=items,
        signature=signature,
    )


def equivalence(
    corpus: Corpus,
    word_segmenter: Any = "13a",
    char_segmenter: Any = "char",
    settings: EquivalenceSettings = EquivalenceSettings(),
) -> EquivalenceResult:
    """Segment ``corpus`` at both granularities, score every order once, and analyse."""
    word = order_scores(corpus, word_segmenter, settings.max_word_order)
    char = order_scores(corpus, char_segmenter, settings.max_char_order)
    return analyse(word, char, settings, corpus_name=corpus.name)


def _orders_table(
    pear: np.ndarray, kap: np.ndarray, frac: np.ndarray, settings: EquivalenceSettings, n_items: int
) -> pd.DataFrame:
    best_p, best_k = best_orders(pear), best_orders(kap)
    rows = []
    for i in range(pear.shape[0]):
        analog = first_reaching(frac[:, i], settings.threshold) if i > 0 else None
        rows.append(
            {
                "N": i + 1,
                "n_items": n_items,
                "pearson_M": best_p[i],
                "pearson": pear[i, bp - 1] if (bp := best_p[i]) else np.nan,
                "kappa_M": best_k[i],
                "kappa": kap[i, bk - 1] if (bk := best_k[i]) else np.nan,
                "analogical_M": analog,
                "analogical_fraction": frac[analog - 1, i] if analog else np.nan,
            }
        )
    frame = pd.DataFrame(rows)
    for col in ("pearson_M", "kappa_M", "analogical_M"):
        frame[col] = frame[col].astype("Int64")
    return frame


def _m_star(orders: pd.DataFrame, criterion: str) -> dict[int, tuple[int | None, str]]:
    """N -> (M*, criterion used); ``analogical`` falls back to ``pearson`` where undefined."""
    out: dict[int, tuple[int | None, str]] = {}
    for row in orders.itertuples(index=False):
        used = criterion
        value = getattr(row, f"{criterion}_M")
        if criterion == "analogical" and pd.isna(value):
            used, value = "pearson", row.pearson_M
        out[int(row.N)] = (None if pd.isna(value) else int(value), used)
    return out


def _rankings(
    word: OrderScores, char: OrderScores, nw: int, m_star: Mapping[int, tuple[int | None, str]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    from scipy import stats


    def competition_ranks(values: np.ndarray) -> np.ndarray:
        """Standard competition ranks (1, 2, 2, 4), higher values first."""
        return stats.rankdata(-np.asarray(values, dtype=float), method="min")

    rows = []
    for n in range(1, nw + 1):
        m, used = m_star[n]
        rho = tau = np.nan
        same = None
        if m is not None and len(word.systems) >= 2:
            x, y = word.sys[:, n - 1], char.sys[:, m - 1]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rho = float(stats.spearmanr(x, y).statistic)
                tau = float(stats.kendalltau(x, y).statistic)
            same = bool(np.array_equal(competition_ranks(x), competition_ranks(y)))
        rows.append({"N": n, "M_star": m, "criterion": used, "spearman": rho, "kendall_tau_b": tau, "same_ranking": same})
    agreement = pd.DataFrame(rows)
    agreement["M_star"] = agreement["M_star"].astype("Int64")
    agreement["same_ranking"] = agreement["same_ranking"].astype("boolean")

    m, _ = m_star[nw]
    ranking = pd.DataFrame({"system": list(word.systems)})
    ranking[f"BLEUw{nw}"] = word.sys[:, nw - 1]
    ranking[f"rank_w{nw}"] = competition_ranks(word.sys[:, nw - 1]).astype(int)
    if m is not None:
        ranking[f"BLEUc{m}"] = char.sys[:, m - 1]
        ranking[f"rank_c{m}"] = competition_ranks(char.sys[:, m - 1]).astype(int)
    ranking = ranking.sort_values([f"rank_w{nw}", "system"], kind="mergesort").reset_index(drop=True)
    return ranking, agreement


def _bin_labels(edges: Sequence[int]) -> list[str]:
    labels, low = [], 1
    for e in edges:
        labels.append(f"{low}-{e}")
        low = e + 1
    return labels + [f">{edges[-1]}"]


def _bin_index(lengths: np.ndarray, edges: Sequence[int]) -> np.ndarray:
    """Bin of each length: bin i holds (edges[i-1], edges[i]]; lengths <= edges[0] (0 too) in bin 0."""
    return np.searchsorted(np.asarray(edges, dtype=float), np.asarray(lengths, dtype=float), side="left")


def _length_tables(word: OrderScores, char: OrderScores, settings: EquivalenceSettings) -> tuple[pd.DataFrame, pd.DataFrame]:
    samples = {
        ("references", "words"): word.ref_lengths.ravel(),
        ("references", "characters"): char.ref_lengths.ravel(),
        ("hypotheses", "words"): word.hyp_lengths.ravel(),
        ("hypotheses", "characters"): char.hyp_lengths.ravel(),
    }
    rows = []
    for (side, unit), values in samples.items():
        q1, median, q3 = np.percentile(values, [25, 50, 75]) if values.size else (np.nan,) * 3
        rows.append(
            {
                "texts": side,
                "unit": unit,
                "n": int(values.size),
                "mean": float(values.mean()) if values.size else np.nan,
                "min": int(values.min()) if values.size else None,
                "q1": q1,
                "median": median,
                "q3": q3,
                "max": int(values.max()) if values.size else None,
            }
        )
    lengths = pd.DataFrame(rows)
    hist_rows = []
    for unit, edges in (("words", settings.length_edges), ("characters", settings.char_length_edges)):
        labels = _bin_labels(edges)
        refs = np.bincount(_bin_index(samples[("references", unit)], edges), minlength=len(labels))
        hyps = np.bincount(_bin_index(samples[("hypotheses", unit)], edges), minlength=len(labels))
        for label, r, h in zip(labels, refs, hyps):
            hist_rows.append({"unit": unit, "length": label, "references": int(r), "hypotheses": int(h)})
    return lengths, pd.DataFrame(hist_rows)


def _versions() -> dict[str, str]:
    import scipy

    import metaeval

    return {"metaeval": metaeval.__version__, "numpy": np.__version__, "pandas": pd.__version__, "scipy": scipy.__version__}
