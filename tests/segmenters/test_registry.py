"""The registry: names, errors, registration, info."""

from __future__ import annotations


import pytest

from metaeval import segmenters
from metaeval.errors import MissingDependencyError, PluginError, UnknownNameError, UsageError
from metaeval.segmenters import registry

BUILTINS = [
    "13a", "byte", "char", "chasen", "cjk-char", "intl", "ja-mecab", "janome", "jieba", "jieba-nohmm", "mecab", "mecab-ipadic",
    "mecab-jumandic", "nagisa", "pkuseg", "sacrebleu-zh", "spm", "sudachi", "sudachi-a", "sudachi-b", "sudachi-c",
    "thulac", "whitespace",
]  # fmt: skip


def test_available_lists_the_builtins() -> None:
    assert set(BUILTINS) <= set(segmenters.available())
    assert segmenters.available() == sorted(segmenters.available())


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError) as err:
        segmenters.get("jeiba")
    message = str(err.value)
    assert message.startswith("unknown segmenter 'jeiba'; known segmenters: 13a, byte, char, chasen, cjk-char,")
    assert all(name in message for name in BUILTINS)
    assert "\n" not in message


def test_unknown_option_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="segmenter 'char': invalid options \\['hmm'\\]"):
        segmenters.get("char", hmm=True)
    with pytest.raises(UsageError, match="expected key=value"):
        segmenters.get("char:nfkc")


def test_spec_parsing() -> None:
    assert segmenters.parse_spec("jieba:nfkc=true, lowercase=no") == ("jieba", {"nfkc": True, "lowercase": False})
    assert segmenters.parse_spec("13a") == ("13a", {})


@pytest.mark.parametrize(
    "name, module, pip",
    [("ja-mecab", "MeCab", "pip install mecab-python3 ipadic"), ("sudachi", "sudachipy", "pip install sudachipy sudachidict-core")],
)
def test_missing_optional_package_gives_the_pip_command(name: str, module: str, pip: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed or not here: ``sys.modules[module] = None`` makes ``import module`` fail as
    it does on a machine without the package."""
    import sys

    monkeypatch.setitem(sys.modules, module, None)
    assert name in segmenters.available()
    with pytest.raises(MissingDependencyError) as err:
        segmenters.get(name)
    assert str(err.value).endswith(pip)


def test_missing_core_package_gives_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "jieba", None)  # makes `import jieba` fail
    with pytest.raises(MissingDependencyError, match="segmenter 'jieba' needs .*: pip install jieba$"):
        segmenters.get("jieba")


def test_a_missing_module_is_found_missing_without_importing_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from metaeval.segmenters._deps import require_installed

    for module in ("no_such_module_here", "math.not_a_package"):  # None from find_spec; ImportError
        with pytest.raises(MissingDependencyError, match=rf"segmenter 'x' needs the Python module '{module}' .*: pip install x-pkg$"):
            require_installed(module, "x", "x-pkg")
    monkeypatch.delitem(sys.modules, "jieba", raising=False)
    require_installed("jieba", "jieba", "jieba")  # installed: found, and not imported
    assert "jieba" not in sys.modules


def test_register_a_segmenter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    @segmenters.register("upper-char")
    class UpperChar(segmenters.Segmenter):
        name = "upper-char"

        def _segment(self, text: str) -> list[str]:
            return [ch.upper() for ch in text] + ["", " "]

        @classmethod
        def describe(cls) -> str:
            return "rules:test"

    seg = segmenters.get("upper-char", lowercase=True)
    assert seg("Ab c") == ["A", "B", "C"]  # lowercased first, empty and space tokens dropped
    assert seg.signature() == "upper-char|rules:test|norm:lower"
    assert "upper-char" in segmenters.available()
    assert any(row.name == "upper-char" and row.description == "rules:test" for row in segmenters.info())


def test_a_plain_callable_plugin_gets_segment_many(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    class Plain:
        name = "plain"

        def __call__(self, text: str) -> list[str]:
            return text.split(" ")

        def signature(self) -> str:
            return "plain|v1"

    segmenters.register("plain")(Plain)
    seg = segmenters.get("plain")
    assert seg.segment_many(["a  b", "c"]) == [["a", "b"], ["c"]]
    assert seg.signature() == "plain|v1"

    segmenters.register("not-a-segmenter")(lambda: object())
    with pytest.raises(PluginError, match="lacks __call__, signature"):
        segmenters.get("not-a-segmenter")


def test_bad_names_cannot_be_registered() -> None:
    with pytest.raises(UsageError):
        segmenters.register("a:b")
    with pytest.raises(UsageError):
        segmenters.register("")


def test_info_describes_builtins() -> None:
    rows = {row.name: row for row in segmenters.info()}
    assert rows["mecab"].source == "builtin"
    assert rows["mecab"].description.startswith("fugashi:1.5.2|dict:unidic-lite:1.0.8/dicdir:")
    assert rows["jieba"].description.startswith("jieba:0.42.1|dict:dict.txt:5071852B")
    assert rows["pkuseg"].description.startswith("pkuseg:0.0.25|model:default(")
    assert rows["cjk-char"].description == "rules:2|sacrebleu:2.6.0"
