"""Output safety: atomic writes, no overwrite without ``--overwrite``, no partial file after
an interrupt (Ctrl-C inside scoring, a real SIGTERM), a shared segmentation cache, byte-
identical reruns, no network, and no traceback from the real console script."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.timing import communicate, popen, run, scaled

from ._helpers import FAST, INTERRUPTED, assert_error, leftovers, write

RUN_FILES = ["answer.tsv", "leaderboard.html", "leaderboard.md", "results.json", "results.tsv", "scores.tsv.gz", "signature.json",
             "systems.html", "systems.tsv"]


def outputs(folder):
    """The files of a --out folder, charts left out (their names follow the rankings)."""
    return [p for p in leftovers(folder) if not p.startswith("charts/")]


def _run_out(cli, corpus, out, *extra):
    return cli("run", corpus, *FAST, "--out", out, *extra)


def test_run_out_writes_every_file_and_a_chart_per_ranking(cli, corpus, tmp_path):
    out = tmp_path / "out"
    result = _run_out(cli, corpus, out)
    assert result.code == 0, result.err
    assert outputs(out) == RUN_FILES
    assert "charts/esa.seg.consistency.png" in leftovers(out)


def test_existing_outputs_kept_without_overwrite(cli, corpus, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    write(out / "results.tsv", "precious\n")
    assert_error(_run_out(cli, corpus, out), 2, "results.tsv exists", "--overwrite")
    assert leftovers(out) == ["results.tsv"] and (out / "results.tsv").read_text() == "precious\n"
    result = _run_out(cli, corpus, out, "--overwrite")
    assert result.code == 0, result.err
    assert outputs(out) == RUN_FILES and (out / "results.tsv").read_text().startswith("dataset\tmetric\t")


@pytest.mark.parametrize("command", ["score", "leaderboard"])
def test_existing_output_file_kept_without_overwrite(cli, corpus, tmp_path, command):
    results = tmp_path / "run"
    assert _run_out(cli, corpus, results).code == 0
    args = {"score": ("score", corpus, "-q"), "leaderboard": ("leaderboard", results / "results.tsv")}[command]
    target = write(tmp_path / "dest" / "target.txt", "precious\n")
    assert_error(cli(*args, "--output", target), 2, "target.txt", "exists", "--overwrite")
    assert target.read_text() == "precious\n" and leftovers(target.parent) == ["target.txt"]
    assert cli(*args, "--output", target, "--overwrite").code == 0
    assert target.read_text() != "precious\n"


def test_leaderboard_of_a_hostile_results_file(cli, tmp_path):
    for name, content in [("r.json", "{not json"), ("r.tsv", b"\x00\x01"), ("r.csv", "a,b\n1,2\n")]:
        out = tmp_path / "lb.md"
        result = cli("leaderboard", write(tmp_path / name, content), "--output", out)
        assert_error(result, 1, name)
        assert not out.exists()


def test_keyboard_interrupt_inside_scoring_leaves_nothing(cli, corpus, tmp_path, monkeypatch):
    from metaeval.metrics.bleu import BLEU

    def interrupted(self, hyps, prepared):
        raise KeyboardInterrupt

    monkeypatch.setattr(BLEU, "segment_stats", interrupted)
    out = tmp_path / "out"
    result = _run_out(cli, corpus, out)
    assert result.code == 130 and result.out == ""
    assert "interrupted; no output was written" in result.err
    assert leftovers(out) == []
    target = tmp_path / "scores.tsv"
    result = cli("score", corpus, "-s", "char", "-m", "bleu", "-q", "--output", target)
    assert result.code == 130 and leftovers(tmp_path) == ["tiny/" + p for p in leftovers(corpus)]


def test_interrupt_while_writing_the_out_folder_leaves_no_file(cli, corpus, tmp_path, monkeypatch):
    from metaeval.report import files

    real = files.write_bytes_atomic
    calls = []

    def flaky(path, data, overwrite=False):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(path, data, overwrite=overwrite)

    monkeypatch.setattr(files, "write_bytes_atomic", flaky)
    out = tmp_path / "out"
    result = _run_out(cli, corpus, out)
    assert result.code == 130
    assert leftovers(out) == []


def _catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a SIGTERM handler installed (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


#: the command in a real process, through the interpreter running the tests (no PATH lookup)
METAEVAL = [sys.executable, "-m", "metaeval"]
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_sigterm_during_run_leaves_no_partial_file(corpus, tmp_path):
    """A real SIGTERM, sent once ``metaeval run`` has installed its handler and is working
    (100,000 bootstrap samples keep it busy for seconds), exits 130 with no file in --out."""
    out = tmp_path / "out"
    proc = popen(
        [*METAEVAL, "run", str(corpus), "-s", "char", "-m", "bleu", "--bootstrap", "100000",
         "-q", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, interrupted=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + scaled(30)
        while proc.poll() is None and not _catches_sigterm(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.5)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = communicate(proc, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode in INTERRUPTED, stderr
    assert stdout == "" and "Traceback" not in stderr
    assert "interrupted; no output was written" in stderr
    assert leftovers(out) == []


CACHE_WORKER = textwrap.dedent(
    """
    import json, sys
    from metaeval import segmenters
    from metaeval.segmenters.cache import SegmentationCache
    folder, worker = sys.argv[1], int(sys.argv[2])
    seg = segmenters.get("char")
    wrong = 0
    for round_ in range(40):
        # each round: texts shared by both workers and texts of this worker only
        texts = [f"共享{round_}句", f"进程{worker}第{round_}句"]
        got = SegmentationCache(folder).segment(seg, texts)
        wrong += got != [seg(t) for t in texts]
    print(json.dumps({"wrong": wrong}))
    """
)


def test_two_processes_share_a_cache_folder(tmp_path):
    """Two processes writing one cache folder at once: every answer is right, the file on
    disk holds whole blocks whose every entry is right, and no temporary file is left."""
    folder = tmp_path / "cache"
    procs = [
        popen([sys.executable, "-c", CACHE_WORKER, str(folder), str(w)], stdout=subprocess.PIPE,
              stderr=subprocess.PIPE, text=True)
        for w in (1, 2)
    ]  # fmt: skip
    outputs = [communicate(p, timeout=120) for p in procs]
    for proc, (stdout, stderr) in zip(procs, outputs):
        assert proc.returncode == 0, stderr
        assert json.loads(stdout) == {"wrong": 0}
    files = leftovers(folder)
    assert len(files) == 1 and files[0].startswith("seg-") and files[0].endswith(".jsonl"), files
    from metaeval import segmenters
    from metaeval.segmenters import SegmentationCache

    char = segmenters.get("char")
    blocks = [json.loads(line) for line in (folder / files[0]).read_text(encoding="utf-8").splitlines() if line]
    assert blocks and all(block["signature"] == char.signature() for block in blocks)
    texts = [text for block in blocks for text in block["tokens"]]
    cache = SegmentationCache(folder)
    assert cache.lookup(char, texts) == {text: tuple(char(text)) for text in texts} and cache.rejected == []


def test_same_inputs_give_identical_bytes(cli, real_corpus, tmp_path):
    """Same corpus, options and seed: byte-identical JSON on stdout and in --out."""
    args = ("run", real_corpus, "-s", "char", "-m", "bleu", "-m", "chrf", "--bootstrap", "100", "--seed", "7", "-q")
    first, second = cli(*args, "-f", "json"), cli(*args, "-f", "json")
    assert first.code == 0 and first.out == second.out and first.out.startswith("{")
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli(*args, "--out", a).code == 0 and cli(*args, "--out", b).code == 0
    assert outputs(a) == outputs(b) == RUN_FILES
    for name in RUN_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    other = cli("run", real_corpus, "-s", "char", "-m", "bleu", "-m", "chrf", "--bootstrap", "100", "--seed", "8", "-q",
                "-f", "json")  # fmt: skip
    assert other.out != first.out  # the seed does reach the output


def test_nothing_is_downloaded(cli, corpus, monkeypatch):
    """Every socket entry point raises; a run with a dictionary segmenter still works."""

    def no_network(*args, **kwargs):
        raise OSError("network disabled by the test")

    for name in ("socket", "create_connection", "getaddrinfo"):
        monkeypatch.setattr(socket, name, no_network)
    result = cli("run", corpus, "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "chrf", "--bootstrap", "20", "-q")
    assert result.code == 0, result.err
    assert "jieba" in result.out


def test_console_script_points_at_the_command():
    """The installed ``metaeval`` script runs ``metaeval.cli:main``, which ``python -m metaeval`` runs too."""
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "metaeval"]
    assert script.value == "metaeval.cli:main"
    main_module = (REPO / "metaeval" / "__main__.py").read_text(encoding="utf-8")
    assert "from metaeval.cli import main" in main_module and "sys.exit(main())" in main_module


def test_console_script_shows_no_traceback(corpus):
    """The command in a real process, on bad data and on bad usage."""
    system = corpus / "systems" / "s2.zh"
    system.write_bytes(system.read_bytes() + b"\xc3\x28\n")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    bad_data = run([*METAEVAL, "run", corpus, "-q"], capture_output=True, text=True, env=env, timeout=120, cwd=REPO)
    assert bad_data.returncode == 1 and bad_data.stdout == ""
    assert bad_data.stderr.startswith("metaeval: error: ") and bad_data.stderr.count("\n") == 1
    assert "s2.zh:5" in bad_data.stderr and "Traceback" not in bad_data.stderr
    bad_usage = run([*METAEVAL, "run", corpus, "--bootstrap", "many"], capture_output=True, text=True, env=env, timeout=120, cwd=REPO)
    assert bad_usage.returncode == 2 and "Traceback" not in bad_usage.stderr
    assert bad_usage.stderr.startswith("metaeval: error: run: ") and "--bootstrap" in bad_usage.stderr


def test_python_dash_m_runs_the_command(monkeypatch, capsys):
    """``python -m metaeval --version``, in this process: the module exits with main()'s status."""
    import runpy

    from metaeval import __version__

    monkeypatch.setattr(sys, "argv", ["metaeval", "--version"])
    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGPIPE)}
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    try:
        with pytest.raises(SystemExit) as exit_info:
            runpy.run_module("metaeval", run_name="__main__")
    finally:  # as the process's command, main keeps its handlers: put this process's back
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"metaeval {__version__}"


def test_main_called_in_process_puts_the_callers_handlers_back(capsys):
    """main(argv) in another program (a test runner, a notebook) leaves SIGPIPE, SIGTERM and
    the unraisable hook as they were: with SIGPIPE at its default, that program would die
    silently the next time it wrote to a closed pipe."""
    from metaeval.cli import main

    before = ({s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGPIPE)}, sys.unraisablehook)
    assert main(["list"]) == 0
    assert main(["score", "no-such-corpus"]) == 1
    after = ({s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGPIPE)}, sys.unraisablehook)
    assert after == before
    capsys.readouterr()
