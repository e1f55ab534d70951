"""The interval timer of an interrupted command (``metaeval.cli.signals``), step by step in this
process: the real timer, ``os.write`` and ``os._exit`` are replaced by recorders, so each branch is
seen without ending the test run (the real processes are in tests/robustness/test_interrupts.py)."""

from __future__ import annotations

import types

import pytest

from metaeval.cli import signals


@pytest.fixture
def timer(monkeypatch):
    """The seconds the interval timer was set to, in order (0: stopped); what was written to fd 2;
    and the exit status os._exit was called with (raised as SystemExit)."""
    calls = types.SimpleNamespace(armed=[], written=[], now=[100.0])
    monkeypatch.setattr(signals.signal, "setitimer", lambda which, seconds: calls.armed.append(round(seconds, 6)))
    monkeypatch.setattr(signals.os, "write", lambda fd, data: calls.written.append((fd, data.decode())))
    monkeypatch.setattr(signals.os, "_exit", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    monkeypatch.setattr(signals.time, "monotonic", lambda: calls.now[0])
    monkeypatch.setattr(signals, "SIGNALS", dict(signals.SIGNALS, running=True, interrupted=False, since=None,
                                                 redeliver=False, reported=False))  # fmt: skip
    monkeypatch.setattr(signals, "GIVE_UP_SECONDS", 30.0)
    return calls


def test_the_first_interrupt_starts_the_time_limit_of_the_unwinding(timer):
    with pytest.raises(KeyboardInterrupt):
        signals._raise_interrupt(15, None)
    assert timer.armed == [30.0] and signals.SIGNALS["since"] == 100.0
    with pytest.raises(KeyboardInterrupt):  # a second one raises again, the limit stays
        signals._raise_interrupt(15, None)
    assert timer.armed == [30.0]


def test_a_lost_interrupt_is_delivered_again_and_the_limit_set_back_to_what_is_left(timer):
    signals._deliver_lost_interrupts(types.SimpleNamespace(exc_value=KeyboardInterrupt()))
    assert signals.SIGNALS["redeliver"] and timer.armed == [signals.REDELIVER_SECONDS]
    with pytest.raises(KeyboardInterrupt):  # without an interrupt before it: no limit to set back
        signals._alarm(14, None)
    assert timer.armed == [signals.REDELIVER_SECONDS] and not signals.SIGNALS["redeliver"]
    signals.SIGNALS.update(interrupted=True, since=90.0, redeliver=True)
    with pytest.raises(KeyboardInterrupt):
        signals._alarm(14, None)
    assert timer.armed[-1] == 20.0  # 30 s from 90.0, at 100.0


def test_a_lost_interrupt_after_the_command_ended_is_not_delivered(timer):
    signals.SIGNALS["running"] = False
    signals._deliver_lost_interrupts(types.SimpleNamespace(exc_value=KeyboardInterrupt()))
    assert not signals.SIGNALS["redeliver"] and timer.armed == []
    signals._alarm(14, None)  # nothing interrupted: the timer does nothing


def test_other_unraisable_exceptions_go_to_pythons_hook(timer, monkeypatch):
    seen = []
    monkeypatch.setattr(signals.sys, "__unraisablehook__", seen.append)
    event = types.SimpleNamespace(exc_value=ValueError("in a finalizer"))
    signals._deliver_lost_interrupts(event)
    assert seen == [event] and timer.armed == []


def test_before_the_limit_the_timer_is_set_again_and_at_it_the_process_ends_with_one_line(timer):
    signals.SIGNALS.update(interrupted=True, since=80.0)
    signals._alarm(14, None)  # 20 s after the interrupt: 10 s left
    assert timer.armed == [10.0] and timer.written == []
    timer.now[0] = 111.0
    with pytest.raises(SystemExit) as ended:
        signals._alarm(14, None)
    assert ended.value.code == 130
    assert timer.written == [(2, "metaeval: interrupted; no output was written; stopped 30 s after the interrupt without "
                                 "finishing its clean-up (temporary .tmp files may remain)\n")]  # fmt: skip


def test_once_the_command_said_it_was_interrupted_the_end_adds_no_line(timer):
    signals.SIGNALS.update(interrupted=True, since=60.0)
    assert signals.interrupted_line() == "metaeval: interrupted; no output was written"
    assert signals.SIGNALS["reported"] and timer.armed == [1e-06]  # the limit has passed: the timer is due at once
    with pytest.raises(SystemExit):
        signals._alarm(14, None)
    assert timer.written == []


def test_cancelling_redeliveries_keeps_the_limit_of_an_interrupted_command_only(timer):
    signals.cancel_redeliveries()
    assert timer.armed == [0]
    signals.SIGNALS.update(interrupted=True, since=95.0, redeliver=True)
    signals.cancel_redeliveries()
    assert timer.armed == [0, 25.0] and not signals.SIGNALS["redeliver"]
