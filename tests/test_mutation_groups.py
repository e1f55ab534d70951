"""Every module of the package belongs to a group of the mutation run (``tools/mutation.py``),
so that no module is left out of ``tools/mutation-summary.md`` when one is added."""

from __future__ import annotations

import fnmatch
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _mutation():
    spec = importlib.util.spec_from_file_location("mutation_tool", REPO / "tools" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutation_tool", module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_module_is_in_exactly_one_group_and_every_group_names_existing_files_and_tests():
    mutation = _mutation()
    tracked = subprocess.run(["git", "ls-files", "metaeval", "segmenters", "corpora", "experiments"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    installed = [mutation._installed_path(f) for f in tracked if f.endswith(".py")]
    package = [f for f in installed if f.startswith("metaeval/")]
    owners = {f: [label for label, m in mutation.MODULES.items() if any(fnmatch.fnmatch(f, g) for g in m.files)] for f in package}
    assert [f for f, labels in owners.items() if len(labels) != 1] == []
    for label, module in mutation.MODULES.items():
        for glob in module.files:
            assert any(fnmatch.fnmatch(f, glob) for f in installed), (label, glob)
        for test in module.tests:
            assert (REPO / test.removeprefix("--deselect=").split("::")[0]).exists(), (label, test)


def test_a_mutant_is_counted_in_the_group_of_its_module():
    mutation = _mutation()

    def groups(name: str) -> list[str]:
        return [label for label, m in mutation.MODULES.items() if any(fnmatch.fnmatch(name, g) for g in m.names)]

    assert groups("metaeval.stats.chance.x_chance_levels__mutmut_3") == ["metaeval/stats/ (system pairs, chance, power, adjustment)"]
    assert groups("metaeval.stats.systems.ranks.x_ranks__mutmut_1") == ["metaeval/stats/ (system pairs, chance, power, adjustment)"]
    assert groups("metaeval.x_available__mutmut_2") == ["metaeval/ (scoring, segmenting, store, API)"]
    assert groups("metaeval.segmenters.cjk.xǁCJKǁsegment__mutmut_7") == ["metaeval/segmenters/"]
    assert groups("metaeval.answer.x_answer__mutmut_1") == ["metaeval/ (answer, document level, subsets)"]
    assert mutation._module_of("metaeval.stats.systems.ranks.x_ranks__mutmut_1") == "metaeval.stats.systems.ranks"
    assert mutation._module_of("metaeval.xǁStoreǁget__mutmut_4") == "metaeval"


def test_verify_applies_a_methods_diff_by_its_text_and_gives_the_file_back(tmp_path):
    """mutmut shows a method dedented, with line numbers counted from the function: ``verify``
    finds the old lines at the one indentation where they occur once."""
    mutation = _mutation()
    source = "class A:\n    def f(self):\n        x = 1\n        return x + 1\n\n\ndef f():\n    return 2\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(source, encoding="utf-8")
    diff = "--- pkg/m.py\n+++ pkg/m.py\n@@ -1,3 +1,3 @@\n def f(self):\n     x = 1\n-    return x + 1\n+    return x - 1\n"
    assert mutation._apply(tmp_path, diff) == source
    assert (tmp_path / "pkg" / "m.py").read_text(encoding="utf-8") == source.replace("x + 1", "x - 1")
    part = "--- pkg/m.py\n+++ pkg/m.py\n@@ -1,1 +1,1 @@\n-x\n+y\n"  # "x" is only part of lines
    assert mutation._apply(tmp_path, part) is None
    (tmp_path / "pkg" / "m.py").write_text(source + "\n\ndef g():\n    return 2\n", encoding="utf-8")
    twice = "--- pkg/m.py\n+++ pkg/m.py\n@@ -1,1 +1,1 @@\n-return 2\n+return 3\n"  # in f and in g
    assert mutation._apply(tmp_path, twice) is None
    assert mutation._apply(tmp_path, diff.replace("pkg/m.py", "pkg/none.py")) is None


def test_a_survivor_counts_as_killed_only_by_a_test_that_failed_with_the_mutant_and_passed_without(tmp_path, monkeypatch):
    mutation = _mutation()
    pending = tmp_path / "pending.tsv"
    pending.write_text("# mutant\ttest\toutcome\n"
                       "a\ttests/x.py::t\t1 failed, 2 passed\n"
                       "b\ttests/x.py::t\tthe test fails without the mutant (1 failed)\n"
                       "c\ttests/x.py::t\t1 passed\n"
                       "d\ttests/x.py::t\tthe diff does not apply\n"
                       "e\ttests/x.py::t\t1 error\n"
                       "f\ttests/x.py::t\t2 passed, 3 errors\n"
                       "g\ttests/x.py::t\tthe test fails without the mutant (1 error)\n", encoding="utf-8")
    monkeypatch.setattr(mutation, "PENDING", pending)
    assert [n for n in "abcdefgh" if mutation._killed_by_pending(n)] == ["a", "e", "f"]


def test_verify_applies_a_hunk_whose_context_is_a_docstring_by_its_changed_lines(tmp_path):
    """mutmut dedents a method's code but shows its docstring lines as they are in the file."""
    mutation = _mutation()
    source = 'class A:\n    def f(self):\n        """One.\n        Two."""\n        return 1 + 1\n'
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    diff = '--- m.py\n+++ m.py\n@@ -2,3 +2,3 @@\n         Two."""\n-    return 1 + 1\n+    return 1 - 1\n'
    assert mutation._apply(tmp_path, diff) == source
    assert (tmp_path / "m.py").read_text(encoding="utf-8") == source.replace("1 + 1", "1 - 1")
