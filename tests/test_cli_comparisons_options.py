"""``--comparisons`` tests the statistics that ``--tie-policy`` and ``--threshold`` define: the
values it compares are the hand-counted ones of tests/test_cli_correlate_options.py."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from metaeval.cli import main
from tests.test_cli_correlate_options import files  # noqa: F401 (fixture)

#: a second metric on the same segments, so that there is a pair of configurations to compare
OTHER = {1: (0.1, 0.5, 0.5), 2: (0.2, 0.9, 0.4), 3: (0.6, 0.3, 0.6), 4: (0.2, 0.4, 0.3)}


@pytest.mark.parametrize(
    "options, consistency",
    [([], 7 / 9), (["--tie-policy", "half"], 8 / 11), (["--threshold", "10", "--tie-policy", "discordant"], 4 / 6),
     (["--threshold", "10"], 4 / 5)],
)  # fmt: skip
def test_comparisons_use_the_tie_policy_and_threshold(capsys, files, tmp_path, options, consistency):  # noqa: F811
    with files["scores"].open("a", encoding="utf-8") as handle:
        for seg, values in OTHER.items():
            for system, value in zip("ABC", values):
                handle.write(f"other\tchar\t{system}\tseg\t{seg}\t{value}\n")
    out = tmp_path / "comparisons.tsv"
    argv = ["correlate", "--scores", str(files["scores"]), "--judgments", str(files["judgments"]), "--kind", "esa",
            "--statistic", "seg:consistency", "--bootstrap", "20", "--comparisons", str(out), *options]
    assert main(argv) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", comment="#")
    value = dict(zip(rows.config, rows.value))
    (test,) = pd.read_csv(out, sep="\t").itertuples()
    compared = {test.config_a: test.value_a, test.config_b: test.value_b}
    toy = next(c for c in compared if c.startswith("toy"))
    assert compared[toy] == pytest.approx(consistency, abs=1e-12)
    assert compared == pytest.approx({c: value[c] for c in compared}, abs=1e-12)
