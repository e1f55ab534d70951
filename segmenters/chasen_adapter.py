"""``chasen``: ChaSen 2.4 (Matsumoto et al., NAIST), the segmenter of Denoual & Lepage 2005.

One long-lived ``chasen -i w -r <chasenrc> -F '\\t%m\\n'`` process per segmenter: each text
is written as one line and its morphemes are read back up to the ``EOS`` line (a morpheme
line starts with a tab, so a word ``EOS`` cannot be mistaken for the end). ChaSen cuts input
lines longer than about 8 KB into several sentences, so longer texts are sent in pieces of
at most :data:`MAX_PIECE` characters, cut after 。, ！, ？ or whitespace where possible. Line
breaks inside a text become spaces. If the process dies or stops answering, it is started
again and the text retried once; a second failure is an error naming the text.

The binary comes from the system (Debian: ``apt-get install chasen``, which brings the
NAIST-jdic dictionary); ``-r`` names the system ``chasenrc`` so that a user's ``~/.chasenrc``
is never read. The signature holds ChaSen's version and a hash of the chasenrc and of the
dictionary files it names.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import socket
import subprocess
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from metaeval.errors import DataError, MissingDependencyError
from metaeval.segmenters._deps import dictionary_signature, files_under
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

INSTALL_HINT = "apt-get install chasen"
CHASENRC = Path("/etc/chasenrc")
#: Longest piece of text sent as one line (4 bytes a character at most, under ChaSen's 8 KB).
MAX_PIECE = 2000
_GRAMMAR = re.compile(r"^\s*\((?:GRAMMAR|文法ファイル)\s+(\S+?)\s*\)", re.MULTILINE)
_BREAK_AFTER = "。！？!?\u3000 \t"


def binary() -> str | None:
    """The ``chasen`` program on PATH, or None."""
    return shutil.which("chasen")


@lru_cache(maxsize=None)
def chasen_version(program: str) -> str:
    """``2.4.5`` from ``chasen -V``, or ``unknown``."""
    try:
        done = subprocess.run([program, "-V"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    found = re.search(rb"version\s+(\S+)", done.stdout + done.stderr)
    return found.group(1).decode("ascii", "replace") if found else "unknown"


def dictionary_files(rc: Path = CHASENRC) -> tuple[str, ...]:
    """The chasenrc and the files of the grammar/dictionary folder it names."""
    try:
        text = rc.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    found = _GRAMMAR.search(text)
    folder = Path(found.group(1)) if found else None
    return (str(rc),) + files_under(folder)


def pieces(text: str, limit: int = MAX_PIECE) -> list[str]:
    """``text`` on one line, cut into pieces of at most ``limit`` characters, after a sentence
    end or a space when there is one in the second half of the piece."""
    text = text.replace("\r", " ").replace("\n", " ")
    out = []
    while len(text) > limit:
        cut = max(text.rfind(ch, limit // 2, limit) for ch in _BREAK_AFTER)
        cut = cut + 1 if cut >= 0 else limit
        out.append(text[:cut])
        text = text[cut:]
    out.append(text)
    return out


class _ChasenProcess:
    """A running ``chasen`` answering one line at a time."""

    def __init__(self, program: str, timeout: float) -> None:
        args = [program, "-i", "w", "-F", "\t%m\n"]
        if CHASENRC.is_file():
            args[3:3] = ["-r", str(CHASENRC)]
        self.args = args
        self.timeout = timeout
        # Input goes through a socket written with MSG_NOSIGNAL: a dead process gives an
        # error instead of SIGPIPE (which the command line leaves at its default, fatal action).
        self._input, child = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                args, stdin=child.fileno(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
            )
        except BaseException:
            self._input.close()
            raise
        finally:
            child.close()
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]

    def ask(self, line: str) -> list[str]:
        """Morphemes of one line; raises OSError when the process died or did not answer."""
        self._input.sendall(line.encode("utf-8") + b"\n", socket.MSG_NOSIGNAL)
        tokens: list[str] = []
        while True:
            raw = self._read_line()
            if raw == b"EOS":
                return tokens
            if not raw.startswith(b"\t"):
                raise OSError(f"unexpected output line {raw[:80]!r}")
            tokens.append(raw[1:].decode("utf-8", "replace"))

    def _read_line(self) -> bytes:
        deadline = time.monotonic() + self.timeout
        fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise OSError(f"no answer within {self.timeout:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise OSError(f"the process ended (exit status {self.process.poll()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self) -> None:
        self._selector.close()
        self._input.close()
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@register("chasen")
class ChasenSegmenter(Segmenter):
    """ChaSen words (IPA part-of-speech system, NAIST-jdic on Debian) from a long-lived process."""

    name = "chasen"

    def __init__(self, *, timeout: float = 60.0, **norm: Any) -> None:
        super().__init__(**norm)
        program = binary()
        if program is None:
            raise MissingDependencyError(
                f"segmenter {self.name!r} needs the ChaSen program 'chasen', which is not on PATH; "
                f"install it with: {INSTALL_HINT}"
            )
        self.program = program
        self.timeout = float(timeout)
        self._process: _ChasenProcess | None = None

    def _ask(self, line: str) -> list[str]:
        for attempt in (1, 2):
            if self._process is None:
                self._process = _ChasenProcess(self.program, self.timeout)
            try:
                return self._process.ask(line)
            except OSError as exc:
                self._process.close()
                self._process = None
                if attempt == 2:
                    raise DataError(
                        f"segmenter 'chasen' ({self.program}) failed twice on the text {line[:60]!r}: {exc}"
                    ) from None
        raise AssertionError("unreachable")

    def _segment(self, text: str) -> list[str]:
        return [token for piece in pieces(text) for token in self._ask(piece)]

    def close(self) -> None:
        """Stop the ChaSen process (a new one starts on the next text)."""
        if self._process is not None:
            self._process.close()
            self._process = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_process"] = None
        return state

    @classmethod
    def describe(cls) -> str:
        program = binary()
        if program is None:
            return f"unavailable: the 'chasen' program is not on PATH ({INSTALL_HINT})"
        return f"chasen:{chasen_version(program)}|dict:{dictionary_signature('chasenrc+grammar', None, dictionary_files())}"
