"""The segmenter protocol: text in, a list of non-empty tokens out.

Every segmenter has a registry ``name``, is called as ``seg(text) -> list[str]``, segments
batches with ``segment_many(texts)``, and describes itself with ``signature()``: the package
versions, the dictionary identity and the normalisation, so that a number can be traced to
the exact tokens (docs/design.md, "Segmenters").
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Iterable, Protocol, runtime_checkable

from metaeval.errors import UsageError

#: Full-width ASCII variants U+FF01..U+FF5E map to U+0021..U+007E; the ideographic space to a space.
_HALFWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_HALFWIDTH[0x3000] = 0x20


@runtime_checkable
class SegmenterLike(Protocol):
    """What the rest of metaeval needs from a segmenter (plug-ins may implement just this)."""

    name: str

    def __call__(self, text: str) -> list[str]: ...

    def signature(self) -> str: ...

    def segment_many(self, texts: Iterable[str]) -> list[list[str]]: ...


@dataclass(frozen=True)
class Normalization:
    """Text normalisation applied before segmenting, in this order; all off by default.

    Attributes:
        nfkc: Unicode NFKC (also maps full-width ASCII and half-width kana to their
            canonical widths).
        halfwidth: full-width ASCII variants U+FF01..U+FF5E and U+3000 to ASCII, nothing else.
        lowercase: ``str.lower``.
    """

    nfkc: bool = False
    halfwidth: bool = False
    lowercase: bool = False

    def __post_init__(self) -> None:
        for key in ("nfkc", "halfwidth", "lowercase"):
            value = getattr(self, key)
            if not isinstance(value, bool):
                raise UsageError(f"normalisation option {key}={value!r} must be true or false")

    @property
    def active(self) -> bool:
        return self.nfkc or self.halfwidth or self.lowercase

    def __call__(self, text: str) -> str:
        if self.nfkc:
            text = unicodedata.normalize("NFKC", text)
        if self.halfwidth:
            text = text.translate(_HALFWIDTH)
        if self.lowercase:
            text = text.lower()
        return text

    def signature(self) -> str:
        """``norm:none`` or e.g. ``norm:nfkc+halfwidth+lower``."""
        parts = [key for key, on in (("nfkc", self.nfkc), ("halfwidth", self.halfwidth), ("lower", self.lowercase)) if on]
        return "norm:" + ("+".join(parts) or "none")


class Segmenter(ABC):
    """Base class of the built-in segmenters.

    Subclasses implement :meth:`_segment` on normalised text and :meth:`describe`; the base
    class normalises, drops empty and whitespace-only tokens, and builds the signature
    ``<name>|<describe()>|norm:<...>``. Options other than normalisation are keyword
    arguments of the subclass constructor.
    """

    #: Registry name, e.g. ``"jieba"``.
    name: ClassVar[str]
    #: Segmented in the process that scores, never sent to a worker: rules without a model,
    #: whose tokens would take longer to come back from another process than to compute.
    in_process: ClassVar[bool] = False

    def __init__(self, *, nfkc: bool = False, halfwidth: bool = False, lowercase: bool = False) -> None:
        self.normalization = Normalization(nfkc=nfkc, halfwidth=halfwidth, lowercase=lowercase)

    @abstractmethod
    def _segment(self, text: str) -> list[str]:
        """Tokens of already normalised text (may contain empty or whitespace tokens)."""

    @classmethod
    @abstractmethod
    def describe(cls) -> str:
        """Versions and dictionary identity, e.g. ``jieba:0.42.1|dict:dict.txt:5071852B:sha256=...``.

        Must not load models; it is also used by ``segmenters.info()``.
        """

    def options_signature(self) -> str:
        """Signature part for constructor options other than normalisation ('' if none)."""
        return ""

    def release(self) -> None:
        """Let go of a loaded model so its memory can be given back; the next text loads it
        again. A worker process calls it when it has segmented all of its texts. Default: nothing
        is held."""

    def __call__(self, text: str) -> list[str]:
        if self.normalization.active:
            text = self.normalization(text)
        return [tok for tok in self._segment(text) if tok and not tok.isspace()]

    def segment_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokens of each text; each distinct text is segmented once (lists are not shared)."""
        texts = list(texts)
        done = {text: self(text) for text in dict.fromkeys(texts)}
        return [list(done[text]) for text in texts]

    def signature(self) -> str:
        parts = [self.name, self.options_signature(), self.describe(), self.normalization.signature()]
        return "|".join(part for part in parts if part)

    def __repr__(self) -> str:
        return f"<segmenter {self.signature()}>"
