"""``spm:vocab=N,type=unigram|bpe``: SentencePiece subwords (Kudo & Richardson 2018) learnt
from the corpus's own references, the granularity of spBLEU (Goyal et al. 2022).

The model is trained on the reference side of the corpus being scored (every line of every
reference, in order), or on the lines of a text file named with ``train=PATH``, after the
segmenter's normalisation. Training is deterministic: one thread, every sentence used
(no sampling, no shuffling), identity normalisation (the text's own characters), all
characters covered, no byte fallback; the same lines and options give a byte-identical model.
Training reads from memory and writes the model to memory: nothing touches the disk unless
``cache_dir=DIR`` is given (the command line's ``--cache-dir``), where models are kept as
``spm-<hash>.model``, named by the SHA-256 of the training lines and the options. In memory,
models are shared within the process under the same key.

Tokens are the pieces without SentencePiece's word-boundary marker ``▁`` (U+2581), split
at any whitespace inside them (SentencePiece leaves U+3000 in pieces); a piece that was only
the marker or whitespace is dropped. (A U+2581 in the text itself is indistinguishable from
the marker and dropped too.) Characters the model never saw come out as single-character
pieces. ``vocab`` is the requested size; the trainer may stop earlier when the text has no
more pieces to offer (``hard_vocab_limit=false``): the signature records the actual size.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from metaeval.errors import DataError, UsageError
from metaeval.paths import input_problem, replace_atomically
from metaeval.segmenters._deps import require, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

PIP = "sentencepiece"
MODEL_TYPES = ("unigram", "bpe")
MARKER = "\u2581"
#: Trainer options fixed for determinism and fidelity to the text (the model's identity).
TRAINER_OPTIONS: dict[str, Any] = {
    "character_coverage": 1.0,
    "num_threads": 1,
    "input_sentence_size": 0,
    "shuffle_input_sentence": False,
    "normalization_rule_name": "identity",
    "max_sentence_length": 1 << 20,
    "hard_vocab_limit": False,
    "byte_fallback": False,
    "minloglevel": 2,
}

_LOCK = threading.Lock()
_MODELS: dict[str, bytes] = {}


def training_hash(lines: Sequence[str]) -> str:
    """SHA-256 (hex) of the training lines, each followed by a newline, in UTF-8."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def read_training_file(path: "str | os.PathLike[str]") -> list[str]:
    """Lines of a UTF-8 text file (without line ends)."""
    problem = input_problem(path) if os.path.lexists(path) else None
    if problem is not None:  # a FIFO or device would block the read
        raise DataError(f"{path}: {problem} (segmenter 'spm', train=)")
    try:
        with open(path, encoding="utf-8", newline="\n") as handle:
            return [line.rstrip("\r\n") for line in handle]
    except FileNotFoundError:
        raise DataError(f"{path}: no such file (segmenter 'spm', train=)") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 at byte {exc.start} (segmenter 'spm', train=)") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror}) (segmenter 'spm', train=)") from None


def train_model(lines: Sequence[str], vocab: int, model_type: str) -> bytes:
    """A serialized SentencePiece model trained on ``lines`` in memory."""
    spm = require("sentencepiece", "spm", PIP)
    texts = [line for line in lines if line.strip()]
    if not texts:
        raise DataError("segmenter 'spm': the training text is empty")
    writer = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts), model_writer=writer, vocab_size=vocab, model_type=model_type, **TRAINER_OPTIONS
        )
    except RuntimeError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "Vocabulary size is smaller than required_chars" in str(exc):
            chars = len({ch for line in texts for ch in line if not ch.isspace()})
            reason = f"vocab={vocab} is smaller than the {chars} distinct characters of the training text (plus 3 special pieces)"
        raise UsageError(f"segmenter 'spm:vocab={vocab},type={model_type}': training failed: {reason}") from None
    return writer.getvalue()


def loads(model: bytes) -> bool:
    """Whether SentencePiece can load ``model`` (a cached file may be damaged or edited)."""
    spm = require("sentencepiece", "spm", PIP)
    try:
        spm.SentencePieceProcessor(model_proto=model)
    except RuntimeError:
        return False
    return True


def _cached_model(key: str, cache_dir: Path | None, build: Any) -> bytes:
    """The model under ``key`` from memory, then ``cache_dir``, else built (and stored).
    A cached file SentencePiece cannot load is built again and replaced."""
    with _LOCK:
        if key in _MODELS:
            return _MODELS[key]
        path = cache_dir / f"spm-{key[:32]}.model" if cache_dir is not None else None
        model = None
        if path is not None and path.is_file():
            model = path.read_bytes()
            if not loads(model):
                model = None
        if model is None:
            model = build()
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                replace_atomically(path, lambda handle: handle.write(model), ".spm-")
        _MODELS[key] = model
        return model


def _vocab(value: Any) -> int:
    try:
        vocab = int(value)
    except (TypeError, ValueError):
        vocab = -1
    if isinstance(value, bool) or vocab < 4:
        raise UsageError(f"segmenter 'spm': vocab must be a whole number >= 4, got {value!r}")
    return vocab


def _tokens(pieces: Sequence[str]) -> list[str]:
    """Pieces without the marker, split at any whitespace left inside them (SentencePiece
    keeps e.g. U+3000 within pieces), empty ones dropped."""
    return [part for piece in pieces for part in piece.replace(MARKER, " ").split()]


@register("spm")
class SentencePieceSegmenter(Segmenter):
    """SentencePiece pieces of a model learnt from the corpus's references (or ``train=PATH``)."""

    name = "spm"
    #: The registry hands such a factory the text to learn from (``training_text``).
    trains_on_text = True

    def __init__(
        self,
        *,
        vocab: Any = None,
        type: str = "unigram",  # noqa: A002 - the spec's own word: spm:vocab=8000,type=bpe
        train: "str | os.PathLike[str] | None" = None,
        training_text: Sequence[str] | None = None,
        cache_dir: "str | os.PathLike[str] | None" = None,
        **norm: Any,
    ) -> None:
        super().__init__(**norm)
        self.vocab, self.model_type = self.check_options(vocab=vocab, type=type)
        spm = require("sentencepiece", "spm", PIP)
        if train is not None:
            lines, self.source = read_training_file(train), f"file:{Path(train).name}"
        elif training_text is not None:
            lines, self.source = list(training_text), "references"
        else:
            raise UsageError(
                f"segmenter 'spm:vocab={self.vocab},type={self.model_type}' learns its pieces from text: "
                "use it on a corpus (it trains on the references) or give train=FILE"
            )
        if self.normalization.active:
            lines = [self.normalization(line) for line in lines]
        self.data_hash = training_hash(lines)
        self.n_lines = len(lines)
        key = hashlib.sha256(f"{self.data_hash}|{self.vocab}|{self.model_type}|{sorted(TRAINER_OPTIONS.items())}|{version('sentencepiece')}".encode()).hexdigest()
        directory = Path(cache_dir).expanduser() if cache_dir is not None else None
        self.model = _cached_model(key, directory, lambda: train_model(lines, self.vocab, self.model_type))
        self.model_hash = hashlib.sha256(self.model).hexdigest()
        self._processor = spm.SentencePieceProcessor(model_proto=self.model)
        self.pieces = int(self._processor.get_piece_size())
        # the row label carries the options: one class, one name per trained model
        self.name = self.label = f"spm:vocab={self.vocab},type={self.model_type}"  # type: ignore[misc]

    @staticmethod
    def check_options(*, vocab: Any = None, type: str = "unigram", **_: Any) -> tuple[int, str]:  # noqa: A002
        """Validated ``(vocab, type)``; raises UsageError naming the bad value."""
        if vocab is None:
            raise UsageError("segmenter 'spm' needs a vocabulary size: spm:vocab=N,type=unigram|bpe")
        if type not in MODEL_TYPES:
            raise UsageError(f"segmenter 'spm': unknown type={type!r}; known: {', '.join(MODEL_TYPES)}")
        return _vocab(vocab), type

    def _segment(self, text: str) -> list[str]:
        return _tokens(self._processor.encode(text, out_type=str))

    def segment_many(self, texts: Any) -> list[list[str]]:
        texts = list(texts)
        unique = list(dict.fromkeys(texts))
        normalized = [self.normalization(t) for t in unique] if self.normalization.active else unique
        encoded = self._processor.encode(normalized, out_type=str)
        done = {text: _tokens(pieces) for text, pieces in zip(unique, encoded)}
        return [list(done[text]) for text in texts]

    def options_signature(self) -> str:
        return (
            f"vocab:{self.vocab}|type:{self.model_type}|pieces:{self.pieces}"
            f"|data:{self.source}:{self.n_lines}lines:sha256={self.data_hash[:12]}|model:sha256={self.model_hash[:12]}"
        )

    @classmethod
    def describe(cls) -> str:
        return f"sentencepiece:{version('sentencepiece')}"

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_processor", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        spm = require("sentencepiece", "spm", PIP)
        self._processor = spm.SentencePieceProcessor(model_proto=self.model)
