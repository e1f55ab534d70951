"""pkuseg's tagger with its node features found per text instead of per lookup.

pkuseg 0.0.25 (Luo et al. 2019) tags each character with a CRF. For each position its
``feature_extractor.__get_node_features_idx`` lists, in this order:

1. the start feature 0;
2. 8 character features: ``c.``, ``c-1.``, ``c-1c.``, ``c1.``, ``cc1.``, ``c-2.``, ``c-2c-1.``, ``c2.``;
3. for each length ``l`` from ``wordMax`` down to ``wordMin``: ``w-1.W`` if the ``l`` nodes
   ending here form a dictionary word ``W``, then likewise ``w1.W`` for those starting here;
4. 2 × 25 word-pair features ``ww.l.PRE*POST`` (words ending just before × words starting
   here) and ``ww.r.PRE*POST`` (words ending here × words starting just after), where a side
   without a word reads ``**noWord``.

Only features present in the model are listed, and the node's score for a tag is the sum of
their weights, added in list order (``inference.getLogYY``). Built position by position, that
is 20 substring joins and about 80 dictionary lookups per character: 95% of pkuseg's time
(10.6 of 11.6 s on WMT24 en-zh).

Here the dictionary words of a text are found once per start (a prefix table stops the search
at the first span that no word begins with); the feature indices are kept per character, per
character pair, per word and per word pair once looked up; and the features of every node go
into one slot table whose rows a compiled kernel sums in slot order, which is pkuseg's list
order: the scores, and so the tags, are the same to the bit. Viterbi decoding, the whitespace
split, the user dictionary and the post-processing stay pkuseg's own. Word pairs are looked up
only where both sides have a word, so :func:`install` applies this only to a model with no
feature naming ``**noWord`` (pkuseg's default model has none); any other model keeps pkuseg's
own tagger.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from itertools import chain
from typing import Any, Callable, Iterable, Iterator

import numpy as np
from metaeval.errors import MetaevalError
from metaeval.lazyjit import njit
from metaeval.segmenters._deps import version
from metaeval.segmenters.feature_index import FeatureIndex

#: Slots of the start feature and the 8 character features, before the word features.
CHAR_SLOTS = 9
#: What pkuseg writes for "no dictionary word here" in a word-pair feature.
NO_WORD = "**noWord"
#: Entries kept at most per cache of feature indices; a full cache is emptied.
MAX_CACHED = 1_000_000


@njit(cache=True)
def node_scores(slots: np.ndarray, weights: np.ndarray, n_tag: int) -> np.ndarray:
    """``scores[i, t]``: the weights of node ``i``'s features for tag ``t``, added from 0.0 in
    slot order (pkuseg's ``getLogYY``: ``node_score[i, s] += w[f * n_tag + s]``); -1 is no feature."""
    n, width = slots.shape
    scores = np.zeros((n, n_tag))
    for i in range(n):
        for k in range(width):
            f = slots[i, k]
            if f >= 0:
                for t in range(n_tag):
                    scores[i, t] += weights[f * n_tag + t]
    return scores


class Tagger:
    """pkuseg's ``_cut`` for one model: per-piece features, scores, Viterbi tags, words."""

    def __init__(self, segmenter: Any, config: Any, index: FeatureIndex | None = None) -> None:
        """``index``: the model's feature map (default: built from ``feature_to_idx``, kept)."""
        from pkuseg import inference

        extractor = segmenter.feature_extractor
        self._index = FeatureIndex(extractor.feature_to_idx) if index is None else index
        self._unigram: set[str] = extractor.unigram
        self._lengths = tuple(range(config.wordMax, config.wordMin - 1, -1))
        self._uses_words = bool(config.wordFeature)
        #: Every prefix of every dictionary word, True if it is a word itself: a span that is
        #: not a key begins no word.
        self._prefixes = dict.fromkeys((w[:k] for w in self._unigram for k in range(1, len(w))), False)
        self._prefixes.update(dict.fromkeys(self._unigram, True))
        #: pkuseg reads a span that reaches outside the text as "", which may be a dictionary word.
        self._outside = "" in self._unigram
        table = extractor.keywords_translate_table
        classes = {ch: "**Letter" for ch in extractor.letter} | {ch: "**Num" for ch in extractor.num}
        if not config.numLetterNorm:
            classes = {}
        self._normalize: Callable[[str], list[str]] = lambda text: [classes.get(c, c) for c in text.translate(table)]
        self._chars: dict[str, tuple[int, ...]] = {}
        self._pairs: dict[tuple[str, str], tuple[int, ...]] = {}
        self._word_features: dict[str, tuple[int, ...]] = {}
        self._word_pairs: dict[tuple[str, str], tuple[int, ...]] = {}
        model = segmenter.model
        self._n_tag = int(model.n_tag)
        self._weights = np.ascontiguousarray(model.w, dtype=np.float64)
        backoff = int(model.n_feature) * self._n_tag
        edges = np.ones((self._n_tag, self._n_tag))
        for s in range(self._n_tag):
            for s_pre in range(self._n_tag):
                edges[s_pre, s] += self._weights[backoff + s * self._n_tag + s_pre]
        self._edges = edges
        self._viterbi = inference.run_viterbi
        self._begins = [False] * self._n_tag
        for idx, tag in segmenter.idx_to_tag.items():
            self._begins[idx] = "B" in tag
        n_lengths = len(self._lengths)
        self._width = CHAR_SLOTS + 2 * n_lengths + 2 * n_lengths * n_lengths

    @staticmethod
    def applies(segmenter: Any, config: Any) -> bool:
        """Whether this tagger's shortcut holds for the segmenter's model: no feature names
        ``**noWord`` (pkuseg writes it only into word-pair features)."""
        return Tagger.applies_to(segmenter.feature_extractor.feature_to_idx, config)

    @staticmethod
    def applies_to(feature_names: Iterable[str], config: Any) -> bool:
        """:meth:`applies` for a model whose features are ``feature_names``."""
        return 1 <= config.wordMin <= config.wordMax and not any(NO_WORD in f for f in feature_names)

    def _indices(self, cache: dict, key: Any, names: tuple[str, ...]) -> tuple[int, ...]:
        """The indices of the features ``names`` (-1 where the model has none), kept in
        ``cache`` under ``key`` for the next time."""
        found = tuple(self._index.get(name, -1) for name in names)
        if len(cache) >= MAX_CACHED:
            cache.clear()
        cache[key] = found
        return found

    def _char_features(self, node: str) -> tuple[int, ...]:
        names = ("c." + node, "c-1." + node, "c1." + node, "c-2." + node, "c2." + node)
        return self._indices(self._chars, node, names)

    def _pair_features(self, pair: tuple[str, str]) -> tuple[int, ...]:
        a, b = pair
        return self._indices(self._pairs, pair, (f"c-1c.{a}.{b}", f"cc1.{a}.{b}", f"c-2c-1.{a}.{b}"))

    def _word_feature_indices(self, word: str) -> tuple[int, ...]:
        return self._indices(self._word_features, word, ("w-1." + word, "w1." + word))

    def _word_pair_indices(self, pre: str, post: str) -> tuple[int, ...]:
        return self._indices(self._word_pairs, (pre, post), (f"ww.l.{pre}*{post}", f"ww.r.{pre}*{post}"))

    def _words(self, nodes: list[str]) -> tuple[list[list[tuple[int, str]]], list[list[tuple[int, str]]]]:
        """``starting[s]`` for ``s`` in 0..n and ``ending[j + 1]`` for ``j`` in -1..n-1: the
        (length's position in ``wordMax..wordMin``, word) of the dictionary words of
        ``wordMin..wordMax`` nodes that start at ``s`` / end at ``j``, by that position.

        As in pkuseg, a span reaching outside the text reads "", a word if the dictionary has it.
        The search from a start stops at the first span that begins no dictionary word."""
        n, prefixes, lengths = len(nodes), self._prefixes.get, self._lengths
        shortest, longest = lengths[-1], lengths[0]
        starting: list[list[tuple[int, str]]] = [[] for _ in range(n + 1)]
        ending: list[list[tuple[int, str]]] = [[] for _ in range(n + 1)]
        for s in range(n):
            span = ""
            for end in range(s, s + longest if s + longest < n else n):
                span += nodes[end]
                is_word = prefixes(span)
                if is_word is None:
                    break
                if is_word and end - s + 1 >= shortest:
                    entry = (longest - (end - s + 1), span)
                    starting[s].append(entry)
                    ending[end + 1].append(entry)
        for found in starting:
            found.reverse()  # found by growing length: by falling length, as pkuseg lists them
        if self._outside:
            for length in lengths:
                entry = (longest - length, "")
                for s in range(max(0, n - length + 1), n + 1):
                    starting[s].append(entry)
                for j in range(-1, min(length - 1, n)):
                    ending[j + 1].append(entry)
            for found in (*starting[max(0, n - longest):], *ending[:longest + 1]):
                found.sort()
        return starting, ending

    def slots(self, nodes: list[str]) -> np.ndarray:
        """One row per node: its feature indices in pkuseg's order, -1 where a feature is absent."""
        n = len(nodes)
        table = np.full((n, self._width), -1, dtype=np.int64)
        if n == 0:
            return table
        table[:, 0] = 0
        known, feature = self._chars.get, self._char_features
        chars = np.fromiter(chain.from_iterable([known(c) or feature(c) for c in nodes]), np.int64, 5 * n).reshape(n, 5)
        table[:, 1] = chars[:, 0]
        table[1:, 2] = chars[:-1, 1]
        table[:-1, 4] = chars[1:, 2]
        table[2:, 6] = chars[:-2, 3]
        table[:-2, 8] = chars[2:, 4]
        if n > 1:
            known_pair, pair = self._pairs.get, self._pair_features
            pairs = np.fromiter(chain.from_iterable([known_pair(p) or pair(p) for p in zip(nodes, nodes[1:])]),
                                np.int64, 3 * (n - 1)).reshape(n - 1, 3)
            table[1:, 3] = pairs[:, 0]
            table[:-1, 5] = pairs[:, 1]
            table[2:, 7] = pairs[:-1, 2]
        if not self._uses_words:
            return table[:, :CHAR_SLOTS]
        starting, ending = self._words(nodes)
        rows: list[int] = []
        cols: list[int] = []
        values: list[int] = []
        m = len(self._lengths)
        word_l, word_r = CHAR_SLOTS + 2 * m, CHAR_SLOTS + 2 * m + m * m
        known_word, word_features = self._word_features.get, self._word_feature_indices
        known_word_pair, word_pair_features = self._word_pairs.get, self._word_pair_indices
        for i in range(n):
            here, start = ending[i + 1], starting[i]
            if not (here or start):
                continue
            # w-1 (words ending here), then w1 (words starting here)
            for words, side, base in ((here, 0, CHAR_SLOTS), (start, 1, CHAR_SLOTS + m)):
                for k, word in words:
                    idx = (known_word(word) or word_features(word))[side]
                    if idx >= 0:
                        rows.append(i)
                        cols.append(base + k)
                        values.append(idx)
            before, after = ending[i], starting[i + 1]
            for pres, posts, side, base in ((before, start, 0, word_l), (here, after, 1, word_r)):
                if pres and posts:
                    for k, pre in pres:
                        for j, post in posts:
                            idx = (known_word_pair((pre, post)) or word_pair_features(pre, post))[side]
                            if idx >= 0:
                                rows.append(i)
                                cols.append(base + k * m + j)
                                values.append(idx)
        if rows:
            table[rows, cols] = values
        return table

    def __call__(self, text: str) -> list[str]:
        """pkuseg's ``_cut``: tag every character; a word starts at every tag with a B."""
        if not text:
            return []
        scores = node_scores(self.slots(self._normalize(text)), self._weights, self._n_tag)
        _, tags = self._viterbi(scores, self._edges)
        words: list[str] = []
        begins = self._begins
        for position, (tag, char) in enumerate(zip(tags, text)):
            if position and begins[tag]:
                words.append(char)
            elif words:
                words[-1] += char
            else:
                words.append(char)
        return words


class Dropped:
    """Stands for a part of pkuseg's loaded model that segmenting does not read here: any use
    of it is an error rather than a silently different feature."""

    def __init__(self, name: str, reader: str) -> None:
        self.name = name
        self.reader = reader

    def __contains__(self, item: object) -> bool:
        raise MetaevalError(f"pkuseg's {self.name!r} was dropped after loading (only {self.reader} reads it); "
                            f"this pkuseg ({version('pkuseg')}) reads it while segmenting")


def install(segmenter: Any) -> bool:
    """Give a ``pkuseg.pkuseg`` instance this tagger as its ``_cut`` (pkuseg's ``cut`` calls
    ``self._cut`` on every piece its user dictionary leaves). False if the model does not
    allow it, and then the instance is left as it is.

    The tagger takes the feature map over: its dict (2.6 million names, 470 MB in the default
    model), which only pkuseg's own tagger reads, is emptied into a
    :class:`~metaeval.segmenters.feature_index.FeatureIndex` (140 MB) and replaced by
    :class:`Dropped`; a map that :func:`load_extractor` already turned into an index is taken
    as it is (it did so only where the tagger applies)."""
    from pkuseg.config import config

    extractor = segmenter.feature_extractor
    held = extractor.feature_to_idx
    if isinstance(held, FeatureIndex):
        index = held
    elif Tagger.applies(segmenter, config):
        index = FeatureIndex.consuming(held)
    else:
        return False
    segmenter._cut = Tagger(segmenter, config, index)
    extractor.feature_to_idx = Dropped("feature_to_idx", "pkuseg's own tagger")
    return True


def load_extractor(model_dir: str | None = None) -> Any:
    """pkuseg's ``FeatureExtractor.load`` of ``features.pkl``, without what segmenting here
    does not read, in an order that keeps the peak low.

    pkuseg's own keeps the whole unpickled file while it turns its word list and its
    1.1 million word pairs into sets, and returns the 470 MB feature dict, which stays until
    :func:`install` empties it after the model's weights (100 MB) are loaded too. Here the word
    pairs (read only by training) are dropped unread, and the feature dict is emptied into a
    :class:`~metaeval.segmenters.feature_index.FeatureIndex` at once where the tagger applies
    (else kept, for pkuseg's own tagger). The words, the tags and every feature's index are
    pkuseg's. A model folder without ``features.pkl`` is left to pkuseg's loader."""
    from pkuseg.config import config
    from pkuseg.feature_extractor import FeatureExtractor

    path = os.path.join(model_dir or config.modelDir, "features.pkl")
    if not os.path.exists(path):
        return FeatureExtractor.load(model_dir)
    extractor = FeatureExtractor.__new__(FeatureExtractor)
    with open(path, "rb") as reader:
        data = pickle.load(reader)  # pkuseg's own model file, as pkuseg reads it
    extractor.unigram = set(data.pop("unigram"))
    del data["bigram"]
    extractor.bigram = Dropped("bigram", "training")
    extractor.tag_to_idx = data["tag_to_idx"]
    features = data.pop("feature_to_idx")
    del data
    extractor.feature_to_idx = FeatureIndex.consuming(features) if Tagger.applies_to(features, config) else features
    return extractor


class _LeanFeatureExtractor:
    """Stands for pkuseg's ``FeatureExtractor`` class where ``pkuseg.pkuseg()`` calls ``load``."""

    load = staticmethod(load_extractor)


@contextlib.contextmanager
def lean_loading(pkuseg: Any) -> Iterator[None]:
    """Within the block, ``pkuseg.pkuseg()`` loads its features with :func:`load_extractor`
    (its ``__init__`` calls the ``FeatureExtractor`` of its module's namespace); everything else
    it loads is its own. The name is given back on leaving, also after an error."""
    held = pkuseg.FeatureExtractor
    pkuseg.FeatureExtractor = _LeanFeatureExtractor
    try:
        yield
    finally:
        pkuseg.FeatureExtractor = held
