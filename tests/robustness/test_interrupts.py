"""Ctrl-C and SIGTERM stop a real ``metaeval`` process within seconds while it is inside the
compiled TER kernels, in this process (``--jobs 1``) and with worker processes (``--jobs 2``):
exit status 130, one line, no traceback, no worker left behind, nothing in ``--out``."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ._helpers import REPO, WMT24_ZH, leftovers

#: Seconds from the signal to the end of the process that the test accepts.
STOP_WITHIN = 5.0
#: Seconds of work before the signal: past start-up and ``char`` segmentation (about 3 s),
#: well inside TER, which takes about 13 s of the run on this corpus.
WORK_BEFORE_SIGNAL = 6.0

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


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_inside_ter_stops_the_run(tmp_path, jobs, signum):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "metaeval", "run", str(WMT24_ZH), "-s", "char", "-m", "ter", "--jobs", jobs,
         "--bootstrap", "20", "-q", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM) and time.monotonic() < deadline:
            time.sleep(0.05)
        end_of_work = time.monotonic() + WORK_BEFORE_SIGNAL
        while time.monotonic() < end_of_work and proc.poll() is None:
            workers = sorted(set(workers) | set(_children(proc.pid)))
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        if jobs == "2":
            assert workers, "no worker process was started"
        sent = time.monotonic()
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert elapsed < STOP_WITHIN, f"stopped {elapsed:.1f} s after the signal"
    assert proc.returncode == 130, stderr
    assert stdout == "" and "Traceback" not in stderr
    # WMT24 en-zh has two segments that differ from the reference only in normalisation form
    errors = [line for line in stderr.splitlines() if not line.startswith("metaeval: warning: ")]
    assert errors == ["metaeval: interrupted; no output was written"], stderr
    time.sleep(0.5)
    assert [pid for pid in workers if _alive(pid)] == []
    assert leftovers(out) == [] and not out.exists()
