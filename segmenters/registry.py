"""The segmenter registry: built-ins, ``@register`` and plug-ins from entry points.

Plug-ins are entry points of the group ``metaeval.segmenters`` whose value is a class or
factory called with the options, e.g. ``reverse = "mepl_reverse:ReverseSegmenter"``.
Listing reads only the installed metadata and never imports a plug-in, so one broken
plug-in cannot break ``available()``; a plug-in is imported when ``get`` asks for it.
A registered name takes precedence over an entry point of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from typing import Any, Callable, TypeVar

from metaeval.errors import MissingDependencyError, UsageError, unknown_name
from segmenters.base import SegmenterLike

ENTRY_POINT_GROUP = "metaeval.segmenters"

_REGISTRY: dict[str, Callable[..., Any]] = {}
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class SegmenterInfo:
    """One row of ``metaeval list``: where a segmenter comes from, its versions and dictionary."""

    name: str
    source: str
    description: str


def register(name: str) -> Callable[[F], F]:
    """Class decorator: make ``segmenters.get(name)`` build this class (or factory)."""
    if not isinstance(name, str) or not name.strip() or ":" in name:
        raise UsageError(f"segmenter name must be a non-empty string without ':', got {name!r}")

    def decorate(factory: F) -> F:
        _REGISTRY[name] = factory
        return factory

    return decorate


def _entry_points() -> dict[str, metadata.EntryPoint]:
    """Plug-in entry points by name, from installed metadata only (nothing imported)."""
    try:
        found = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - unreadable metadata of one distribution must not break listing
        return {}
    return {ep.name: ep for ep in found if ep.name not in _REGISTRY}


def available() -> list[str]:
    """Names of the registered segmenters and of the installed plug-ins, sorted."""
    return sorted(set(_REGISTRY) | set(_entry_points()))


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"jieba:nfkc=true,lowercase=true"`` into a name and options (booleans parsed)."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"segmenter spec {spec!r}: expected key=value options, got {item!r}")
        low = value.strip().lower()
        options[key.strip()] = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(low, value.strip())
    return name.strip(), options


def _describe_entry_point(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    origin = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
    return f"{ep.value} from {origin}"


def _load_plugin(ep: metadata.EntryPoint) -> Callable[..., Any]:
    where = _describe_entry_point(ep)
    try:
        return ep.load()
    except ImportError as exc:
        dist = getattr(ep, "dist", None)
        pip = f"pip install --force-reinstall {dist.name}" if dist is not None else "pip install <its distribution>"
        raise MissingDependencyError(
            f"segmenter plug-in {ep.name!r} ({where}) failed to import: {type(exc).__name__}: {exc}; try: {pip}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - any failure of third-party code becomes one clear line
        raise UsageError(f"segmenter plug-in {ep.name!r} ({where}) failed to load: {type(exc).__name__}: {exc}") from None


def get(spec: str, **options: Any) -> SegmenterLike:
    """A segmenter by name, e.g. ``get("jieba")``, ``get("char", nfkc=True)``, ``get("char:lowercase=true")``.

    Raises:
        UsageError: unknown name (the message lists the known ones) or invalid options.
        MissingDependencyError: the segmenter's package is not installed (the message gives
            the pip command).
    """
    if not isinstance(spec, str):
        raise UsageError(f"segmenter name must be a string, got {spec!r}")
    name, spec_options = parse_spec(spec)
    options = {**spec_options, **options}
    factory = _REGISTRY.get(name)
    if factory is None:
        plugins = _entry_points()
        if name not in plugins:
            raise unknown_name("segmenter", name, available())
        factory = _load_plugin(plugins[name])
    try:
        segmenter = factory(**options)
    except TypeError as exc:
        raise UsageError(f"segmenter {name!r}: invalid options {sorted(options)}: {exc}") from None
    return _checked(name, segmenter)


def _checked(name: str, segmenter: Any) -> SegmenterLike:
    """The segmenter itself, with a default ``segment_many`` added to plug-ins that lack one."""
    missing = [attr for attr in ("__call__", "signature") if not callable(getattr(segmenter, attr, None))]
    if missing:
        raise UsageError(f"segmenter {name!r} built {type(segmenter).__name__!r}, which lacks {', '.join(missing)}")
    if not callable(getattr(segmenter, "segment_many", None)):
        return _BatchAdapter(name, segmenter)
    return segmenter


class _BatchAdapter:
    """Gives a plug-in that only implements ``__call__`` the batch method and drops empty tokens."""

    def __init__(self, name: str, inner: Any) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", name)

    def __call__(self, text: str) -> list[str]:
        return [tok for tok in self.inner(text) if tok and not tok.isspace()]

    def segment_many(self, texts: Any) -> list[list[str]]:
        return [self(text) for text in texts]

    def signature(self) -> str:
        return str(self.inner.signature())


def info() -> list[SegmenterInfo]:
    """Name, source and versions/dictionary of every available segmenter, without loading models.

    Built-ins report ``describe()``; plug-ins report their entry point and distribution
    (they are not imported).
    """
    rows = []
    for name, factory in sorted(_REGISTRY.items()):
        describe = getattr(factory, "describe", None)
        try:
            text = describe() if callable(describe) else ""
        except Exception as exc:  # noqa: BLE001 - a listing shows the problem instead of failing
            text = f"unavailable: {type(exc).__name__}: {exc}"
        rows.append(SegmenterInfo(name, "builtin" if factory.__module__.startswith("segmenters.") else factory.__module__, text))
    for name, ep in sorted(_entry_points().items()):
        rows.append(SegmenterInfo(name, "plug-in", _describe_entry_point(ep)))
    return rows
