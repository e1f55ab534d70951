"""Ending the ``metaeval`` process once its command is done, without the interpreter's teardown.

A normal exit frees every module's objects one by one before the process ends: after a command
that loaded the compiled metric kernels, pandas and scipy, that teardown took 0.3–0.5 CPU
seconds, with one core busy and nothing left to compute (``docs/performance.md``). The
operating system frees the process's memory at once. So, as the process's own command (the
console script, ``python -m metaeval``), the command ends with :func:`end_process`: the
standard streams are flushed and the ``atexit`` handlers run (coverage, logging,
``weakref.finalize``, multiprocessing, temporary folders), as at a normal exit, and then the
process exits with the command's status without the teardown.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import TextIO

#: The status of a command whose standard output could not be written at the end (a full disk).
WRITE_FAILED = 1


def waiting_threads() -> list[threading.Thread]:
    """Threads other than this one that a normal exit would wait for (alive, not daemons)."""
    current = threading.current_thread()
    return [t for t in threading.enumerate() if t is not current and t.is_alive() and not t.daemon]


def flush(stream: TextIO | None, name: str) -> bool:
    """Flush ``stream``; False, after one line on standard error, if it cannot be written."""
    if stream is None or stream.closed:
        return True
    try:
        stream.flush()
    except OSError as exc:
        from metaeval.paths import os_error_message

        try:
            print(f"metaeval: error: {os_error_message(exc, name, 'write')}", file=sys.__stderr__, flush=True)
        except OSError:
            pass
        return False
    return True


def end_process(status: int) -> int:
    """End the process with ``status`` after flushing the standard streams and running the
    ``atexit`` handlers, skipping the interpreter's teardown. Returns ``status`` (for a normal
    exit) instead when a normal exit would still wait for a thread, or when this Python has no
    way to run the ``atexit`` handlers first."""
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None or waiting_threads():
        return status
    outputs = list(dict.fromkeys([sys.stdout, sys.__stdout__]))
    written = all(flush(stream, "standard output") for stream in outputs)  # one error line at most
    run_handlers()
    written = written and all(flush(stream, "standard output") for stream in outputs)
    for stream in dict.fromkeys([sys.stderr, sys.__stderr__]):
        flush(stream, "standard error")
    os._exit(status if written or status else WRITE_FAILED)


__all__ = ["end_process", "flush", "waiting_threads"]
