"""The metaeval process ends without the interpreter's teardown, and loses nothing by it:
its output is written, its atexit handlers run, a write that fails is one line and exit 1, and a
thread a normal exit would wait for is still waited for."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from metaeval.cli.finish import end_process, flush, waiting_threads

REPO = Path(__file__).resolve().parents[1]


def _python(code: str, **kwargs) -> subprocess.CompletedProcess:  # noqa: ANN003
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120, **kwargs)


def test_the_command_writes_its_output_and_runs_the_atexit_handlers(tmp_path: Path) -> None:
    marker = tmp_path / "handler-ran"
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
        "from metaeval.cli import main\n"
        "sys.argv = ['metaeval', 'list']\n"
        "sys.exit(main())\n"
        "print('not reached')\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert "segmenters" in done.stdout and done.stdout.endswith("\n")
    assert "not reached" not in done.stdout
    assert marker.read_text() == "ran"


def test_the_exit_status_of_a_failure_is_kept(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "metaeval", "run", str(tmp_path / "missing")], capture_output=True,
                          text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("metaeval: error:")


class _FullDisk(io.StringIO):
    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_stream_that_cannot_be_written_is_one_error_line(capfd: pytest.CaptureFixture[str]) -> None:
    assert not flush(_FullDisk(), "standard output")
    assert capfd.readouterr().err == "metaeval: error: standard output: cannot write: no space left on device (disk full)\n"
    assert flush(io.StringIO(), "standard output") and flush(None, "standard output")


def test_output_left_in_the_buffer_that_cannot_be_written_exits_1(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from metaeval.cli import finish\n"
        "sys.stdout.write('left in the buffer')\n"
        "finish.end_process(0)\n"
    )
    with open("/dev/full", "w") if os.path.exists("/dev/full") else open(tmp_path / "out", "w") as out:
        if out.name != "/dev/full":
            pytest.skip("needs /dev/full")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # the output stays in the buffer
        done = subprocess.run([sys.executable, "-c", code], stdout=out, stderr=subprocess.PIPE, text=True, cwd=REPO,
                              env=env, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == "metaeval: error: standard output: cannot write: no space left on device (disk full)\n"


def test_a_thread_a_normal_exit_would_wait_for_keeps_the_normal_exit() -> None:
    release = threading.Event()
    worker = threading.Thread(target=release.wait, daemon=False)
    worker.start()
    try:
        assert worker in waiting_threads()
        assert end_process(3) == 3  # returned, not exited: the caller's normal exit waits for the thread
    finally:
        release.set()
        worker.join()
    assert worker not in waiting_threads()


def test_daemon_threads_are_not_waited_for() -> None:
    release = threading.Event()
    worker = threading.Thread(target=release.wait, daemon=True)
    worker.start()
    try:
        assert worker not in waiting_threads()
    finally:
        release.set()
        worker.join()


def test_main_with_an_argument_list_returns(capsys: pytest.CaptureFixture[str]) -> None:
    from metaeval.cli import main

    assert main(["list"]) == 0
    assert "segmenters" in capsys.readouterr().out


class _Exited(Exception):
    """Raised by the test's stand-in for os._exit, with the status."""


def _ending(monkeypatch: pytest.MonkeyPatch, stdout: io.StringIO) -> list:
    """end_process's outside world replaced: os._exit raises, the atexit handlers are
    recorded (not pytest's own run), no thread to wait for, and ``stdout`` as standard output."""
    from metaeval.cli import finish

    calls: list = []

    def exit_now(status: int) -> None:
        calls.append(("exit", status))
        raise _Exited(status)

    monkeypatch.setattr(finish.os, "_exit", exit_now)
    monkeypatch.setattr(finish.atexit, "_run_exitfuncs", lambda: calls.append(("handlers", stdout.getvalue())))
    monkeypatch.setattr(finish, "waiting_threads", lambda: [])
    monkeypatch.setattr(sys, "stdout", stdout)
    return calls


def test_the_end_flushes_the_output_before_the_handlers_and_exits_with_the_status(monkeypatch):
    class Buffered(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.pending = ""

        def write(self, text: str) -> int:
            self.pending += text
            return len(text)

        def flush(self) -> None:
            super().write(self.pending)
            self.pending = ""

    out = Buffered()
    out.write("the table\n")
    calls = _ending(monkeypatch, out)
    with pytest.raises(_Exited):
        end_process(2)
    assert calls == [("handlers", "the table\n"), ("exit", 2)]


def test_output_that_cannot_be_written_makes_a_success_exit_1_and_keeps_a_failure(monkeypatch, capfd):
    for status, expected in ((0, 1), (2, 2)):
        calls = _ending(monkeypatch, _FullDisk())
        with pytest.raises(_Exited):
            end_process(status)
        assert calls == [("handlers", ""), ("exit", expected)]
        assert capfd.readouterr().err.count("metaeval: error: standard output: cannot write:") == 1


def test_an_error_line_that_cannot_be_written_either_is_given_up(monkeypatch):
    class Broken(_FullDisk):
        def write(self, text: str) -> int:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(sys, "__stderr__", Broken())
    assert not flush(_FullDisk(), "standard output")
