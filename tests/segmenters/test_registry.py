"""The registry: names, errors, registration, info; a plug-in installed beside the built-ins."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from metaeval import segmenters
from metaeval.errors import MissingDependencyError, PluginError, UnknownNameError, UsageError
from metaeval.segmenters import registry

from tests.timing import run

from ._plugins import environment_with, install, project_segmenters

BUILTINS = [
    "13a", "byte", "char", "chasen", "cjk-char", "intl", "ja-mecab", "janome", "jieba", "jieba-nohmm", "mecab", "mecab-ipadic",
    "mecab-jumandic", "nagisa", "pkuseg", "sacrebleu-zh", "spm", "sudachi", "sudachi-a", "sudachi-b", "sudachi-c",
    "thulac", "whitespace",
]  # fmt: skip


def test_available_lists_the_builtins() -> None:
    assert project_segmenters() == BUILTINS  # what metaeval registers itself, whatever else is installed
    assert set(BUILTINS) <= set(segmenters.available())
    assert segmenters.available() == sorted(segmenters.available())


def known_in(message: str) -> list[str]:
    """The names an unknown-name error lists."""
    _, found, listing = message.partition("; known segmenters: ")
    assert found, message
    return listing.split(", ")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError) as err:
        segmenters.get("jeiba")
    message = str(err.value)
    assert message.startswith("unknown segmenter 'jeiba'; known segmenters: ")
    assert "\n" not in message
    # every available segmenter in order: the built-ins and any plug-in installed here
    assert known_in(message) == segmenters.available()
    assert set(BUILTINS) <= set(known_in(message))


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


# --- a plug-in installed beside the built-ins -----------------------------------------------

REPO = Path(__file__).resolve().parents[2]

CHUNK2 = '''
class TwoCharacterChunks:
    """The text without its whitespace, cut into chunks of two characters."""

    name = "chunk2"

    def __call__(self, text):
        joined = "".join(text.split())
        return [joined[k:k + 2] for k in range(0, len(joined), 2)]

    def signature(self):
        return "chunk2|metaeval-chunk2:1.0"
'''

#: the tests that check "every segmenter": this file's and the reference page's
REGISTRY_TESTS = ("tests/segmenters/test_registry.py", "tests/test_readme.py::test_reference_page_names_every_format_statistic_segmenter_and_metric")


def test_a_plugin_installed_beside_the_builtins_is_listed_and_breaks_no_registry_test(tmp_path: Path) -> None:
    """A third-party segmenter (``chunk2``, pip-installed from its own distribution): ``metaeval
    list`` shows it, the unknown-name error lists it among the built-ins, it segments, and the
    registry tests pass in a process that sees it."""
    site = install(tmp_path, "metaeval-chunk2", "1.0", {"chunk2": "metaeval_chunk2:TwoCharacterChunks"}, {"metaeval_chunk2": CHUNK2})
    env = environment_with(site)
    metaeval = [sys.executable, "-m", "metaeval"]

    listing = run([*metaeval, "list"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert listing.returncode == 0, listing.stderr
    section = listing.stdout.split("\n\n")[1].splitlines()
    assert section[0] == "segmenters:"
    assert [line.split()[0] for line in section[1:]] == BUILTINS + ["chunk2"]  # the built-ins, then the plug-ins
    assert "  chunk2          metaeval_chunk2:TwoCharacterChunks from metaeval-chunk2 1.0" in section

    unknown = run([*metaeval, "segment", "-s", "chunk3", "x"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2 and unknown.stderr.startswith("metaeval: error: unknown segmenter 'chunk3'"), unknown.stderr
    assert known_in(unknown.stderr.strip()) == sorted(BUILTINS + ["chunk2"])

    used = run([*metaeval, "segment", "-s", "chunk2", "我爱北京 天安门"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert used.returncode == 0, used.stderr
    assert used.stdout.splitlines() == ["# chunk2|metaeval-chunk2:1.0", "我爱 北京 天安 门"]

    this = f"tests/segmenters/test_registry.py::{test_a_plugin_installed_beside_the_builtins_is_listed_and_breaks_no_registry_test.__name__}"
    tests = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *REGISTRY_TESTS, "--deselect", this],
                cwd=REPO, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout.splitlines()[-1] and " failed" not in tests.stdout.splitlines()[-1], tests.stdout[-500:]


def test_package_version_is_looked_up_once_per_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    """A signature is built at every chunk a study segments; the installed version behind it is
    read from the package metadata once, and a package that is not installed reads ``missing``."""
    from importlib import metadata

    from metaeval.segmenters import _deps

    calls: list[str] = []

    def counted(name: str) -> str:
        calls.append(name)
        if name == "no-such-distribution-here":
            raise metadata.PackageNotFoundError(name)
        return "9.9.9"

    _deps.version.cache_clear()
    monkeypatch.setattr(_deps.metadata, "version", counted)
    try:
        assert [_deps.version("jieba") for _ in range(3)] == ["9.9.9"] * 3
        assert _deps.version("no-such-distribution-here") == "missing"
        assert _deps.version("no-such-distribution-here") == "missing"
        assert calls == ["jieba", "no-such-distribution-here"]
    finally:
        _deps.version.cache_clear()
