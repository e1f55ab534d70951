"""``pkuseg``: pkuseg 0.0.25 with its bundled default (mixed-domain) model and dictionary.

Only ``pkuseg.pkuseg()`` with no model name is used: the named domain models are downloaded
on first use and fail offline. Loading takes about 2.4 s and 690 MB (pkuseg's set of word
pairs, which only its training reads, is dropped), so the model is loaded once per process, on
first use, and shared by every ``pkuseg`` segmenter. Its per-piece tagger
is replaced by :mod:`metaeval.segmenters.pkuseg_features`, which finds the same features
(2.7 times as fast, ``python -m benchmarks.pkuseg_tagger``) and so gives the same tokens;
everything else is pkuseg's own.
"""

from __future__ import annotations

import threading
from typing import Any

from metaeval.errors import MetaevalError
from metaeval.segmenters._deps import fingerprint, module_dir, require, require_installed, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

_LOCK = threading.Lock()
_MODEL: Any = None
#: Files of the bundled default model and dictionary, relative to the package folder.
MODEL_FILES = ("models/default/features.pkl", "models/default/weights.npz", "dicts/default.pkl")


class TrainingOnly:
    """Stands for a part of pkuseg's feature extractor that only its training reads.

    pkuseg 0.0.25 reads ``feature_extractor.bigram`` (1.1 million word pairs, 134 MB) only
    when it builds training features (``get_node_features``); segmenting reads
    ``feature_to_idx`` and ``unigram`` (``__get_node_features_idx``). The set is dropped when the
    model is loaded, and any use of it is an error rather than a silently different feature."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __contains__(self, item: object) -> bool:
        raise MetaevalError(f"pkuseg's {self.name!r} set was dropped after loading (only training reads it); "
                            f"this pkuseg ({version('pkuseg')}) reads it while segmenting")


def model() -> Any:
    """The process-wide ``pkuseg.pkuseg()`` instance (loaded on the first call)."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            pkuseg = require("pkuseg", "pkuseg", "pkuseg==0.0.25")
            from metaeval.segmenters import pkuseg_features

            instance = pkuseg.pkuseg()
            instance.feature_extractor.bigram = TrainingOnly("bigram")
            pkuseg_features.install(instance)
            _MODEL = instance
        return _MODEL


def release_model() -> None:
    """Drop the process-wide instance (its memory is freed once no segmenter refers to it)."""
    global _MODEL
    with _LOCK:
        _MODEL = None


@register("pkuseg")
class PkusegSegmenter(Segmenter):
    """pkuseg's default model (Luo et al. 2019, ``pkuseg.pkuseg().cut``); it splits on whitespace first."""

    name = "pkuseg"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        require_installed("pkuseg", self.name, "pkuseg==0.0.25")
        self._model: Any = None

    def _segment(self, text: str) -> list[str]:
        if self._model is None:
            self._model = model()
        return self._model.cut(text)

    def release(self) -> None:
        """Forget the shared model here and process-wide."""
        self._model = None
        release_model()

    @classmethod
    def describe(cls) -> str:
        folder = module_dir("pkuseg")
        files = ",".join(fingerprint(str(folder / f)) for f in MODEL_FILES) if folder else "missing"
        return f"pkuseg:{version('pkuseg')}|model:default({files})"
