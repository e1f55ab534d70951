"""The versions recorded in every signature: Python, metaeval and every package that can change a number."""

from __future__ import annotations

import platform
from importlib import metadata

from metaeval import __version__

#: Packages whose versions go into every signature.
SIGNATURE_PACKAGES = ("numpy", "scipy", "pandas", "sacrebleu", "jieba", "pkuseg", "fugashi", "unidic-lite", "numba")


def package_versions() -> dict[str, str]:
    """Versions of Python, metaeval and every package that can change a number."""
    versions = {"python": platform.python_version(), "metaeval": __version__}
    for name in SIGNATURE_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


__all__ = ["SIGNATURE_PACKAGES", "package_versions"]
