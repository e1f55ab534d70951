"""Mutation testing of the number-producing code, and its summary.

    python tools/mutation.py run [MODULE ...] [--sample N] [--seed S]   # mutmut (long: hours for all)
    python tools/mutation.py rerun MODULE NAME ...                       # rerun mutants after adding tests
    python tools/mutation.py summary                                     # write tools/mutation-summary.md

Needs the ``mutation`` extra (``pip install -e ".[mutation]"``) and the shared data (``../shared``
or ``$METAEVAL_SHARED``: the golden tests skip without it and every metric mutant would survive).

Every module of ``metaeval/``, ``segmenters/`` and ``corpora/`` belongs to one group of
:data:`MODULES` (the files a part of a run is made of, such as the tie-aware statistics or the
segmenters); ``tests/test_mutation_groups.py`` keeps it so when a module is added. Each group
runs in its own copy of the repository under ``mutation-runs/<group>/`` with the
tests listed for it in :data:`MODULES` (mutmut then runs, for each mutant, only those of them
that call the mutated function). ``--sample N`` checks a seeded random sample of N mutants per
module instead of all of them; the summary says which.

A mutant is *killed* when a test fails, *survived* when every test passes. Survivors that
cannot change any result are listed with the reason in ``tools/mutation-equivalent.tsv``
(mutant name, reason) and counted as *equivalent*. Mutants that only change the ``--help``
text of an option (a string after ``help=`` or ``description=``) are not run: they change no
behaviour. numba-jitted kernels carry a decorator, and mutmut does not mutate decorated
functions: their Python callers are mutated, the kernels themselves are covered by the golden
tests against tercom, GTM and METEOR.

Not part of CI. It runs under ``nice -n 10`` so that other work goes first.
"""

from __future__ import annotations

import argparse
import ast
import csv
import fnmatch
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "mutation-runs"
SUMMARY = REPO / "tools" / "mutation-summary.md"
EQUIVALENT = REPO / "tools" / "mutation-equivalent.tsv"
PLANTED = REPO / "tools" / "mutation-planted.tsv"
PENDING = REPO / "tools" / "mutation-pending.tsv"


@dataclass(frozen=True)
class Module:
    files: tuple[str, ...]  # mutmut only_mutate globs
    names: tuple[str, ...]  # mutant name globs: the functions whose mutants are counted
    tests: tuple[str, ...]  # the tests run against it


#: The statistics of metaeval/stats/, by what they compute.
_ARRAY_STATISTICS = ("correlations", "weighted", "pairwise", "resampling", "significance", "grouping", "kendall", "reference")
_TIE_STATISTICS = ("calibration", "tallies", "human", "case", "checks", "result", "itemstore")
_PAIR_STATISTICS = ("syspairs", "clusters", "paired", "pairperm", "chance", "permuted", "discordant", "power", "adjust", "systems/*")
_RUN_STATISTICS = ("evaluate", "registry", "settings", "defaults", "__init__")
#: The files of metaeval/segmenters/ in its group (feature_index has its own).
_SEGMENTER_FILES = ("__init__", "_deps", "base", "bytelevel", "cache", "characters", "chasen_adapter", "cjk", "digests", "ja_extra",
                    "jieba_adapter", "mecab_adapter", "optional", "pkuseg_adapter", "pkuseg_features", "registry", "simple",
                    "subword", "thulac_adapter")  # fmt: skip
#: Top-level modules of metaeval/, by the part of a run they serve.
_ANSWER = ("answer", "doclevel", "subsets")
_SWEEP = ("sweep", "slope")
_STUDIES = ("studies", "studyspec", "systems", "systemrank/*")
_SCORING = ("scoring", "scoretable", "scoreresult", "segmenting", "store", "statsstore", "reuse", "compute", "lazyjit",
            "paths", "forms", "errors", "versions", "api", "__init__", "__main__")  # fmt: skip


def _group(folder: str, names: tuple[str, ...], tests: tuple[str, ...]) -> Module:
    """The files ``folder/NAME.py`` (or a subpackage ``NAME/*``) and the mutant names of their functions."""
    files = tuple(f"{folder}/{n}" if n.endswith("*") else f"{folder}/{n}.py" for n in names)
    package = folder.replace("/", ".")
    globs: list[str] = []
    for n in names:
        if n in ("__init__", "__main__"):  # mutmut names a package's own functions after the package
            globs += [f"{package}.x_*", f"{package}.x\u01c1*"] if n == "__init__" else [f"{package}.__main__.*"]
        else:
            globs.append(f"{package}.{n.replace('/', '.')}" if n.endswith("*") else f"{package}.{n}.*")
    return Module(files, tuple(globs), tests)


MODULES = {
    "metaeval/stats/ (statistics over arrays)": _group(
        "metaeval/stats", _ARRAY_STATISTICS,
        ("tests/test_correlation.py", "tests/test_correlation_edges.py", "tests/test_paired_tests.py", "tests/test_tiestats.py",
         "tests/test_pdp.py", "tests/test_grouped_p_values.py", "tests/test_cli_correlate_options.py", "tests/properties/"),
    ),
    "metaeval/stats/ (tie-aware statistics)": _group(
        "metaeval/stats", _TIE_STATISTICS,
        ("tests/test_tiestats.py", "tests/test_evaluate.py", "tests/test_evaluate_notes.py", "tests/test_statistics_registry.py",
         "tests/test_cli_correlate_options.py", "tests/properties/"),
    ),
    "metaeval/stats/ (system pairs, chance, power, adjustment)": _group(
        "metaeval/stats", _PAIR_STATISTICS,
        ("tests/test_chance.py", "tests/test_discordant.py", "tests/test_power.py", "tests/test_adjust.py", "tests/test_pairs_permutation.py",
         "tests/test_paired_tests.py", "tests/test_resample.py", "tests/systemrank/", "tests/test_cli_comparisons_options.py",
         "tests/properties/"),
    ),
    "metaeval/stats/ (a run)": _group(
        "metaeval/stats", _RUN_STATISTICS,
        ("tests/test_evaluate.py", "tests/test_cli_correlate_options.py", "tests/test_cli_comparisons_options.py",
         "tests/test_evaluate_notes.py", "tests/test_evaluate_paths.py", "tests/test_tiestats.py", "tests/test_statistics_registry.py",
         "tests/test_option_effects.py",
         "tests/test_cli.py::test_cache_dir_keeps_segmentations_and_changes_no_number"),
    ),
    "metaeval/ (answer, document level, subsets)": _group(
        "metaeval", _ANSWER,
        ("tests/test_answer.py", "tests/test_doclevel.py", "tests/test_by_subsets.py", "tests/report/test_at_chance.py",
         "tests/test_power.py", "tests/test_adjust.py"),
    ),
    "metaeval/ (sweep, slope)": _group("metaeval", _SWEEP, ("tests/test_sweep.py", "tests/test_slope.py")),
    "metaeval/ (studies, system leaderboards)": _group(
        "metaeval", _STUDIES, ("tests/test_study.py", "tests/test_study_in_process.py", "tests/systemrank/",
                               "tests/experiments/test_systems_results.py"),
    ),
    "metaeval/ (scoring, segmenting, store, API)": _group(
        "metaeval", _SCORING,
        ("tests/test_scoring.py", "tests/test_scoring_pieces.py", "tests/test_segmenting.py", "tests/test_store.py", "tests/test_api.py", "tests/test_paths.py",
         "tests/test_compute.py", "tests/test_lazyjit.py", "tests/test_parallel.py", "tests/test_combined_references.py",
         "tests/robustness/test_normalisation_forms.py", "tests/robustness/test_faults.py"),
    ),
    "metaeval/report/": Module(("metaeval/report/*",), ("metaeval.report.*",), ("tests/report/",)),
    # pkuseg's feature map in arrays and the heap it frees: run whole (156 mutants), after the groups beside them
    "metaeval/ (feature index, heap)": Module(
        ("metaeval/segmenters/feature_index.py", "metaeval/heap.py"), ("metaeval.segmenters.feature_index.*", "metaeval.heap.*"),
        ("tests/segmenters/test_feature_index.py", "tests/test_heap.py"),
    ),
    "metaeval/segmenters/": Module(
        tuple(f"metaeval/segmenters/{name}.py" for name in _SEGMENTER_FILES), ("metaeval.segmenters.*",),
        # not the tests that start Python processes (plug-ins pip-installed, quiet start-up): mutmut
        # sees no call in them, and its trampolines do not run in a process started elsewhere
        tuple(f"tests/segmenters/test_{m}.py" for m in ("byte", "cache", "cjk", "digests", "dictionary_segmenters", "extra_segmenters",
                                                        "pkuseg_features", "real_data", "simple", "subword"))
        + ("tests/segmenters/test_registry.py",
           "--deselect=tests/segmenters/test_registry.py::test_a_plugin_installed_beside_the_builtins_is_listed_and_breaks_no_registry_test"),
    ),
    "metaeval/corpora/": Module(
        ("metaeval/corpora/*",), ("metaeval.corpora.*",),
        ("tests/corpora/", "tests/robustness/test_input_files.py", "tests/robustness/test_hostile_files.py",
         "tests/robustness/test_judgment_format_hint.py"),
    ),
    "metaeval/equivalence.py": Module(("metaeval/equivalence.py",), ("metaeval.equivalence.*",),
                                      ("tests/test_equivalence.py", "tests/test_equivalence_edges.py")),
    "metaeval/metrics/": Module(
        ("metaeval/metrics/*",), ("metaeval.metrics.*",), ("tests/metrics/", "tests/test_golden_end_to_end.py"),
    ),
    "metaeval/cli/": Module(
        ("metaeval/cli/*",), ("metaeval.cli.*",),
        ("tests/test_cli_correlate_options.py", "tests/test_cli_comparisons_options.py", "tests/test_cli.py",
         "tests/test_cli_run_options.py", "tests/test_option_effects.py", "tests/robustness/test_command_lines.py",
         "tests/test_cli_in_process.py"),
    ),
    "experiments/": Module(
        ("experiments/li2011/__main__.py", "experiments/denoual2005/__main__.py"),
        # the analysis functions (not the pipelines run_dataset/run_all/main, the plots or runtime files,
        # which only the slow reruns reach)
        tuple(f"experiments.li2011.__main__.x_{f}__mutmut_*" for f in
              ("char_vs_word", "dataset_markdown", "headline", "summary_markdown", "references_markdown", "tie_rates",
               "ties_markdown"))
        + tuple(f"experiments.denoual2005.__main__.x_{f}__mutmut_*" for f in ("_tagged", "chars_per_word", "summary")),
        ("tests/experiments/",),
    ),
}
STATUS = {1: "killed", 3: "killed", 0: "survived", 33: "no tests", 5: "no tests", 34: "skipped", 36: "timeout",
          24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout", -9: "killed by signal", -11: "segfault",
          None: "not checked"}
KILLED = ("killed", "timeout", "killed by signal", "segfault")
#: creates mutants/ without running anything (the first steps of ``mutmut run``)
GENERATE = """
import os
import mutmut.__main__ as m
m.set_mutant_under_test("mutant_generation")
os.makedirs("mutants", exist_ok=True)
m.copy_src_dir(); m.copy_also_copy_files(); m.setup_source_paths(); m.create_mutants(2)
"""


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    shared = Path(env.get("METAEVAL_SHARED", REPO.parent / "shared")).resolve()
    if not (shared / "golden").is_dir():
        sys.exit(f"mutation: error: shared data not found at {shared} (set METAEVAL_SHARED)")
    env["METAEVAL_SHARED"] = str(shared)
    return env


def _prepare(label: str, module: Module) -> Path:
    """A fresh copy of the repository's files with mutmut configured for ``module``."""
    work = RUNS / _slug(label)
    shutil.rmtree(work, ignore_errors=True)
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for name in listed:
        source, target = REPO / name, work / _installed_path(name)
        if name.startswith("mutation-runs/") or not source.is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    _configure(work, module)
    return work


#: Folders of the repository installed as subpackages of metaeval (pyproject.toml, ``package-dir``).
MAPPED = ("segmenters", "corpora")


def _installed_path(name: str) -> str:
    """Where a file of the repository goes in the copy: ``segmenters/x.py`` as installed,
    ``metaeval/segmenters/x.py``, so that mutmut's ``mutants/metaeval`` holds every subpackage."""
    top = name.split("/", 1)[0]
    return f"metaeval/{name}" if top in MAPPED else name


def _configure(work: Path, module: Module) -> None:
    """Point mutmut's configuration in ``work`` at the module's files and tests."""
    text = (work / "pyproject.toml").read_text(encoding="utf-8")
    text = re.sub(r"only_mutate = \[.*?\]\n", f"only_mutate = {json.dumps(list(module.files))}\n", text, flags=re.DOTALL)
    text = re.sub(r"pytest_add_cli_args_test_selection = \[.*?\]\n",
                  f"pytest_add_cli_args_test_selection = {json.dumps(list(module.tests))}\n", text, flags=re.DOTALL)
    (work / "pyproject.toml").write_text(text, encoding="utf-8")


def _results(work: Path) -> dict[str, int | None]:
    """Exit code of every mutant: the last result kept in ``mutation-results.json``, updated by
    mutmut's own files (mutmut forgets earlier results when its test selection changes)."""
    fresh: dict[str, int | None] = {}
    for meta in sorted((work / "mutants").rglob("*.py.meta")):
        fresh.update(json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {}))
    kept = work / "mutation-results.json"
    out = json.loads(kept.read_text(encoding="utf-8")) if kept.exists() else {}
    out.update({k: v for k, v in fresh.items() if v is not None or k not in out})
    return out


def _keep_results(work: Path) -> None:
    (work / "mutation-results.json").write_text(json.dumps(_results(work), indent=0, sort_keys=True), encoding="utf-8")


def _function_sources(work: Path) -> dict[str, str]:
    """Mutated module source of every function variant, keyed by its mutant-style name."""
    sources: dict[str, str] = {}
    for path in (work / "mutants").rglob("*.py"):
        if path.name.startswith("test") or "tests" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if "__mutmut_" not in text:
            continue
        module = ".".join(path.relative_to(work / "mutants").with_suffix("").parts)
        lines = text.splitlines()  # (ast.get_source_segment rescans the whole file at every call)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and "__mutmut_" in node.name:
                sources[f"{module}.{node.name}"] = "\n".join(lines[node.lineno - 1 : node.end_lineno])
    return sources


def _changed_line(sources: dict[str, str], name: str) -> tuple[str, str] | None:
    """(original line, mutated line) of a one-line mutant."""
    orig = sources.get(re.sub(r"__mutmut_\d+$", "__mutmut_orig", name))
    mutated = sources.get(name)
    if orig is None or mutated is None:
        return None
    a, b = orig.splitlines()[1:], mutated.splitlines()[1:]
    if len(a) != len(b):
        return None
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    return diff[0] if len(diff) == 1 else None


def _help_text_only(change: tuple[str, str] | None) -> bool:
    """True when the mutant changes nothing but the text after help= or description=."""
    if change is None:
        return False
    old, new = change
    first = next(i for i, (x, y) in enumerate(zip(old, new)) if x != y) if old[: len(new)] != new[: len(old)] else min(len(old), len(new))
    marks = [m.end() for m in re.finditer(r"\b(help|description)=", old)]
    return any(first > mark for mark in marks) and not re.search(r"\b(default|choices|type|action)=", old[first:])


def run(labels: list[str], sample: int, seed: int, max_children: int) -> int:
    env = _env()
    for label in labels:
        module = MODULES[label]
        work = _prepare(label, module)
        print(f"mutation: {label}: generating mutants in {work}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", GENERATE], cwd=work, env=env, check=True, capture_output=True)
        names = sorted(n for n in _results(work) if any(fnmatch.fnmatch(n, glob) for glob in module.names))
        sources = _function_sources(work)
        help_only = [n for n in names if _help_text_only(_changed_line(sources, n))]
        candidates = [n for n in names if n not in set(help_only)]
        chosen = sorted(random.Random(seed).sample(candidates, sample)) if 0 < sample < len(candidates) else candidates
        plan = {"module": label, "generated": len(names), "help_text_only": len(help_only), "sample": sample,
                "seed": seed, "chosen": chosen}
        (work / "mutation-plan.json").write_text(json.dumps(plan, indent=1), encoding="utf-8")
        print(f"mutation: {label}: {len(names)} mutants, {len(help_only)} help-text only, running {len(chosen)}",
              file=sys.stderr, flush=True)
        code = subprocess.call(
            ["nice", "-n", "10", sys.executable, "-m", "mutmut", "run", *chosen, "--max-children", str(max_children)],
            cwd=work, env=env,
        )
        _keep_results(work)
        if code:
            print(f"mutation: {label}: mutmut exited with {code}", file=sys.stderr)
    return summary()


def rerun(label: str, names: list[str], max_children: int) -> int:
    work = RUNS / _slug(label)
    _keep_results(work)
    # which test calls which function is collected again: mutmut does not look into new tests of
    # a file it already knows
    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    _configure(work, MODULES[label])  # the current test selection
    # and the current tests, in the copy too (mutmut copies its tests/ into mutants/ again)
    for test_dir in dict.fromkeys(t.split("::")[0] for t in MODULES[label].tests):
        source = REPO / test_dir
        for target in (work / test_dir, work / "mutants" / test_dir):
            if source.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
    code = subprocess.call(["nice", "-n", "10", sys.executable, "-m", "mutmut", "run", *names,
                            "--max-children", str(max_children)], cwd=work, env=_env())
    _keep_results(work)
    return code or summary()


def _equivalent(path: Path = EQUIVALENT) -> dict[str, str]:
    """Mutant name -> reason, from a two-column TSV (``#`` starts a comment line)."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.reader(handle, delimiter="\t") if r and not r[0].startswith("#")]
    return {r[0]: r[1] for r in rows}


def summary() -> int:
    equivalent = _equivalent()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    lines = [
        "# Mutation testing summary",
        "",
        f"mutmut {_mutmut_version()} at commit `{commit}`: `python tools/mutation.py run --sample N --seed S`, then",
        "`summary`. *checked*: the mutants run (all, or a seeded random sample when the module has more);",
        "*help text*: mutants that change only an option's `--help` text, not run; *equivalent*: survivors",
        "that cannot change any result, each explained below. killed % = (killed + timeout) / (checked −",
        "equivalent). numba-jitted kernels are not mutated (mutmut skips decorated functions); the golden",
        "tests against tercom, GTM and METEOR cover them.",
        "",
        "The checked mutants are a seeded random sample (seed in the table): killed % is an estimate for",
        "all generated mutants of the module, given with its 95% Wilson score interval. A survivor killed",
        "by a test added after the first run counts as killed: run again by mutmut (`rerun`), or, shown as",
        "`+ n` in *killed*, checked by `verify`, which applies the mutant to a copy of the tree and runs the",
        "test named for it in `tools/mutation-pending.tsv` (a failing test kills it).",
        "",
        "| module | tests run against it | generated | help text | checked (seed) | killed | timeout | survived | equivalent | no tests | killed % | 95% interval |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    survivors, listed_equivalent = [], []
    by_file: dict[str, Counter] = {}
    for label, module in MODULES.items():
        work = RUNS / _slug(label)
        plan_path = work / "mutation-plan.json"
        if not plan_path.exists():
            lines.append(f"| {label} | | | | not run | | | | | | | |")
            continue
        plan = json.loads(plan_path.read_text(encoding="utf-8"))
        codes = _results(work)
        counts: Counter = Counter()
        for name in plan["chosen"]:
            status = STATUS.get(codes.get(name), f"exit {codes.get(name)}")
            if status in ("survived", "no tests") and _killed_by_pending(name):
                status = "killed by a new test"
            elif status in ("survived", "no tests") and name in equivalent:
                status = "equivalent"
                listed_equivalent.append(name)
            elif status == "survived":
                survivors.append(name)
            counts[status] += 1
            if status == "not checked":
                continue
            tally = by_file.setdefault(f"{label}\t{_module_of(name)}", Counter())
            tally["killed" if status in KILLED or status == "killed by a new test" else status] += 1
        checked = sum(v for k, v in counts.items() if k != "not checked")
        if checked == 0:  # mutmut stopped before its first mutant (its clean run of the tests failed)
            lines.append(f"| {label} | | {plan['generated']} | {plan['help_text_only']} | not run | | | | | | | |")
            continue
        killed = sum(counts[k] for k in KILLED)
        verified = counts["killed by a new test"]
        killed += verified
        base = checked - counts["equivalent"]
        pct = f"{100.0 * killed / base:.1f}" if base else "-"
        low, high = _wilson(killed, base)
        interval = f"{100 * low:.0f}–{100 * high:.0f}" if base else "-"
        sampled = (f"{checked} of {plan['generated'] - plan['help_text_only']} ({plan['seed']})" if plan["sample"]
                   else str(checked))
        if checked < len(plan["chosen"]):  # the run was stopped: the rest of the drawn sample was not run
            sampled += f"; run stopped, {len(plan['chosen']) - checked} of the {len(plan['chosen'])} drawn not run"
        tests = ", ".join(f"`{t}`" for t in module.tests)
        lines.append(
            f"| {label} | {tests} | {plan['generated']} | {plan['help_text_only']} | {sampled} | "
            f"{counts['killed']}{f' + {verified}' if verified else ''} | "
            f"{counts['timeout']} | {counts['survived']} | {counts['equivalent']} | {counts['no tests']} | {pct} | {interval} |"
        )
    if by_file:
        lines += ["", "## Per file", "",
                  "The sample of each group above, by the file its mutants were drawn from (a file with few",
                  "mutants can be absent from a group's sample of 60).", "",
                  "| group | module | checked | killed | survived | equivalent | no tests |", "|---|---|---:|---:|---:|---:|---:|"]
        for key in sorted(by_file, key=lambda k: (list(MODULES).index(k.split("\t")[0]), k)):
            label, name = key.split("\t")
            c = by_file[key]
            lines.append(f"| {label} | `{name}` | {sum(v for k, v in c.items() if k != 'not checked')} | {c['killed']} | "
                         f"{c['survived']} | {c['equivalent']} | {c['no tests']} |")
    if listed_equivalent:
        lines += ["", "## Equivalent mutants", "", "| mutant | why no result can change |", "|---|---|"]
        lines += [f"| `{n}` | {equivalent[n]} |" for n in sorted(listed_equivalent)]
    if survivors:
        pending = _equivalent(PENDING)
        lines += ["", "## Survivors not yet explained", "",
                  "Where a test meant to kill the mutant was added but the mutant has not been run against it yet,",
                  "the test is named (`tools/mutation-pending.tsv`).", ""]
        lines += [f"- `{n}`" + (f": {pending[n]}" if n in pending else "") +
                  (f" — with the mutant applied: {_pending_outcome(n)}" if _pending_outcome(n) else "") for n in sorted(survivors)]
    verified_names = sorted(n for n in _equivalent(PENDING) if _killed_by_pending(n))
    if verified_names:
        lines += ["", "## Killed by a test added after the run (`verify`)", ""]
        lines += [f"- `{n}`: {_equivalent(PENDING)[n]} — with the mutant applied: {_pending_outcome(n)}" for n in verified_names]
    lines += ["", "## Notes", "", *NOTES]
    lines += _planted_section()
    SUMMARY.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(line for line in lines if line.startswith("| metaeval") or line.startswith("| experiments")))
    return 0


def _planted_section() -> list[str]:
    """The summary's "Planted defects" section, from ``tools/mutation-planted.tsv``."""
    if not PLANTED.exists():
        return []
    with PLANTED.open(encoding="utf-8") as handle:
        rows = [r for r in csv.reader(handle, delimiter="\t") if r and not r[0].startswith("#")]
    lines = ["", "## Planted defects", "", "`python tools/mutation.py planted` applies each alone to a copy of the",
             "committed tree and runs the tests named:", "",
             "| defect | tests run | outcome | first failing test |", "|---|---|---|---|"]
    return lines + [f"| {r[0]} | {r[1]} | {r[2]} | `{r[3]}` |" if r[3] else f"| {r[0]} | {r[1]} | {r[2]} | |" for r in rows]


def _module_of(mutant: str) -> str:
    """The module a mutant's name belongs to: ``metaeval.stats.chance`` for
    ``metaeval.stats.chance.x_chance_levels__mutmut_3``, the package for its ``__init__``."""
    return re.split(r"\.x[_\u01c1]", mutant, maxsplit=1)[0]


def _has_runs() -> bool:
    """Whether this checkout holds mutmut's results of at least one module (``RUNS``)."""
    return any((RUNS / _slug(label) / "mutation-plan.json").exists() for label in MODULES)


def _update_planted_section() -> None:
    """Replace only the "Planted defects" section of the committed summary (no mutmut results here
    to rebuild the rest from)."""
    text = SUMMARY.read_text(encoding="utf-8")
    start = text.find("\n## Planted defects")
    head = text if start < 0 else text[:start]
    end = -1 if start < 0 else text.find("\n## ", start + 1)
    tail = "" if end < 0 else text[end:]
    SUMMARY.write_text(head.rstrip("\n") + "\n" + "\n".join(_planted_section()) + "\n" + tail.lstrip("\n"), encoding="utf-8")


NOTES = [
    "- Every module of `metaeval/`, `segmenters/` and `corpora/` is in one group (`tests/test_mutation_groups.py`",
    "  keeps it so); *Per file* shows which files each group's sample drew from. A group marked *not run* has no",
    "  run at this commit: the last sample of `metaeval/correlation.py`, `evaluate.py`, `equivalence.py`,",
    "  `metrics/`, `cli.py` and `experiments/` (commit `70da8c4`, before the statistics moved to",
    "  `metaeval/stats/` and the CLI to `metaeval/cli/`) is in this file's history.",
    "- *experiments/* counts the analysis functions of both studies (Li et al. 2011: `char_vs_word`,",
    "  `dataset_markdown`, `headline`, `summary_markdown`, `references_markdown`, `tie_rates`, `ties_markdown`;",
    "  Denoual & Lepage 2005: `_tagged`, `chars_per_word`, `summary`), not the pipelines (`main`, `run_dataset`,",
    "  `run_all`), plots and runtime files, which only the slow reruns of the studies reach.",
    "- mutmut runs against a mutant only the tests its stats run saw calling the mutated function, and it",
    "  sees calls in the test process only: a test that runs the console script in a subprocess is never",
    "  run against the mutant (\"no tests\"). `verify` runs the test named in `tools/mutation-pending.tsv`",
    "  on a copy of HEAD with the mutant applied, laid out as installed like the runs' copies.",
    "- Each module runs in its own copy of the tree, laid out as installed: `segmenters/` and `corpora/`",
    "  are copied to `metaeval/segmenters` and `metaeval/corpora`, so mutmut's `mutants/` holds them.",
    "- The mutants run are listed in `mutation-runs/<group>/mutation-plan.json` (not committed; the same seed",
    "  draws the same sample from the same source).",
]


def _pending_outcome(name: str) -> str:
    """The test outcome ``verify`` recorded for a survivor with a test added after its run."""
    if not PENDING.exists():
        return ""
    for row in csv.reader(PENDING.open(encoding="utf-8"), delimiter="\t"):
        if row and row[0] == name and len(row) > 2:
            return row[2]
    return ""


def _killed_by_pending(name: str) -> bool:
    """Whether ``verify`` saw the test added for ``name`` fail or error with the mutant applied
    (a mutant that breaks the import errors at collection), having seen it pass without it: a
    test failing on HEAD is recorded as such, not as a kill."""
    found = re.match(r"\d+ \w+(, \d+ \w+)*", _pending_outcome(name))  # pytest's counts come first
    if found is None:
        return False
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", found.group())}
    return bool(counts.get("failed") or counts.get("error") or counts.get("errors"))


def _extract_as_installed(folder: Path) -> None:
    """HEAD in ``folder``, laid out as installed (``segmenters/`` also as ``metaeval/segmenters``,
    as in the mutation runs' copies), so that the tests there import the copy's subpackages: an
    editable install of the repository would otherwise give ``metaeval.segmenters`` from its own
    checkout."""
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    for top in MAPPED:
        shutil.copytree(folder / top, folder / "metaeval" / top)


def _diff_target(diff: str) -> str | None:
    """The file a mutmut diff changes (its ``--- `` line), or None."""
    return next((line[4:].split("\t")[0] for line in diff.splitlines() if line.startswith("--- ")), None)


def _apply(folder: Path, diff: str) -> str | None:
    """Apply mutmut's diff of one function in ``folder``; the file's text before it, or None.

    mutmut numbers a hunk's lines from the function, and shows a method without its class's
    indentation, so ``patch`` fails on most of them: the hunk's old lines are found instead by
    their text, as whole lines at the one indentation where they occur exactly once."""
    lines = diff.splitlines()
    target = _diff_target(diff)
    if target is None or not (folder / target).is_file():
        return None
    body = [line for line in lines if line[:1] in (" ", "-", "+") and not line.startswith(("--- ", "+++ "))]
    old = [line[1:] for line in body if line[:1] in (" ", "-")]
    new = [line[1:] for line in body if line[:1] in (" ", "+")]
    text = (folder / target).read_text(encoding="utf-8")
    framed = f"\n{text}\n"  # whole lines only
    removed = [line[1:] for line in body if line[:1] == "-"]
    added = [line[1:] for line in body if line[:1] == "+"]
    # with the context first; then the changed lines alone, for a hunk whose context is a
    # docstring, which mutmut shows at the file's indentation while it dedents the code
    for before, after in ((old, new), (removed, added)):
        for indent in ("", "    ", "        "):
            block = "\n" + "\n".join(indent + line if line else line for line in before) + "\n"
            if before and framed.count(block) == 1:
                changed = framed.replace(block, "\n" + "\n".join(indent + line if line else line for line in after) + "\n")
                (folder / target).write_text(changed[1:-1], encoding="utf-8")
                return text
    return None


def verify(names: list[str] | None = None) -> int:
    """For each mutant in mutation-pending.tsv (or only ``names`` of them): run the test named
    for it on a copy of HEAD (it must pass there), apply the mutant's diff, run it again, record
    the outcome (mutmut itself runs only the
    tests its stats saw calling the function, so a rerun needs a full stats run of the module's
    tests)."""
    import tempfile

    env = _env()
    all_rows = [r for r in csv.reader(PENDING.open(encoding="utf-8"), delimiter="\t") if r and not r[0].startswith("#")]
    rows = [r for r in all_rows if not names or r[0] in names]
    with tempfile.TemporaryDirectory(prefix="metaeval-verify-") as tmp:
        _extract_as_installed(Path(tmp))

        def pytest(test: str) -> str:
            done = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
                                  cwd=tmp, env=env, capture_output=True, text=True)
            return re.sub(r" in [0-9.]+s.*", "", done.stdout.strip().splitlines()[-1])

        clean: dict[str, str] = {}
        for row in rows:
            name, test = row[0], row[1].split()[0]
            label = next(lb for lb, m in MODULES.items() if any(fnmatch.fnmatch(name, g) for g in m.names))
            shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=RUNS / _slug(label),
                                   capture_output=True, text=True).stdout
            diff = shown[shown.index("\n---") + 1 :] if "\n---" in shown else ""
            if test not in clean:
                clean[test] = pytest(test)  # a test that fails without the mutant proves nothing
            before = None if "failed" in clean[test] or "error" in clean[test] else _apply(Path(tmp), diff)
            if before is None:
                outcome = (f"the test fails without the mutant ({clean[test]})" if "failed" in clean[test] or "error" in clean[test]
                           else "the diff does not apply")
            else:
                outcome = pytest(test)
                (Path(tmp) / str(_diff_target(diff))).write_text(before, encoding="utf-8")
            row[2:] = [outcome]
            print(f"{name}\t{outcome}", flush=True)
    with PENDING.open("w", encoding="utf-8") as handle:
        handle.write("# mutant\ttest added to kill it\toutcome of the test with the mutant applied (python tools/mutation.py verify)\n")
        handle.writelines("\t".join(r) + "\n" for r in all_rows)
    return summary()


def _wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k / n (Wilson 1927)."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


#: Defects planted by hand, each of which some test must catch: (label, file, [(old, new, which
#: occurrence or None for all)], tests). The option ones make a statistics option change nothing:
#: dropped where the command line reads it, or where a statistic takes it.
OPTION_EFFECTS = ("tests/test_option_effects.py",)
PLANTS = [
    ("`2.0 * flipped` → `1.0 * flipped` (paired bootstrap p)", "metaeval/stats/significance.py",
     [("2.0 * flipped", "1.0 * flipped", None)], ("tests/test_paired_tests.py",)),
    ("every statistics option dropped where the command line reads it", "metaeval/cli/options.py",
     [("if value is not None:", "if value is None and False:", None)], OPTION_EFFECTS),
    ("`--tie-policy` hard-wired to its default in pairwise consistency", "metaeval/stats/registry.py",
     [("tie_policy=s.tie_policy", 'tie_policy="exclude"', None)], OPTION_EFFECTS),
    ("`--threshold` hard-wired to its default in pairwise consistency", "metaeval/stats/registry.py",
     [("threshold=s.threshold", "threshold=None", None)], OPTION_EFFECTS),
    ("the settings of a statistic not handed to it (`--average`, `--undefined`, `--fixed-epsilon`)", "metaeval/stats/evaluate.py",
     [("{o: getattr(settings, o) for o in entry.options}", "{}", None)], OPTION_EFFECTS),
    ("`--comparisons` tested on default settings", "metaeval/cli/options.py",
     [("compare_all(configs, judgments, results, args.compare, settings)", "compare_all(configs, judgments, results, args.compare)", None)],
     ("tests/test_cli_comparisons_options.py",)),
]


def _replace(text: str, old: str, new: str, which: int | None) -> str:
    if which is None:
        return text.replace(old, new)
    at = -1
    for _ in range(which + 1):
        at = text.index(old, at + 1)
    return text[:at] + new + text[at + len(old) :]


def planted() -> int:
    """Apply each planted defect alone to a copy of HEAD, run its tests, record the outcome."""
    import tempfile

    env = _env()
    rows = []
    with tempfile.TemporaryDirectory(prefix="metaeval-planted-") as tmp:
        _extract_as_installed(Path(tmp))
        for label, path, edits, tests in PLANTS:
            target = Path(tmp) / path
            original = target.read_text(encoding="utf-8")
            changed = original
            for old, new, which in edits:
                changed = _replace(changed, old, new, which)
            assert changed != original, label
            target.write_text(changed, encoding="utf-8")
            try:
                done = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
                                      cwd=tmp, env=env, capture_output=True, text=True)
            finally:
                target.write_text(original, encoding="utf-8")
            failed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED")]
            tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            outcome = f"caught: {re.sub(r' in [0-9.]+s.*', '', tail)}" if done.returncode == 1 and failed else f"NOT caught (exit {done.returncode})"
            rows.append((label, " ".join(f"`{t}`" if t.startswith("tests/") else t for t in tests), outcome, failed[0] if failed else ""))
            print("\t".join(rows[-1]), flush=True)
    with PLANTED.open("w", encoding="utf-8") as handle:
        handle.write("# defect\ttests run\toutcome\tfirst failing test (written by python tools/mutation.py planted)\n")
        handle.writelines("\t".join(r) + "\n" for r in rows)
    if _has_runs():
        summary()
    else:  # a fresh checkout: the committed summary stays, only its planted section is renewed
        _update_planted_section()
    return int(any(not r[2].startswith("caught") for r in rows))


def _mutmut_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mutmut")
    except PackageNotFoundError:
        return "(not installed)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run mutmut over the modules (all by default)")
    p.add_argument("modules", nargs="*", help=f"module labels: {', '.join(MODULES)}")
    p.add_argument("--sample", type=int, default=0, help="mutants per module, drawn at random (default 0: all)")
    p.add_argument("--seed", type=int, default=2011)
    p.add_argument("--max-children", type=int, default=2)
    p = sub.add_parser("rerun", help="rerun named mutants of one module with the current tests")
    p.add_argument("module")
    p.add_argument("names", nargs="+")
    p.add_argument("--max-children", type=int, default=2)
    sub.add_parser("summary", help="write the summary from the last runs")
    sub.add_parser("planted", help="check that the tests catch each planted defect (see PLANTS)")
    p = sub.add_parser("verify", help="run the tests named in mutation-pending.tsv with each mutant applied")
    p.add_argument("names", nargs="*", help="only these mutants (default: every one listed)")
    args = parser.parse_args(argv)
    labels = getattr(args, "modules", None) or ([args.module] if args.command == "rerun" else list(MODULES))
    unknown = [m for m in labels if m not in MODULES]
    if unknown:
        parser.error(f"unknown module {unknown[0]!r}; known: {', '.join(MODULES)}")
    if args.command == "run":
        return run(labels, args.sample, args.seed, args.max_children)
    if args.command == "rerun":
        return rerun(args.module, args.names, args.max_children)
    if args.command == "planted":
        return planted()
    if args.command == "verify":
        return verify(args.names)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
