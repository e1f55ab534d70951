"""metaeval's pkuseg tagger against pkuseg's own: the same feature lists, the same tokens."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

pkuseg = pytest.importorskip("pkuseg")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from metaeval.segmenters import pkuseg_adapter, pkuseg_features  # noqa: E402

#: Strings that reach every branch of pkuseg's features: out-of-range spans at both ends,
#: digits and full-width letters (``**Num``, ``**Letter``), keyword characters (``-._,|/*:``
#: become ``&``), dictionary words of every length, one character, Latin text.
EDGE_CASES = [
    "我", "我爱北京天安门", "2008年北京奥运会", "１２３４５６７８９０％的人", "ＡＢＣ公司和ａｂｃ",
    "a-b.c_d,e|f/g*h:i", "金**", "中华人民共和国国务院总理", "COVID-19疫苗", "¥1,299.00元",
    "他说：“不。”", "一二三四五六七八九十千万亿兆零", "／・－", "Hello世界", "的的的的的的的的的的的的",
]


@pytest.fixture(scope="module")
def instance():  # noqa: ANN201 - a pkuseg.pkuseg instance with metaeval's tagger installed
    seg = pkuseg_adapter.model()
    assert isinstance(seg._cut, pkuseg_features.Tagger)
    return seg


@pytest.fixture(scope="module")
def features() -> dict[str, int]:
    """The default model's feature map as pkuseg loads it (the instance above holds it only as
    a FeatureIndex), for pkuseg's own tagger."""
    return pkuseg.pkuseg().feature_extractor.feature_to_idx


@contextlib.contextmanager
def feature_map(seg, features: dict[str, int]) -> Iterator[None]:  # noqa: ANN001
    """Within the block, ``seg``'s feature extractor holds ``features`` as its ``feature_to_idx``."""
    extractor = seg.feature_extractor
    held, extractor.feature_to_idx = extractor.feature_to_idx, features
    try:
        yield
    finally:
        extractor.feature_to_idx = held


@contextlib.contextmanager
def pkusegs_own(seg, features: dict[str, int]) -> Iterator[None]:  # noqa: ANN001
    """Within the block, ``seg`` tags with pkuseg's own ``_cut`` (the class method), reading
    the feature map ``features``."""
    tagger = seg.__dict__.pop("_cut")
    try:
        with feature_map(seg, features):
            yield
    finally:
        seg._cut = tagger


def pkusegs_features(seg, nodes: list[str], features: dict[str, int]) -> list[list[int]]:  # noqa: ANN001
    with feature_map(seg, features):
        return [seg.feature_extractor.get_node_features_idx(i, nodes) for i in range(len(nodes))]


def our_features(seg, nodes: list[str]) -> list[list[int]]:  # noqa: ANN001
    return [[int(f) for f in row if f >= 0] for row in seg._cut.slots(nodes)]


def test_feature_lists_are_pkusegs_in_order(instance, features, zh_refs: list[str]) -> None:
    # The CRF adds weights in list order, so order and repeats must match too, not just the set.
    texts = EDGE_CASES + zh_refs[:150]
    for text in texts:
        nodes = list(instance.feature_extractor.normalize_text(text))
        assert our_features(instance, nodes) == pkusegs_features(instance, nodes, features), text


def test_tokens_are_pkusegs_on_real_text(instance, features, zh_refs: list[str]) -> None:
    texts = EDGE_CASES + zh_refs[150:400]
    ours = [instance.cut(t) for t in texts]
    with pkusegs_own(instance, features):
        theirs = [instance.cut(t) for t in texts]
    assert ours == theirs


def test_the_word_pair_set_only_training_reads_is_dropped(instance, features) -> None:
    """pkuseg's own tagger runs in this module's comparisons with the set dropped: segmenting
    does not read it, and a use of it would fail rather than drop features."""
    from metaeval.errors import MetaevalError

    assert isinstance(instance.feature_extractor.bigram, pkuseg_features.Dropped)
    with pytest.raises(MetaevalError, match=r"'bigram' was dropped after loading \(only training reads it\)"):
        "我*爱" in instance.feature_extractor.bigram  # noqa: B015
    with pkusegs_own(instance, features):
        assert instance.cut("我爱北京天安门") == ["我", "爱", "北京", "天安门"]

def test_empty_piece_gives_no_words(instance) -> None:
    assert instance._cut("") == []
    assert instance.cut("") == []


def test_dictionary_words_longer_than_the_longest_word_feature_are_not_features(instance, features) -> None:
    """pkuseg's dictionary holds words longer than ``wordMax`` (6), which its word features never
    look at: a span is searched only up to that length."""
    longest = instance._cut._lengths[0]
    text = "老吾老以及人之老，幼吾幼以及人之幼。"
    assert "幼吾幼以及人之幼" in instance.feature_extractor.unigram and len("幼吾幼以及人之幼") > longest
    nodes = list(instance.feature_extractor.normalize_text(text))
    assert our_features(instance, nodes) == pkusegs_features(instance, nodes, features)
    ours = instance.cut(text)
    with pkusegs_own(instance, features):
        assert ours == instance.cut(text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("中国人民共和的了是我在有他这为之大来以个不一上们到说国年2019ＡＢａｂ１２-._,|/*:&A z"),
               max_size=40))
def test_tokens_are_pkusegs_on_generated_text(instance, features, text: str) -> None:
    ours = instance.cut(text)
    with pkusegs_own(instance, features):
        assert ours == instance.cut(text)


def test_a_model_that_names_no_word_in_a_feature_keeps_pkusegs_tagger() -> None:
    # The tagger looks word pairs up only where both sides have a word; a model that names
    # "**noWord" in a feature would need the other lookups, so it is left as it is.
    extractor = SimpleNamespace(feature_to_idx={"c.a": 1, "ww.l.**noWord*ab": 2}, unigram={"ab"})
    seg = SimpleNamespace(feature_extractor=extractor)
    assert pkuseg_features.install(seg) is False
    assert not hasattr(seg, "_cut")


# --- a small made-up model, to reach what the default model does not have ---------------
# The default model has no feature with the empty word (pkuseg reads a span reaching outside
# the text as "", and "" is in its dictionary) and no dictionary word made of ``**Num`` nodes;
# this model has both, and drops a seeded third of the possible features.

NODES = ["a", "b", "c", "d", "**Num", "**Letter", "&"]
WORDS = ["", "ab", "abc", "bcd", "dab", "aa", "abcdab", "a&b", "**Num**Num", "b**Letter", "cdabcda"]


def made_up_segmenter(seed: int) -> SimpleNamespace:
    import random

    import numpy as np
    from pkuseg.feature_extractor import FeatureExtractor

    names = [f"{p}.{x}" for p in ("c", "c-1", "c1", "c-2", "c2") for x in NODES]
    names += [f"{p}.{x}.{y}" for p in ("c-1c", "cc1", "c-2c-1") for x in NODES for y in NODES]
    names += [f"{p}.{w}" for p in ("w-1", "w1") for w in WORDS]
    names += [f"ww.{side}.{x}*{y}" for side in "lr" for x in WORDS for y in WORDS]
    rng = random.Random(seed)
    kept = [name for name in names if rng.random() < 2 / 3]
    extractor = FeatureExtractor()
    extractor.unigram = set(WORDS)
    extractor.feature_to_idx = {name: i for i, name in enumerate(["$$", *kept])}
    model = SimpleNamespace(n_tag=5, n_feature=len(kept) + 1, w=np.zeros(5 * (len(kept) + 1) + 25))
    return SimpleNamespace(feature_extractor=extractor, model=model, idx_to_tag=dict(enumerate("BIJKS")))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 5), nodes=st.lists(st.sampled_from(NODES), max_size=16))
def test_feature_lists_are_pkusegs_on_a_made_up_model(seed: int, nodes: list[str]) -> None:
    from pkuseg.config import config

    seg = made_up_segmenter(seed)
    assert pkuseg_features.Tagger.applies(seg, config)
    tagger = pkuseg_features.Tagger(seg, config)
    assert our_features(SimpleNamespace(_cut=tagger), nodes) == pkusegs_features(seg, nodes, seg.feature_extractor.feature_to_idx)


def test_the_feature_map_is_held_as_an_index_that_answers_as_pkusegs_dict(instance, features) -> None:
    """Installing the tagger moves the default model's 2.6 million features from pkuseg's dict
    into a FeatureIndex: every name maps to the same index, a name not in the model to none,
    and the dict the extractor held is gone (a use of it is an error)."""
    from metaeval.errors import MetaevalError

    index = instance._cut._index
    assert len(index) == len(features) > 2_000_000
    assert all(index.get(name) == i for name, i in features.items())
    probes = [name + suffix for name in list(features)[::97] for suffix in ("\x00", "中")]
    assert [index.get(name, None) for name in probes] == [features.get(name) for name in probes]
    # 20 MB of hashes, 3 x 10 MB of 32-bit offsets and indices, 88 MB of names (4 bytes a
    # character: some name has a character outside the BMP); the dict took 470 MB
    held = sum(part.nbytes for part in (index._hashes, index._starts, index._ends, index._values))
    assert held + sys.getsizeof(index._text) < 150 * 2**20
    assert isinstance(instance.feature_extractor.feature_to_idx, pkuseg_features.Dropped)
    with pytest.raises(MetaevalError, match=r"'feature_to_idx' was dropped after loading \(only pkuseg's own tagger reads it\)"):
        "c.我" in instance.feature_extractor.feature_to_idx  # noqa: B015


# --- loading -----------------------------------------------------------------------------


def write_model(folder, features: dict[str, int]):  # noqa: ANN001, ANN201
    """A features.pkl as pkuseg writes it: words, word pairs, feature map, tags."""
    import pickle

    data = {"unigram": ["ab", "abc"], "bigram": [("ab", "abc")], "feature_to_idx": features,
            "tag_to_idx": {"B": 0, "I": 1}}  # fmt: skip
    (folder / "features.pkl").write_bytes(pickle.dumps(data))
    return folder


def test_the_loader_gives_pkusegs_words_tags_and_features_with_the_word_pairs_dropped(features) -> None:
    from pkuseg.feature_extractor import FeatureExtractor

    own = FeatureExtractor.load()
    lean = pkuseg_features.load_extractor()
    assert lean.unigram == own.unigram and lean.tag_to_idx == own.tag_to_idx
    assert isinstance(lean.bigram, pkuseg_features.Dropped) and len(own.bigram) > 1_000_000
    index = lean.feature_to_idx
    assert isinstance(index, pkuseg_features.FeatureIndex) and len(index) == len(features)
    assert all(index.get(name) == i for name, i in list(features.items())[::101])
    # the class's own attributes (tables of letters, digits, keywords) are pkuseg's
    assert lean.keywords_translate_table == own.keywords_translate_table


def test_a_model_the_tagger_does_not_apply_to_keeps_its_feature_dict(tmp_path) -> None:
    kept = {"c.a": 1, "ww.l.**noWord*ab": 2}
    lean = pkuseg_features.load_extractor(str(write_model(tmp_path, dict(kept))))
    assert lean.feature_to_idx == kept and lean.unigram == {"ab", "abc"}
    seg = SimpleNamespace(feature_extractor=lean)
    assert pkuseg_features.install(seg) is False and lean.feature_to_idx == kept


def test_a_model_folder_without_features_pkl_is_left_to_pkusegs_loader(tmp_path, monkeypatch) -> None:
    from pkuseg.feature_extractor import FeatureExtractor

    asked = []
    monkeypatch.setattr(FeatureExtractor, "load", classmethod(lambda cls, model_dir=None: asked.append(model_dir) or "own"))
    assert pkuseg_features.load_extractor(str(tmp_path)) == "own" and asked == [str(tmp_path)]


def test_lean_loading_gives_pkusegs_loader_back_also_after_an_error() -> None:
    held = pkuseg.FeatureExtractor
    with pytest.raises(RuntimeError, match="boom"), pkuseg_features.lean_loading(pkuseg):
        assert pkuseg.FeatureExtractor.load is pkuseg_features.load_extractor
        raise RuntimeError("boom")
    assert pkuseg.FeatureExtractor is held


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_loading_the_default_model_peaks_below_pkusegs_own_loader() -> None:
    """pkuseg's own loader peaks at about 810 MB resident (the whole file unpickled, its word
    pairs as a set beside their list, the feature dict beside the weights); this one at about
    680 MB on the same machine."""
    import subprocess

    # the high-water mark of this process's own memory (getrusage's ru_maxrss would also count
    # the test process it was forked from: Linux keeps it across exec)
    code = ("from metaeval.segmenters import pkuseg_adapter\npkuseg_adapter.model()\n"
            "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    peak_mb = int(done.stdout.split()[-1]) / 1024
    assert peak_mb < 750, peak_mb
