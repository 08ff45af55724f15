"""A one-shot command printed again from its kept output (:mod:`skillshelf.core.keptoutput`).

``skillshelf index`` and ``debug skill`` over a workspace whose every input provably holds
prints exactly what the same command printed last time, without building the catalog:
:func:`replay` runs before the command line is even parsed (the kept output is found by the
command line as typed, so nothing of the rest of skillshelf is imported for it), and
:class:`Keeper` records what a normal run writes, then keeps it beside the parse cache when the
host recorded a proof of everything its build read (``ParseCache.output_proof``). ``--no-cache``
keeps and replays nothing.
"""

from __future__ import annotations

import logging
import os
import sys
from argparse import Namespace
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from skillshelf.core import keptoutput

if TYPE_CHECKING:
    from skillshelf.core.hosts.base import HostContext

log = logging.getLogger(__name__)

__all__ = ["KEPT_COMMANDS", "Keeper", "depends_on", "keepable", "replay", "watch_context"]

#: First word of the command lines whose output can be kept (:func:`keepable` decides).
KEPT_COMMANDS = frozenset({"index", "debug"})


def _identity(argv: Sequence[str]) -> keptoutput.Identity | None:
    try:
        cwd = os.getcwd()
        ttys = (sys.stdout.isatty(), sys.stderr.isatty())
    except (OSError, ValueError, AttributeError):
        return None
    code = keptoutput.code_stamp([os.path.dirname(os.path.abspath(__file__))])
    return (code, tuple(argv), cwd, dict(os.environ), ttys)


def _file(argv: Sequence[str]) -> str | None:
    from skillshelf.core.parsecache import default_cache_dir
    from skillshelf.core.paths import Environment

    try:
        cwd = os.getcwd()
    except OSError:
        return None
    env = Environment.from_mapping(dict(os.environ))
    return keptoutput.kept_file(default_cache_dir(env.xdg_cache_home, env.home), argv, cwd)


def replay(argv: Sequence[str]) -> int | None:
    """Print the kept output of the command line ``argv`` (as typed, without the program name)
    and return its exit code, when one is kept for exactly this command line, working
    directory, environment, terminals and code and its host's proof holds; else ``None`` (the
    command then runs normally). Never raises for a bad or missing kept output."""
    # (common options may come first: a command line names one of these commands somewhere, and
    # only a command line that was kept has a kept output, whatever it names)
    if KEPT_COMMANDS.isdisjoint(argv) or any(a.startswith("--no-c") for a in argv):
        return None
    file = _file(argv)
    ident = _identity(argv)
    if file is None or ident is None:
        return None
    kept = keptoutput.load(file, ident)
    if kept is None:
        return None
    from skillshelf.core import fsprobe
    from skillshelf.core.hosts import output_proof_holds

    listed = output_proof_holds(kept.host, kept.proof, ident[3])
    if listed is None or not fsprobe.hold(kept.probes, listed):
        return None
    return kept.replay()


def keepable(ns: Namespace) -> bool:
    """Whether the output of the parsed command ``ns`` can be kept: ``index`` and ``debug
    skill``, with the parse cache in use (``debug skill`` tells what its lint looked at,
    :func:`depends_on`)."""
    if getattr(ns, "no_cache", True):
        return False
    return ns.command == "index" or (ns.command == "debug" and getattr(ns, "debug_what", None) == "skill")


def depends_on(asked: dict[tuple[str, str], Any] | None) -> None:
    """Tell the running command's :class:`Keeper` (if any) the file-system questions its output
    also depended on (:func:`skillshelf.core.fsprobe.recording`); ``None``: something it cannot
    record (then nothing is kept)."""
    from skillshelf.core import fsprobe

    keeper = _ACTIVE
    if keeper is None:
        return
    if asked is None or not fsprobe.provable(asked) or keeper.probes:
        keeper.unprovable = True  # (one record per command: a second one is not merged)
    else:
        keeper.probes = fsprobe.flat(asked)


class _Tee:
    """A standard stream that passes everything through and records each write."""

    def __init__(self, inner: TextIO, fd: int, writes: list[tuple[int, str]]) -> None:
        self._inner = inner
        self._fd = fd
        self._writes = writes

    def write(self, text: str) -> int:
        self._writes.append((self._fd, text))
        return self._inner.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno …
        return getattr(self._inner, name)


#: The keeper of the running command, told of each workspace the command opens.
_ACTIVE: Keeper | None = None


def watch_context(context: HostContext) -> None:
    """Tell the running command's :class:`Keeper` (if any) that ``context`` was opened."""
    if _ACTIVE is not None:
        _ACTIVE.contexts.append(context)


class Keeper:
    """Records what one command writes to stdout and stderr (passing it through), then keeps it
    (:meth:`keep`) when the command opened exactly one workspace whose host recorded a proof."""

    def __init__(self, argv: Sequence[str], ns: Namespace) -> None:
        self.argv = tuple(argv)
        self.host = str(ns.host)
        self.writes: list[tuple[int, str]] = []
        self.contexts: list[HostContext] = []
        self.probes: tuple[Any, ...] = ()
        #: the command said its output depends on something not recorded
        self.unprovable = False
        self._ident = _identity(argv)
        self._saved: tuple[TextIO, TextIO] | None = None

    def __enter__(self) -> Keeper:
        global _ACTIVE
        self._saved = (sys.stdout, sys.stderr)
        sys.stdout = _Tee(sys.stdout, 1, self.writes)
        sys.stderr = _Tee(sys.stderr, 2, self.writes)
        _ACTIVE = self
        return self

    def __exit__(self, *exc: object) -> None:
        global _ACTIVE
        _ACTIVE = None
        if self._saved is not None:
            sys.stdout, sys.stderr = self._saved
            self._saved = None

    def keep(self, code: int) -> bool:
        """Keep the recorded output with exit ``code``: written by the cache's writers when the
        command ends (:func:`skillshelf.core.forked.spawn`), else now; True when it is kept or
        handed to them (the host's proof, when it is made only then, may still refuse). Never
        raises."""
        if self._ident is None or len(self.contexts) != 1 or self.unprovable:
            return False
        store = self.contexts[0].cache
        if store is None:
            return False
        from skillshelf.core import cachelock, forked
        from skillshelf.core.hosts import get_host
        from skillshelf.core.parsecache import made

        host = get_host(self.host)
        proof = store.for_host(host.name, host.version).output_proof
        file = _file(self.argv)
        ident = self._ident
        if proof is None or file is None:
            return False
        merged: list[tuple[int, list[str]]] = []
        for fd, text in self.writes:
            if merged and merged[-1][0] == fd:
                merged[-1][1].append(text)
            else:
                merged.append((fd, [text]))
        writes = [(fd, "".join(parts)) for fd, parts in merged]
        probes = self.probes

        def write() -> bool:
            try:
                value = made(proof)
            except Exception:  # (a proof that could not be made: a bug, never the command's failure)
                log.exception("could not make the proof of the output kept in %s", file)
                return False
            return value is not None and keptoutput.keep(file, ident, keptoutput.KeptOutput(writes, code, host.name,
                                                                                           value, probes))

        if forked.available():  # (a run started before it is written waits for it: it holds the lock)
            cachelock.hold(os.path.dirname(os.path.dirname(file)))
        return forked.spawn(write) or write()
