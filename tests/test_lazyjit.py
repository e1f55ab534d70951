"""Kernels that import numba on their first call (:mod:`metaeval.lazyjit`)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from tests.test_cli import small_corpus

REPO = Path(__file__).resolve().parents[1]


def _python(code: str, *paths: Path, repo: Path = REPO) -> dict:
    """Run ``code`` in a fresh interpreter (numba not yet imported) that imports metaeval from
    ``repo``; it prints one JSON line."""
    env_path = ":".join(str(p) for p in (repo, *paths))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=repo,
                          env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_metric_modules_import_numba_only_when_a_kernel_runs():
    found = _python("""
        import json, sys
        from metaeval.metrics import get_metric
        from metaeval.metrics import tercom, ngrams
        metrics = [get_metric(m) for m in ("bleu", "nist", "meteor", "gtm", "ter", "chrf")]
        before = "numba" in sys.modules
        stats = get_metric("ter").stats([["a", "b", "c"]], [[["c", "a", "b"]]])
        print(json.dumps({"before": before, "after": "numba" in sys.modules, "edits": stats.tolist(),
                          "replaced": type(tercom._batch_edits).__module__.split(".")[0],
                          "other_module": type(ngrams._hash_table).__name__}))
    """)
    assert found["before"] is False and found["after"] is True
    assert found["edits"] == [[1.0, 3.0]]  # one shift of "c": tercom's TER 1/3
    assert found["replaced"] == "numba"  # the module's name now holds numba's dispatcher
    assert found["other_module"] == "LazyKernel"  # a module none of whose kernels ran is left as it was


def test_a_kernel_calls_kernels_of_its_module_and_of_another_by_their_names(tmp_path):
    (tmp_path / "lazy_a.py").write_text(textwrap.dedent("""
        from metaeval.lazyjit import njit

        @njit(cache=False)
        def twice(x):
            return 2 * x
    """), encoding="utf-8")
    (tmp_path / "lazy_b.py").write_text(textwrap.dedent("""
        from metaeval.lazyjit import njit
        from lazy_a import twice

        @njit(cache=False)
        def plus_one(x):
            return x + 1

        @njit(cache=False)
        def both(values):
            total = 0
            for v in values:
                total += plus_one(twice(v))
            return total
    """), encoding="utf-8")
    found = _python("""
        import json, sys
        import numpy as np
        import lazy_a, lazy_b
        value = lazy_b.both(np.arange(4))
        print(json.dumps({"value": int(value), "a": type(lazy_a.twice).__name__, "b": type(lazy_b.twice).__name__,
                          "signatures": len(lazy_b.both.signatures), "py_func": lazy_b.both.py_func(np.arange(4))}))
    """, tmp_path)
    assert found["value"] == found["py_func"] == 2 * (0 + 1 + 2 + 3) + 4
    assert found["a"] == found["b"] == "CPUDispatcher"
    assert found["signatures"] == 1


def test_a_warm_run_does_not_import_numba(tmp_path):
    corpus = small_corpus(tmp_path, n=12)
    code = f"""
        import json, sys
        from metaeval import api
        study = api.run({str(corpus)!r}, ["char", "jieba"], ["bleu", "ter"], cache_dir={str(tmp_path / 'cache')!r},
                        bootstrap=50)
        print(json.dumps({{"numba": "numba" in sys.modules, "rows": len(study.results),
                           "values": study.results["value"].round(12).tolist()}}))
    """
    cold, warm = _python(code), _python(code)
    assert cold["numba"] is True and warm["numba"] is False
    assert warm["rows"] == cold["rows"] > 0
    np.testing.assert_array_equal(np.array(warm["values"], dtype=float), np.array(cold["values"], dtype=float))


def test_a_fresh_install_of_the_same_source_loads_the_compiled_kernels(tmp_path):
    """Kernels compiled by one install are found by another of the same source (a copy of the
    package elsewhere, with new file times and no __pycache__), through the content-keyed folder."""
    import shutil

    cache = tmp_path / "kernels"
    copies = []
    for name in ("first", "second"):
        shutil.copytree(REPO / "metaeval", tmp_path / name / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(tmp_path / name)
    code = f"""
        import json, os
        os.environ["METAEVAL_KERNEL_CACHE"] = {str(cache)!r}
        import metaeval
        from metaeval.metrics import get_metric, ngrams
        bleu = get_metric("bleu")
        stats = bleu.segment_stats([list("今天下雨了")], bleu.prepare([[list("今天下雨。")]]))
        kernel = ngrams._hash_table
        print(json.dumps({{"file": metaeval.__file__, "hits": sum(kernel.stats.cache_hits.values()),
                          "misses": sum(kernel.stats.cache_misses.values()), "stats": stats.tolist()}}))
    """
    first = _python(code, repo=copies[0])
    second = _python(code, repo=copies[1])
    assert first["file"].startswith(str(copies[0])) and second["file"].startswith(str(copies[1]))
    assert first["misses"] == 1 and first["hits"] == 0  # compiled by the first install
    assert second["misses"] == 0 and second["hits"] == 1  # loaded by the second, not compiled again
    assert second["stats"] == first["stats"]
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["ngrams"]


def test_without_a_writable_cache_place_kernels_compile_in_memory_and_nothing_goes_to_home(tmp_path):
    """A system-wide install: the shared kernels folder and the folder beside the source cannot
    be written (here: a file stands where each folder would be, which stops root too). The
    kernels compile in the process, give the same numbers, and numba's last resort, a cache in
    the user's home, is not used."""
    import os
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(REPO / "metaeval", copy / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "metaeval" / "metrics" / "__pycache__").write_text("not a folder")
    blocked = tmp_path / "read-only-prefix"
    blocked.write_text("not a folder")
    home = tmp_path / "home"
    home.mkdir()
    code = f"""
        import json, os
        os.environ["METAEVAL_KERNEL_CACHE"] = {str(blocked / "kernels")!r}
        from metaeval.metrics import get_metric, ngrams
        bleu = get_metric("bleu")
        stats = bleu.segment_stats([list("今天下雨了")], bleu.prepare([[list("今天下雨。")]]))
        print(json.dumps({{"cache": type(ngrams._hash_table._cache).__name__, "stats": stats.tolist()}}))
    """
    env = {"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    env.update({k: v for k, v in os.environ.items() if k.startswith("NUMBA_") and k != "NUMBA_CACHE_DIR"})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["cache"] == "NullCache"
    assert list(home.rglob("*")) == []
    expected = _python(code.replace(str(blocked / "kernels"), str(tmp_path / "kernels")))
    assert found["stats"] == expected["stats"]
