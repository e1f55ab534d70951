"""FeatureIndex answers as the dict it was built from, for names in it and not, and keeps no
Python object per name."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.segmenters.feature_index import FeatureIndex

NAMES = st.text(alphabet=st.sampled_from("ab.*中国𠀀\x00"), max_size=6)


@settings(max_examples=300, deadline=None)
@given(mapping=st.dictionaries(NAMES, st.integers(-(2**40), 2**40)), probes=st.lists(NAMES, max_size=20))
def test_get_answers_as_the_dict(mapping: dict[str, int], probes: list[str]) -> None:
    for index in (FeatureIndex(mapping), FeatureIndex.consuming(dict(mapping), chunk=3)):
        assert len(index) == len(mapping)
        assert [index.get(name) for name in mapping] == list(mapping.values())
        assert [index.get(name, None) for name in probes] == [mapping.get(name) for name in probes]
        assert [name in index for name in probes] == [name in mapping for name in probes]


def test_consuming_empties_the_dict_as_it_goes() -> None:
    mapping = {f"c.{i}": i for i in range(10)}
    sizes: list[int] = []

    class Watched(dict):
        def popitem(self):  # noqa: ANN201
            sizes.append(len(self))
            return super().popitem()

    index = FeatureIndex.consuming(watched := Watched(mapping), chunk=4)
    assert watched == {} and sizes == list(range(10, 0, -1))
    assert [index.get(f"c.{i}") for i in range(10)] == list(range(10)) and index.get("c.10") == -1


class SameHash(str):
    """A name whose hash is that of every other SameHash: all of them collide."""

    def __hash__(self) -> int:
        return 12345


def test_names_of_equal_hashes_are_told_apart_by_their_text() -> None:
    names = [SameHash(n) for n in ("b", "a", "ab", "", "ba")]
    index = FeatureIndex({n: i for i, n in enumerate(names)})
    assert [index.get(n) for n in names] == [0, 1, 2, 3, 4]
    assert index.get(SameHash("c")) == -1 and index.get(SameHash("abc"), None) is None


def test_values_beyond_32_bits_are_kept_whole() -> None:
    big = {"a": 2**60 + 1, "b": -(2**35), "c": 7}  # 2**60 + 1 is not a float64
    for index in (FeatureIndex(big), FeatureIndex.consuming(dict(big))):
        found = (index.get("a"), index.get("b"), index.get("c"))
        assert found == (2**60 + 1, -(2**35), 7) and all(type(v) is int for v in found)  # ints, as the dict held
    assert len(FeatureIndex({})) == 0 and FeatureIndex({}).get("a") == -1


def test_offsets_and_values_that_fit_32_bits_are_held_in_32_bits() -> None:
    """The memory promise: 4 bytes an entry wherever the numbers fit, up to the limits included."""
    import numpy as np

    from metaeval.segmenters.feature_index import _narrowest

    assert _narrowest(np.array([-(2**31), 2**31 - 1])).dtype == np.int32
    assert _narrowest(np.array([0, 2**31])).dtype == np.int64 and _narrowest(np.array([-(2**31) - 1])).dtype == np.int64
    assert _narrowest(np.array([], dtype=np.int64)).dtype == np.int32
    index = FeatureIndex({"ab": 1, "c": 2})
    assert index._starts.itemsize == index._ends.itemsize == index._values.itemsize == 4


def test_an_index_cannot_be_pickled_to_a_process_of_other_hashes() -> None:
    with pytest.raises(TypeError, match="^a FeatureIndex holds this process's string hashes and cannot be pickled; build it in each process"):
        pickle.dumps(FeatureIndex({"a": 1}))
