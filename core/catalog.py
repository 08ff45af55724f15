"""The live skill catalog: one workspace seen by one host, published as generations (SPEC H1–H3).

A :class:`Catalog` owns a host (:mod:`skillshelf.core.hosts`) and the session that host opened
for the workspace; it serialises builds, collapses concurrent refresh requests and publishes
immutable :class:`~skillshelf.core.model.Generation` snapshots. Readers hold a generation;
publishing swaps one reference (``Catalog.current``), so a reader never sees a half-updated
catalog. What a generation holds — roots, parsing, precedence — is the host's business.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from skillshelf.core.config import Config
from skillshelf.core.hosts import DEFAULT_HOST_NAME, get_host
from skillshelf.core.hosts.base import Host, HostCatalog, HostContext, HostSession, WatchTargets
from skillshelf.core.model import CatalogWarning, Generation
from skillshelf.core.parsecache import ParseCacheStore, Product, spawn_writes, workspace_parts
from skillshelf.core.paths import Environment

if TYPE_CHECKING:
    from skillshelf.core.forked import Ahead

__all__ = ["REBUILD_FAILED", "Catalog", "check_ahead", "finish_saves", "rebuild_failed", "workspace_cache"]

log = logging.getLogger(__name__)

#: Warning kind of a rebuild that raised (:meth:`Catalog.publish_failure`).
REBUILD_FAILED = "RebuildFailed"


def rebuild_failed(cwd: str, exc: BaseException, shown: int) -> CatalogWarning:
    """The ``RebuildFailed`` warning: ``rebuilding the skill catalog failed (<type>: <detail>);
    showing generation <shown>``."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return CatalogWarning(REBUILD_FAILED, cwd,
                          f"rebuilding the skill catalog failed ({detail}); showing generation {shown}")


_saves: set[threading.Thread] = set()
_saves_lock = threading.Lock()


def _save(store: ParseCacheStore) -> None:
    try:
        store.save()
    finally:
        with _saves_lock:
            _saves.discard(threading.current_thread())


def finish_saves(timeout: float | None = None, *, forked_writers: bool = True) -> bool:
    """Wait for the parse-cache writes catalogs of this process started (at most ``timeout``
    seconds in all; ``None``: until done); True when none is left. A one-shot command waits
    (its write is what makes the next run fast); an interactive exit waits a moment at most:
    a write cut short by the exit leaves the previous cache file whole (writes are atomic
    renames), so the next run only reads again what it would have kept. ``forked_writers``
    False: only the writes in threads (a forked writer outlives this process and holds the
    cache's writer lock, :mod:`skillshelf.core.cachelock`; True when only such are left)."""
    from skillshelf.core import forked

    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        with _saves_lock:
            running = next(iter(_saves), None)
        if running is None:
            if not forked_writers:
                return True
            return forked.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        running.join(left)


def workspace_cache(cache_dir: str, cwd: str, env: Environment, paths: Sequence[str],
                    config_files: Sequence[str]) -> ParseCacheStore:
    """The parse cache store of one workspace under ``cache_dir``: one file per host, named by
    what decides which files a build reaches (working directory, home, configuration homes,
    extra paths and configuration layers)."""
    return ParseCacheStore(cache_dir, workspace_parts(cwd, env.home, env.xdg_config_home, env.xdg_cache_home, paths,
                                                      config_files))



def check_ahead(cwd: str, *, env: Environment, host: Host | str, paths: Sequence[str] = (),
                config_files: Sequence[str] = (), cache_dir: str | None = None, read_ahead: bool = False,
                lint_target: str | None = None) -> object | None:
    """What the first build of :meth:`Catalog.open` with the same arguments checks against the
    files (:meth:`~skillshelf.core.hosts.base.HostSession.check_ahead`), computed here without
    building anything: for a forked child to compute while the opening process starts (pass
    its :class:`~skillshelf.core.forked.Ahead` as ``ahead``). ``None`` without a cache.
    ``read_ahead``: when there is nothing to check, the files that build reads are read here
    instead, and sent as they are read (:meth:`~skillshelf.core.hosts.base.HostSession.read_ahead`),
    then linted for ``lint_target`` (what :func:`~skillshelf.core.hostlint.cached_lint` keeps,
    sent the same way: the list comes first, then the lint of each row)."""
    if cache_dir is None:
        return None
    cwd = os.path.abspath(cwd)
    context = HostContext(cwd=cwd, env=env, paths=tuple(paths), config_files=tuple(config_files),
                          cache=workspace_cache(cache_dir, cwd, env, paths, config_files), pull_remote=False,
                          defer_pull=True)
    resolved = get_host(host) if isinstance(host, str) else host
    session = resolved.open(context)
    check = session.check_ahead()
    if check is None and read_ahead:
        lint = None
        if lint_target is not None:
            from skillshelf.core.hostlint import keep_lint

            lint = partial(keep_lint, lint_target)
        session.read_ahead(lint)
    return check


def _lazy_lint_product(target: str) -> Product:
    """:func:`~skillshelf.core.hostlint.lint_product` for ``target``, made when the first file is
    read: a warm start that reads no file never imports the lint machinery (~15 ms)."""
    made: list[Product] = []

    def product(path: str, data: bytes) -> tuple[str, object] | None:
        if not made:
            from skillshelf.core.hostlint import lint_product

            made.append(lint_product(target))
        return made[0](path, data)

    return product


class Catalog:
    """A live catalog over one working directory (DESIGN "Stable Python surface").

    Build with :meth:`open`; read :attr:`current` (the published :class:`Generation`);
    call :meth:`refresh` to rescan (returns the new generation; concurrent calls are serialised
    and a call that arrives while another refresh runs is folded into the next one, SPEC H2).
    ``subscribe`` callbacks receive each new generation (used by the TUI and ``watch``).
    """

    def __init__(self, host: Host, session: HostSession) -> None:
        self._host = host
        self._session = session
        self._lock = threading.Lock()
        self._ticket_lock = threading.Lock()
        self._requested = 0
        self._covered = 0
        self._current: Generation | None = None
        self._listeners: list[Callable[[Generation], None]] = []
        self._pending_paths: set[str] = set()
        self._pending_full = False
        self._watch_warnings: tuple[CatalogWarning, ...] = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def open(
        cls,
        cwd: str,
        *,
        env: Environment | None = None,
        host: Host | str = DEFAULT_HOST_NAME,
        paths: Sequence[str] = (),
        config_files: Sequence[str] = (),
        context_window: int | None = None,
        pull_remote: bool = True,
        cache_dir: str | None = None,
        lint_target: str | None = None,
        cancel: threading.Event | None = None,
        defer_pull: bool = False,
        ahead: Ahead | None = None,
    ) -> Catalog:
        """Build the first generation (number 1) for ``cwd`` under ``host`` (a registered host
        or its name; :class:`~skillshelf.core.hosts.UnknownHostError` for an unknown name).

        ``env`` is the :class:`~skillshelf.core.paths.Environment` (``None`` reads the process
        environment once, here at the edge). ``paths`` are extra ``skills.paths`` entries appended
        after the configured ones (``--path``); ``config_files`` extra configuration layers
        (``--config``, highest precedence). ``context_window`` in tokens drives the budgets (U1–U2).
        ``pull_remote`` False skips ``skills.urls`` downloads (tests, offline use). ``cache_dir``:
        skillshelf's cache directory for the persistent parse cache
        (:func:`~skillshelf.core.parsecache.default_cache_dir`; ``None``: no cache, every file is
        read). ``lint_target``: with a cache, every file read for the host's verdict is also
        linted for that target from the same bytes (kept in the cache for the views,
        :func:`~skillshelf.core.hostlint.cached_lint`). ``cancel``: setting it stops a remote pull
        in progress, now or at a later refresh (the TUI sets it on quit). ``defer_pull``: the first
        generation is built without pulling ``skills.urls`` (the next build pulls: call
        ``refresh(pull_remote=True)``). ``ahead``: :func:`check_ahead` of the same arguments,
        being computed by a forked child (:func:`~skillshelf.core.forked.ahead`), for the first
        build to adopt. Never raises for bad
        skills or bad config: those become diagnostics/warnings in the generation.
        """
        environment = env if env is not None else Environment.from_mapping(None)
        cwd = os.path.abspath(cwd)
        context = HostContext(
            cwd=cwd,
            env=environment,
            paths=tuple(paths),
            config_files=tuple(config_files),
            context_window=context_window,
            pull_remote=pull_remote,
            cache=None if cache_dir is None else workspace_cache(cache_dir, cwd, environment, paths, config_files),
            cancel=cancel,
            defer_pull=defer_pull,
            ahead=ahead,
        )
        if context.cache is not None and lint_target is not None:
            context.cache.produce(f"lint:{lint_target}", _lazy_lint_product(lint_target))
        return cls.from_context(host, context)

    @classmethod
    def from_context(cls, host: Host | str, context: HostContext) -> Catalog:
        """:meth:`open` from a ready :class:`HostContext`."""
        resolved = get_host(host) if isinstance(host, str) else host
        cat = cls(resolved, resolved.open(context))
        try:
            cat._publish(cat._session.build(None, None, ()))
        finally:
            if context.ahead is not None:  # (not taken by the build: a host without one, a failure)
                context.ahead.cancel()
        cat._save_cache_soon()
        return cat

    def reopen(self, host: Host | str) -> Catalog:
        """A new catalog over the same workspace inputs under another ``host`` (the TUI's ``h``)."""
        return Catalog.from_context(host, replace(self._session.context, ahead=None))

    # ------------------------------------------------------------------ public surface
    @property
    def current(self) -> Generation:
        """The latest published generation."""
        assert self._current is not None
        return self._current

    @property
    def host(self) -> Host:
        """The host whose rules build this catalog."""
        return self._host

    @property
    def session(self) -> HostSession:
        """The host's session over this workspace."""
        return self._session

    @property
    def context(self) -> HostContext:
        """The workspace inputs (working directory, environment, paths, config files, window)."""
        return self._session.context

    @property
    def cwd(self) -> str:
        """Absolute working directory the catalog was opened for."""
        return self._session.context.cwd

    @property
    def env(self) -> Environment:
        """The :class:`~skillshelf.core.paths.Environment` in use."""
        return self._session.context.env

    @property
    def context_window(self) -> int | None:
        """Context window in tokens, or ``None`` when unknown (SPEC U1)."""
        return self._session.context.context_window

    @property
    def config(self) -> Config:
        """The merged configuration of the latest build (empty for hosts without one)."""
        return self._session.config

    @property
    def remote_origins(self) -> Mapping[str, tuple[str, str | None]]:
        """Pulled remote skill directory → (url, version) (SPEC R)."""
        return self._session.remote_origins

    @property
    def index_budget(self) -> int | None:
        """The host's catalog budget in characters for the context window (``None``: no budget)."""
        return self._session.index_budget(None)

    @property
    def selected_budget(self) -> int | None:
        """The selected-body budget in tokens (SPEC U2), ``None`` when the host has none."""
        return self._session.selected_budget(None)

    def model_catalog(self, *, context_window: int | None = None, budget: int | None = None) -> HostCatalog:
        """What the model is shown for the current generation (:meth:`HostSession.catalog`)."""
        return self._session.catalog(self.current, context_window=context_window, budget=budget)

    def watch_targets(self) -> WatchTargets:
        """What a watcher must watch (SPEC H4), for the latest build."""
        return self._session.watch_targets()

    def subscribe(self, callback: Callable[[Generation], None]) -> None:
        """Call ``callback(generation)`` after every publish (from the publishing thread)."""
        self._listeners.append(callback)

    def changed_since_ahead(self) -> frozenset[str] | None:
        """:meth:`HostSession.changed_since_ahead`: what to rescan, now that a watcher's watches
        are in place, for a first build that adopted a check made ahead (``None``: everything)."""
        return self._session.changed_since_ahead()

    def refresh(self, *, pull_remote: bool = False, publish_unchanged: bool = True) -> Generation:
        """Rescan everything and publish a new generation (number + 1), SPEC H2–H3.

        A refresh always publishes, even when nothing changed (conformance §6), unless
        ``publish_unchanged`` is False (the watcher): then a rebuild that shows exactly what
        :attr:`current` shows (:meth:`Generation.same_content`) publishes nothing and
        :attr:`current` is returned. Concurrent calls
        collapse: each call takes a ticket; a rescan that *started* after a caller's ticket was
        taken covers that caller, which then returns that rescan's generation instead of
        scanning again. ``pull_remote`` re-pulls remote indexes first. Pending
        :meth:`refresh_paths` requests are folded into the full rescan.
        """
        return self._request(None, pull_remote=pull_remote, publish_unchanged=publish_unchanged)

    def refresh_paths(self, changed: Iterable[str], *, publish_unchanged: bool = True) -> Generation:
        """Re-read only what ``changed`` paths can affect and publish a new generation (SPEC H2).

        ``changed``: absolute paths reported by a watcher (files or directories, existing or
        gone). The result equals what :meth:`refresh` would publish from the same previous
        generation, and like it always publishes (number + 1); how little is re-read is the
        host's business (:meth:`HostSession.build`). Concurrent calls collapse into one rebuild
        covering the union of their paths; a pending :meth:`refresh` turns it into a full
        rescan. ``publish_unchanged``: as for :meth:`refresh`. Never raises for bad skills; a
        file system changing under the rebuild can raise :class:`OSError` (the next request then
        rescans everything).
        """
        paths = {os.path.normpath(os.path.join(self.cwd, p)) for p in changed}
        return self._request(paths, publish_unchanged=publish_unchanged)

    def set_watch_warnings(self, warnings: Sequence[CatalogWarning]) -> bool:
        """Replace the watcher's warnings (kind ``WatchFailed``, SPEC H4) published with every
        generation from the next one on (after all other warnings, in the given order).

        Returns True when they differ from the current ones (the caller then publishes, e.g.
        ``refresh_paths([])``)."""
        new = tuple(warnings)
        with self._ticket_lock:
            if new == self._watch_warnings:
                return False
            self._watch_warnings = new
            return True

    def publish_failure(self, exc: BaseException) -> Generation:
        """Publish the current generation again (number + 1, same sources and digest) with a
        ``RebuildFailed`` warning naming ``exc``, for a caller that must go on after a failed
        :meth:`refresh` (the watcher). The next successful rebuild drops the warning."""
        with self._lock:
            current = self.current
            warning = rebuild_failed(self.cwd, exc, current.number)
            gen = replace(current, number=current.number + 1,
                          warnings=tuple(w for w in current.warnings if w.kind != REBUILD_FAILED) + (warning,))
            self._publish(gen)
            return gen

    def _request(self, paths: set[str] | None, *, pull_remote: bool = False,
                 publish_unchanged: bool = True) -> Generation:
        with self._ticket_lock:
            self._requested += 1
            ticket = self._requested
            if paths is None:
                self._pending_full = True
            else:
                self._pending_paths.update(paths)
        with self._lock:
            if self._covered >= ticket and not pull_remote:
                return self.current
            with self._ticket_lock:
                covers = self._requested
                full = self._pending_full
                pending = self._pending_paths
                self._pending_full = False
                self._pending_paths = set()
                watch_warnings = self._watch_warnings
            if pull_remote:
                self._session.request_pull()
            try:
                gen = self._session.build(self._current, None if full else frozenset(pending), watch_warnings)
            except BaseException:
                with self._ticket_lock:  # nothing is lost: the next request rescans everything
                    self._pending_full = True
                raise
            self._covered = covers
            current = self._current
            self._save_cache_soon()
            if not publish_unchanged and current is not None and gen.same_content(current):
                return current
            self._publish(gen)
            return gen

    def save_cache(self) -> int:
        """Write the parse cache now (atomically); the number of files written (0 when nothing
        changed or there is no cache). Never raises."""
        store = self._session.context.cache
        if store is None:
            return 0
        finish_saves()  # a write still running in the background was planned before this one
        return store.save()

    def _save_cache_soon(self) -> None:
        """Write the parse cache in a thread after a publish, so it never delays what the
        generation is shown in (:func:`finish_saves` waits for it); in a one-shot command, in a
        forked child (:func:`skillshelf.core.forked.spawn`), which pickles and writes once the
        command has made its output."""
        store = self._session.context.cache
        if store is None or not store.dirty:
            return
        from skillshelf.core import forked

        if forked.available():  # a one-shot command: pickled and written after its report, by a child
            writes = store.plan_save()
            if not writes or spawn_writes(writes, store.write_planned):
                return
            store.write_planned(writes)  # (the fork failed)
            return
        thread = threading.Thread(target=_save, args=(store,), name="skillshelf-parse-cache", daemon=True)
        with _saves_lock:
            _saves.add(thread)
        thread.start()

    def _publish(self, gen: Generation) -> None:
        self._current = gen
        for cb in list(self._listeners):
            try:
                cb(gen)
            except Exception:  # a listener must never break publishing
                log.exception("a generation listener failed (generation %d)", gen.number)
