"""``thulac``: THULAC (Sun et al. 2016, Tsinghua) in segmentation-only mode, model from its wheel.

``thulac.thulac(seg_only=True)`` with no user dictionary, no filter and no traditional-to-
simplified conversion; tokens are the words of ``cut(text)``. The model files ship inside the
``thulac`` wheel, so nothing is downloaded. Loading prints "Model loaded succeed" and leaves
a file unclosed; both are silenced. The model (about 10 s to load) is loaded once per
process and shared.
"""

from __future__ import annotations

import contextlib
import io
import threading
import warnings
from typing import Any

from metaeval.segmenters._deps import dictionary_signature, module_dir, require, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

PIP = "thulac"
#: The files ``thulac(seg_only=True)`` reads, relative to ``thulac/models``.
MODEL_FILES = ("cws_model.bin", "cws_dat.bin", "cws_label.txt", "t2s.dat", "ns.dat", "idiom.dat", "singlepun.dat")

_LOCK = threading.Lock()
_MODEL: Any = None


def model() -> Any:
    """The process-wide segmentation-only THULAC model (loaded silently on the first call)."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            thulac = require("thulac", "thulac", PIP)
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore", ResourceWarning)
                _MODEL = thulac.thulac(seg_only=True, T2S=False, filt=False, user_dict=None)
        return _MODEL


def model_files() -> tuple[str, ...]:
    folder = module_dir("thulac")
    return tuple(str(folder / "models" / name) for name in MODEL_FILES) if folder else ()


@register("thulac")
class ThulacSegmenter(Segmenter):
    """THULAC words (segmentation only, bundled model)."""

    name = "thulac"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        require("thulac", self.name, PIP)
        self._model: Any = None

    def _segment(self, text: str) -> list[str]:
        if self._model is None:
            self._model = model()
        return [word for word, _ in self._model.cut(text)]

    @classmethod
    def describe(cls) -> str:
        return f"thulac:{version('thulac')}|mode:seg_only|model:{dictionary_signature('thulac-models', None, model_files())}"
