"""The ``skillshelf`` command line (SPEC C).

``skillshelf`` with no subcommand opens the TUI. Subcommands live in ``skillshelf.app.commands``;
each module provides ``add_parser(subparsers, common)`` and ``run(ns) -> int``.
Exit codes (SPEC C2): 0 success, 1 the command ran and found errors, 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

from skillshelf.app.keptrun import KEPT_COMMANDS
from skillshelf.app.output import Guarded, OutputFailed, print_json, safe_output, standard_streams
from skillshelf.core.hosts import DEFAULT_HOST_NAME, host_names
from skillshelf.core.paths import working_directory

#: subcommand name -> module under skillshelf.app.commands
COMMANDS = {
    "debug": "debug",
    "index": "index",
    "lint": "lint",
    "tool": "tool",
    "watch": "watch",
    "resolve": "resolve",
    "enable": "manage",
    "undo": "undo",
    "compare": "compare",
}


class LazyChoices(Sequence[str]):
    """Option choices computed on first use (``value in choices``, help, errors), so building
    the parser imports nothing the command line does not need."""

    def __init__(self, compute: Callable[[], Sequence[str]]) -> None:
        self._compute = compute
        self._values: tuple[str, ...] | None = None

    def _all(self) -> tuple[str, ...]:
        if self._values is None:
            self._values = tuple(self._compute())
        return self._values

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, value: object) -> bool:
        return value in self._all()


class _Parser(argparse.ArgumentParser):
    """argparse with SPEC C2's exit code 2 for usage errors (argparse's default already is 2);
    the ``SystemExit`` of a usage error carries its message (``usage_message``), so a ``--json``
    command line gets its error document too (:func:`_parsed`)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        exc = SystemExit(2)
        exc.usage_message = message  # type: ignore[attr-defined]
        raise exc


def _parsed(parser: argparse.ArgumentParser, typed: list[str]) -> argparse.Namespace:
    """``parser.parse_args(typed)``; a usage error under ``--json`` also prints
    ``{"error": {"code": "usage", "message": …, "exit": 2}}`` on stdout, as every other failure
    of a ``--json`` command does. Raises ``SystemExit`` as argparse does."""
    try:
        return parser.parse_args(typed)
    except SystemExit as exc:
        message = getattr(exc, "usage_message", None)
        if message is not None and "--json" in typed:
            print_json({"error": {"code": "usage", "message": message, "exit": 2}})
        raise


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


class DefaultHost(str):
    """The ``--host`` value when none was given (equal to the default host's name); a command
    that treats an explicit ``--host`` differently (``lint``) tells them apart by this type."""


def common_parser(*, under_command: bool = False) -> argparse.ArgumentParser:
    """The COMMON options of SPEC C, as a parent parser. ``under_command``: the copy each
    subcommand gets, with no defaults of its own, so options given before the command
    (``skillshelf --host claude debug skill``) are kept rather than reset by the command's
    defaults (they were silently dropped); the top-level copy sets the defaults."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if under_command else value

    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("common options")
    g.add_argument("--cwd", metavar="DIR", default=default(None),
                   help="working directory the host sees (default: current)")
    g.add_argument("--host", choices=host_names(), default=default(DefaultHost(DEFAULT_HOST_NAME)),
                   help=f"whose rules apply (default {DEFAULT_HOST_NAME})")
    g.add_argument("--context-window", metavar="TOKENS", type=_tokens, default=default(None),
                   help="model context window in tokens (drives the budgets)")
    # a command's own --path / --config go to their own list (the command's namespace would
    # replace the one given before it); :func:`merged_options` appends them
    g.add_argument("--path", metavar="DIR", action="append", default=default([]),
                   dest="command_path" if under_command else "path",
                   help="extra skills.paths entry (repeatable; appended after configured ones)")
    g.add_argument("--config", metavar="FILE", action="append", default=default([]),
                   dest="command_config" if under_command else "config",
                   help="extra configuration layer (highest precedence)")
    g.add_argument("--no-cache", action="store_true", default=default(False),
                   help="read and parse every skill file (skip skillshelf's caches: parse cache, kept "
                        "outputs and pages, compiled dataclass code; not the texts found in a client's binary)")
    return p


def merged_options(ns: argparse.Namespace) -> argparse.Namespace:
    """``ns`` with the ``--path`` / ``--config`` given after the command appended to those given
    before it (in command-line order)."""
    for key in ("path", "config"):
        extra = vars(ns).pop(f"command_{key}", None)
        if extra:
            setattr(ns, key, [*getattr(ns, key, []), *extra])
    return ns


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
    command_common = common_parser(under_command=True)
    for modname in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(f"skillshelf.app.commands.{modname}").add_parser(sub, command_common)
    return parser


def console() -> NoReturn:
    """The ``skillshelf`` console script: :func:`main` over the command line, ending the
    process as soon as a one-shot command is done (:func:`_end`)."""
    sys.exit(main(ending=True))


def main(argv: Sequence[str] | None = None, *, ending: bool = False) -> int:
    """Run the command line ``argv`` (``None``: this process's); returns the exit code.
    ``ending``: this process ends with the command — a one-shot command then ends it itself,
    without waiting for its forked cache writers (:func:`_end`). Output that cannot be written
    (a full disk, a closed stdout) ends the command with 120 and
    ``skillshelf: writing the output failed: …`` on stderr; a diagnostic that cannot be written
    is dropped (it has nowhere else to go)."""
    standard_streams()
    safe_output()  # no skill text can make a write fail or emit invalid UTF-8 (SPEC C2)
    saved = sys.stdout, sys.stderr
    sys.stdout = Guarded(saved[0])
    sys.stderr = Guarded(saved[1], quiet=True)
    try:
        return _main(argv, ending=ending, plain=saved)
    except OutputFailed as exc:
        with contextlib.suppress(OSError, ValueError):
            saved[1].write(f"skillshelf: writing the output failed: {exc.error}\n")
            saved[1].flush()
        if ending:
            sys.stdout = sys.stderr  # (what was not written is lost: nothing is left to flush)
            _end(120)
        return 120
    except SystemExit as exc:  # (argparse: a usage error, --help)
        if not ending:
            raise
        code = _exit_code(exc)
    except BrokenPipeError:  # (a reader that has gone before the command ran: --version | true)
        if not ending:
            raise
        code = 0
    finally:
        sys.stdout, sys.stderr = saved
    _end(code)  # (its streams flushed as every command's are: a stdout that fails says so, 120)


def _exit_code(exc: SystemExit) -> int:
    """The exit code the interpreter gives ``exc`` (a message is written to stderr: 1)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    with contextlib.suppress(OSError, ValueError):
        print(exc.code, file=sys.stderr)
    return 1


def _main(argv: Sequence[str] | None, *, ending: bool, plain: tuple[TextIO, TextIO]) -> int:
    """:func:`main` with its streams guarded; ``plain``: the streams unguarded (the TUI's)."""
    typed = list(sys.argv[1:] if argv is None else argv)
    if not KEPT_COMMANDS.isdisjoint(typed):  # (common options may come before the command)
        from skillshelf.app.keptrun import replay

        try:
            kept = replay(typed)  # the same command over provably the same inputs: its kept output
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:  # (`skillshelf debug skill --json | head`)
            return 0
        if kept is not None:
            if ending:
                _end(kept)
            return kept
    parser = build_parser()
    ns = merged_options(_parsed(parser, typed))
    if ns.version:
        from skillshelf import __version__

        print(__version__)
        if ending:
            _end(0)
        return 0
    if ns.command is None:
        if not ns.demo:  # (the demo makes its own workspace)
            try:
                working_directory(ns.cwd)
            except OSError as exc:
                print(f"skillshelf: {exc}", file=sys.stderr)
                return 2
        try:
            from skillshelf.app import ahead

            sys.stdout, sys.stderr = plain  # (the terminal's: Textual's own)
            ahead.start(ns)  # on a second core, before Textual is imported (app/ahead.py)
            from skillshelf.app.tui import run_tui

            return run_tui(ns)
        except KeyboardInterrupt:  # (Ctrl-C before the TUI has the terminal: as the commands do)
            return 130
    one_shot = getattr(ns, "one_shot", True)
    collecting = gc.isenabled()
    if one_shot:
        from skillshelf.core import forked, parsecache

        parsecache.FREEZE_LOADED = True  # the process ends with the command (parsecache says why)
        forked.ENABLED = True  # nor does it run anything beside the command (forked says why)
        # A command builds its objects and ends: the collector's passes over them find no cycles
        # to free (peak RSS of index, debug and compare at 10,000 skills is the same without
        # them) and cost a tenth of a cold `index`. Memory freed by reference counting is
        # unaffected.
        gc.disable()
    keeper = None
    if one_shot:
        from skillshelf.app.keptrun import Keeper, keepable

        keeper = Keeper(typed, ns) if keepable(ns) else None
    waited = True  # (the cache writes are waited for, unless the command was cut short)
    try:
        with keeper if keeper is not None else contextlib.nullcontext():
            code = _run_json(ns) if getattr(ns, "json", False) else int(ns.run(ns) or 0)
            if keeper is not None:
                sys.stdout.flush()  # (a write that fails fails now: what was not written is never kept)
        if keeper is not None:
            keeper.keep(code)  # (written with the cache, after the output: it never delays it)
    except KeyboardInterrupt:
        code, waited = 130, False
    except BrokenPipeError:
        code, waited = 0, False
    except BaseException:
        _start_writes()
        raise
    finally:
        if one_shot:  # (a caller running main() in its own long process gets its collector back)
            parsecache.FREEZE_LOADED = False
            forked.ENABLED = False
            gc.unfreeze()
            if collecting and not ending:  # (a process that ends with the command never collects again)
                gc.enable()
    if ending and one_shot:
        _end(code)
    if waited:
        finish_cache_writes(getattr(ns, "save_wait", None))  # (a write in the background meanwhile)
    else:
        _start_writes()
    if ending:  # (`watch`: its streams flushed as a one-shot command's are, its saves waited for above)
        _end(code, saves=False)
    return code


def _start_writes() -> None:
    """Start the command's cache writes in a forked child without waiting for them (Ctrl-C, a
    reader that has gone, an error: what was read is still worth keeping), then let go of the
    cache's writer lock, which the child holds until it is done."""
    forked = sys.modules.get("skillshelf.core.forked")
    if forked is not None:
        with contextlib.suppress(KeyboardInterrupt):
            forked.start_pending()
    cachelock = sys.modules.get("skillshelf.core.cachelock")
    if cachelock is not None:
        cachelock.release()


def _end(code: int, *, saves: bool = True) -> NoReturn:
    """End a one-shot command's process with ``code``: the cache writes in threads finished,
    exit handlers run and the standard streams flushed, then the cache writers forked
    (:func:`skillshelf.core.forked.start_pending`) and left to finish on their own — they hold
    the cache's writer lock, so a run started meanwhile waits for them
    (:mod:`skillshelf.core.cachelock`) — but not the interpreter's teardown, which frees the
    command's objects one by one (tens of milliseconds at 10,000 skills). Output that cannot be
    written ends it with 120 and a message, as the interpreter's own exit would (a reader that
    has gone, ``| head``, is not an error); stderr that cannot be written changes nothing.
    ``saves`` False: the writes in threads were waited for as long as the command wants."""
    catalog = sys.modules.get("skillshelf.core.catalog")
    if catalog is not None and saves:
        with contextlib.suppress(KeyboardInterrupt):
            catalog.finish_saves(None, forked_writers=False)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError, OutputFailed) as exc:
            if stream is sys.stdout:  # (stderr that cannot be written: its notes are lost, the code stays)
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.write(f"skillshelf: writing the output failed: {getattr(exc, 'error', exc)}\n")
                    sys.stderr.flush()
                code = 120
    forked = sys.modules.get("skillshelf.core.forked")
    if forked is not None:
        with contextlib.suppress(KeyboardInterrupt):
            forked.start_pending()
    os._exit(code)


def finish_cache_writes(timeout: float | None) -> None:
    """Let the parse-cache writes of the catalogs this process opened finish (``timeout``
    seconds at most; ``None``: until done — a one-shot command's write is what makes the next
    run fast), then let go of the cache's writer lock
    (:func:`skillshelf.core.cachelock.release`); Ctrl-C stops waiting."""
    catalog = sys.modules.get("skillshelf.core.catalog")
    if catalog is not None:
        with contextlib.suppress(KeyboardInterrupt):
            catalog.finish_saves(timeout)
    cachelock = sys.modules.get("skillshelf.core.cachelock")
    if cachelock is not None:
        cachelock.release()


class _Recorded:
    """A standard stream that passes everything through and keeps what was written."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self._inner.write(text)

    def __getattr__(self, name: str) -> object:  # flush, isatty, encoding, fileno …
        return getattr(self._inner, name)


def _run_json(ns: argparse.Namespace) -> int:
    """Run a ``--json`` command so that its failure is one JSON document too: a command that
    fails (exit 1, or 2 for unusable input) without writing its own document prints
    ``{"error": {"code": "failed" | "usage", "message": <what it said on stderr>, "exit": N}}``
    (the message stays on stderr as well). Every command's failures thus stay parseable."""
    out, err = _Recorded(sys.stdout), _Recorded(sys.stderr)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        try:
            code = int(ns.run(ns) or 0)
        except SystemExit as exc:  # unusable input found while running (--cwd, --config)
            code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdout, sys.stderr = saved
    if code != 0 and not "".join(out.parts).strip():
        said = "".join(err.parts).strip()
        prefix = f"skillshelf {ns.command}: "
        sub = getattr(ns, "debug_what", None)
        long_prefix = f"skillshelf {ns.command} {sub}: " if sub else prefix  # `skillshelf debug agent: …`
        message = "\n".join(line.removeprefix(long_prefix).removeprefix(prefix).removeprefix("skillshelf: ")
                            for line in said.splitlines())
        print_json({"error": {"code": "usage" if code == 2 else "failed",
                              "message": message or f"{ns.command} failed", "exit": code}})
    return code


if __name__ == "__main__":  # pragma: no cover
    console()
