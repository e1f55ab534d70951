"""``spm``: SentencePiece trained on the references, deterministic, cached by content."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from metaeval import segmenters
from metaeval.errors import DataError, UsageError
from metaeval.segmenters import subword
from tests import timing

pytest.importorskip("sentencepiece")

REPO = Path(__file__).resolve().parents[2]
LINES = ["東京都に住んでいます。", "東京に行きます。", "京都に住んでいました。", "大阪に行きました。"] * 5


def test_tokens_are_the_text_without_the_marker(zh_refs: list[str]) -> None:
    seg = segmenters.get("spm:vocab=3000,type=unigram", training_text=zh_refs)
    texts = zh_refs[:50] + ["我用 iPhone  15拍照。", "  ", "𠮷野家", "口糧」\u3000\u3000在凌晨"]
    for text, tokens in zip(texts, seg.segment_many(texts)):
        assert "".join(tokens) == "".join(text.split())
        assert all(tok and subword.MARKER not in tok and tok.split() == [tok] for tok in tokens)
    assert seg("我用 iPhone 15拍照。") == seg.segment_many(["我用 iPhone 15拍照。"])[0]


def test_bigger_vocabulary_gives_longer_tokens(zh_refs: list[str]) -> None:
    def mean_length(vocab: int) -> float:
        tokens = [t for toks in segmenters.get(f"spm:vocab={vocab},type=bpe", training_text=zh_refs).segment_many(zh_refs) for t in toks]
        return sum(map(len, tokens)) / len(tokens)

    small, large = mean_length(2400), mean_length(12000)
    assert 1.0 < small < 1.3 < large


def test_signature_names_data_options_and_model(tmp_path: Path) -> None:
    seg = segmenters.get("spm:vocab=30,type=bpe", training_text=LINES)
    data = hashlib.sha256("".join(line + "\n" for line in LINES).encode()).hexdigest()[:12]
    sig = seg.signature()
    assert seg.name == "spm:vocab=30,type=bpe"
    assert sig.startswith(f"spm:vocab=30,type=bpe|vocab:30|type:bpe|pieces:30|data:references:20lines:sha256={data}|model:sha256=")
    assert sig.endswith(f"|sentencepiece:{subword.version('sentencepiece')}|norm:none")
    other = segmenters.get("spm:vocab=30,type=bpe", training_text=LINES[:-1])
    assert other.signature() != sig
    file = tmp_path / "train.txt"
    file.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    from_file = segmenters.get(f"spm:vocab=30,type=bpe,train={file}")
    assert from_file.model == seg.model and "data:file:train.txt:20lines" in from_file.signature()


def test_bad_options_and_missing_text_are_clear(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="learns its pieces from text"):
        segmenters.get("spm:vocab=100")
    with pytest.raises(UsageError, match="needs a vocabulary size"):
        segmenters.get("spm", training_text=LINES)
    with pytest.raises(UsageError, match="unknown type='word'"):
        segmenters.check("spm:vocab=100,type=word")
    with pytest.raises(UsageError, match="vocab must be a whole number"):
        segmenters.check("spm:vocab=many")
    with pytest.raises(UsageError, match="vocab=10 is smaller than the 17 distinct characters"):
        segmenters.get("spm:vocab=10,type=unigram", training_text=LINES)
    with pytest.raises(DataError, match="no such file"):
        segmenters.get(f"spm:vocab=100,train={tmp_path / 'none.txt'}")
    segmenters.check("spm:vocab=100,type=bpe")  # valid without text


def test_cache_dir_keeps_the_model_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subword, "_MODELS", {})
    seg = segmenters.get("spm:vocab=28,type=unigram", training_text=LINES, cache_dir=tmp_path)
    [model] = tmp_path.glob("spm-*.model")
    assert model.read_bytes() == seg.model
    monkeypatch.setattr(subword, "_MODELS", {})
    monkeypatch.setattr(subword, "train_model", lambda *a: pytest.fail("trained again"))
    again = segmenters.get("spm:vocab=28,type=unigram", training_text=LINES, cache_dir=tmp_path)
    assert again.model == seg.model and sorted(p.name for p in tmp_path.iterdir()) == [model.name]



def test_a_damaged_cached_model_is_trained_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subword, "_MODELS", {})
    seg = segmenters.get("spm:vocab=28,type=unigram", training_text=LINES, cache_dir=tmp_path)
    [model] = tmp_path.glob("spm-*.model")
    model.write_bytes(seg.model[:50])  # a truncated file
    monkeypatch.setattr(subword, "_MODELS", {})
    again = segmenters.get("spm:vocab=28,type=unigram", training_text=LINES, cache_dir=tmp_path)
    assert again.model == seg.model and model.read_bytes() == seg.model
    assert again(LINES[0]) == seg(LINES[0])

SCRIPT = r"""
import hashlib, sys
from metaeval import corpora, segmenters
from metaeval.scoring import get_segmenter
corpus, _ = corpora.read(sys.argv[1])
for spec in ("spm:vocab=3000,type=unigram", "spm:vocab=4000,type=bpe"):
    seg = get_segmenter(spec, corpus)
    texts = [t for h in corpus.systems.values() for t in h][:2000]
    tokens = "\n".join(" ".join(t) for t in seg.segment_many(texts))
    print(spec, hashlib.sha256(seg.model).hexdigest(), hashlib.sha256(tokens.encode()).hexdigest(), seg.signature())
"""


def test_two_fresh_processes_give_identical_models_and_tokens(zh_refs: list[str], tmp_path: Path) -> None:
    from tests.segmenters.conftest import ESA

    outputs = []
    for run in ("a", "b"):
        home = tmp_path / run
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "TMPDIR": str(home), "PYTHONHASHSEED": run == "a" and "1" or "2"}
        done = timing.run(
            [sys.executable, "-c", SCRIPT, str(ESA / "en-zh")], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        outputs.append(done.stdout)
        assert list(home.iterdir()) == []
    assert outputs[0] == outputs[1] and outputs[0].count("\n") == 2
