"""``pkuseg``: pkuseg 0.0.25 with its bundled default (mixed-domain) model and dictionary.

Only ``pkuseg.pkuseg()`` with no model name is used: the named domain models are downloaded
on first use and fail offline. Loading takes about 5 CPU-s and 680 MB at its peak (resident
size of the process; 810 MB and 6.5 CPU-s with pkuseg's own loader); once loaded it holds
290 MB (pkuseg's word pairs, which only its training reads, are not kept, and its feature map
is held in arrays: :func:`metaeval.segmenters.pkuseg_features.load_extractor`), so the model is
loaded once per process, on first use, and shared by every ``pkuseg`` segmenter. Its per-piece
tagger is replaced by :mod:`metaeval.segmenters.pkuseg_features`, which finds the same features
(2.7 times as fast, ``python -m benchmarks.pkuseg_tagger``) and so gives the same tokens;
everything else is pkuseg's own.
"""

from __future__ import annotations

import threading
from typing import Any

from metaeval.heap import return_freed_memory
from metaeval.segmenters._deps import fingerprint, module_dir, require, require_installed, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

_LOCK = threading.Lock()
_MODEL: Any = None
#: Files of the bundled default model and dictionary, relative to the package folder.
MODEL_FILES = ("models/default/features.pkl", "models/default/weights.npz", "dicts/default.pkl")


def model() -> Any:
    """The process-wide ``pkuseg.pkuseg()`` instance (loaded on the first call)."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            pkuseg = require("pkuseg", "pkuseg", "pkuseg==0.0.25")
            from metaeval.segmenters import pkuseg_features

            # the word pairs that only pkuseg's training reads are not kept, and the feature map
            # is held as an index before the weights are loaded
            with pkuseg_features.lean_loading(pkuseg):
                instance = pkuseg.pkuseg()
            pkuseg_features.install(instance)
            return_freed_memory()
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

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the model (its feature map is held under this process's string
        hashes): the copy loads its process's own on first use."""
        return {**self.__dict__, "_model": None}

    def release(self) -> None:
        """Forget the shared model here and process-wide."""
        self._model = None
        release_model()

    @classmethod
    def describe(cls) -> str:
        folder = module_dir("pkuseg")
        files = ",".join(fingerprint(str(folder / f)) for f in MODEL_FILES) if folder else "missing"
        return f"pkuseg:{version('pkuseg')}|model:default({files})"
