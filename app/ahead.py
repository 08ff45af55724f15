"""The first catalog's check of the last run's kept build, made on a second core while the TUI
starts (:func:`start`, :func:`take`).

A warm start of the TUI loads the build the last run kept and checks it against the files (the
scan proofs, then one ``stat`` per skill file: ~0.2 s at 10,000 skills) before the list is
complete. That check depends only on the kept build and the files, so a child forked before the
TUI imports Textual (no thread runs yet: :func:`skillshelf.core.forked.ahead`) makes it while
this process imports and draws the interface; the first build adopts it when it is about the
very state the build loads itself (:meth:`~skillshelf.core.hosts.base.HostSession.check_ahead`),
and checks by itself otherwise (no fork on this system, no kept build, a late child).

A file changed after the child checked it and before the first build is no different from one
changed right after the build checked it: the watcher rescans every root once its watch is in
place, and ``r`` rescans.
"""

from __future__ import annotations

import os
from argparse import Namespace

from skillshelf.core.forked import Ahead

__all__ = ["start", "take"]

_pending: dict[str, Ahead] = {}


def start(ns: Namespace) -> None:
    """Start the check for the catalog the TUI run with parsed options ``ns`` opens first
    (:func:`~skillshelf.app.tui.app_for` opens it with the same inputs). Nothing for
    ``--demo`` (a fresh workspace, nothing kept) or ``--no-cache``. Call it before anything
    starts a thread."""
    if ns.demo or ns.no_cache or _pending:
        return
    from skillshelf.core import forked
    from skillshelf.core.parsecache import default_cache_dir
    from skillshelf.core.paths import Environment

    cwd = os.path.abspath(ns.cwd or os.getcwd())
    env = Environment.from_mapping(None)
    host = str(ns.host)
    paths, config_files = tuple(ns.path or ()), tuple(ns.config or ())
    cache_dir = default_cache_dir(env.xdg_cache_home)

    def work() -> object | None:
        from skillshelf.core.catalog import check_ahead  # (in the child: never imported here for this)

        return check_ahead(cwd, env=env, host=host, paths=paths, config_files=config_files, cache_dir=cache_dir)

    pending = forked.ahead(work)
    if pending is not None:
        _pending[host] = pending


def take(host: str) -> Ahead | None:
    """The check :func:`start` started for ``host``, once (``None``: none, or another host's,
    which is stopped)."""
    pending = _pending.pop(host, None)
    for other in list(_pending):
        _pending.pop(other).cancel()
    return pending
