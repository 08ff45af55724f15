"""The first catalog's check of the last run's kept build, or with none its reads, made on a
second core while the TUI starts (:func:`start`, :func:`take`).

A warm start of the TUI loads the build the last run kept and checks it against the files (the
scan proofs, then one ``stat`` per skill file: ~0.2 s at 10,000 skills) before the list is
complete. That check depends only on the kept build and the files, so a child forked before the
TUI imports Textual (no thread runs yet: :func:`skillshelf.core.forked.ahead`) makes it while
this process imports and draws the interface; the first build adopts it when it is about the
very state the build loads itself (:meth:`~skillshelf.core.hosts.base.HostSession.check_ahead`),
and checks by itself otherwise (no fork on this system, no kept build, a late child).

With nothing kept (the first start in a workspace, or the first after an upgrade) the child
reads ahead instead: it walks the roots and reads and parses every file the first build reads,
with a forked child of its own (it runs no thread), sending what it keeps every 200 files, then
lints each file the same way (:meth:`~skillshelf.core.hosts.base.HostSession.read_ahead`). The
first build, in this process's worker thread beside the interface, takes each file's entry from
what came (:meth:`~skillshelf.core.parsecache.ParseCache.feed`) and reads a file itself only
when it changed since, or never came; the views' lint of each row takes the child's too.

What the build keeps on the child's word is looked at again by the watcher once its watches are
in place (:meth:`~skillshelf.core.catalog.Catalog.changed_since_ahead`), so a file changed while
the TUI starts is shown like any later change. Without watching (``--no-watch``) the list is the
files as they were when the child looked, a few tenths of a second after ``skillshelf`` was
started (``r`` rescans).
"""

from __future__ import annotations

from argparse import Namespace

from skillshelf.core.forked import Ahead

__all__ = ["start", "take"]

_pending: dict[str, Ahead] = {}


def start(ns: Namespace) -> None:
    """Start the check for the catalog the TUI run with parsed options ``ns`` opens first
    (:func:`~skillshelf.app.tui.app_for` opens it with the same inputs). Nothing for
    ``--demo`` (a fresh workspace, nothing kept), ``--no-cache`` or a host without
    ``Feature.CHECK_AHEAD``. Call it before anything starts a thread."""
    if ns.demo or ns.no_cache or _pending:
        return
    from skillshelf.core.hosts import get_host
    from skillshelf.core.hosts.base import Feature

    host = str(ns.host)
    if Feature.CHECK_AHEAD not in get_host(host).features:  # (nothing kept to check)
        return
    from skillshelf.core import forked
    from skillshelf.core.parsecache import default_cache_dir
    from skillshelf.core.paths import Environment, working_directory

    try:
        cwd = working_directory(ns.cwd)  # (as app_for takes it)
        env = Environment.from_mapping(None)
        cache_dir = default_cache_dir(env.xdg_cache_home, env.home)
    except (OSError, ValueError):  # (a working directory gone: the TUI says so itself)
        return
    paths, config_files = tuple(ns.path or ()), tuple(ns.config or ())
    lint_target = get_host(host).lint_target

    def work() -> object | None:
        from skillshelf.core.catalog import check_ahead  # (in the child: never imported here for this)

        # the child ends with its work and runs no thread: it may fork a reader of its own
        forked.ENABLED = True
        return check_ahead(cwd, env=env, host=host, paths=paths, config_files=config_files, cache_dir=cache_dir,
                           read_ahead=True, lint_target=lint_target)

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
