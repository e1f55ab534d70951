"""``--by COLUMN``: every statistic and the answer per value of a column of docs.tsv, beside the
whole test set (subset ``all``). Each subset's rows must equal a run on a corpus made of that
subset's segments alone (written here as files, with system scores derived from its judgments),
so the intervals come from resampling the segments of the value only."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from metaeval.cli import main
from tests.golden_util import DATA

ZH = DATA / "wmt24-esa" / "en-zh"
SYSTEMS = ("Aya23", "GPT-4", "IKUN", "ONLINE-B")
RUN = ("-s", "char", "-s", "jieba", "-m", "bleu", "--bootstrap", "60", "-q", "-j", "1")
NUMBERS = ["value", "epsilon", "ci_low", "ci_high", "n", "p_value", "concordant", "discordant", "metric_ties", "human_ties"]

pytestmark = pytest.mark.skipif(not ZH.is_dir(), reason=f"shared data not found: {ZH}")


def write_corpus(out: Path, lines: list[int], human_sys: bool = True, docs: bool = True) -> Path:
    """WMT24 en-zh's lines ``lines`` (0-based), renumbered 1.., with their judgments."""
    (out / "systems").mkdir(parents=True)
    for name in ("src.en", "ref.refA.zh"):
        text = (ZH / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (out / name).write_text("".join(text[i] for i in lines), encoding="utf-8")
    for system in SYSTEMS:
        text = (ZH / "systems" / f"{system}.zh").read_text(encoding="utf-8").splitlines(keepends=True)
        (out / "systems" / f"{system}.zh").write_text("".join(text[i] for i in lines), encoding="utf-8")
    new_id = {str(i + 1): str(k + 1) for k, i in enumerate(lines)}
    judged = pd.read_csv(ZH / "judgments.tsv", sep="\t", dtype=str, keep_default_na=False)
    judged = judged[judged.seg_id.isin(new_id) & judged.system.isin(SYSTEMS)].copy()
    judged["seg_id"] = judged.seg_id.map(new_id)
    judged.to_csv(out / "judgments.tsv", sep="\t", index=False)
    if human_sys:
        given = pd.read_csv(ZH / "human_sys.tsv", sep="\t")
        given[given.system.isin(SYSTEMS)].to_csv(out / "human_sys.tsv", sep="\t", index=False)
    if docs:
        table = pd.read_csv(ZH / "docs.tsv", sep="\t", dtype=str)
        table = table[table.seg_id.isin(new_id)].copy()
        table["seg_id"] = table.seg_id.map(new_id)
        table.sort_values("seg_id", key=lambda s: s.astype(int)).to_csv(out / "docs.tsv", sep="\t", index=False)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Six segments of each of the four domains, and for each domain a corpus of its segments alone."""
    root = tmp_path_factory.mktemp("by")
    docs = pd.read_csv(ZH / "docs.tsv", sep="\t", dtype=str)
    chosen = pd.concat([rows.head(6) for _, rows in docs.groupby("domain", sort=True)])
    chosen = chosen.assign(line=chosen.seg_id.astype(int) - 1).sort_values("line")
    whole = write_corpus(root / "whole", list(chosen.line))
    alone = {domain: write_corpus(root / domain, list(rows.line), human_sys=False, docs=False)
             for domain, rows in chosen.groupby("domain", sort=True)}  # fmt: skip
    return {"whole": whole, "alone": alone, "root": root}


def results_of(capsys, *argv: str) -> pd.DataFrame:  # noqa: ANN001
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return pd.read_csv(io.StringIO(captured.out), sep="\t", keep_default_na=False, na_values=[""])


def numbers(table: pd.DataFrame) -> pd.DataFrame:
    keys = ["metric", "segmenter", "judgment_kind", "level", "statistic", "grouping"]
    return table.sort_values(keys, kind="mergesort")[keys + NUMBERS].reset_index(drop=True)


def test_each_domain_is_the_run_on_its_segments_alone_and_all_the_plain_run(corpus, capsys):
    by = results_of(capsys, "run", str(corpus["whole"]), *RUN, "-f", "tsv", "--by", "domain")
    assert list(dict.fromkeys(by.subset)) == ["all", "literary", "news", "social", "speech"]
    plain = results_of(capsys, "run", str(corpus["whole"]), *RUN, "-f", "tsv")
    pd.testing.assert_frame_equal(numbers(by[by.subset == "all"]), numbers(plain))
    for domain, folder in corpus["alone"].items():
        alone = results_of(capsys, "run", str(folder), *RUN, "-f", "tsv")
        mine = by[by.subset == domain]
        pd.testing.assert_frame_equal(numbers(mine), numbers(alone), obj=domain)
        assert set(mine.loc[mine.level == "sys", "sys_human"]) <= {"derived"}  # given system scores cover every domain


def test_the_answer_is_given_per_domain(corpus, capsys, tmp_path):
    capsys.readouterr()
    code = main(["run", str(corpus["whole"]), *RUN, "--by", "domain", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0
    head = out.split("Answer: character level")[1].splitlines()[2]
    assert head.split()[0] == "domain"  # the answer's first column is the --by column
    answer = pd.read_csv(tmp_path / "out" / "answer.tsv", sep="\t", keep_default_na=False)
    assert list(answer.columns[:2]) == ["dataset", "subset"]
    for domain in ("all", "literary", "news", "social", "speech"):
        rows = answer[answer.subset == domain]
        assert len(rows) > 0 and any(line.startswith(domain + " ") for line in out.splitlines()), domain
        seg = rows[rows.level == "seg"]
        assert (seg.n_unit == "segments").all()
    assert (tmp_path / "out" / "charts" / "esa.seg.pearson.news.png").is_file()
    assert (tmp_path / "out" / "charts" / "esa.seg.pearson.png").is_file()  # the whole test set keeps its name


def test_an_unknown_column_fails_before_segmenting_naming_the_file_and_its_columns(corpus, capsys, monkeypatch):
    import metaeval.api

    def no_scoring(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("scored before the column was checked")

    monkeypatch.setattr(metaeval.api, "score_corpus", no_scoring)
    capsys.readouterr()
    code = main(["run", str(corpus["whole"]), *RUN, "--by", "genre"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [
        f"metaeval: error: {corpus['whole'] / 'docs.tsv'}: no column 'genre' to group segments by; its columns: orig_line, domain, doc_id"
    ]


def test_a_corpus_without_docs_tsv_names_the_option_that_gives_one(corpus, capsys):
    code = main(["run", str(corpus["alone"]["news"]), *RUN, "--by", "domain"])
    err = capsys.readouterr().err
    assert code == 2 and "has no docs.tsv" in err and "--docs FILE" in err
    short = corpus["root"] / "short-docs.tsv"
    short.write_text("seg_id\tdomain\n1\tnews\n2\tnews\n", encoding="utf-8")
    code = main(["run", str(corpus["alone"]["news"]), *RUN, "--by", "domain", "--docs", str(short)])
    assert code == 1 and f"{short}: no domain for segment(s) 3" in capsys.readouterr().err


def test_a_value_named_all_is_refused(corpus, capsys, tmp_path):
    docs = pd.read_csv(corpus["whole"] / "docs.tsv", sep="\t", dtype=str)
    docs.loc[docs.index[0], "domain"] = "all"
    path = tmp_path / "docs.tsv"
    docs.to_csv(path, sep="\t", index=False)
    code = main(["run", str(corpus["whole"]), *RUN, "--by", "domain", "--docs", str(path)])
    err = capsys.readouterr().err
    assert code == 1 and "has the value 'all', which names the whole test set" in err


def test_correlate_takes_the_column_from_docs(corpus, capsys, tmp_path):
    scores = tmp_path / "scores.tsv"
    assert main(["score", str(corpus["whole"]), "-s", "char", "-m", "bleu", "--level", "seg,sys", "-q", "-j", "1", "-o", str(scores)]) == 0
    common = ["correlate", "--scores", str(scores), "--judgments", str(corpus["whole"] / "judgments.tsv"), "--bootstrap", "60"]
    capsys.readouterr()
    assert main([*common, "--by", "domain"]) == 2
    assert "--by domain needs the file of segments that holds the column: --docs FILE" in capsys.readouterr().err
    assert main([*common, "--by", "genre", "--docs", str(corpus["whole"] / "docs.tsv")]) == 2
    assert "no column 'genre'" in capsys.readouterr().err
    by = results_of(capsys, *common, "--by", "domain", "--docs", str(corpus["whole"] / "docs.tsv"))
    assert set(by.subset) == {"all", "literary", "news", "social", "speech"}
    # the news rows are correlate's on the news segments' scores and judgments alone
    docs = pd.read_csv(corpus["whole"] / "docs.tsv", sep="\t", dtype=str)
    news = set(docs.seg_id[docs.domain == "news"])
    table = pd.read_csv(scores, sep="\t", dtype={"seg_id": str}, keep_default_na=False)
    table[table.seg_id.isin(news)].to_csv(tmp_path / "news.tsv", sep="\t", index=False)
    judged = pd.read_csv(corpus["whole"] / "judgments.tsv", sep="\t", dtype=str, keep_default_na=False)
    judged[judged.seg_id.isin(news)].to_csv(tmp_path / "news-judgments.tsv", sep="\t", index=False)
    alone = results_of(capsys, "correlate", "--scores", str(tmp_path / "news.tsv"), "--judgments",
                       str(tmp_path / "news-judgments.tsv"), "--bootstrap", "60")
    pd.testing.assert_frame_equal(numbers(by[by.subset == "news"]), numbers(alone))


def test_a_study_takes_the_column_from_its_file_or_the_command_line(corpus, capsys, tmp_path):
    spec = tmp_path / "study.toml"
    spec.write_text(f'[study]\nsegmenters = ["char", "jieba"]\nmetrics = ["bleu"]\nbootstrap = 40\nlevels = ["seg"]\n\n'
                    f'[[dataset]]\npath = "{corpus["whole"]}"\nby = "domain"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["study", str(spec), "--out", str(tmp_path / "a"), "-q", "-j", "1"]) == 0
    answer = pd.read_csv(tmp_path / "a" / "answer.tsv", sep="\t", keep_default_na=False)
    assert list(dict.fromkeys(answer.subset)) == ["all", "literary", "news", "social", "speech"]
    assert main(["study", str(spec), "--out", str(tmp_path / "b"), "-q", "-j", "1", "--by", "doc_id"]) == 0
    answer = pd.read_csv(tmp_path / "b" / "answer.tsv", sep="\t", keep_default_na=False)
    assert answer.subset.nunique() > 5 and "literary" not in set(answer.subset)
    capsys.readouterr()
    assert main(["study", str(spec), "--out", str(tmp_path / "c"), "-q", "-j", "1", "--by", "genre"]) == 2
    assert f"{spec}: study.by: {corpus['whole'] / 'docs.tsv'}: no column 'genre'" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_paired_comparisons_are_made_per_subset(corpus, capsys, tmp_path):
    out = tmp_path / "comparisons.tsv"
    capsys.readouterr()
    assert main(["run", str(corpus["whole"]), *RUN, "--by", "domain", "--statistic", "seg:pearson",
                 "--comparisons", str(out)]) == 0
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert list(table.columns[:2]) == ["dataset", "subset"]
    assert list(dict.fromkeys(table.subset)) == ["all", "literary", "news", "social", "speech"]


def test_each_subset_is_evaluated_on_the_kinds_judged_in_it_in_the_order_asked():
    import numpy as np

    from metaeval.corpora.model import Judgments
    from metaeval.scoretable import ConfigScores
    from metaeval.subsets import Subsets, evaluate_subsets, unit_sizes

    seg_ids = ["1", "2", "3", "4"]
    rows = [(seg, system, "", kind, 1.0) for seg in seg_ids for system in ("a", "b") for kind in ("esa", "esa_z")
            if kind == "esa" or seg in ("1", "2")]  # fmt: skip
    judgments = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    scores = np.arange(8.0).reshape(2, 4)
    config = ConfigScores(metric="m", segmenter="char", config="m+char", systems=["a", "b"], seg_ids=seg_ids,
                          seg_scores=scores, sys_scores=scores.mean(1), higher_is_better=True)  # fmt: skip
    subsets = Subsets(column="domain", members={"news": ("1", "2"), "web": ("3", "4")})
    asked = []

    def evaluate(configs, judged, kinds):
        asked.append((configs[0].seg_ids, list(kinds)))
        return pd.DataFrame(), np.zeros((0, 1))

    out = evaluate_subsets(subsets, [config], judgments, ["esa_z", "esa"], evaluate)
    assert [value for value, _, _ in out] == ["news", "web"]
    assert [(list(ids), kinds) for ids, kinds in asked] == [(["1", "2"], ["esa_z", "esa"]), (["3", "4"], ["esa"])]
    # without subsets, the whole test set is the one unit, named ""
    assert unit_sizes(None, seg_ids, {"1": "d1", "2": "d1", "3": "d2", "4": "d2"}) == {("", "seg"): 4, ("", "doc"): 2}
