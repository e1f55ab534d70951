"""Fault injection through the real command (``python -m metaeval`` in a subprocess): faults
of the machine (read-only and full file systems, permission denied, FIFOs and devices,
file-vs-folder), hostile plug-ins, resource bounds, integrity and text policies.

Each failure must be one ``metaeval: error:`` line naming the path (or plug-in) and the
cause, exit 1 (2 for usage), no traceback, and nothing left behind. Real tmpfs mounts and
dropped capabilities are used where the test runs as root; otherwise the case is skipped
with the reason.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ._helpers import FAST, REPO, Result, assert_error, leftovers, make_corpus, write

TIMEOUT = 120


def metaeval(*argv: "str | Path", stdin: "bytes | None" = None, env: "dict | None" = None,
             preexec=None) -> Result:  # noqa: ANN001
    """Run ``python -m metaeval`` from the repository root in a real process."""
    done = subprocess.run(
        [sys.executable, "-m", "metaeval", *map(str, argv)], cwd=REPO, input=stdin, capture_output=True,
        timeout=TIMEOUT, env={**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}, preexec_fn=preexec,
    )  # fmt: skip
    return Result(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


def _mount_tmpfs(folder: Path, options: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")


@pytest.fixture
def tmpfs(tmp_path: Path):
    """A factory of small tmpfs mounts, unmounted at the end."""
    mounted: list[Path] = []

    def make(name: str, options: str) -> Path:
        folder = tmp_path / name
        _mount_tmpfs(folder, options)
        mounted.append(folder)
        return folder

    yield make
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _drop_file_capabilities() -> None:
    """In the child: give up root's right to ignore file permissions (CAP_DAC_OVERRIDE = 1,
    CAP_DAC_READ_SEARCH = 2) from the bounding set, so the exec'ed Python obeys chmod."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl")


def _can_drop_capabilities(tmp_path: Path) -> bool:
    secret = write(tmp_path / "probe-secret", "x")
    secret.chmod(0)
    try:
        probe = subprocess.run(["cat", str(secret)], capture_output=True, preexec_fn=_drop_file_capabilities)
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode != 0


@pytest.fixture
def unprivileged(tmp_path: Path):
    """``preexec_fn`` making a child subject to file permissions, or skip with the reason."""
    if os.geteuid() != 0:
        return None  # already subject to permissions
    if not _can_drop_capabilities(tmp_path):
        pytest.skip("cannot drop CAP_DAC_OVERRIDE here, so chmod cannot deny root")
    return _drop_file_capabilities


def one_line_error(result: Result, code: int, *fragments: str) -> str:
    return assert_error(result, code, *fragments)


# --- 1. faults of the machine ---------------------------------------------------------


def test_read_only_file_system_for_every_output(corpus, tmpfs):
    ro = tmpfs("ro", "ro,size=64k")
    one_line_error(metaeval("run", corpus, *FAST, "--out", ro / "out"), 1, str(ro / "out"), "read-only file system")
    one_line_error(metaeval("score", corpus, "-q", "-o", ro / "s.tsv"), 1, str(ro), "-o", "read-only file system")
    one_line_error(metaeval("score", corpus, "-q", "--cache-dir", ro / "cache"), 1, "cache", "read-only file system")
    assert leftovers(ro) == []


def test_disk_full_leaves_no_file_and_no_folder(corpus, tmpfs):
    full = tmpfs("full", "size=64k")
    write(full / "filler", os.urandom(60_000))
    result = metaeval("run", corpus, *FAST, "--out", full / "out")
    one_line_error(result, 1, "no space left on device")
    assert sorted(p.name for p in full.iterdir()) == ["filler"]  # no out/ folder, no temporary file
    result = metaeval("score", corpus, "-q", "-s", "char", "-m", "bleu", "-m", "chrf", "-o", full / "s.tsv")
    one_line_error(result, 1, "s.tsv", "no space left on device")
    assert sorted(p.name for p in full.iterdir()) == ["filler"]


def test_disk_full_in_the_cache_folder(corpus, tmpfs):
    full = tmpfs("cachefull", "size=8k")
    write(full / "filler", os.urandom(4096))
    big = make_corpus(corpus.parent / "big", hyps={f"s{i}": [f"句子{i}{j}" * 200 for j in range(4)] for i in range(3)}, esa={})
    result = metaeval("score", big, "-q", "--cache-dir", full)
    one_line_error(result, 1, str(full), "no space left on device")
    assert [p.name for p in full.iterdir()] == ["filler"]


def test_file_where_a_folder_is_expected_and_the_reverse(corpus, tmp_path):
    afile = write(tmp_path / "afile", "x\n")
    one_line_error(metaeval("run", corpus, *FAST, "--out", afile), 2, "afile", "is a file")
    result = metaeval("run", corpus, *FAST, "--out", afile / "sub")
    one_line_error(result, result.code, "afile")
    assert result.code in (1, 2)
    one_line_error(metaeval("score", corpus, "-q", "--cache-dir", afile), 1, "afile", "is a file")
    one_line_error(metaeval("score", corpus, "-q", "-o", tmp_path), 2, "is a folder")
    one_line_error(metaeval("correlate", "--scores", tmp_path, "--judgments", corpus / "judgments.tsv"), 1, "is a folder")
    one_line_error(metaeval("run", corpus, *FAST, "--judgments", tmp_path), 1, "is a folder")
    one_line_error(metaeval("leaderboard", tmp_path / "x.tsv"), 1, "no such file")
    (tmp_path / "dir.tsv").mkdir()
    one_line_error(metaeval("leaderboard", tmp_path / "dir.tsv"), 1, "dir.tsv", "is a folder")
    one_line_error(metaeval("score", corpus / "src.en", "-q"), 1, "src.en", "not a folder")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_fifo_or_device_as_input_does_not_block(corpus, tmp_path, kind):
    if kind == "fifo":
        special = tmp_path / "pipe.tsv"
        os.mkfifo(special)
    else:
        special = Path("/dev/zero")
    what = "FIFO" if kind == "fifo" else "character device"
    one_line_error(metaeval("correlate", "--scores", special, "--judgments", corpus / "judgments.tsv"), 1, str(special), what)
    one_line_error(metaeval("run", corpus, *FAST, "--judgments", special), 1, str(special), what)
    one_line_error(metaeval("run", corpus, *FAST, "--human-sys", special), 1, str(special), what)
    if kind == "fifo":
        one_line_error(metaeval("leaderboard", special), 1, str(special), what)
        os.replace(special, corpus / "systems" / "s4.zh")
        one_line_error(metaeval("score", corpus, "-q"), 1, "s4.zh", what)


@pytest.mark.parametrize("entry", ["folder", "dangling symlink", "fifo"])
def test_odd_entry_in_systems_is_named_never_dropped(corpus, entry):
    target = corpus / "systems" / "ghost.zh"
    if entry == "folder":
        target.mkdir()
    elif entry == "dangling symlink":
        target.symlink_to(corpus / "nowhere.zh")
    else:
        os.mkfifo(target)
    cause = {"folder": "is a folder", "dangling symlink": "broken symbolic link", "fifo": "FIFO"}[entry]
    for command in (("score", corpus, "-q"), ("run", corpus, *FAST), ("equivalence", corpus)):
        one_line_error(metaeval(*command), 1, "ghost.zh", cause)


def test_dangling_reference_or_docs_file_is_named(corpus):
    (corpus / "ref.B.zh").symlink_to(corpus / "gone")
    one_line_error(metaeval("score", corpus, "-q"), 1, "ref.B.zh", "broken symbolic link")
    (corpus / "ref.B.zh").unlink()
    (corpus / "docs.tsv").mkdir()
    one_line_error(metaeval("score", corpus, "-q"), 1, "docs.tsv", "is a folder")


def test_permission_denied_on_inputs_and_outputs(corpus, tmp_path, unprivileged):
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(locked, 0o555)
    system = corpus / "systems" / "s2.zh"
    system.chmod(0)
    try:
        one_line_error(metaeval("score", corpus, "-q", preexec=unprivileged), 1, "s2.zh", "permission denied")
        system.chmod(0o644)
        one_line_error(metaeval("run", corpus, *FAST, "--out", locked / "out", preexec=unprivileged), 1, "permission denied")
        one_line_error(metaeval("score", corpus, "-q", "-o", locked / "s.tsv", preexec=unprivileged), 1, "permission denied")
        one_line_error(metaeval("score", corpus, "-q", "--cache-dir", locked / "c", preexec=unprivileged), 1,
                       "permission denied")  # fmt: skip
        assert list(locked.iterdir()) == []
    finally:
        system.chmod(0o644)
        locked.chmod(0o755)


def test_out_is_checked_before_the_computation(corpus, tmpfs):
    """A read-only --out fails at once, before scoring: a slow metric would show otherwise."""
    ro = tmpfs("ro2", "ro,size=64k")
    result = metaeval("run", corpus, "-s", "char", "-m", "bleu", "--bootstrap", "200000", "-q", "--out", ro / "o")
    one_line_error(result, 1, "read-only file system")


# --- 2. resource bounds ---------------------------------------------------------------


@pytest.mark.parametrize("argv, fragment", [
    (("score", "{corpus}", "-q", "-m", "bleu:n=1000000"), "upper bound 100"),
    (("score", "{corpus}", "-q", "-m", "nist:n=101"), "upper bound 100"),
    (("score", "{corpus}", "-q", "-m", "chrf:char_order=10000"), "upper bound 100"),
    (("score", "{corpus}", "-q", "-m", "chrf:word_order=500"), "upper bound 100"),
    (("score", "{corpus}", "-q", "--jobs", "100000"), "at most 256"),
    (("run", "{corpus}", "-q", "--bootstrap", "10000000"), "at most 1,000,000"),
    (("equivalence", "{corpus}", "--max-char-order", "100000"), "at most 100"),
    (("equivalence", "{corpus}", "--max-word-order", "1000"), "at most 100"),
])  # fmt: skip
def test_size_options_have_upper_bounds(corpus, argv, fragment):
    one_line_error(metaeval(*[str(a).format(corpus=corpus) for a in argv]), 2, fragment)


def test_equivalence_at_the_largest_order_prints_no_warning_flood(corpus):
    result = metaeval("equivalence", corpus, "--max-char-order", "100")
    assert result.code == 0, result.err
    assert result.err.count("\n") <= 1, result.err


# --- 3. plug-ins ----------------------------------------------------------------------

HOSTILE = textwrap.dedent(
    '''
    class Base:
        name = "hostile"

        def __init__(self, mode="ok"):
            self.mode = mode

        def signature(self):
            if self.mode == "badsig":
                raise RuntimeError("no signature today")
            if self.mode == "intsig":
                return 42
            return "hostile|" + self.mode

        def __call__(self, text):
            mode = self.mode
            if mode == "raise":
                raise ValueError("cannot split")
            if mode == "exit":
                raise SystemExit(3)
            if mode == "none":
                return None
            if mode == "ints":
                return [1, 2, 3]
            if mode == "string":
                return text
            if mode == "spaces":
                return [text + " x"]
            if mode == "empties":
                return ["", "  ", "\\u3000"] + list(text.replace(" ", ""))
            return list(text.replace(" ", ""))

        def segment_many(self, texts):
            if self.mode == "short":
                return [self(t) for t in texts][:-1]
            return [self(t) for t in texts]


    def factory_raises(**options):
        raise RuntimeError("factory exploded")


    def factory_none(**options):
        return None
    '''
)


@pytest.fixture
def plugin_env(tmp_path: Path) -> dict:
    """A distribution registered by metadata only (a ``.dist-info`` folder on PYTHONPATH)."""
    site = tmp_path / "site"
    write(site / "mehostile.py", HOSTILE)
    info = site / "mehostile-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: mehostile\nVersion: 1.0\n")
    write(info / "entry_points.txt", "[metaeval.segmenters]\nhostile = mehostile:Base\n"
          "exploding = mehostile:factory_raises\nnothing = mehostile:factory_none\n")  # fmt: skip
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


@pytest.mark.parametrize("spec, fragments", [
    ("hostile:mode=raise", ["'hostile'", "ValueError", "cannot split"]),
    ("hostile:mode=exit", ["'hostile'", "SystemExit"]),
    ("hostile:mode=none", ["'hostile'", "NoneType"]),
    ("hostile:mode=ints", ["'hostile'", "int 1"]),
    ("hostile:mode=string", ["'hostile'", "str"]),
    ("hostile:mode=spaces", ["'hostile'", "whitespace inside"]),
    ("hostile:mode=short", ["'hostile'", "segmentations for"]),
    ("hostile:mode=badsig", ["'hostile'", "signature()", "no signature today"]),
    ("hostile:mode=intsig", ["'hostile'", "signature()", "int 42"]),
    ("exploding", ["'exploding'", "factory exploded"]),
    ("nothing", ["'nothing'", "NoneType"]),
])  # fmt: skip
def test_hostile_plugin_is_named_in_one_line(corpus, plugin_env, spec, fragments):
    result = metaeval("score", corpus, "-q", "-s", spec, env=plugin_env)
    one_line_error(result, 1, "plug-in", *fragments)
    assert "Traceback" not in result.err


def test_empty_and_whitespace_tokens_of_a_plugin_are_never_scored(corpus, plugin_env):
    """A plug-in adding empty and whitespace tokens scores exactly like one that does not."""
    clean = metaeval("score", corpus, "-q", "-l", "sys", "-s", "hostile", "-m", "bleu", env=plugin_env)
    noisy = metaeval("score", corpus, "-q", "-l", "sys", "-s", "hostile:mode=empties", "-m", "bleu", env=plugin_env)
    assert clean.code == noisy.code == 0, (clean.err, noisy.err)
    scores = lambda out: [line.split("\t")[6] for line in out.splitlines()[1:]]  # noqa: E731
    assert scores(clean.out) == scores(noisy.out) and scores(clean.out)
    seg = metaeval("segment", "-s", "hostile:mode=empties", "a b", env=plugin_env)
    assert seg.out.splitlines()[1] == "a b"


# --- 6. integrity ---------------------------------------------------------------------


def test_tampered_cache_entry_is_detected_and_recomputed(corpus, tmp_path):
    cache = tmp_path / "cache"
    first = metaeval("score", corpus, "-q", "-l", "sys", "--cache-dir", cache)
    assert first.code == 0, first.err
    [entry] = list(cache.glob("seg-*.jsonl"))
    [line] = entry.read_text(encoding="utf-8").splitlines()
    data = json.loads(line)
    text = next(t for t in data["tokens"] if "猫" in t)
    edited = " ".join(["狗"] * len(data["tokens"][text].split()))
    data["tokens"][text] = edited  # edited, digest left as it was
    entry.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    shutil.rmtree(cache / "stats")  # so that the run segments again rather than reading its statistics
    again = metaeval("score", corpus, "-q", "-l", "sys", "--cache-dir", cache)
    assert again.code == 0 and again.out == first.out  # the edit was not trusted
    assert f'"{edited}"' not in entry.read_text(encoding="utf-8")  # and the file was written again without it


def test_cache_entry_that_is_a_fifo_is_an_error(corpus, tmp_path):
    cache = tmp_path / "cache"
    assert metaeval("score", corpus, "-q", "--cache-dir", cache).code == 0
    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert any(p.name.startswith("seg-") for p in entries) and any(p.suffix == ".npz" for p in entries)
    for entry in entries:  # segmentations and per-segment statistics: whichever the run reads first
        entry.unlink()
        os.mkfifo(entry)
    one_line_error(metaeval("score", corpus, "-q", "--cache-dir", cache), 1, str(cache), "FIFO")


@pytest.mark.parametrize("name", ["tab\there", "new\nline", "cr\rname", " padded"])
def test_system_names_with_control_characters_are_refused(corpus, name):
    write(corpus / "systems" / f"{name}.zh", (corpus / "systems" / "s1.zh").read_bytes())
    result = metaeval("score", corpus, "-q")
    one_line_error(result, 1, "system name")


def test_system_name_with_a_tab_in_judgments_is_refused(corpus):
    write(corpus / "judgments.tsv", "seg_id,system,judge,kind,value\n1,\"s\t1\",j,esa,50\n")
    one_line_error(metaeval("run", corpus, *FAST, "--judgments", corpus / "judgments.tsv", "--judgments-format", "long"),
                   1)  # fmt: skip


def test_repeated_metric_or_segmenter_is_refused(corpus):
    one_line_error(metaeval("score", corpus, "-q", "-m", "bleu", "-m", "bleu"), 2, "metric 'bleu' given twice")
    one_line_error(metaeval("score", corpus, "-q", "-m", "bleu", "-m", "bleu:n=4"), 2, "given twice", "same signature")
    one_line_error(metaeval("score", corpus, "-q", "-s", "char", "-s", "char"), 2, "segmenter 'char' given twice")
    one_line_error(metaeval("score", corpus, "-q", "-s", "char", "-s", "char:nfkc=false"), 2, "given twice")


def test_bootstrap_one_is_refused(corpus):
    one_line_error(metaeval("run", corpus, "-s", "char", "-m", "bleu", "--bootstrap", "1", "-q"), 2, "--bootstrap", "undefined")


def test_invalid_utf8_on_segment_stdin(tmp_path):
    one_line_error(metaeval("segment", stdin="好\n".encode() + b"\xff\xfe\n"), 1, "standard input:2", "UTF-8")


# --- 5. text --------------------------------------------------------------------------


def test_options_of_one_segmenter_compared_in_one_run(corpus):
    result = metaeval("score", corpus, "-q", "-l", "sys", "-s", "char", "-s", "char:nfkc=true", "-s",
                      "char:graphemes=true")  # fmt: skip
    assert result.code == 0, result.err
    labels = {line.split("\t")[1] for line in result.out.splitlines()[1:]}
    assert labels == {"char", "char:nfkc=true", "char:graphemes=true"}


def test_cjk_char_does_not_unescape_entities(tmp_path):
    result = metaeval("segment", "-s", "cjk-char", "A&amp;B的")
    assert result.code == 0 and result.out.splitlines()[1] == "A & amp ; B 的"


def test_invisible_characters_do_not_change_char_scores(corpus):
    """A hypothesis with zero-width spaces, bidi marks, a BOM inside the line and variation
    selectors scores like the same hypothesis without them (README, "Characters")."""
    plain = metaeval("score", corpus, "-q", "-l", "sys", "-s", "char", "-s", "cjk-char", "-m", "chrf")
    system = corpus / "systems" / "s2.zh"
    noisy = "".join(line[:1] + "\u200b\u200e\ufeff" + line[1:] + "\n" for line in system.read_text().splitlines())
    system.write_text(noisy.replace("世", "世\ufe00"), encoding="utf-8")
    marked = metaeval("score", corpus, "-q", "-l", "sys", "-s", "char", "-s", "cjk-char", "-m", "chrf")
    assert plain.code == marked.code == 0, marked.err
    assert [line.split("\t")[6] for line in plain.out.splitlines()] == [line.split("\t")[6] for line in marked.out.splitlines()]


# --- no traceback anywhere --------------------------------------------------------------


def _broken_cases(corpus: Path, tmp_path: Path) -> dict[str, list]:
    bad = write(tmp_path / "bad.tsv", b"\xff\xfe\x00garbage")
    return {
        "list": [["list", "--frobnicate"]],
        "segment": [["segment", "-s", "nope", "x"], ["segment", "-s", "char:invisible=maybe", "x"]],
        "score": [["score", tmp_path / "absent"], ["score", corpus, "-m", "bleu:n=0"], ["score", corpus, "-o", tmp_path]],
        "correlate": [["correlate", "--scores", bad, "--judgments", bad], ["correlate", "--scores", tmp_path]],
        "run": [["run", corpus, "--judgments", bad], ["run", corpus, "--bootstrap", "1"]],
        "leaderboard": [["leaderboard", bad], ["leaderboard", write(tmp_path / "r.json", "[1, 2")]],
        "equivalence": [["equivalence", tmp_path / "absent"], ["equivalence", corpus, "--max-word-order", "0"]],
        "sweep": [["sweep", tmp_path / "absent"], ["sweep", corpus, "--frobnicate"]],
        "study": [["study", bad], ["study", write(tmp_path / "s.toml", '[study]\nout = 3\n')], ["study", tmp_path / "absent.toml"]],
        "systems": [["systems", corpus, "--judgments", bad], ["systems", tmp_path / "absent"], ["systems", corpus, "--alpha", "0"]],
    }


def test_every_subcommand_with_broken_inputs_gives_one_error_line(corpus, tmp_path):
    from metaeval.cli import build_parser

    parser = build_parser()
    commands = set(next(a for a in parser._actions if a.dest == "command").choices)  # noqa: SLF001
    cases = _broken_cases(corpus, tmp_path)
    assert commands <= set(cases), f"add broken inputs for {sorted(commands - set(cases))}"
    for command in sorted(commands):
        for argv in cases[command]:
            result = metaeval(*argv)
            assert result.code in (1, 2), (argv, result)
            one_line_error(result, result.code)


# --- 4. honest notes ------------------------------------------------------------------


def test_rank_statistics_do_not_depend_on_score_magnitude():
    """Scores near the float limit give the rank statistics of their ranks (scipy on the
    ranks is the oracle), and Pearson that of the scaled scores, not "constant"."""
    import numpy as np
    import scipy.stats

    from metaeval.stats.correlations import correlate_vectors

    huge = np.array([1e308, -1e308, 5e307, 0.0, 3e307, -7e307])
    human = np.array([6.0, 1.0, 5.0, 3.0, 4.0, 2.0])
    ranks = scipy.stats.rankdata(huge)
    assert correlate_vectors(huge, human, "spearman").value == pytest.approx(scipy.stats.spearmanr(ranks, human).statistic)
    assert correlate_vectors(huge, human, "kendall").value == pytest.approx(scipy.stats.kendalltau(ranks, human).statistic)
    assert correlate_vectors(huge, human, "pearson").value == pytest.approx(scipy.stats.pearsonr(huge / 1e308, human).statistic)


def test_threshold_that_skips_every_pair_says_so():
    import numpy as np

    from metaeval.stats.pairwise import consistency, pair_counts

    metric = np.array([[0.9, 0.8], [0.5, 0.4], [0.1, 0.2]])
    human = np.array([[90.0, 80.0], [60.0, 70.0], [10.0, 20.0]])
    result = consistency(pair_counts(metric, human, threshold=1000.0))
    assert result.value != result.value  # NaN: undefined
    text = json.dumps(result.__dict__, default=str)
    assert "threshold 1000 skipped all 6 judged pairs" in text and "tied by the human" not in text
