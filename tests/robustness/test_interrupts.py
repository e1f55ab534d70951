"""Ctrl-C and SIGTERM stop a real ``metaeval`` process within seconds while it is inside the
compiled TER kernels, in this process (``--jobs 1``) and with worker processes (``--jobs 2``),
also in the middle of one pair that keeps the kernel busy for many seconds: exit status 130,
one line, no traceback, no worker left behind, nothing in ``--out``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.timing import communicate, popen, run, scaled, within

from ._helpers import INTERRUPTED, REPO, WMT24_ZH, leftovers, make_corpus, write

#: Seconds from the signal to the end of the process that the test accepts on an idle machine
#: (scaled by this machine's slowdown, :mod:`tests.timing`, like every wait here).
STOP_WITHIN = 5.0
#: CPU-seconds of the command and its workers before the signal, which no load changes: inside
#: TER in the run below. Measured: the whole run takes 12.2 CPU-s with ``--jobs 1`` and 14.3 with
#: ``--jobs 2``; without TER (chrF instead) 3.4 and 4.7; under coverage 16.0 and 18.4, 6.9 and 8.0.
WORK_BEFORE_SIGNAL = 8.0

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc"),
    pytest.mark.skipif(not WMT24_ZH.is_dir(), reason=f"shared data folder {WMT24_ZH} not found"),
]


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler installed for ``signum`` (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def _children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _cpu_seconds(pid: int) -> float:
    """CPU-seconds used by process ``pid`` (all its threads) and its children, running or ended
    (Linux /proc)."""
    ticks = 0
    for each in (pid, *_children(pid)):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _interrupt(argv: list[str], signum: int, work: float = WORK_BEFORE_SIGNAL) -> tuple[float, int, str, str, list[int]]:
    """Start ``metaeval argv``, once its handlers are installed let it and its workers use ``work``
    CPU-seconds (noting its child processes), send ``signum``; return the seconds from the signal
    to its end, its exit status, stdout, stderr and the children seen."""
    proc = popen([sys.executable, "-m", "metaeval", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                 interrupted=True)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + scaled(60)
        while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM) and time.monotonic() < deadline:
            time.sleep(0.05)
        give_up = time.monotonic() + scaled(120)
        while _cpu_seconds(proc.pid) < work and proc.poll() is None and time.monotonic() < give_up:
            workers = sorted(set(workers) | set(_children(proc.pid)))
            time.sleep(0.1)
        workers = sorted(set(workers) | set(_children(proc.pid)))  # also those started in the last 0.1 s
        assert proc.poll() is None, "the command ended before it could be interrupted"
        sent = time.monotonic()
        proc.send_signal(signum)
        stdout, stderr = communicate(proc, timeout=120)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return elapsed, proc.returncode, stdout, stderr, workers


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_inside_ter_stops_the_run(tmp_path, jobs, signum):
    out = tmp_path / "out"
    elapsed, code, stdout, stderr, workers = _interrupt(
        ["run", str(WMT24_ZH), "-s", "char", "-s", "cjk-char", "-m", "ter", "-m", "ter:case_sensitive=false",
         "--jobs", jobs, "--bootstrap", "20", "-q", "--out", str(out)],
        signum)
    if jobs == "2":
        assert workers, "no worker process was started"
    within(elapsed, STOP_WITHIN, "stopping after the signal")
    assert code in INTERRUPTED, stderr
    assert stdout == "" and "Traceback" not in stderr
    # WMT24 en-zh has two segments that differ from the reference only in normalisation form
    errors = [line for line in stderr.splitlines() if not line.startswith("metaeval: warning: ")]
    assert errors == ["metaeval: interrupted; no output was written"], stderr
    deadline = time.monotonic() + scaled(0.5)
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in workers if _alive(pid)] == []
    assert leftovers(out) == [] and not out.exists()


def _adversarial_corpus(root: Path) -> Path:
    """One 2000-character segment whose hypothesis is its reference cut into 7-character blocks,
    shuffled (seeded): tercom tries many shifts, the pair takes 30 s on an idle 2-core machine
    (1000 characters take under 5 s there, too little to be sure of interrupting it)."""
    import numpy as np

    text = "".join("".join(line.split()) for line in (WMT24_ZH / "ref.refA.zh").read_text(encoding="utf-8").splitlines())
    ref = text[:2000]
    blocks = [ref[k:k + 7] for k in range(0, len(ref), 7)]
    np.random.default_rng(0).shuffle(blocks)
    write(root / "src.en", "x\n")
    write(root / "ref.A.zh", ref + "\n")
    write(root / "systems" / "s.zh", "".join(blocks) + "\n")
    return root


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_inside_one_long_ter_pair(tmp_path, signum):
    """A single pair that keeps the kernel busy for many seconds is still stopped at once."""
    corpus = _adversarial_corpus(tmp_path / "long")
    # compile (or load) the kernels first, so that the signal below reaches the search itself
    warm = make_corpus(tmp_path / "warm", esa={})
    assert run([sys.executable, "-m", "metaeval", "score", warm, "-s", "char", "-m", "ter", "-q"], cwd=REPO, capture_output=True,
               timeout=600).returncode == 0  # fmt: skip
    # the kernels are compiled: after 6 CPU-s the process is inside the pair's shift search (a run
    # of the small corpus above takes 2.2 CPU-s, of this one 19.5)
    elapsed, code, stdout, stderr, _ = _interrupt(["score", str(corpus), "-s", "char", "-m", "ter:max_len=2000", "-j", "1", "-q"],
                                                  signum, work=6.0)
    within(elapsed, STOP_WITHIN, "stopping after the signal")
    assert code in INTERRUPTED and stdout == "" and "Traceback" not in stderr
    assert stderr.splitlines() == ["metaeval: interrupted; no output was written"], stderr


def test_an_interrupt_swallowed_by_a_finalizer_is_delivered_again(monkeypatch):
    """Python only prints a KeyboardInterrupt raised in a finalizer or weakref callback
    ("Exception ignored in ...") and goes on; the command delivers it again, so it unwinds."""
    from metaeval.cli import signals

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGPIPE, signal.SIGINT, signal.SIGALRM)}
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # restored after the test
    try:
        signals.install_signal_handlers()

        class Finalized:
            def __del__(self) -> None:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            Finalized()  # collected at once: the interrupt is raised in __del__ and swallowed
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:  # the interrupt delivered again lands here
                pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signals.SIGNALS.update(running=False, interrupted=False)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


#: A command whose unwinding never ends: it swallows every interrupt (as a library's bare
#: ``except:`` would), or it reported the interrupt and then hangs at exit.
STUCK = """
import atexit, sys, time
from metaeval.cli import signals
signals.GIVE_UP_SECONDS = 1.0
signals.install_signal_handlers()
if sys.argv[1] == "swallows":
    deadline, ready = time.monotonic() + 60, False
    while time.monotonic() < deadline:
        try:
            if not ready:
                ready = print("ready", flush=True) or True
            time.sleep(0.01)
        except KeyboardInterrupt:
            pass
else:
    atexit.register(time.sleep, 60)
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        print(signals.interrupted_line(), file=sys.stderr, flush=True)
        signals.SIGNALS["running"] = False
        signals.cancel_redeliveries()
        sys.exit(130)
"""


@pytest.mark.parametrize("how", ["swallows", "hangs-at-exit"])
def test_a_command_that_cannot_unwind_ends_a_set_time_after_the_interrupt(how):
    """Whatever holds up the unwinding (an interrupt swallowed by a library, a stuck clean-up at
    exit), the process ends GIVE_UP_SECONDS after the interrupt with exit status 130 and one
    line, which says so when the command could not say it itself; never a hang."""
    process = popen([sys.executable, "-c", STUCK, how], cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, interrupted=True)  # fmt: skip
    assert process.stdout.readline() == "ready\n"
    # the child's time limit starts when it takes the signal: after ``before``, but possibly
    # before this process, descheduled after the kill, reads the clock again (``sent``)
    before = time.monotonic()
    process.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    _, err = communicate(process, timeout=60)
    within(time.monotonic() - sent, 10, "ending after the time limit of the unwinding")
    assert time.monotonic() - before >= 1.0
    assert process.returncode == 130
    if how == "swallows":
        assert err.splitlines() == ["metaeval: interrupted; no output was written; stopped 1 s after the interrupt without "
                                    "finishing its clean-up (temporary .tmp files may remain)"]  # fmt: skip
    else:
        assert err.splitlines() == ["metaeval: interrupted; no output was written"]


def test_an_error_caused_by_the_interrupt_is_reported_as_the_interrupt(monkeypatch, capsys):
    """An import cut short by Ctrl-C or SIGTERM fails with ImportError ("initialization
    failed"), not KeyboardInterrupt: the command still says it was interrupted (exit 130)
    instead of an internal error that names the wrong cause."""
    import argparse

    from metaeval import cli

    def interrupted_import(args: argparse.Namespace) -> int:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt:
            raise ImportError("initialization failed") from None
        return 0

    parser = argparse.ArgumentParser()
    parser.set_defaults(func=interrupted_import)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    assert cli.main([]) == 130
    assert capsys.readouterr().err.splitlines() == ["metaeval: interrupted; no output was written"]
    parser.set_defaults(func=lambda args: (_ for _ in ()).throw(ImportError("initialization failed")))
    assert cli.main([]) == 1  # the same error without an interrupt is an error
    assert "internal error ImportError" in capsys.readouterr().err


def test_an_interrupt_after_an_output_is_complete_names_it(monkeypatch, capsys, tmp_path):
    """Ctrl-C that arrives after an output was put in place (the run folder written, the table
    not printed yet) says which outputs are complete instead of "no output was written"."""
    import argparse

    from metaeval import cli
    from metaeval.report.files import write_atomic

    target = tmp_path / "scores.tsv"

    def write_then_interrupted(args: argparse.Namespace) -> int:
        write_atomic(target, "x\n")
        raise KeyboardInterrupt

    parser = argparse.ArgumentParser()
    parser.set_defaults(func=write_then_interrupted)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    assert cli.main([]) == 130
    assert capsys.readouterr().err.splitlines() == [
        f"metaeval: interrupted after {target} had been written in full; nothing else was written"]
    assert target.read_text() == "x\n"
    parser.set_defaults(func=lambda args: (_ for _ in ()).throw(KeyboardInterrupt))
    assert cli.main([]) == 130  # the next command starts with nothing written
    assert capsys.readouterr().err.splitlines() == ["metaeval: interrupted; no output was written"]


def test_a_run_folder_is_named_as_one_output_and_forgotten_when_rolled_back(tmp_path, monkeypatch):
    """The files of a run folder are recorded as the folder once all are in place, and not at
    all when writing them fails part way (they are removed again)."""
    from metaeval import paths
    from metaeval.report import outputs

    monkeypatch.setattr(outputs, "run_files", lambda study: {"a.txt": b"a", "b.txt": b"b"})
    monkeypatch.setattr(outputs, "RUN_OUTPUTS", ("a.txt", "b.txt"))
    monkeypatch.setattr("metaeval.report.layout.sections", lambda results, layout: [])
    monkeypatch.setattr("metaeval.report.results.normalise", lambda results: results)
    paths.forget_written()
    study = type("Study", (), {"results": None})()
    outputs.write_run_folder(tmp_path / "out", study)
    assert paths.written() == [tmp_path / "out"]

    paths.forget_written()
    real = outputs._files.write_bytes_atomic

    def fail_on_b(path, data, overwrite=False):  # noqa: ANN001, ANN202
        if path.name == "b.txt":
            raise OSError(28, "No space left on device")
        return real(path, data, overwrite=overwrite)

    monkeypatch.setattr(outputs._files, "write_bytes_atomic", fail_on_b)
    with pytest.raises(OSError):
        outputs.write_run_folder(tmp_path / "other", study)
    assert paths.written() == [] and not (tmp_path / "other").exists()
