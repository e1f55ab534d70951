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
import os
from typing import Any, Callable, Sequence, TypeVar

from metaeval.errors import MetaevalError, MissingDependencyError, PluginError, UsageError, unknown_name
from metaeval.segmenters.base import SegmenterLike

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
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of third-party code becomes one clear line
        raise UsageError(f"segmenter plug-in {ep.name!r} ({where}) failed to load: {type(exc).__name__}: {exc}") from None


def _factory(name: str) -> Callable[..., Any]:
    factory = _REGISTRY.get(name)
    if factory is None:
        plugins = _entry_points()
        if name not in plugins:
            raise unknown_name("segmenter", name, available())
        factory = _load_plugin(plugins[name])
    return factory


def trains_on_text(factory: Any) -> bool:
    """Whether a factory learns from text (``trains_on_text = True``), like ``spm``."""
    return bool(getattr(factory, "trains_on_text", False))


def get(
    spec: str,
    *,
    training_text: Sequence[str] | None = None,
    cache_dir: "str | os.PathLike[str] | None" = None,
    **options: Any,
) -> SegmenterLike:
    """A segmenter by name, e.g. ``get("jieba")``, ``get("char", nfkc=True)``, ``get("char:lowercase=true")``.

    A segmenter that learns from text (``spm:vocab=8000``) is given ``training_text``
    (scoring passes the corpus's reference lines) and ``cache_dir`` (where to keep what it
    learnt); the others ignore both.

    Raises:
        UsageError: unknown name (the message lists the known ones) or invalid options.
        MissingDependencyError: the segmenter's package is not installed (the message gives
            the pip command).
    """
    if not isinstance(spec, str):
        raise UsageError(f"segmenter name must be a string, got {spec!r}")
    name, spec_options = parse_spec(spec)
    options = {**spec_options, **options}
    factory = _factory(name)
    builtin = _is_builtin(factory)
    label = segmenter_label(name, options)
    if trains_on_text(factory):
        options.setdefault("training_text", training_text)
        options.setdefault("cache_dir", cache_dir)
    try:
        segmenter = factory(**options)
    except MetaevalError:
        raise
    except TypeError as exc:
        raise UsageError(f"segmenter {name!r}: invalid options {sorted(options)}: {exc}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - third-party code fails in one line
        raise PluginError(f"segmenter plug-in {name!r} failed to start: {type(exc).__name__}: {_short(exc)}") from None
    if builtin:
        segmenter.label = getattr(segmenter, "label", None) or label
        return segmenter
    return guarded(name, segmenter, label)


def _is_builtin(factory: Any) -> bool:
    return getattr(factory, "__module__", "").startswith("metaeval.segmenters.")


def segmenter_label(name: str, options: dict[str, Any]) -> str:
    """The row label of a segmenter: its name, then its options sorted (``char:nfkc=true``)."""
    if not options:
        return name
    text = {True: "true", False: "false"}
    return name + ":" + ",".join(f"{key}={text.get(value, value) if isinstance(value, bool) else value}"
                                 for key, value in sorted(options.items()))


def guarded(name: str, segmenter: Any, label: str | None = None) -> SegmenterLike:
    """A third-party segmenter behind checks: whatever it raises or returns becomes one
    :class:`PluginError` naming it, and empty or whitespace tokens are dropped."""
    if isinstance(segmenter, PluginSegmenter):
        return segmenter
    has = {attr for attr in ("__call__", "segment_many", "signature") if callable(getattr(segmenter, attr, None))}
    missing = [] if has & {"__call__", "segment_many"} else ["__call__"]
    missing += [] if "signature" in has else ["signature"]
    if missing:
        raise PluginError(
            f"segmenter plug-in {name!r} built {_shown(segmenter)}, which lacks {', '.join(missing)}"
        )
    return PluginSegmenter(name, segmenter, label or name)


def learns_from_text(spec: str) -> bool:
    """Whether the segmenter named by ``spec`` learns from text (unknown names raise)."""
    if not isinstance(spec, str):
        raise UsageError(f"segmenter name must be a string, got {spec!r}")
    return trains_on_text(_factory(parse_spec(spec)[0]))


def check(spec: str) -> None:
    """Fail now on an unknown name or, for a segmenter that learns from text, bad options;
    build any other segmenter (so a missing package is reported before data is read)."""
    if not isinstance(spec, str):
        raise UsageError(f"segmenter name must be a string, got {spec!r}")
    name, options = parse_spec(spec)
    factory = _factory(name)
    if not trains_on_text(factory):
        get(spec)
        return
    checker = getattr(factory, "check_options", None)
    if callable(checker):
        try:
            checker(**options)
        except TypeError as exc:
            raise UsageError(f"segmenter {name!r}: invalid options {sorted(options)}: {exc}") from None


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] + ("..." if len(text) > 200 else "")


def _shown(value: Any) -> str:
    """A value for a message: its type and a short repr."""
    text = repr(value)
    return f"{type(value).__name__} {text[:80]}{'...' if len(text) > 80 else ''}"


class PluginSegmenter:
    """A plug-in segmenter with its outputs checked.

    A segmentation must be a list or tuple of strings; empty and whitespace-only tokens are
    dropped (never scored); a token containing whitespace, any other value, an exception,
    or ``segment_many`` returning the wrong number of segmentations is a :class:`PluginError`
    naming the plug-in, the text and what it returned. ``signature()`` must return a
    non-empty string.
    """

    def __init__(self, name: str, inner: Any, label: str) -> None:
        self.inner = inner
        self.name = name
        self.label = label
        self._signature: str | None = None

    @property
    def in_process(self) -> bool:
        """The plug-in's ``in_process`` (see :attr:`Segmenter.in_process`), False unless it is True."""
        return getattr(self.inner, "in_process", False) is True

    def _fail(self, what: str) -> PluginError:
        return PluginError(f"segmenter plug-in {self.name!r} {what}")

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.inner, method)(*args)
        except MetaevalError:
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - third-party code fails in one line
            on = f" on {args[0][:40]!r}" if args and isinstance(args[0], str) else ""
            raise self._fail(f"{method}(){on} raised {type(exc).__name__}: {_short(exc)}") from None

    def _tokens(self, text: str, result: Any, method: str) -> list[str]:
        if not isinstance(result, (list, tuple)):
            raise self._fail(f"{method}() returned {_shown(result)} for {text[:40]!r}; expected a list of strings")
        tokens = []
        for token in result:
            if not isinstance(token, str):
                raise self._fail(f"{method}() returned a token {_shown(token)} for {text[:40]!r}; tokens must be strings")
            if not token or token.isspace():
                continue
            if any(ch.isspace() for ch in token):
                raise self._fail(f"{method}() returned the token {token[:40]!r} with whitespace inside for {text[:40]!r}")
            tokens.append(token)
        return tokens

    def __call__(self, text: str) -> list[str]:
        if not callable(self.inner):
            return self.segment_many([text])[0]
        return self._tokens(text, self._call("__call__", text), "__call__")

    def segment_many(self, texts: Any) -> list[list[str]]:
        texts = list(texts)
        if not callable(getattr(self.inner, "segment_many", None)):
            return [self(text) for text in texts]
        result = self._call("segment_many", texts)
        if not isinstance(result, (list, tuple)):
            raise self._fail(f"segment_many() returned {_shown(result)}; expected one token list per text")
        if len(result) != len(texts):
            raise self._fail(f"segment_many() returned {len(result)} segmentations for {len(texts)} texts")
        return [self._tokens(text, tokens, "segment_many") for text, tokens in zip(texts, result)]

    def release(self) -> None:
        """The plug-in's ``release()`` if it has one (see :meth:`Segmenter.release`)."""
        if callable(getattr(self.inner, "release", None)):
            self._call("release")

    def signature(self) -> str:
        if self._signature is None:
            value = self._call("signature")
            if not isinstance(value, str) or not value.strip() or "\n" in value:
                raise self._fail(f"signature() returned {_shown(value)}; expected a non-empty one-line string")
            self._signature = value
        return self._signature


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
        rows.append(SegmenterInfo(name, "builtin" if factory.__module__.startswith("metaeval.segmenters.") else factory.__module__, text))
    for name, ep in sorted(_entry_points().items()):
        rows.append(SegmenterInfo(name, "plug-in", _describe_entry_point(ep)))
    return rows
