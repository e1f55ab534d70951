"""Third-party segmenters through the entry-point group ``metaeval.segmenters``.

A tiny distribution with a working plug-in (``reverse``) and a broken one (``broken``,
whose module raises on import) is pip-installed into a target folder, and a fresh
interpreter with that folder on PYTHONPATH uses the registry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.timing import run

from ._plugins import environment_with, install

REVERSE = '''
class ReverseSegmenter:
    """Whitespace tokens in reverse order; it has no segment_many."""

    name = "reverse"

    def __init__(self, upper=False):
        self.upper = upper

    def __call__(self, text):
        tokens = text.split(" ")[::-1]
        return [t.upper() for t in tokens] if self.upper else tokens

    def signature(self):
        return f"reverse|upper:{self.upper}|mepl-reverse:0.3"
'''

BROKEN = 'raise RuntimeError("boom at import")\n'

CHECK = """
import json, sys
from metaeval import segmenters
from metaeval.errors import MetaevalError

out = {"available": segmenters.available()}
out["info"] = {row.name: [row.source, row.description] for row in segmenters.info()}
out["imported_before_get"] = sorted(m for m in ("mepl_reverse", "mepl_broken", "jieba", "pkuseg", "fugashi") if m in sys.modules)
seg = segmenters.get("reverse", upper=True)
out["call"] = seg("a  b c")
out["many"] = seg.segment_many(["x y", "z"])
out["signature"] = seg.signature()
for name in ("broken", "missing"):
    try:
        segmenters.get(name)
    except MetaevalError as exc:
        out[name] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    entry_points = {"reverse": "mepl_reverse:ReverseSegmenter", "broken": "mepl_broken:BrokenSegmenter", "missing": "mepl_missing:Segmenter"}
    return install(tmp_path_factory.mktemp("plugin"), "mepl-reverse", "0.3", entry_points, {"mepl_reverse": REVERSE, "mepl_broken": BROKEN})


def test_plugins_are_listed_lazily_and_loaded_on_demand(plugin_site: Path) -> None:
    done = run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120, env=environment_with(plugin_site))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)

    # Listed, next to the built-ins, without importing any plug-in (nor any heavy segmenter).
    assert {"reverse", "broken", "missing", "char", "jieba"} <= set(out["available"])
    assert out["imported_before_get"] == []
    assert out["info"]["reverse"] == ["plug-in", "mepl_reverse:ReverseSegmenter from mepl-reverse 0.3"]

    # The working plug-in, with an option; empty tokens dropped; segment_many supplied.
    assert out["call"] == ["C", "B", "A"]
    assert out["many"] == [["Y", "X"], ["Z"]]
    assert out["signature"] == "reverse|upper:True|mepl-reverse:0.3"

    # The broken ones fail only when asked for, with one clear line.
    kind, message = out["broken"]
    assert kind == "UsageError"
    assert message == (
        "segmenter plug-in 'broken' (mepl_broken:BrokenSegmenter from mepl-reverse 0.3) failed to load: "
        "RuntimeError: boom at import"
    )
    kind, message = out["missing"]
    assert kind == "MissingDependencyError"
    assert "No module named 'mepl_missing'" in message and message.endswith("pip install --force-reinstall mepl-reverse")


def test_a_plugins_release_is_called_through_its_checks() -> None:
    from metaeval.errors import PluginError
    from metaeval.segmenters.registry import PluginSegmenter

    class Holding:
        released = 0

        def __call__(self, text: str) -> list[str]:
            return list(text)

        def signature(self) -> str:
            return "holding|1"

        def release(self) -> None:
            Holding.released += 1

    class Failing(Holding):
        def release(self) -> None:
            raise RuntimeError("model gone")

    PluginSegmenter("holding", Holding(), "holding").release()
    assert Holding.released == 1
    PluginSegmenter("plain", object(), "plain").release()  # nothing to release: nothing happens
    with pytest.raises(PluginError, match=r"^segmenter plug-in 'failing' release\(\) raised RuntimeError: model gone$"):
        PluginSegmenter("failing", Failing(), "failing").release()


def test_a_plugin_is_segmented_in_the_scoring_process_only_when_it_says_so_with_true() -> None:
    from types import SimpleNamespace

    from metaeval.segmenters.registry import PluginSegmenter

    assert PluginSegmenter("rules", SimpleNamespace(in_process=True), "rules").in_process is True
    assert PluginSegmenter("model", object(), "model").in_process is False
    assert PluginSegmenter("vague", SimpleNamespace(in_process="yes"), "vague").in_process is False
