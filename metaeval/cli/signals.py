"""Signals of a running command: Ctrl-C and SIGTERM unwind it (so atomic writers remove their
temporary files) and end it with exit status 130 and one line; an interrupt that lands in a
finalizer is delivered again, and a command still running :data:`GIVE_UP_SECONDS` after an
interrupt ends at once, with the same line.

Both delays run on the process's real-time interval timer (SIGALRM), not on a thread: starting
a thread takes :mod:`threading`'s locks, which the interrupted code may be holding, and a signal
handler runs wherever the main thread was."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any, Callable

#: what the signal handlers of a running command know: whether it is running, whether (and
#: when) an interrupt arrived, and whether a lost interrupt is to be delivered again
SIGNALS: dict[str, Any] = {"running": False, "interrupted": False, "since": None, "redeliver": False, "reported": False}
#: Seconds an interrupted command may take to unwind (the atomic writers' clean-up, stopping
#: worker processes: 0.5 to 2.3 s measured) before it ends without finishing it.
GIVE_UP_SECONDS = 30.0
#: Seconds after which an interrupt lost in a finalizer is delivered again.
REDELIVER_SECONDS = 0.01


def _arm(seconds: float) -> None:
    try:
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-6))
    except (AttributeError, ValueError):  # pragma: no cover - not on POSIX
        pass


def _disarm() -> None:
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
    except (AttributeError, ValueError):  # pragma: no cover - not on POSIX
        pass


def _raise_interrupt(signum: int, frame: object) -> None:
    if not SIGNALS["interrupted"] and SIGNALS["running"]:
        SIGNALS["since"] = time.monotonic()
        _arm(GIVE_UP_SECONDS)
    SIGNALS["interrupted"] = True
    raise KeyboardInterrupt


def _left() -> float:
    since = SIGNALS["since"]
    return GIVE_UP_SECONDS - (time.monotonic() - since) if since is not None else GIVE_UP_SECONDS


def _alarm(signum: int, frame: object) -> None:
    """The interval timer: deliver a lost interrupt again while the command runs; past
    :data:`GIVE_UP_SECONDS` since the interrupt (still unwinding, or stuck at exit after the
    command reported it), end the process with exit status 130 (``os._exit``: what did not
    finish is not waited for) and the interrupted line unless it was said already."""
    timed = SIGNALS["interrupted"] and SIGNALS["since"] is not None
    if SIGNALS["redeliver"] and SIGNALS["running"]:
        SIGNALS["redeliver"] = False
        if timed:
            _arm(_left())
        raise KeyboardInterrupt
    SIGNALS["redeliver"] = False
    if not timed:
        return
    left = _left()
    if left > 0:
        _arm(left)
        return
    if not SIGNALS["reported"]:
        os.write(2, (interrupted_line(gave_up=True) + "\n").encode("utf-8", "replace"))
    os._exit(130)


def cancel_redeliveries() -> None:
    """No lost interrupt is delivered again from now on (the command has ended, or is reporting
    its interrupt); the time limit of an interrupted command's unwinding stays."""
    SIGNALS["redeliver"] = False
    if SIGNALS["interrupted"] and SIGNALS["since"] is not None:
        _arm(_left())
    else:
        _disarm()


def _deliver_lost_interrupts(unraisable: Any) -> None:
    """``sys.unraisablehook``: an interrupt raised inside a finalizer or a weakref callback is
    only printed by Python ("Exception ignored in ...") and the run would go on; deliver it
    again, so that it unwinds the command like any other interrupt (unless the command has
    ended or is already unwinding by then)."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        if SIGNALS["running"]:  # a moment later, so that it lands after this hook has returned
            SIGNALS["redeliver"] = True
            _arm(REDELIVER_SECONDS)
        return
    sys.__unraisablehook__(unraisable)


def install_signal_handlers() -> Callable[[], None]:
    """Ctrl-C and SIGTERM unwind the command (so atomic writers remove their temporary
    files) and are remembered, so that an error caused by the interrupt (an import cut short
    is an ImportError) is still reported as the interrupt; an interrupt that lands in a
    finalizer is not lost (:func:`_deliver_lost_interrupts`). Returns the function that puts
    back what was there before, so that a process calling :func:`main` (a test runner, a
    notebook) keeps its own handlers afterwards."""
    SIGNALS.update(running=True, interrupted=False, since=None, redeliver=False, reported=False)
    previous: list[tuple[int, Any]] = []
    try:
        for signum, handler in ((signal.SIGPIPE, signal.SIG_DFL), (signal.SIGTERM, _raise_interrupt),
                                (signal.SIGINT, _raise_interrupt), (signal.SIGALRM, _alarm)):  # fmt: skip
            previous.append((signum, signal.signal(signum, handler)))
    except (AttributeError, ValueError):  # pragma: no cover - not on POSIX / not main thread
        pass
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _deliver_lost_interrupts

    def restore() -> None:
        SIGNALS.update(redeliver=False, since=None)
        _disarm()
        sys.unraisablehook = previous_hook
        for signum, handler in reversed(previous):
            signal.signal(signum, handler)

    return restore


def interrupted_line(gave_up: bool = False) -> str:
    """The one line an interrupted command ends with: which outputs were complete, if any, and
    with ``gave_up`` that it stopped unwinding (temporary files of unfinished outputs may remain)."""
    from metaeval.paths import written

    if not gave_up:
        cancel_redeliveries()
        SIGNALS["reported"] = True
    done = written()
    ending = (f"; stopped {GIVE_UP_SECONDS:g} s after the interrupt without finishing its clean-up "
              "(temporary .tmp files may remain)") if gave_up else ""  # fmt: skip
    if done:
        names = ", ".join(str(path) for path in done)
        return f"metaeval: interrupted after {names} had been written in full; nothing else was written{ending}"
    return f"metaeval: interrupted; no output was written{ending}"


__all__ = ["SIGNALS", "cancel_redeliveries", "install_signal_handlers", "interrupted_line"]
