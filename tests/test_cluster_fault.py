"""A Dask cluster as an operator runs one: ``dask scheduler`` and two ``dask worker`` processes
started with Dask's own command line on 127.0.0.1, a study sent to it with ``--scheduler``, and
one worker killed (SIGKILL) while it runs tasks. The scheduler gives the lost worker's tasks to
the other one, and the study ends with the same bytes as a run in one process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.study_data import slice_corpus
from tests.test_study import OUTPUTS, REPO, metaeval
from tests.robustness._helpers import WMT24_ZH, write
from tests.timing import communicate, popen, scaled, slowdown

distributed = pytest.importorskip("distributed", reason="pip install 'metaeval[test]' installs distributed")

#: Seconds to wait for the cluster to start, and for the study, on an idle machine (scaled by this
#: machine's slowdown, :mod:`tests.timing`, like every wait here).
START_TIMEOUT = 120
STUDY_TIMEOUT = 600

SPEC = """
[study]
name = "fault"
data = "data"
out = "out"
segmenters = ["char", "jieba", "spm:vocab=2000"]
metrics = ["bleu", "1-ter", "chrf"]
bootstrap = 1000
seed = 7

[[dataset]]
path = "a"

[[dataset]]
path = "b"
"""


def _dask(*argv: str, log: Path) -> subprocess.Popen:
    """``dask ARGV`` (Dask's command line, run by this interpreter so that its workers import
    this metaeval), its output to ``log``."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with open(log, "wb") as out:
        return popen([sys.executable, "-m", "dask", *argv], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=REPO,
                     start_new_session=True)  # fmt: skip


def _wait(condition, timeout: float, what: str, logs: list[Path]):  # noqa: ANN001, ANN202
    limit = scaled(timeout)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.02)
    tails = "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-2000:]}" for log in logs if log.exists())
    raise AssertionError(f"timed out after {limit:.0f} s waiting for {what} ({timeout:g} s on an idle machine x {slowdown():.1f}, "
                         f"this machine's slowdown)\n{tails}")


@pytest.mark.skipif(not WMT24_ZH.is_dir(), reason="shared data folder not found (set METAEVAL_SHARED)")
def test_a_study_survives_a_killed_worker_and_gives_the_local_bytes(tmp_path):
    root = tmp_path
    slice_corpus(root / "data" / "a", 0, 120)
    slice_corpus(root / "data" / "b", 120, 240)
    spec = write(root / "study.toml", SPEC)
    local = metaeval("study", spec, "--out", root / "local", "--jobs", "1", "-q")
    assert local.returncode == 0, local.stderr

    scheduler_file = root / "scheduler.json"
    logs = [root / "scheduler.log", root / "w0.log", root / "w1.log"]
    processes: list[subprocess.Popen] = []
    try:
        processes.append(_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(scheduler_file), log=logs[0]))  # fmt: skip
        _wait(lambda: scheduler_file.is_file() and scheduler_file.stat().st_size, START_TIMEOUT, "the scheduler", logs)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = {}
        for i in range(2):
            workers[f"w{i}"] = _dask("worker", address, "--name", f"w{i}", "--nthreads", "1", "--no-nanny", "--host",
                                     "127.0.0.1", "--no-dashboard", "--memory-limit", "0", log=logs[1 + i])  # fmt: skip
            processes.append(workers[f"w{i}"])
        with distributed.Client(address, timeout=f"{scaled(60):.0f}s") as client:
            client.wait_for_workers(2, timeout=scaled(START_TIMEOUT))
            env = dict(os.environ, PYTHONPATH=str(REPO))
            study = popen([sys.executable, "-m", "metaeval", "study", spec, "--out", root / "cluster", "--scheduler", address, "-q"],
                          cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
            processes.append(study)
            names = {addr: info["name"] for addr, info in client.scheduler_info()["workers"].items()}

            def busy() -> tuple[str, list[str]] | None:
                """A worker computing a bootstrap block (by then it has segmented and scored too)."""
                if study.poll() is not None:
                    raise AssertionError(f"the study ended (exit {study.returncode}) before a worker was seen computing a bootstrap block")
                for addr, keys in client.processing().items():
                    running = [str(k) for k in keys]
                    if any(k.startswith("_items_task") for k in running) and names.get(addr) in workers:
                        return names[addr], running
                return None

            victim, running = _wait(busy, STUDY_TIMEOUT, "a bootstrap task on a worker", logs)
            workers[victim].send_signal(signal.SIGKILL)
            workers[victim].wait(timeout=scaled(30))
            out, err = communicate(study, timeout=STUDY_TIMEOUT)
            survivors = [info["name"] for info in client.scheduler_info()["workers"].values()]
            prefixes = set(client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes)))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=scaled(30))
    assert study.returncode == 0, err
    assert running and survivors == [name for name in workers if name != victim]
    # the study's work went to the cluster: segmentation, scoring and bootstrap tasks
    assert {"segment_task", "score_chunk", "items_task"} <= prefixes
    for name in OUTPUTS:
        assert (root / "cluster" / name).read_bytes() == (root / "local" / name).read_bytes(), name
