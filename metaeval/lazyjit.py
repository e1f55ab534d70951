"""Compiled kernels that import numba on their first call, not when their module is imported.

Importing numba takes about 0.15 s. A run whose statistics all come from the cache (or a
command that computes none: ``list``, ``report``) calls no kernel, so it need not pay it.
``@njit(cache=True)`` from here marks a function as numba's ``njit`` would; the first call of
any kernel of a module compiles (or loads from numba's cache) every kernel of that module with
numba's ``njit`` and the same options, and puts numba's dispatchers in the module's namespace
in their place, also for kernels that module imported from others. A kernel that calls another
one by its global name then finds a dispatcher there, as numba requires. The results are
numba's own: the same function, the same options, the same cache files.

Where the cache files go: numba keeps them beside the source (``__pycache__``), so a fresh
install or another checkout compiles every kernel again (about 25 CPU-s for all of them). Here
numba is given one more place to look first: a folder per module named by the SHA-256 of the
module's source, under ``$METAEVAL_KERNEL_CACHE``, by default ``share/metaeval/kernels`` of the
Python environment (``sys.prefix``, which the install writes to anyway; nothing goes to the
user's home or temporary folders), so that every install of the same source into the
environment (a reinstall, an upgrade that leaves a module unchanged, a fresh clone installed
with ``pip install -e``) loads the kernels that an earlier one compiled. A changed source has
another folder; numba's own checks of the machine and the signature still apply inside it. A
folder that cannot be written is skipped for numba's own places, and ``METAEVAL_KERNEL_CACHE=""``
turns it off; ``NUMBA_CACHE_DIR``, which numba consults first, still wins.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable

_LOCK = threading.RLock()
#: Kernels not yet handed to numba, by the name of their module.
_PENDING: dict[str, list["LazyKernel"]] = {}
#: Environment variable naming the folder of compiled kernels shared by every install.
KERNEL_CACHE_ENV = "METAEVAL_KERNEL_CACHE"
_LOCATOR_ADDED = False


def kernel_cache_dir() -> Path | None:
    """The folder of compiled kernels shared by every install of the same source into this
    Python environment (None: off)."""
    found = os.environ.get(KERNEL_CACHE_ENV)
    if found is not None:
        return Path(found).expanduser() if found else None
    return Path(sys.prefix) / "share" / "metaeval" / "kernels"


@functools.lru_cache(maxsize=None)
def _source_digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _add_content_locator() -> None:
    """Put, first after ``NUMBA_CACHE_DIR``'s, a numba cache locator that keeps the kernels of
    metaeval's modules in :func:`kernel_cache_dir` under the SHA-256 of their source, with that
    hash as the source's stamp. Kept to numba's own places if its caching module lacks the
    hooks (another numba version)."""
    global _LOCATOR_ADDED
    if _LOCATOR_ADDED:
        return
    _LOCATOR_ADDED = True
    found = kernel_cache_dir()
    if found is None:
        return
    root: Path = found
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    mixin = getattr(caching, "_SourceFileBackedLocatorMixin", None)
    base = getattr(caching, "_CacheLocator", None)
    locators = getattr(impl, "_locator_classes", None)
    if mixin is None or base is None or not isinstance(locators, list):  # pragma: no cover - other numba
        return

    class ContentCacheLocator(mixin, base):  # type: ignore[misc, valid-type]
        """numba's cache files of a metaeval module in ``<root>/<module>-<SHA-256 of its source>``."""

        def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._digest = _source_digest(py_file)
            self._cache_path = str(root / f"{Path(py_file).stem}-{self._digest[:32]}")

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return self._digest

        @classmethod
        def from_function(cls, py_func: Callable[..., Any], py_file: str) -> Any:
            if not getattr(py_func, "__module__", "").startswith("metaeval.") or not os.path.isfile(py_file):
                return None
            return super().from_function(py_func, py_file)

    first = 1 if locators and "UserProvided" in locators[0].__name__ else 0
    locators.insert(first, ContentCacheLocator)


#: numba's cache places that metaeval's kernels may use, by class name (not the user-wide ones in the home folder).
_ALLOWED_LOCATORS = ("UserProvidedCacheLocator", "ContentCacheLocator", "InTreeCacheLocator")


def _writable_cache(py_func: Callable[..., Any]) -> bool:
    """Whether numba has a writable cache place for ``py_func`` other than the user's home:
    ``NUMBA_CACHE_DIR``, :func:`kernel_cache_dir`'s folder or the folder beside the source."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    locators = getattr(impl, "_locator_classes", None)
    if not isinstance(locators, list):  # pragma: no cover - other numba
        return True
    source = inspect.getfile(py_func)
    for locator in locators:
        if locator.__name__.lstrip("_") not in _ALLOWED_LOCATORS:
            # numba tries them in order: an allowed place past a home-based one is never reached
            return False
        if locator.from_function(py_func, source) is not None:
            return True
    return False


class LazyKernel:
    """A function to compile with ``numba.njit(**options)`` when it is first called."""

    def __init__(self, function: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, function)
        self.py_func = function
        self.options = options
        self._dispatcher: Any = None

    def dispatcher(self) -> Any:
        """numba's dispatcher of this kernel (every kernel of its module is handed over now)."""
        if self._dispatcher is None:
            compile_module(self.py_func.__module__)
        return self._dispatcher

    def __call__(self, *args: Any) -> Any:
        return self.dispatcher()(*args)

    def __getattr__(self, name: str) -> Any:
        # numba's attributes (signatures, stats...), once it has the kernel
        if name.startswith("__") or name in ("_dispatcher", "py_func", "options"):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)


def njit(**options: Any) -> Callable[[Callable[..., Any]], LazyKernel]:
    """``numba.njit(**options)``, applied at the first call of a kernel of the same module."""

    def mark(function: Callable[..., Any]) -> LazyKernel:
        kernel = LazyKernel(function, options)
        with _LOCK:
            _PENDING.setdefault(function.__module__, []).append(kernel)
        return kernel

    return mark


def compile_module(module_name: str) -> None:
    """Hand every kernel of ``module_name`` to numba and put the dispatchers in the module's
    namespace, in place of these kernels and of those it imported from other modules."""
    with _LOCK:
        kernels = _PENDING.pop(module_name, [])
        if kernels:
            import numba

            _add_content_locator()
            cached = any(kernel.options.get("cache") for kernel in kernels) and _writable_cache(kernels[0].py_func)
            for kernel in kernels:
                options = dict(kernel.options, cache=False) if kernel.options.get("cache") and not cached else kernel.options
                kernel._dispatcher = numba.njit(**options)(kernel.py_func)
        namespace = vars(sys.modules[module_name])
        for name, value in list(namespace.items()):
            if isinstance(value, LazyKernel):
                namespace[name] = value.dispatcher()


__all__ = ["KERNEL_CACHE_ENV", "LazyKernel", "compile_module", "kernel_cache_dir", "njit"]
