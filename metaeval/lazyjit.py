"""Compiled kernels that import numba on their first call, not when their module is imported.

Importing numba takes about 0.15 s. A run whose statistics all come from the cache (or a
command that computes none: ``list``, ``report``) calls no kernel, so it need not pay it.
``@njit(cache=True)`` from here marks a function as numba's ``njit`` would; the first call of
any kernel of a module compiles (or loads from numba's cache) every kernel of that module with
numba's ``njit`` and the same options, and puts numba's dispatchers in the module's namespace
in their place, also for kernels that module imported from others. A kernel that calls another
one by its global name then finds a dispatcher there, as numba requires. The results are
numba's own: the same function, the same options, the same cache files.
"""

from __future__ import annotations

import functools
import sys
import threading
from typing import Any, Callable

_LOCK = threading.RLock()
#: Kernels not yet handed to numba, by the name of their module.
_PENDING: dict[str, list["LazyKernel"]] = {}


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

            for kernel in kernels:
                kernel._dispatcher = numba.njit(**kernel.options)(kernel.py_func)
        namespace = vars(sys.modules[module_name])
        for name, value in list(namespace.items()):
            if isinstance(value, LazyKernel):
                namespace[name] = value.dispatcher()


__all__ = ["LazyKernel", "compile_module", "njit"]
