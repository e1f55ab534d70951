"""Granularity as a continuum: every available segmenter and a ladder of subword vocabularies.

For one corpus, each granularity (``char``, ``cjk-char``, the word segmenters of the target
language, SentencePiece models of increasing vocabulary learnt from the references) is
placed on one axis, **mean characters per token**: non-whitespace characters divided by
tokens over every reference and system output of the corpus (each occurrence counted).
``byte`` (every UTF-8 byte a token) sits below characters, at about 0.33-0.4 characters per
token on CJK text: its tokens are decoded (:func:`metaeval.segmenters.bytelevel.tokens_text`)
to count characters and place boundaries. TER is not computed at ``byte`` in the default
ladder (:data:`NOT_AT_BYTES`; paragraphs reach 2,200 bytes, above TER's length limit, and its
cost grows faster than the square of the length): the signature's ``notes`` say so; naming
``byte`` with ``-s`` and TER with ``-m`` gives TER's usual length error.
Against it stand the meta-evaluation statistics of each metric at that granularity, with
95% bootstrap intervals (:func:`metaeval.scoring.score_corpus`,
:func:`metaeval.stats.evaluate.evaluate`): by default segment-level consistency (Li et al.
2011), ``acc_eq`` (WMT23), segment-level Pearson, and system-level Spearman; any statistics and
settings a run takes (:class:`~metaeval.stats.settings.Settings`). Statistics not defined for
the corpus's judgments are left out.

Two more views of the same ladder:

- **equivalence** (Denoual & Lepage 2005): for each granularity taken as "words", the
  character order M equivalent to N = 4 by Pearson, kappa and analogical behaviour, and the
  agreement of the system rankings (:func:`metaeval.equivalence.analyse`);
- **boundary agreement**: on the first reference, the F1 of token boundaries between every
  two granularities, ``2 |A ∩ B| / (|A| + |B|)`` over the positions (in the text without
  whitespace) where a token ends and another begins. ``char`` has every position.

the curve in one number (:mod:`metaeval.slope`): per metric and statistic, the least-squares
slope against log2 of characters per token with its bootstrap interval, and where a quadratic
fit is highest; and the answer of :mod:`metaeval.answer`: per statistic, ``char`` against the best of the word
segmenters, chosen in each bootstrap resample (the sweep's word segmenters are many, so the
choice matters most here), with p-values adjusted over each statistic's metrics.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, cast

import numpy as np
import pandas as pd

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, MissingDependencyError
from metaeval.stats.settings import Settings
from metaeval.versions import package_versions

#: Metrics whose value depends on the granularity, with chrF++ (word n-grams from the segmenter),
#: and chrF, which ignores tokens: the same at every point but ``byte`` (byte n-grams), the
#: reference line, left out of the answer (:func:`metaeval.answer.characters_only`).
DEFAULT_METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter", "chrf++", "chrf")
#: Statistics drawn by default, as ``level:statistic``.
STATISTICS = ("seg:consistency", "seg:acc_eq", "seg:pearson", "sys:spearman")
#: Word (and character) segmenters per target language, from short to long units roughly.
SEGMENTERS = {
    "zh": ("byte", "char", "cjk-char", "jieba-nohmm", "jieba", "pkuseg", "thulac"),
    "ja": (
        "byte", "char", "cjk-char", "mecab", "sudachi-a", "mecab-ipadic", "janome", "chasen", "nagisa",
        "sudachi-b", "sudachi-c", "mecab-jumandic",
    ),
}  # fmt: skip
FALLBACK_SEGMENTERS = ("byte", "char", "13a")
#: SentencePiece vocabularies as multiples of the number of distinct characters of the
#: references: about 1.1 characters a token at the bottom, beyond words at the top.
SUBWORD_LADDER = (("unigram", (1.1, 1.5, 2.0, 3.0)), ("bpe", (1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0)))
FAMILIES = ("bytes", "characters", "subwords", "words")
#: Metrics (registry names) left out of the ``byte`` point of the default ladder.
NOT_AT_BYTES = ("ter", "1-ter")
#: The model hash and the number of pieces in a subword segmenter's signature.
MODEL_HASH = re.compile(r"\|model:sha256=([0-9a-f]+)")
PIECES = re.compile(r"\|pieces:(\d+)")
#: Word order whose character equivalent is reported (Denoual & Lepage's N = 4).
EQUIVALENCE_N = 4


@dataclass(frozen=True)
class Granularity:
    """One point of the axis: the segmenter, its family, signature and token lengths."""

    name: str
    family: str
    signature: str
    chars_per_token: float
    tokens: int
    characters: int


@dataclass(eq=False)
class SweepResult:
    """Everything :func:`sweep` found, as DataFrames, with the signature.

    - ``granularities``: name, family, chars_per_token, tokens, characters, signature;
    - ``skipped``: name and reason of each segmenter that could not run here;
    - ``collapsed``: subword sizes that learnt the same model (same model hash) as a smaller
      one: one point, the first, with the note which sizes collapsed;
    - ``results``: the ResultTable of :func:`metaeval.stats.evaluate.evaluate`, with ``family`` and
      ``chars_per_token`` of the row's segmenter;
    - ``equivalence``: per granularity, M equivalent to N = 4 and ranking agreement;
    - ``boundaries``: boundary F1 between every two granularities (long form);
    - ``answer``: :func:`metaeval.answer.answer` of the results (char against the best word
      segmenter, p-values adjusted as the settings' ``adjust`` says);
    - ``slopes``: :func:`metaeval.slope.curve_slopes` of the results, the statistic's change per
      doubling of the unit with its interval, and where the quadratic fit is highest.
    """

    dataset: str
    granularities: pd.DataFrame
    skipped: pd.DataFrame
    results: pd.DataFrame
    equivalence: pd.DataFrame
    boundaries: pd.DataFrame
    signature: dict[str, Any] = field(default_factory=dict)
    answer: pd.DataFrame = field(default_factory=pd.DataFrame)
    slopes: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: granularities that learnt the same model as an earlier one (name, same_as, pieces): one point
    collapsed: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["name", "same_as", "pieces"]))


def default_segmenters(target_lang: str) -> tuple[str, ...]:
    return SEGMENTERS.get(target_lang.split("-")[0].lower(), FALLBACK_SEGMENTERS)


def family_of(name: str) -> str:
    """``bytes``, ``characters``, ``subwords`` or ``words``: the kind of unit of a segmenter label."""
    base = name.split(":")[0]
    if base == "spm":
        return "subwords"
    if base == "byte":
        return "bytes"
    return "characters" if base in ("char", "cjk-char") else "words"


def byte_points_metrics(metrics: Sequence[str]) -> tuple[list[str], list[str]]:
    """(metrics scored at ``byte`` in the default ladder, those left out: :data:`NOT_AT_BYTES`)."""
    from metaeval.metrics import parse_spec

    left = [m for m in metrics if parse_spec(m)[0] in NOT_AT_BYTES]
    return [m for m in metrics if m not in left], left


def as_characters(family: str, token_lists: Sequence[Sequence[str]]) -> Sequence[Sequence[str]]:
    """The characters each text's tokens spell, for ``bytes`` (decoded); other tokens as they are."""
    from metaeval.segmenters.bytelevel import tokens_text

    return [list(tokens_text(toks)) for toks in token_lists] if family == "bytes" else token_lists


def subword_specs(reference_lines: Sequence[str], ladder: Sequence[tuple[str, Sequence[float]]] = SUBWORD_LADDER) -> list[str]:
    """``spm:vocab=N,type=T`` for each (type, factor): N = round(factor x distinct characters),
    at least the distinct characters + 4 (SentencePiece's special pieces and one merge)."""
    distinct = len({ch for line in reference_lines for ch in line if not ch.isspace()})
    specs = []
    for model_type, factors in ladder:
        sizes = sorted({max(int(round(distinct * f)), distinct + 4) for f in factors})
        specs += [f"spm:vocab={n},type={model_type}" for n in sizes]
    return specs


def default_settings(settings: Settings | None = None, **options: Any) -> Settings:
    """The settings of a sweep: ``settings`` (default: every default, with the statistics of
    :data:`STATISTICS`) with ``options`` (settings fields) replaced."""
    return Settings.build(settings if settings is not None else Settings(statistics=STATISTICS), **options)


def chars_per_token(token_lists: Sequence[Sequence[str]]) -> tuple[float, int, int]:
    """(mean characters per token, tokens, characters) over token lists, whitespace excluded."""
    tokens = sum(len(t) for t in token_lists)
    chars = sum(len(tok) for toks in token_lists for tok in toks)
    return (chars / tokens if tokens else float("nan")), tokens, chars


def boundaries(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """Positions, in the concatenation of the texts, where one token ends and the next begins
    within a text (text ends are not boundaries)."""
    out, offset = [], 0
    for toks in token_lists:
        ends = np.cumsum([len(t) for t in toks], dtype=np.int64)
        if ends.size:
            out.append(offset + ends[:-1])
            offset += int(ends[-1])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def boundary_f1(a: np.ndarray, b: np.ndarray) -> float:
    """``2 |A ∩ B| / (|A| + |B|)``; 1.0 when both are empty."""
    if a.size + b.size == 0:
        return 1.0
    return 2.0 * np.intersect1d(a, b, assume_unique=True).size / (a.size + b.size)


def build_segmenters(
    corpus: Corpus, names: Sequence[str], cache_dir: Any = None
) -> tuple[list[Any], list[tuple[str, str]]]:
    """Segmenters that run here, and (name, reason) for those that do not (package missing)."""
    from metaeval.scoring import get_segmenter

    built, skipped = [], []
    for name in dict.fromkeys(names):
        try:
            built.append(get_segmenter(name, corpus, cache_dir))
        except MissingDependencyError as exc:
            skipped.append((name, str(exc)))
    return built, skipped


def sweep(
    corpus: Corpus,
    judgments: Judgments,
    *,
    segmenters: Sequence[str] | None = None,
    subwords: Sequence[str] | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    kinds: Sequence[str] | None = None,
    settings: Settings | None = None,
    executor: cf.Executor | None = None,
    cache_dir: Any = None,
    equivalence: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
    **options: Any,
) -> SweepResult:
    """The granularity curve of ``corpus`` against ``judgments`` (see the module docstring).

    ``segmenters`` default to :data:`SEGMENTERS` of the target language (those whose
    package is missing are reported in ``skipped``); ``subwords`` default to
    :func:`subword_specs` of the references (pass ``[]`` for none). ``settings`` (default:
    :func:`default_settings`) with any of its fields in ``options`` (``n_bootstrap=200``,
    ``statistics=[...]``) say what is computed, as for ``metaeval run``. ``cache_dir`` keeps
    the segmentations and the per-segment statistics (:class:`metaeval.store.Store`), so that a
    rerun scores only what changed.
    """
    from metaeval.answer import answer, granularity_free
    from metaeval.slope import curve_slopes
    from metaeval.equivalence import EquivalenceSettings, analyse, order_scores
    from metaeval.stats.evaluate import evaluate
    from metaeval.stats.human import resolve_kinds
    from metaeval.scoring import reference_lines, score_corpus, segmenter_label
    from metaeval import segmenters as registry
    from metaeval.segmenters.cache import SegmentationCache

    chosen = default_settings(settings, **options)
    judgments.validate_against(corpus)
    kinds = resolve_kinds(judgments, kinds)  # a wrong kind fails here, before any segmentation
    names = list(segmenters) if segmenters else list(default_segmenters(corpus.target_lang))
    refs = reference_lines(corpus)
    names += list(subwords) if subwords is not None else subword_specs(refs)
    for spec in names:  # unknown names and bad options fail before any work
        try:
            registry.check(spec)
        except MissingDependencyError:
            continue  # reported in ``skipped``
    segs, skipped = build_segmenters(corpus, names, cache_dir)
    if not segs:
        raise DataError(f"{corpus.name}: no segmenter of {names} can run here")
    texts = refs + [t for hyps in corpus.systems.values() for t in hyps]
    first_ref = corpus.refs_list()[0]
    orders = EquivalenceSettings(max_word_order=EQUIVALENCE_N)
    char_orders = order_scores(corpus, "char", orders.max_char_order) if equivalence else None

    byte_metrics, not_at_bytes = byte_points_metrics(metrics) if not segmenters else (list(metrics), [])
    rows, configs, bounds, equiv, collapsed = [], [], {}, [], []
    models: dict[str, str] = {}  # model hash -> the first granularity that learnt it
    for i, seg in enumerate(segs):
        label = segmenter_label(seg)
        model = MODEL_HASH.search(seg.signature())
        if model is not None and model.group(1) in models:  # the same pieces as a smaller size: one point
            pieces = PIECES.search(seg.signature())
            collapsed.append({"name": label, "same_as": models[model.group(1)], "pieces": int(pieces.group(1)) if pieces else None})
            continue
        if model is not None:
            models[model.group(1)] = label
        cache = SegmentationCache(cache_dir)  # one per granularity: memory is freed as we go
        tokens = cache.segment(seg, texts)
        family = family_of(label)
        n_tokens = sum(len(t) for t in tokens)
        spelt = as_characters(family, tokens)
        n_chars = chars_per_token(spelt)[2]
        rows.append(Granularity(label, family, seg.signature(), n_chars / n_tokens if n_tokens else float("nan"), n_tokens, n_chars))
        bounds[label] = boundaries(spelt[: len(first_ref)])
        del tokens, spelt
        these = byte_metrics if family == "bytes" else list(metrics)
        if not these:
            continue
        scored = score_corpus(corpus, [seg], these, executor=executor, cache=cache, store=cache_dir)
        configs += scored.configs
        if equivalence and char_orders is not None:
            word = order_scores(corpus, seg, EQUIVALENCE_N, cache)
            equiv.append(_equivalence_row(label, analyse(word, char_orders, orders, corpus_name=corpus.name)))
        if progress:
            progress("granularities", i + 1, len(segs))

    granularities = pd.DataFrame([g.__dict__ for g in rows])
    results, samples = cast(tuple[pd.DataFrame, np.ndarray], evaluate(configs, judgments, kinds, chosen, dataset=corpus.name, return_samples=True))
    summary = answer(results, samples, left_out=granularity_free(configs), adjust=chosen.adjust)
    lookup = granularities.set_index("name")
    results.insert(3, "family", results["segmenter"].map(lookup["family"]))
    results.insert(4, "chars_per_token", results["segmenter"].map(lookup["chars_per_token"]))
    slopes = curve_slopes(results, samples)
    names_done = list(granularities["name"])
    boundary_rows = [
        {"a": a, "b": b, "f1": boundary_f1(bounds[a], bounds[b])}
        for x, a in enumerate(names_done)
        for b in names_done[x + 1 :]
    ]
    signature = {
        "dataset": corpus.name,
        "target_lang": corpus.target_lang,
        "systems": len(corpus.systems),
        "segments": corpus.n_segments,
        "references": corpus.reference_names,
        "metrics": list(metrics),
        "statistics": list(chosen.statistics),
        "n_bootstrap": chosen.n_bootstrap,
        "seed": chosen.seed,
        "segmenters": dict(zip(granularities["name"], granularities["signature"])),
        "versions": package_versions(),
    }
    changed = {k: v for k, v in dataclasses.asdict(chosen).items()
               if k not in ("statistics", "n_bootstrap", "seed") and v != getattr(Settings(), k)}
    if not_at_bytes and "bytes" in set(granularities["family"]):
        signature["notes"] = [
            f"{', '.join(not_at_bytes)} not computed at byte: paragraphs reach thousands of bytes, above TER's length "
            "limit (max_len), and its cost grows faster than the square of the length; name byte with -s to try"
        ]
    if changed:  # every other option that changes a number, where it is not the default
        signature["options"] = changed
    if collapsed:
        signature["collapsed"] = {c["name"]: c["same_as"] for c in collapsed}
    return SweepResult(
        dataset=corpus.name,
        granularities=granularities,
        skipped=pd.DataFrame(skipped, columns=["name", "reason"]),
        results=results,
        equivalence=pd.DataFrame(equiv),
        boundaries=pd.DataFrame(boundary_rows, columns=["a", "b", "f1"]),
        signature=signature,
        answer=summary,
        slopes=slopes,
        collapsed=pd.DataFrame(collapsed, columns=["name", "same_as", "pieces"]),
    )


def _equivalence_row(name: str, result: Any) -> dict[str, Any]:
    orders = result.orders.set_index("N").loc[EQUIVALENCE_N]
    agreement = result.ranking_agreement.set_index("N").loc[EQUIVALENCE_N]
    return {
        "granularity": name,
        "pearson_M": orders["pearson_M"],
        "pearson": orders["pearson"],
        "kappa_M": orders["kappa_M"],
        "kappa": orders["kappa"],
        "analogical_M": orders["analogical_M"],
        "ranking_M": agreement.get("M_star", np.nan),
        "ranking_spearman": agreement.get("spearman", np.nan),
        "ranking_kendall": agreement.get("kendall_tau_b", np.nan),
    }


# --- answers drawn from a result -------------------------------------------------------


def best_granularities(results: pd.DataFrame) -> pd.DataFrame:
    """Per (judgment kind, level, statistic, grouping, metric): the granularity with the
    highest value and its interval, the character level's value, and the best of each family."""
    rows = []
    keys = ["judgment_kind", "level", "statistic", "grouping", "metric"]
    for key, group in results.dropna(subset=["value"]).groupby(keys, sort=True):
        group = group.sort_values(["value", "chars_per_token"], ascending=[False, True])
        best = group.iloc[0]
        row = dict(zip(keys, key))
        row.update(
            best=best["segmenter"], chars_per_token=best["chars_per_token"], value=best["value"],
            ci_low=best["ci_low"], ci_high=best["ci_high"],
        )  # fmt: skip
        char = group[group["segmenter"] == "char"]
        row["char_value"] = char["value"].iloc[0] if len(char) else np.nan
        for family in ("words", "subwords"):
            part = group[group["family"] == family]
            row[f"best_{family}"] = part["segmenter"].iloc[0] if len(part) else ""
            row[f"best_{family}_value"] = part["value"].iloc[0] if len(part) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def dictionary_spread(results: pd.DataFrame) -> pd.DataFrame:
    """Per (kind, level, statistic, grouping, metric): how far word segmenters are from each
    other (max - min of their values) against how far words are from characters
    (|mean over word segmenters - char|)."""
    rows = []
    keys = ["judgment_kind", "level", "statistic", "grouping", "metric"]
    for key, group in results.dropna(subset=["value"]).groupby(keys, sort=True):
        words = group[group["family"] == "words"]["value"]
        char = group[group["segmenter"] == "char"]["value"]
        if len(words) < 2 or not len(char):
            continue
        row = dict(zip(keys, key))
        row.update(
            words=len(words), word_min=words.min(), word_max=words.max(), word_spread=words.max() - words.min(),
            char=char.iloc[0], words_minus_char=words.mean() - char.iloc[0],
        )  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)
