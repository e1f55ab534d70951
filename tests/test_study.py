"""``metaeval study SPEC.toml``: a study declared as data, checked before any work, and resumable.

Through the console script (real processes): a spec with a wrong key, type or name fails in one
line naming the file and the key; a study interrupted by SIGTERM and run again gives the same
bytes as an uninterrupted run; a rerun with one more metric computes only that metric's entries
of the store (the others are neither recomputed nor rewritten).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.robustness._helpers import INTERRUPTED, WMT24_ZH, lines, make_corpus, write
from tests.study_data import BASE, SYSTEMS
from tests.timing import communicate, popen, run, scaled, within

REPO = Path(__file__).resolve().parents[1]
OUTPUTS = ("results.tsv", "answer.tsv", "study.json")


def metaeval(*argv: "str | Path", cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return run([sys.executable, "-m", "metaeval", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def one_error_line(done: subprocess.CompletedProcess, code: int, *fragments: str) -> str:
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stdout == ""
    err = done.stderr.rstrip("\n")
    assert err.startswith("metaeval: error: ") and "\n" not in err and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def spec_text(metrics: list[str], out: str = "out", bootstrap: int = 1000) -> str:
    return f"""
[study]
name = "slices"
data = "data"
out = "{out}"
segmenters = ["char", "jieba"]
metrics = {json.dumps(metrics)}
statistics = ["default", "seg:kendall_acc23@item"]
bootstrap = {bootstrap}
seed = 7

[[dataset]]
path = "a"

[[dataset]]
name = "second"
path = "b"

[[dataset]]
path = "c"
segmenters = ["char", "char:nfkc=true", "jieba"]
"""


# --- the spec is checked before any work ------------------------------------------------

@pytest.mark.parametrize(
    "text, code, fragments",
    [
        (BASE.replace("bootstrap = 20", "bootstrap = 20\nfrobnicate = 1"), 2, ["study.frobnicate", "unknown key"]),
        (BASE.replace("bootstrap = 20", 'bootstrap = "many"'), 2, ["study.bootstrap", "expected an integer", "'many'"]),
        (BASE.replace("bootstrap = 20", "bootstrap = 1"), 2, ["study", "2 resamples"]),
        (BASE.replace("bootstrap = 20", 'segmenters = ["char", "jeiba"]'), 2, ["study.segmenters", "unknown segmenter 'jeiba'"]),
        (BASE + 'metrics = ["bleurt"]\n', 2, ["dataset[0].metrics", "bleurt"]),
        (BASE + 'statistics = ["seg:nonsense"]\n', 2, ["dataset[0].statistics", "seg:nonsense"]),
        (BASE + 'references = "A"\n', 2, ["dataset[0].references", "expected a list of strings"]),
        (BASE + '[[dataset]]\nname = "x"\n', 2, ["dataset[1].path", "missing"]),
        (BASE + '[[dataset]]\npath = "tiny"\n', 2, ["dataset", "'tiny' is given twice"]),
        ('[study]\nout = "out"\n', 2, ["[[dataset]]"]),
        ('[study]\n\n[[dataset]]\npath = "tiny"\n', 2, ["study.out", "--out"]),
        (BASE + "[analysis]\nx = 1\n", 2, ["analysis", "unknown table"]),
        (BASE.replace("bootstrap = 20", "bootstrap = = 20"), 1, ["not a valid TOML file", "line 3"]),
        (BASE.replace('"tiny"', '"absent"'), 1, ["absent", "not found", "dataset 'absent'"]),
    ],
    ids=["unknown-key", "wrong-type", "bootstrap-1", "unknown-segmenter", "unknown-metric", "unknown-statistic",
         "references-not-a-list", "dataset-without-path", "dataset-twice", "no-dataset", "no-out", "unknown-table",
         "toml-syntax", "missing-folder"],
)  # fmt: skip
def test_a_bad_spec_fails_in_one_line_naming_the_file_and_key(tmp_path, text, code, fragments):
    make_corpus(tmp_path / "tiny")
    spec = write(tmp_path / "study.toml", text)
    err = one_error_line(metaeval("study", spec, "-q"), code, *fragments)
    assert str(spec) in err
    assert not (tmp_path / "out").exists()  # nothing written, not even the store


def test_a_missing_spec_file_is_a_data_error(tmp_path):
    one_error_line(metaeval("study", tmp_path / "absent.toml"), 1, "absent.toml", "no such file")


def test_a_tiny_study_writes_its_outputs_from_the_spec(tmp_path):
    make_corpus(tmp_path / "tiny")
    spec = write(tmp_path / "study.toml", BASE + 'segmenters = ["char", "whitespace"]\nmetrics = ["bleu"]\n')
    done = metaeval("study", spec, "-q", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    verdict, _, written = done.stdout.partition(f"\nwrote {tmp_path / 'out'}:\n")
    assert written.split() == [str(tmp_path / "out" / name) for name in OUTPUTS]
    # the verdict first: one sentence per human score and level, with the dataset's size and its warnings
    assert verdict.splitlines()[0].startswith("Segment level (") and "warning: only" in verdict, verdict
    import pandas as pd

    results = pd.read_csv(tmp_path / "out" / "results.tsv", sep="\t")
    assert set(results.dataset) == {"tiny"} and set(results.segmenter) == {"char", "whitespace"}
    # s1 > s2 > s3 on every segment, and character BLEU orders them so
    spearman = results[(results.level == "sys") & (results.statistic == "spearman")].set_index("segmenter").value
    assert spearman["char"] == 1.0
    # the numbers of `metaeval run` with the same options (written to 6 significant digits)
    from metaeval.api import run as api_run

    run = api_run(tmp_path / "tiny", ["char", "whitespace"], ["bleu"], bootstrap=20, seed=12345).results
    assert list(results.statistic) == list(run.statistic) and list(results.segmenter) == list(run.segmenter)
    np.testing.assert_allclose(results.value.to_numpy(float), run.value.to_numpy(float), rtol=5e-6, equal_nan=True)
    study = json.loads((tmp_path / "out" / "study.json").read_text(encoding="utf-8"))
    assert study["datasets"] == [{"name": "tiny", "path": "tiny", "segmenters": ["char", "whitespace"], "metrics": ["bleu"]}]
    assert study["correlations"]["tiny"]["n_bootstrap"] == 20


# --- resumable by content hash ------------------------------------------------------------


def store_entries(store: Path) -> dict[str, tuple[int, int]]:
    """Every file of the store (relative path) with its inode and modification time: a file
    rewritten by ``os.replace`` gets a new inode."""
    return {str(p.relative_to(store)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(store.rglob("*")) if p.is_file()}


def entry_key(path: Path) -> str:
    with np.load(path, allow_pickle=False) as entry:
        return json.loads(entry["__header__"].tobytes().decode("utf-8"))["key"]


@pytest.mark.slow
def test_interrupted_study_resumes_to_the_bytes_of_an_uninterrupted_one(tmp_path, data):
    """Fresh with --jobs 1; interrupted after the first dataset, then resumed with --jobs 2."""
    for name in ("fresh", "resumed"):  # the same file name in two folders: study.json records it
        write(tmp_path / name / "study.toml", spec_text(["bleu", "chrf", "1-ter"]).replace('data = "data"', 'data = "../data"'))
    fresh = metaeval("study", tmp_path / "fresh" / "study.toml", "--jobs", "1")
    assert fresh.returncode == 0, fresh.stderr

    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = popen([sys.executable, "-m", "metaeval", "study", str(tmp_path / "resumed" / "study.toml"), "--jobs", "1"],
                    cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, interrupted=True)  # fmt: skip
    items = tmp_path / "resumed" / "out" / "store" / "items"
    deadline = time.monotonic() + scaled(300)
    while not (items.is_dir() and any(items.rglob("*.npz"))) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)  # the first dataset's correlations are stored; two datasets remain
    sent = time.monotonic()
    out, err = communicate(process, timeout=120)
    within(time.monotonic() - sent, 10, "stopping the study after SIGTERM")  # 1.1 to 2.3 s measured, with coverage
    assert process.returncode in INTERRUPTED, err
    assert "interrupted" in err and out == ""
    assert not any((tmp_path / "resumed" / "out" / name).exists() for name in OUTPUTS)  # no output before the end
    before = store_entries(tmp_path / "resumed" / "out" / "store")
    assert any(name.startswith("stats/") for name in before)

    resumed = metaeval("study", tmp_path / "resumed" / "study.toml", "--jobs", "2")  # the numbers do not depend on --jobs
    assert resumed.returncode == 0, resumed.stderr
    after = store_entries(tmp_path / "resumed" / "out" / "store")
    kept = [name for name in before if name.startswith(("stats/", "items/"))]
    assert kept and all(after[name] == before[name] for name in kept)  # what was stored was read, not recomputed
    for name in OUTPUTS:
        assert (tmp_path / "resumed" / "out" / name).read_bytes() == (tmp_path / "fresh" / "out" / name).read_bytes(), name


@pytest.mark.slow
def test_a_rerun_with_one_more_metric_computes_only_that_metric(tmp_path, data):
    from metaeval.metrics import get_metric

    spec = tmp_path / "study.toml"
    write(spec, spec_text(["bleu"], bootstrap=200))
    first = metaeval("study", spec, "--jobs", "1", "-q")
    assert first.returncode == 0, first.stderr
    store = tmp_path / "out" / "store"
    before = store_entries(store)
    old_results = (tmp_path / "out" / "results.tsv").read_text(encoding="utf-8")

    write(spec, spec_text(["bleu", "chrf"], bootstrap=200))
    second = metaeval("study", spec, "--jobs", "1", "-q")
    assert second.returncode == 0, second.stderr
    after = store_entries(store)
    assert all(after[name] == before[name] for name in before)  # nothing recomputed or rewritten
    new = sorted(set(after) - set(before))
    chrf = get_metric("chrf").signature()
    new_stats = [name for name in new if name.startswith("stats/")]
    new_items = [name for name in new if name.startswith("items/")]
    new_index = [name for name in new if name.startswith("items-index/")]
    assert sorted(new) == sorted(new_stats + new_items + new_index)  # no segmentation was added
    # chrF x (2 + 2 + 3 segmenters) x 4 systems, and one entry of correlations per new configuration
    assert len(new_stats) == (2 + 2 + 3) * len(SYSTEMS)
    assert all(entry_key(store / name).split("\n")[0] == chrf for name in new_stats)
    assert len(new_items) == len(new_index) == 2 + 2 + 3
    # the BLEU rows are the same numbers as before (rank and cluster now rank two metrics)
    import pandas as pd

    def bleu_rows(text: str) -> pd.DataFrame:
        from io import StringIO

        table = pd.read_csv(StringIO(text), sep="\t", keep_default_na=False, dtype=str)
        return table[table.metric == "bleu"].drop(columns=["rank", "cluster"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(bleu_rows((tmp_path / "out" / "results.tsv").read_text(encoding="utf-8")), bleu_rows(old_results))


def test_dataset_paths_resolve_against_the_data_folder(tmp_path, monkeypatch):
    from metaeval.studyspec import load_spec

    spec = write(tmp_path / "spec" / "study.toml", '[study]\ndata = "../d"\nout = "o"\n\n[[dataset]]\npath = "x/y"\n')
    monkeypatch.delenv("METAEVAL_DATA", raising=False)
    monkeypatch.delenv("METAEVAL_SHARED", raising=False)
    assert load_spec(spec).datasets[0].folder == (tmp_path / "d" / "x" / "y").resolve()
    assert load_spec(spec).out == tmp_path / "spec" / "o"
    monkeypatch.setenv("METAEVAL_SHARED", str(tmp_path / "shared"))
    assert load_spec(spec).datasets[0].folder == tmp_path / "shared" / "data" / "x" / "y"
    monkeypatch.setenv("METAEVAL_DATA", str(tmp_path / "elsewhere"))
    assert load_spec(spec).datasets[0].folder == tmp_path / "elsewhere" / "x" / "y"
    assert load_spec(spec, data=tmp_path / "given").datasets[0].folder == tmp_path / "given" / "x" / "y"
    local = write(tmp_path / "spec" / "local.toml", '[study]\nout = "o"\n\n[[dataset]]\npath = "x/y"\n')
    assert load_spec(local).datasets[0].folder == (tmp_path / "spec" / "x" / "y").resolve()


def test_reading_a_spec_without_check_builds_no_segmenter_or_metric(tmp_path):
    """``load_spec(check=False)`` reads the keys and their types only; the names are checked
    (segmenters and metrics built) by default."""
    from metaeval.errors import UsageError
    from metaeval.studyspec import load_spec

    text = '[study]\nout = "o"\nsegmenters = ["no-such-segmenter"]\nmetrics = ["bleu"]\nsample_rate = 1.0\n\n[[dataset]]\npath = "d"\n'
    spec = write(tmp_path / "study.toml", text)
    assert load_spec(spec, check=False).choices["segmenters"] == ("no-such-segmenter",)
    with pytest.raises(UsageError, match="no-such-segmenter"):
        load_spec(spec)


def test_default_in_statistics_stands_for_the_default_statistics():
    from metaeval.stats.registry import DEFAULT_STATISTICS
    from metaeval.studyspec import statistics_list

    assert statistics_list(("default", "seg:kendall_acc23@item")) == DEFAULT_STATISTICS + ("seg:kendall_acc23@item",)
    assert statistics_list(("sys:spearman",)) == ("sys:spearman",)
    assert statistics_list(None) is None



def test_the_readme_example_is_a_valid_study_file(tmp_path):
    from metaeval.studyspec import load_spec

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tail = readme[readme.index("<!-- study-example -->"):]
    block = tail[tail.index("```toml\n") + len("```toml\n"): tail.index("\n```", tail.index("```toml\n"))]
    assert len(block.splitlines()) <= 12
    spec = load_spec(write(tmp_path / "zh.toml", block + "\n"), data=WMT24_ZH.parent.parent)
    assert [d.folder for d in spec.datasets] == [WMT24_ZH]
    assert spec.choices["segmenters"] == ("char", "char:nfkc=true", "jieba", "pkuseg") and spec.out == tmp_path / "results" / "zh"


def test_a_study_reads_each_segmentation_file_once_and_holds_its_entries_joined(tmp_path, data, monkeypatch):
    """One segmentation cache for all datasets: a file is read once per study, not once per
    dataset, and its entries are held joined, as in the file."""
    from metaeval.segmenters.cache import SegmentationCache
    from metaeval.studies import compute_study
    from metaeval.studyspec import load_spec

    reads: list[str] = []
    read = SegmentationCache._read
    monkeypatch.setattr(SegmentationCache, "_read", lambda self, sig, entries: (reads.append(sig), read(self, sig, entries))[1])
    caches: list[SegmentationCache] = []
    init = SegmentationCache.__init__
    monkeypatch.setattr(SegmentationCache, "__init__", lambda self, *a, **k: (caches.append(self), init(self, *a, **k))[1])
    spec = load_spec(write(tmp_path / "study.toml", spec_text(["bleu"], bootstrap=20)), None)
    result = compute_study(spec, tmp_path / "out" / "store", jobs=1)
    assert len(result.runs) == 3 and len(caches) == 1
    assert sorted(reads) == sorted(set(reads)) and len(set(reads)) == 3  # char, jieba, char:nfkc=true
    held = [entry for entries in caches[0]._tokens.values() for entry in entries.values()]
    assert held and all(type(entry) is str for entry in held)
    again = compute_study(spec, tmp_path / "out" / "store", jobs=1)  # all from the store and the file
    for (_, first), (_, second) in zip(result.runs, again.runs):
        assert first.results.equals(second.results)


def test_the_workers_keep_segmentation_models_across_a_studys_datasets(tmp_path, data, monkeypatch):
    """With several datasets, a local pool's workers keep the models they load (the next dataset
    needs them again); a single run drops them, to score with less memory."""
    from metaeval import api, segmenting
    from metaeval.studies import compute_study
    from metaeval.studyspec import load_spec

    asked: list[bool] = []
    start = segmenting.start
    monkeypatch.setattr(segmenting, "start", lambda *a, keep_model=False, **k: (asked.append(keep_model), start(*a, **k))[1])
    spec = load_spec(write(tmp_path / "study.toml", spec_text(["bleu"], bootstrap=20)), None)
    compute_study(spec, tmp_path / "out" / "store", jobs=1)
    assert len(asked) == 7 and all(asked)  # 2 + 2 + 3 segmenters
    asked.clear()
    api.run(data / "a", ["char"], ["bleu"], bootstrap=20)
    assert asked == [False]


# --- what a dataset entry selects (in the process) -------------------------------------------


def test_a_datasets_systems_references_and_judgments_are_the_ones_evaluated(tmp_path):
    """``systems``, ``references`` and ``judgments`` of a ``[[dataset]]`` give the numbers of
    ``metaeval.api.run`` on that subset of the corpus with those judgments, and ``datasets=``
    runs the named ones only (an unknown name is a usage error naming the known ones)."""
    import pandas as pd

    from metaeval.api import read_corpus, read_judgments
    from metaeval.api import run as api_run
    from metaeval.errors import UsageError
    from metaeval.studies import run_study
    from tests.robustness._helpers import HYPS, judgments_tsv

    hyps = {**HYPS, "s4": ["猫坐着。", "今天下雨了。", "你好，世界。", "晚安。"]}
    make_corpus(tmp_path / "tiny", hyps, esa={"s1": [90, 80, 85, 95], "s2": [60, 70, 50, 65], "s3": [30, 20, 15, 25],
                                              "s4": [10, 5, 12, 8]})  # fmt: skip
    write(tmp_path / "tiny" / "ref.B.zh", lines(HYPS["s2"]))  # a second reference that s2 matches word for word
    # judgments of another file, of the three systems studied: s4 best, then s2, s1 (the folder's own: s4 worst)
    other = write(tmp_path / "other.tsv", judgments_tsv({"s1": [50, 55, 60, 52], "s2": [70, 72, 68, 75], "s4": [90, 95, 92, 91]}))
    spec = write(tmp_path / "study.toml", '[study]\nout = "out"\nbootstrap = 20\nsegmenters = ["char"]\nmetrics = ["bleu"]\n\n'
                 '[[dataset]]\nname = "all"\npath = "tiny"\n\n'
                 '[[dataset]]\nname = "part"\npath = "tiny"\nsystems = ["s1", "s2", "s4"]\nreferences = ["A"]\n'
                 'judgments = "other.tsv"\n')  # fmt: skip
    result = run_study(spec, datasets=["part"], jobs=1)
    assert [d.name for d, _ in result.runs] == ["part"]
    studied = pd.read_csv(tmp_path / "out" / "results.tsv", sep="\t")
    assert set(studied.dataset) == {"part"}
    corpus, own = read_corpus(tmp_path / "tiny")
    expected = api_run(corpus.subset(systems=["s1", "s2", "s4"], references=["A"]), ["char"], ["bleu"],
                       judgments=read_judgments(other), bootstrap=20, seed=12345)  # fmt: skip
    assert list(studied.statistic) == list(expected.results.statistic)
    np.testing.assert_allclose(studied.value.to_numpy(float), expected.results.value.to_numpy(float), rtol=5e-6, equal_nan=True)
    # the metric scores are those of the three systems against reference A alone (with B too, s2
    # would score 1 everywhere), so a study that ignored the keys differs
    scores = result.runs[0][1].scores
    pd.testing.assert_frame_equal(scores, expected.scores)
    assert sorted(scores.system.unique()) == ["s1", "s2", "s4"]
    whole = api_run(corpus, ["char"], ["bleu"], judgments=own, bootstrap=20, seed=12345).scores
    both_refs = whole[whole.system.isin(["s1", "s2", "s4"])].reset_index(drop=True)
    assert not np.allclose(both_refs.score.to_numpy(float), scores.score.to_numpy(float))
    # the other file's judgments, not the folder's, are the human side
    assert sorted(result.runs[0][1].judgments.table.system.unique()) == ["s1", "s2", "s4"]
    kinds = result.runs[0][1].judgments.table
    assert kinds[kinds.system == "s4"].iloc[:, -1].astype(float).min() >= 90
    with pytest.raises(UsageError, match=r"no dataset named 'parts'; datasets: all, part"):
        run_study(spec, datasets=["parts"], out=tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()
