"""The ``skillshelf`` command line (SPEC C).

``skillshelf`` with no subcommand opens the TUI. Subcommands live in ``skillshelf.app.commands``;
each module provides ``add_parser(subparsers, common)`` and ``run(ns) -> int``.
Exit codes (SPEC C2): 0 success, 1 the command ran and found errors, 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from skillshelf import __version__
from skillshelf.app.commands import compare, debug, index, lint, resolve, tool, watch
from skillshelf.core.hosts import DEFAULT_HOST, host_names

#: The subcommands in help order: each module has ``add_parser(subparsers, common)`` and ``run(ns)``.
COMMANDS: tuple[ModuleType, ...] = (debug, index, lint, tool, watch, resolve, compare)


class _Parser(argparse.ArgumentParser):
    """argparse with SPEC C2's exit code 2 for usage errors (argparse's default already is 2)."""


def _tokens(value: str) -> int:
    """``--context-window``: a whole number of tokens, 0 or more (0 = unknown window, SPEC U1);
    a negative window used to be accepted and silently treated as unknown."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more tokens, got {n}")
    return n


def common_parser() -> argparse.ArgumentParser:
    """The COMMON options of SPEC C, as a parent parser."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("common options")
    g.add_argument("--cwd", metavar="DIR", default=None, help="working directory the host sees (default: current)")
    g.add_argument("--host", choices=host_names(), default=DEFAULT_HOST.name,
                   help=f"whose rules apply (default {DEFAULT_HOST.name})")
    g.add_argument("--context-window", metavar="TOKENS", type=_tokens, default=None,
                   help="model context window in tokens (drives the budgets, SPEC U)")
    g.add_argument("--path", metavar="DIR", action="append", default=[],
                   help="extra skills.paths entry (repeatable; appended after configured ones)")
    g.add_argument("--config", metavar="FILE", action="append", default=[],
                   help="extra configuration layer (highest precedence)")
    return p


def build_parser() -> argparse.ArgumentParser:
    """The full parser: TUI options at top level plus every subcommand."""
    common = common_parser()
    parser = _Parser(
        prog="skillshelf",
        description="See exactly which Agent Skills your coding agent will see, and fix what is wrong.",
        parents=[common],
    )
    parser.add_argument("--demo", action="store_true", help="open the TUI on a shipped demo workspace (copied to a temp dir)")
    parser.add_argument("--no-watch", action="store_true",
                        help="TUI: do not watch the skill roots for changes (refresh with r)")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``skillshelf`` console script; returns the process exit code."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.version:
        print(__version__)
        return 0
    if ns.command is None:
        # Imported here on purpose: Textual costs about a second to import, which no
        # subcommand needs (it is the only function-level import of the CLI).
        from skillshelf.app.tui import run_tui

        return run_tui(ns)
    try:
        return int(ns.run(ns) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
