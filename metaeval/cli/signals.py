"""Signals of a running command: Ctrl-C and SIGTERM unwind it (so atomic writers remove their
temporary files) and end it with exit status 130 and one line; an interrupt that lands in a
finalizer is delivered again."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any, Callable

#: what the signal handlers of a running command know: whether it is running, whether an
#: interrupt arrived, and the re-deliveries of lost interrupts not yet made
SIGNALS: dict[str, Any] = {"running": False, "interrupted": False, "timers": []}


def _raise_interrupt(signum: int, frame: object) -> None:
    SIGNALS["interrupted"] = True
    raise KeyboardInterrupt


def _redeliver_interrupt() -> None:
    if SIGNALS["running"]:
        os.kill(os.getpid(), signal.SIGINT)


def cancel_redeliveries() -> None:
    while SIGNALS["timers"]:
        SIGNALS["timers"].pop().cancel()


def _deliver_lost_interrupts(unraisable: Any) -> None:
    """``sys.unraisablehook``: an interrupt raised inside a finalizer or a weakref callback is
    only printed by Python ("Exception ignored in ...") and the run would go on; deliver it
    again, so that it unwinds the command like any other interrupt (unless the command has
    ended or is already unwinding by then)."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        # a moment later from another thread, so that it lands after this hook has returned
        import threading

        timer = threading.Timer(0.01, _redeliver_interrupt)
        timer.daemon = True
        SIGNALS["timers"].append(timer)
        timer.start()
        return
    sys.__unraisablehook__(unraisable)


def install_signal_handlers() -> Callable[[], None]:
    """Ctrl-C and SIGTERM unwind the command (so atomic writers remove their temporary
    files) and are remembered, so that an error caused by the interrupt (an import cut short
    is an ImportError) is still reported as the interrupt; an interrupt that lands in a
    finalizer is not lost (:func:`_deliver_lost_interrupts`). Returns the function that puts
    back what was there before, so that a process calling :func:`main` (a test runner, a
    notebook) keeps its own handlers afterwards."""
    SIGNALS.update(running=True, interrupted=False)
    previous: list[tuple[int, Any]] = []
    try:
        for signum, handler in ((signal.SIGPIPE, signal.SIG_DFL), (signal.SIGTERM, _raise_interrupt),
                                (signal.SIGINT, _raise_interrupt)):  # fmt: skip
            previous.append((signum, signal.signal(signum, handler)))
    except (AttributeError, ValueError):  # pragma: no cover - not on POSIX / not main thread
        pass
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _deliver_lost_interrupts

    def restore() -> None:
        sys.unraisablehook = previous_hook
        for signum, handler in reversed(previous):
            signal.signal(signum, handler)

    return restore


def interrupted_line() -> str:
    """The one line an interrupted command ends with: which outputs were complete, if any."""
    from metaeval.paths import written

    cancel_redeliveries()
    done = written()
    if done:
        names = ", ".join(str(path) for path in done)
        return f"metaeval: interrupted after {names} had been written in full; nothing else was written"
    return "metaeval: interrupted; no output was written"


__all__ = ["SIGNALS", "cancel_redeliveries", "install_signal_handlers", "interrupted_line"]
