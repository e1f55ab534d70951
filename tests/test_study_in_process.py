"""A study file read and run in this process: the [equivalence] table, study-wide keys a dataset
inherits, the signature of what was declared, and where files go."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaeval.errors import FileSystemError, UsageError
from metaeval.studies import compute_study, run_study, write_study
from metaeval.studyspec import load_spec
from tests.robustness._helpers import make_corpus, write
from tests.study_data import BASE

EQUIVALENCE = """
[study]
name = "orders"
data = "data"
analyses = ["correlations", "equivalence"]
segmenters = ["char"]
metrics = ["bleu"]
bootstrap = 20
seed = 7

[equivalence]
max_word_order = 2
max_char_order = 6
n_grades = 4

[[dataset]]
path = "a"
word_segmenters = ["jieba"]
"""


#: One dataset, ``tiny``, scored with char and BLEU.
TINY_STUDY = BASE + 'segmenters = ["char"]\nmetrics = ["bleu"]\n'


def spec_file(tmp_path: Path, text: str) -> Path:
    return write(tmp_path / "study.toml", text)


# --- [equivalence] ------------------------------------------------------------------------


def test_the_equivalence_table_sets_the_analysis(tmp_path, data):
    spec = load_spec(spec_file(tmp_path, EQUIVALENCE))
    assert (spec.equivalence.max_word_order, spec.equivalence.max_char_order, spec.equivalence.n_grades) == (2, 6, 4)
    assert spec.char_segmenter == "char"  # the default where the table does not name one
    named = load_spec(spec_file(tmp_path, EQUIVALENCE.replace("n_grades = 4", 'n_grades = 4\nchar_segmenter = "char:nfkc=true"')))
    assert named.char_segmenter == "char:nfkc=true"


def test_a_study_computes_the_equivalence_with_its_settings_and_reads_it_back_from_the_store(tmp_path, data):
    """The orders table covers N = 1..max_word_order and M = 1..max_char_order of the table; run
    again on the same store, the order scores are read back (hypothesis lengths included) and
    every number is the same."""
    spec = load_spec(spec_file(tmp_path, EQUIVALENCE))
    first = compute_study(spec, tmp_path / "store", jobs=1)
    assert [(d.name, name) for d, name, _ in first.equivalence] == [("a", "jieba")]
    orders = first.orders
    assert not orders.empty and set(orders["word_segmenter"]) == {"jieba"}
    ((_, _, result),) = first.equivalence
    assert result.signature["settings"]["n_grades"] == 4
    assert (result.correlations["N"].max(), result.correlations["M"].max()) == (2, 6) and len(result.correlations) == 12
    again = compute_study(spec, tmp_path / "store", jobs=1)
    ((_, _, stored),) = again.equivalence
    assert stored.lengths.equals(result.lengths) and stored.correlations.equals(result.correlations)
    assert again.orders.equals(orders)


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (("max_word_order = 2", "max_word_order = 0"), ["equivalence.max_word_order", "must be an integer >= 1, got 0"]),
        (("n_grades = 4", "n_grades = 1"), ["equivalence.n_grades", "n_grades must be at least 2"]),
        (('analyses = ["correlations", "equivalence"]', 'analyses = ["correlations"]'),
         ["equivalence: the table is given but study.analyses does not name \"equivalence\""]),
        (("\n[study]", "equivalence = 3\n[study]"),
         ["equivalence: expected a table [equivalence], got an integer 3"]),
    ],
    ids=["order-0", "one-grade", "not-an-analysis", "not-a-table"],
)  # fmt: skip
def test_a_bad_equivalence_table_names_its_key(tmp_path, data, edit, fragments):
    old, new = edit
    assert old in EQUIVALENCE
    text = EQUIVALENCE.replace(old, new)
    if new.startswith("equivalence = "):  # the key in place of the table
        text = text.replace("[equivalence]\nmax_word_order = 2\nmax_char_order = 6\nn_grades = 4\n", "")
    with pytest.raises(UsageError) as caught:
        load_spec(spec_file(tmp_path, text))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'study.toml'}: ")
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_a_study_without_datasets_says_none_were_given(tmp_path):
    with pytest.raises(UsageError, match=r"dataset: expected one or more \[\[dataset\]\] tables, got none$"):
        load_spec(spec_file(tmp_path, '[study]\nout = "out"\n'))


# --- study-wide keys ----------------------------------------------------------------------

STUDY = """
[study]
name = "wide"
data = "data"
segmenters = ["char"]
metrics = ["bleu"]
statistics = ["seg:pearson@none"]
bootstrap = 20
missing = "skip"
by = "domain"

[[dataset]]
path = "a"

[[dataset]]
path = "b"
statistics = ["sys:pearson"]
references = ["refA"]
"""


def test_study_wide_keys_reach_every_dataset_that_does_not_set_its_own(tmp_path, data):
    spec = load_spec(spec_file(tmp_path, STUDY))
    assert spec.settings["missing"] == "skip" and spec.settings["by"] == "domain"
    assert [spec.by_for(d) for d in spec.datasets] == ["domain", "domain"]
    declared = {d["name"]: d for d in run_signature(spec)["datasets"]}
    assert declared["a"]["segmenters"] == ["char"] and declared["a"]["statistics"] == ["seg:pearson@none"]
    assert declared["b"]["statistics"] == ["sys:pearson"] and declared["b"]["references"] == ["refA"]
    assert "references" not in declared["a"] and declared["a"]["by"] == "domain"


def run_signature(spec) -> dict:  # noqa: ANN001
    from metaeval.studies import StudyResult

    return StudyResult(spec).signature()


def test_a_datasets_own_statistics_are_the_ones_it_is_evaluated_with(tmp_path, data):
    spec = load_spec(spec_file(tmp_path, STUDY.replace('by = "domain"\n', "")))
    results = compute_study(spec, tmp_path / "store", jobs=1).results
    computed = {name: set(zip(rows["level"], rows["statistic"])) for name, rows in results.groupby("dataset")}
    assert computed == {"a": {("seg", "pearson")}, "b": {("sys", "pearson")}}


def test_with_two_datasets_the_workers_keep_their_models(tmp_path, data, monkeypatch):
    """Two datasets are enough for the second to need the first one's models again."""
    from metaeval import segmenting

    asked: list[bool] = []
    start = segmenting.start
    monkeypatch.setattr(segmenting, "start", lambda *a, keep_model=False, **k: (asked.append(keep_model), start(*a, **k))[1])
    compute_study(load_spec(spec_file(tmp_path, STUDY.replace('by = "domain"\n', ""))), tmp_path / "store", jobs=1)
    assert asked == [True, True]


def test_a_segmenter_a_dataset_names_is_checked_under_the_datasets_key(tmp_path, data):
    text = STUDY.replace('references = ["refA"]', 'references = ["A"]\nsegmenters = ["jeiba"]')
    with pytest.raises(UsageError, match=r"study\.toml: dataset\[1\]\.segmenters: .*jeiba"):
        load_spec(spec_file(tmp_path, text))


# --- where the files go ---------------------------------------------------------------------


def test_a_store_that_cannot_be_made_is_named_as_the_store(tmp_path):
    make_corpus(tmp_path / "tiny")
    spec = spec_file(tmp_path, TINY_STUDY)
    blocker = write(tmp_path / "blocker", "a file")
    with pytest.raises(FileSystemError, match="cannot create store folder"):
        run_study(spec, cache_dir=blocker / "store")


def test_writing_a_study_again_replaces_its_files(tmp_path):
    make_corpus(tmp_path / "tiny")
    spec = spec_file(tmp_path, TINY_STUDY)
    result = run_study(spec, out=tmp_path / "out")
    before = {p.name: p.read_bytes() for p in result.files}
    again = write_study(result, tmp_path / "out")
    assert sorted(p.name for p in again) == sorted(before) and {p.name: p.read_bytes() for p in again} == before
