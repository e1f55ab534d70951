"""The ``metaeval`` command. Thin: every subcommand, one module each, calls the public API.

Each subcommand's module (:data:`COMMANDS`) has an ``add_parser(sub)`` that declares it; a new
subcommand is a module with one and a line in :data:`COMMANDS`. The statistics options of
``run``, ``correlate``, ``sweep`` and ``study`` come from one table (:mod:`metaeval.cli.options`).

Exit status: 0 on success, 1 on bad data (one line naming the file and line or segment),
2 on bad usage. No traceback reaches the user for either.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Sequence, TextIO

from metaeval import __version__
from metaeval.cli import catalogue, correlate, equivalence, leaderboard, run, score, signals, study, sweep, systems
from metaeval.cli.common import Parser
from metaeval.cli.finish import end_process
from metaeval.compute import fewer_collections
from metaeval.errors import DataWarning, MetaevalError

#: The subcommands, in the order of ``metaeval --help``.
COMMANDS = (catalogue, score, correlate, run, leaderboard, sweep, systems, study, equivalence)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="metaeval", description="Meta-evaluation of MT metrics at character and word level.")
    parser.add_argument("--version", action="version", version=f"metaeval {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``metaeval`` command; returns the exit status.

    Without ``argv`` (the console script, ``python -m metaeval``) the command's signal handlers
    stay installed until the process exits; with an argument list (a test, a notebook) the
    caller's handlers are put back when it returns.

    Every failure ends in one ``metaeval: error:`` line: data and machine faults exit 1,
    usage errors 2, an interrupt 130. An unexpected exception is still reported in one line
    (set ``METAEVAL_TRACEBACK=1`` to see the traceback). As the process's own command, the
    process then ends without the interpreter's teardown (:func:`metaeval.cli.finish.end_process`).
    """
    restore_signal_handlers = signals.install_signal_handlers()
    try:
        parser = build_parser()
        with warnings.catch_warnings(), fewer_collections():
            warnings.simplefilter("always", DataWarning)
            warnings.showwarning = _show_warning
            status = _main(parser, argv)
    finally:
        signals.SIGNALS["running"] = False
        signals.cancel_redeliveries()
        if argv is not None:  # as the process's own command, the handlers stay until it exits
            restore_signal_handlers()
    return status if argv is not None else end_process(status)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    """A :class:`DataWarning` as one ``metaeval: warning:`` line; other warnings as Python shows them."""
    if issubclass(category, DataWarning):
        line = f"metaeval: warning: {message}"
        if "tqdm" in sys.modules:  # progress bars may be on screen: write the line above them
            from tqdm import tqdm

            tqdm.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=file or sys.stderr)


def _main(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    from metaeval.paths import forget_written

    forget_written()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return _interrupted()
    except BaseException as exc:
        if signals.SIGNALS["interrupted"] and not isinstance(exc, SystemExit):
            return _interrupted()  # an error the interrupt caused, not a cause of its own
        return _failure(exc)


def _interrupted() -> int:
    print(signals.interrupted_line(), file=sys.stderr)
    return 130


def _failure(exc: BaseException) -> int:
    """The exit status and the one error line of an exception that ended the command."""
    try:
        raise exc
    except MetaevalError as exc:
        detect = sys.modules.get("metaeval.corpora.detect")  # loaded if it raised; not imported (pandas) for other errors
        if detect is not None and isinstance(exc, detect.UnrecognisedJudgmentFormat):
            exc = exc.naming("--judgments-format FORMAT")
        return _fail(str(exc), exc.exit_code)
    except OSError as exc:
        from metaeval.paths import os_error_message

        return _fail(os_error_message(exc), 1)
    except MemoryError:
        return _fail("out of memory; use a smaller corpus, fewer --bootstrap samples or fewer --jobs", 1)
    except RecursionError:
        return _fail("input nested too deeply (recursion limit reached)", 1)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        if os.environ.get("METAEVAL_TRACEBACK"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        return _fail(f"internal error {type(exc).__name__}: {first} (please report it)", 1)


def _fail(message: str, code: int) -> int:
    """Print the one error line and return ``code``; control characters in the message (a
    newline in a file name...) are shown escaped, so it stays one line."""
    import unicodedata

    shown = "".join(
        repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in message
    )
    print("metaeval: error: " + shown, file=sys.stderr)
    return code


__all__ = ["COMMANDS", "build_parser", "main"]
