"""``metaeval equivalence``: the Denoual-Lepage BLEU-in-characters analysis."""

from __future__ import annotations

import argparse
from pathlib import Path

from metaeval.cli.common import add_output_options, check_output, emit
from metaeval.errors import UsageError


def cmd_equivalence(args: argparse.Namespace) -> int:
    """``metaeval equivalence``: read the corpus, analyse, and write text, Markdown or JSON."""
    from metaeval import corpora
    from metaeval import segmenters
    from metaeval.equivalence import EquivalenceSettings, equivalence
    from metaeval.report.equivalence import render_equivalence

    try:
        settings = EquivalenceSettings(max_word_order=args.max_word_order, max_char_order=args.max_char_order)
    except ValueError as exc:
        raise UsageError(f"equivalence: {exc}") from None
    segmenters.check(args.word_segmenter)
    segmenters.check(args.char_segmenter)
    check_output(args)
    corpus, _ = corpora.read(Path(args.corpus), missing=args.missing)
    result = equivalence(corpus, args.word_segmenter, args.char_segmenter, settings)
    emit(render_equivalence(result, args.format), args.output, args.overwrite)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("equivalence", help="the Denoual-Lepage BLEU-in-characters analysis")
    p.add_argument("corpus", help="corpus folder (plain, mt-metrics-eval) or folder of NIST SGML files")
    p.add_argument("--word-segmenter", default="13a", help="segmenter of the word-level BLEU (default: 13a)")
    p.add_argument("--char-segmenter", default="char", help="segmenter of the character-level BLEU (default: char)")
    p.add_argument("--max-word-order", type=int, default=4, help="largest word n-gram order N (default: 4)")
    p.add_argument("--max-char-order", type=int, default=30, help="largest character n-gram order M searched (default: 30)")
    p.add_argument("--missing", choices=("error", "skip", "empty"), default="error",
                   help="policy for segments a system lacks (default: error)")
    add_output_options(p, ("text", "markdown", "json", "latex"), "text")
    p.set_defaults(func=cmd_equivalence)


__all__ = ["add_parser", "cmd_equivalence"]
