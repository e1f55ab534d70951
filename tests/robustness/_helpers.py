"""Builders and checks for the robustness suite: tiny corpora, a CLI result, leftovers.

Every corpus here is small (a few segments, 2-3 systems) so the suite stays fast; the
real-data corpus is the first 30 lines of the shared WMT24 ESA en-zh folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("METAEVAL_SHARED", REPO / ".." / "shared")).resolve()
WMT24_ZH = SHARED / "data" / "wmt24-esa" / "en-zh"
REAL_SYSTEMS = ("GPT-4", "Aya23", "IKUN")
N_REAL = 30

#: Cheap options for ``metaeval run``: one segmenter, one metric, few resamples, no bar.
FAST = ("-s", "char", "-m", "bleu", "--bootstrap", "20", "-q")

#: the exit status of an interrupted command seen from its parent: 130, or death by SIGINT
#: (-2), which CPython chooses at exit when it saw the KeyboardInterrupt itself while running
#: code of the process (the command had handled it: its message is printed, nothing written);
#: a shell shows both as 130
INTERRUPTED = (130, -2)

SRC = ["The cat sat.", "It rains today.", "Hello world.", "Good night."]
REF = ["猫坐着。", "今天下雨。", "你好，世界。", "晚安。"]
HYPS = {
    "s1": ["猫坐着。", "今天下雨。", "你好世界。", "晚安。"],
    "s2": ["一只猫坐。", "今天有雨。", "世界你好。", "晚上好。"],
    "s3": ["狗跑了。", "明天晴。", "再见。", "早上好。"],
}
#: ESA-like scores: s1 best, s3 worst on every segment.
ESA = {"s1": [90, 80, 85, 95], "s2": [60, 70, 50, 65], "s3": [10, 20, 15, 5]}


def write(path: Path, content: "str | bytes") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def lines(texts: list[str]) -> str:
    return "".join(t + "\n" for t in texts)


def judgments_tsv(esa: dict[str, list[float]]) -> str:
    rows = ["seg_id\tsystem\tjudge\tkind\tvalue"]
    for system, values in esa.items():
        rows += [f"{i}\t{system}\tj1\tesa\t{v}" for i, v in enumerate(values, start=1)]
    return lines(rows)


def make_corpus(root: Path, hyps: dict[str, list[str]] | None = None, esa: dict | None = None) -> Path:
    """A plain corpus folder with ``judgments.tsv``; defaults: 4 segments, systems s1-s3."""
    hyps = HYPS if hyps is None else hyps
    write(root / "src.en", lines(SRC[: len(next(iter(hyps.values())))]))
    write(root / "ref.A.zh", lines(REF[: len(next(iter(hyps.values())))]))
    for name, texts in hyps.items():
        write(root / "systems" / f"{name}.zh", lines(texts))
    esa = {k: v for k, v in ESA.items() if k in hyps} if esa is None else esa
    if esa:
        write(root / "judgments.tsv", judgments_tsv(esa))
    return root


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def assert_error(result: Result, code: int, *fragments: str) -> str:
    """A failed command: exit ``code``, empty stdout, one ``metaeval: error:`` line that
    contains every fragment. Returns the message."""
    assert result.code == code, (result.code, result.err)
    assert result.out == ""
    err = result.err.rstrip("\n")
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("metaeval: error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def leftovers(folder: Path) -> list[str]:
    """Every file under ``folder`` (temporary files included), as relative paths."""
    if not folder.exists():
        return []
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())

