"""Imports point down the layers and form no cycle (docs/design.md, "Layers"), checked statically:
every import statement of every module of the package, also those inside functions, read from
the source with ``ast`` (an import made at run time only, inside a function, is still an
import). Imports under ``if TYPE_CHECKING:`` are annotations: they must point down or sideways
too, but cannot form a cycle at run time and are left out of the cycle check.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Repository folder of each package root (pyproject.toml, package-dir).
ROOTS = {"metaeval": REPO / "metaeval", "metaeval.segmenters": REPO / "segmenters", "metaeval.corpora": REPO / "corpora"}
#: The layers, lowest first: a module may import from its own layer and the layers below.
LAYERS = (
    ("core", ("metaeval", "metaeval.errors", "metaeval.paths", "metaeval.lazyjit", "metaeval.versions")),
    ("data", ("metaeval.corpora", "metaeval.segmenters", "metaeval.forms", "metaeval.store", "metaeval.scoretable",
              "metaeval.compute")),
    ("metrics", ("metaeval.metrics",)),
    ("scoring", ("metaeval.scoring", "metaeval.scoreresult", "metaeval.reuse", "metaeval.statsstore", "metaeval.segmenting",
                 "metaeval.equivalence")),
    ("statistics", ("metaeval.stats",)),
    ("analysis", ("metaeval.answer", "metaeval.doclevel", "metaeval.studyspec", "metaeval.sweep", "metaeval.systemrank")),
    ("report", ("metaeval.report",)),
    ("api", ("metaeval.api", "metaeval.studies", "metaeval.systems")),
    ("command line", ("metaeval.cli", "metaeval.__main__")),
)  # fmt: skip


def modules() -> dict[str, Path]:
    """Every module of the installed package by its import name."""
    found = {}
    for root, folder in ROOTS.items():
        for path in sorted(folder.rglob("*.py")):
            if root == "metaeval" and path.relative_to(folder).parts[0] in ("segmenters", "corpora"):
                continue
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join((root, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the longest prefix naming ``module`` or a package holding it."""
    best, index = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, index = len(prefix), i
    assert index is not None, f"{module} is in no layer: add it to LAYERS (and to docs/design.md)"
    return index


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            for child in node.body:
                inside |= {id(n) for n in ast.walk(child)}
    return inside


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """``(imported module, line, annotation only)`` of every import of the package in ``path``:
    ``from X import a`` names the module ``X.a`` when there is one, else ``X``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    typing_only = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            if target == "metaeval" or target.startswith("metaeval."):
                while target not in known:  # import of a name inside a module: the module
                    target = target.rpartition(".")[0]
                out.append((target, node.lineno, id(node) in typing_only))
    return out


def graph() -> dict[str, list[tuple[str, int, bool]]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_module_belongs_to_a_layer():
    for name in modules():
        layer_of(name)


def test_no_module_imports_from_a_higher_layer():
    upward = []
    for name, edges in graph().items():
        for target, line, _ in edges:
            if layer_of(target) > layer_of(name):
                upward.append(f"{name}:{line} imports {target} ({LAYERS[layer_of(name)][0]} -> {LAYERS[layer_of(target)][0]})")
    assert upward == []


def strongly_connected(nodes: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972), iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(nodes[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(nodes.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle():
    edges = {name: {target for target, _, typing_only in found if not typing_only and target != name}
             for name, found in graph().items()}  # fmt: skip
    assert strongly_connected(edges) == []


@pytest.mark.parametrize(
    "edges, cycles",
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b", "d"}, "b": {"a"}, "d": {"e"}, "e": {"d"}}, [["d", "e"], ["a", "b"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(edges, cycles):
    assert sorted(strongly_connected(edges)) == sorted(cycles)


def test_the_import_reader_sees_imports_inside_functions_and_of_submodules(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nfrom metaeval import segmenters, errors\nif TYPE_CHECKING:\n"
        "    from metaeval.api import Study\ndef f():\n    from metaeval.stats.registry import REGISTRY\n",
        encoding="utf-8",
    )
    found = imports("metaeval.m", module, modules())
    assert ("metaeval.segmenters", 2, False) in found and ("metaeval.errors", 2, False) in found
    assert ("metaeval.api", 4, True) in found and ("metaeval.stats.registry", 6, False) in found
