"""Granularity as a continuum: every available segmenter and a ladder of subword vocabularies.

For one corpus, each granularity (``char``, ``cjk-char``, the word segmenters of the target
language, SentencePiece models of increasing vocabulary learnt from the references) is
placed on one axis, **mean characters per token**: non-whitespace characters divided by
tokens over every reference and system output of the corpus (each occurrence counted).
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

and the answer of :mod:`metaeval.answer`: per statistic, ``char`` against the best of the word
segmenters, chosen in each bootstrap resample (the sweep's word segmenters are many, so the
choice matters most here), with p-values adjusted over each statistic's metrics.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, cast

import numpy as np
import pandas as pd

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, MissingDependencyError
from metaeval.stats.settings import Settings
from metaeval.versions import package_versions

#: Metrics whose value depends on the granularity (chrF ignores tokens; ask for it with -m).
DEFAULT_METRICS = ("bleu", "nist", "meteor", "gtm", "1-ter")
#: Statistics drawn by default, as ``level:statistic``.
STATISTICS = ("seg:consistency", "seg:acc_eq", "seg:pearson", "sys:spearman")
#: Word (and character) segmenters per target language, from short to long units roughly.
SEGMENTERS = {
    "zh": ("char", "cjk-char", "jieba-nohmm", "jieba", "pkuseg", "thulac"),
    "ja": (
        "char", "cjk-char", "mecab", "sudachi-a", "mecab-ipadic", "janome", "chasen", "nagisa",
        "sudachi-b", "sudachi-c", "mecab-jumandic",
    ),
}  # fmt: skip
FALLBACK_SEGMENTERS = ("char", "13a")
#: SentencePiece vocabularies as multiples of the number of distinct characters of the
#: references: about 1.1 characters a token at the bottom, beyond words at the top.
SUBWORD_LADDER = (("unigram", (1.1, 1.5, 2.0, 3.0)), ("bpe", (1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0)))
FAMILIES = ("characters", "words", "subwords")
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
    - ``results``: the ResultTable of :func:`metaeval.stats.evaluate.evaluate`, with ``family`` and
      ``chars_per_token`` of the row's segmenter;
    - ``equivalence``: per granularity, M equivalent to N = 4 and ranking agreement;
    - ``boundaries``: boundary F1 between every two granularities (long form);
    - ``answer``: :func:`metaeval.answer.answer` of the results (char against the best word
      segmenter, p-values adjusted as the settings' ``adjust`` says).
    """

    dataset: str
    granularities: pd.DataFrame
    skipped: pd.DataFrame
    results: pd.DataFrame
    equivalence: pd.DataFrame
    boundaries: pd.DataFrame
    signature: dict[str, Any] = field(default_factory=dict)
    answer: pd.DataFrame = field(default_factory=pd.DataFrame)


def default_segmenters(target_lang: str) -> tuple[str, ...]:
    return SEGMENTERS.get(target_lang.split("-")[0].lower(), FALLBACK_SEGMENTERS)


def family_of(name: str) -> str:
    if name.startswith("spm:"):
        return "subwords"
    return "characters" if name in ("char", "cjk-char") else "words"


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
    ``statistics=[...]``) say what is computed, as for ``metaeval run``.
    """
    from metaeval.answer import answer, granularity_free
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

    rows, configs, bounds, equiv = [], [], {}, []
    for i, seg in enumerate(segs):
        cache = SegmentationCache(cache_dir)  # one per granularity: memory is freed as we go
        tokens = cache.segment(seg, texts)
        mean, n_tokens, n_chars = chars_per_token(tokens)
        label = segmenter_label(seg)
        rows.append(Granularity(label, family_of(label), seg.signature(), mean, n_tokens, n_chars))
        bounds[label] = boundaries(tokens[: len(first_ref)])
        del tokens
        scored = score_corpus(corpus, [seg], list(metrics), executor=executor, cache=cache)
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
    if changed:  # every other option that changes a number, where it is not the default
        signature["options"] = changed
    return SweepResult(
        dataset=corpus.name,
        granularities=granularities,
        skipped=pd.DataFrame(skipped, columns=["name", "reason"]),
        results=results,
        equivalence=pd.DataFrame(equiv),
        boundaries=pd.DataFrame(boundary_rows, columns=["a", "b", "f1"]),
        signature=signature,
        answer=summary,
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
