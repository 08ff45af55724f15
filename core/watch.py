"""Live watching of a catalog's roots with watchfiles (SPEC H2, H4; conformance §6, Z148–Z156).

Three layers, each usable alone:

- :func:`is_relevant` — the event predicate (conformance §6 plus skillshelf's own inputs).
- :func:`watch_plan` — which directories to watch and how, as :class:`WatchSpec` records
  (``requested`` → ``active``, ``recursive``). Reads the file system (``isdir``) but starts nothing.
- :class:`CatalogWatcher` — runs the plan with watchfiles in background threads and feeds
  relevant batches to :meth:`Catalog.refresh_paths <skillshelf.core.catalog.Catalog.refresh_paths>`
  (an overflow or a failed watch → a full :meth:`~skillshelf.core.catalog.Catalog.refresh`).

Watchfiles facts this is built around (DESIGN "Measured here"): a path that does not exist
raises ``FileNotFoundError`` when the watch starts; a watched directory that is deleted goes
silent for good (also when it is re-created under the same name); ``mkdir -p a/b && write`` can
miss the nested file; a renamed folder is reported as the folder only. Therefore: a missing root
is watched through its nearest existing ancestor, non-recursively, and the plan is re-computed
after every batch and every ``poll_interval`` seconds, so the watch moves closer as directories
appear and turns recursive only at the exact root (H4, Z153, Z168); a watched directory whose
identity (device, inode) changed is watched again; every reported path is rescanned from disk as
a subtree by ``refresh_paths``, and a root watched after the first pass is rescanned whole
right after its watch is in place (so nothing written in between is lost). The first pass's
watches start after the first build, which checked the files itself, or adopted a check made
earlier by another process: then what that check let the build keep is looked at again once
they are in place (:meth:`Catalog.changed_since_ahead
<skillshelf.core.catalog.Catalog.changed_since_ahead>`), and what changed meanwhile is rescanned.

Threads: one coordinator (:meth:`CatalogWatcher.run`) plus one small pump thread per watched
directory, each iterating :func:`watchfiles.watch` for that directory. The TUI runs :meth:`CatalogWatcher.run` inside ``@work(thread=True)`` with a
``threading.Event`` it sets to stop; the CLI uses :meth:`CatalogWatcher.start` / ``stop``.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import watchfiles

from skillshelf.core.catalog import Catalog
from skillshelf.core.model import CatalogWarning, Generation, Provenance
from skillshelf.core.paths import canonical

__all__ = [
    "CatalogWatcher",
    "ChangeBatches",
    "WatchRequest",
    "WatchSpec",
    "WatchStop",
    "is_relevant",
    "watch_changes",
    "watch_failed",
    "watch_plan",
]

log = logging.getLogger(__name__)

#: Seconds before a failed rebuild is tried again, per consecutive failure; after the last one
#: the failure is shown (``RebuildFailed``) and the rebuild is retried every ``poll_interval``.
RETRY_DELAYS = (0.05, 0.2, 0.5)

#: Longest a stop request waits for the coordinator (seconds): it checks its stop event at least
#: this often, however long ``poll_interval`` is; pump threads check theirs every ``step`` ms.
STOP_CHECK = 0.05

# watchfiles change codes (watchfiles.Change)
_ADDED, _MODIFIED, _DELETED = watchfiles.Change.added, watchfiles.Change.modified, watchfiles.Change.deleted


def watch_failed(source: str, detail: str) -> CatalogWarning:
    """The catalog warning for a watch that could not be started or died (SPEC H4):
    kind ``WatchFailed``, message ``failed to watch skills in {source}: {detail}``."""
    return CatalogWarning("WatchFailed", source, f"failed to watch skills in {source}: {detail}")


def _within(path: str, directory: str) -> bool:
    return path == directory or directory == "/" or path.startswith(directory.rstrip("/") + "/")


def is_relevant(
    path: str | None,
    *,
    overflow: bool = False,
    roots: Iterable[str] = (),
    config_files: Iterable[str] = (),
    names: Iterable[str] = ("SKILL.md",),
    components: Iterable[str] = (),
    sidecars: Iterable[str] = (),
) -> bool:
    """Whether one watcher event can change the catalog (conformance §6, Z148).

    Relevant when: ``overflow`` is true (events were dropped: always a complete rescan); the
    file name is one of ``names`` (``SKILL.md``, the host's configuration file names …); any
    path component is one of ``components`` (Zuno's own predicate: ``skill``, ``skills``,
    ``.agents``, ``.zuno``); the file is one of ``sidecars`` inside an ``agents/`` folder; it
    is one of ``config_files``; or it lies at, below or above one of ``roots`` (scan
    directories and watch targets, so a configured path named e.g. ``shared`` and the
    appearance of a missing root's ancestors count). ``path`` None without overflow → False.
    The host supplies the sets (:class:`~skillshelf.core.hosts.base.WatchTargets`).
    """
    if overflow:
        return True
    if not path:
        return False
    path = os.path.normpath(path)
    parent, _, name = path.rpartition("/")
    if name in set(names):
        return True
    parts = set(components)
    if parts and any(part in parts for part in path.split("/")):
        return True
    if name in set(sidecars) and parent.rpartition("/")[2] == "agents":
        return True
    if path in set(config_files):
        return True
    return any(_within(path, root) or _within(root, path) for root in roots)


@dataclass(frozen=True)
class WatchSpec:
    """One thing to watch (SPEC H4).

    ``requested``: the exact directory that matters (a root, a configured path, a rule's
    watch target, or a configuration directory), canonical when it exists, else normalised.
    ``active``: what is actually watched — ``requested`` when it is a directory, else its
    nearest existing ancestor (canonical). ``recursive``: only a ``root`` watched at its exact
    location is recursive; an ancestor stand-in or a configuration directory never is.
    ``kind``: ``"root"`` or ``"config"``.
    """

    requested: str
    active: str
    recursive: bool
    kind: str = "root"


def _nearest_existing(path: str) -> str:
    current = path
    while True:
        if os.path.isdir(current):
            return canonical(current)
        parent = os.path.dirname(current)
        if parent == current:
            return current
        current = parent


def watch_plan(catalog: Catalog, *, exclude: Iterable[str] = ()) -> list[WatchSpec]:
    """The watch specs for a catalog (SPEC H4; Z153–Z156). Starts nothing.

    Roots come from the host (:meth:`Catalog.watch_targets
    <skillshelf.core.catalog.Catalog.watch_targets>`); each is watched at its exact location,
    recursively, once it is a directory, and through its nearest existing ancestor,
    non-recursively, until then. ``exclude``: roots left out (a running watcher passes the
    host's start-only roots that did not exist when it started, H4 Z155). Then the host's
    configuration directories not already under a recursive root, non-recursive. Order: roots
    as the host lists them, then configuration directories.
    """
    targets = catalog.watch_targets()
    skip = set(exclude)
    specs: list[WatchSpec] = []
    for requested in targets.roots:
        if requested in skip:
            continue
        active = _nearest_existing(requested)
        specs.append(WatchSpec(requested, active, active == requested and os.path.isdir(requested)))
    recursive = [s.active for s in specs if s.recursive]
    seen = {s.requested for s in specs}
    for d in targets.config_dirs:
        d = canonical(d) if os.path.isdir(d) else d
        if d in seen or any(_within(d, r) for r in recursive):
            continue
        seen.add(d)
        specs.append(WatchSpec(d, _nearest_existing(d), False, "config"))
    return specs


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class WatchStop:
    """The stop event a pump hands to :func:`watchfiles.watch` (anything with ``is_set()``).

    watchfiles asks ``is_set()`` once per ``step`` from inside its wait loop, which starts only
    once the watch is in place: the first call sets :attr:`started`. :meth:`set` stops the
    watch (watchfiles notices within one ``step``)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self._stop = threading.Event()

    def is_set(self) -> bool:
        self.started.set()
        return self._stop.is_set()

    def set(self) -> None:
        """Ask the watch to stop."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        """True once :meth:`set` was called (does not count as watchfiles' check)."""
        return self._stop.is_set()


@dataclass(frozen=True)
class WatchRequest:
    """One directory to watch: ``path``, ``recursive``, the batching (``step`` ms of quiet ends
    a batch, ``debounce`` ms caps it) and the ``stop`` event to pass on."""

    path: str
    recursive: bool
    step: int
    debounce: int
    stop: WatchStop


#: What a watch yields: batches of ``(change, path)`` with watchfiles' change codes.
ChangeBatches = Iterator[set[tuple[watchfiles.Change, str]]]


def watch_changes(request: WatchRequest) -> ChangeBatches:
    """The batches of changes under ``request.path`` until ``request.stop`` is set
    (:func:`watchfiles.watch`; nothing is filtered; permission errors below the root are
    ignored). The watch starts on the first ``next()``, which raises ``FileNotFoundError`` or
    ``OSError`` (inotify limits …) when it cannot."""
    return watchfiles.watch(
        request.path,
        watch_filter=None,
        debounce=request.debounce,
        step=request.step,
        stop_event=request.stop,
        rust_timeout=0,
        yield_on_timeout=False,
        debug=False,
        raise_interrupt=False,
        force_polling=False,
        recursive=request.recursive,
        ignore_permission_denied=True,
    )


@dataclass(frozen=True)
class _Item:
    """What a pump hands the coordinator: a batch of ``changes`` under ``path``, or the
    ``error`` that ended its watch."""

    path: str
    changes: frozenset[tuple[watchfiles.Change, str]] = frozenset()
    error: BaseException | None = None


class _Pump:
    """One watched directory: the thread draining its change batches into the coordinator's
    queue, and the error that ended the watch."""

    def __init__(self, changes: ChangeBatches, request: WatchRequest, out: queue.Queue[_Item]) -> None:
        self.path = request.path
        self.recursive = request.recursive
        self.stop = request.stop
        #: set when the watch is in place, or when it failed to start (then :attr:`error` is set)
        self.settled = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(
            target=self._run, args=(changes, out), name=f"skillshelf-watch {self.path}", daemon=True
        )
        self.thread.start()

    def _run(self, changes: ChangeBatches, out: queue.Queue[_Item]) -> None:
        try:
            for batch in changes:
                self.settled.set()
                if batch:
                    out.put(_Item(self.path, changes=frozenset(batch)))
        except Exception as exc:  # the watch died (or never started): a WatchFailed warning
            log.warning("watch of %s failed: %s", self.path, exc)
            self.error = exc
            if self.stop.started.is_set() and not self.stop.stopped:
                out.put(_Item(self.path, error=exc))
        finally:
            self.settled.set()

    def wait_settled(self, stopping: Callable[[], bool], timeout: float) -> None:
        """Wait until the watch is in place or failed (at most ``timeout`` s, checking
        ``stopping`` every :data:`STOP_CHECK` s)."""
        deadline = time.monotonic() + timeout
        while not stopping():
            if self.settled.is_set() or self.stop.started.is_set():
                return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.settled.wait(min(left, STOP_CHECK))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=2.0)


class CatalogWatcher:
    """Keep a :class:`~skillshelf.core.catalog.Catalog` live (SPEC H2–H4).

    ``step`` (ms): quiet period that ends a batch; ``debounce`` (ms): the longest a batch may
    grow (watchfiles semantics). ``on_generation(gen)`` is called (from the coordinator thread)
    with every generation this watcher made the catalog publish; ``on_warning(warnings)`` with
    the current ``WatchFailed`` warnings whenever they change (empty tuple = recovered).
    ``poll_interval`` (seconds): how often the plan is re-checked without events (missing roots
    appearing, watched directories replaced). ``watch_factory(request)`` returns the change
    batches of one :class:`WatchRequest` (tests inject failures; default :func:`watch_changes`).

    ``settle`` (seconds): how long after a directory appears it is rescanned once more.

    ``~/.agents/skills`` is watched only when it existed when the watcher started (H4, Z155).
    Watch failures become ``WatchFailed`` catalog warnings (published at once, once) and are
    retried every ``poll_interval``; they clear when the watch works again. Only generations that
    change what the catalog shows are published (:meth:`run`).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        step: int = 50,
        debounce: int = 1600,
        on_generation: Callable[[Generation], None] | None = None,
        on_warning: Callable[[tuple[CatalogWarning, ...]], None] | None = None,
        poll_interval: float = 1.0,
        watch_factory: Callable[[WatchRequest], ChangeBatches] | None = None,
        start_timeout: float = 30.0,
        settle: float = 0.25,
    ) -> None:
        self.catalog = catalog
        self.step = step
        self.debounce = debounce
        self.on_generation = on_generation
        self.on_warning = on_warning
        self.poll_interval = poll_interval
        self._factory = watch_factory or watch_changes
        #: longest wait (s) for one new watch to be in place before the coordinator goes on
        self.start_timeout = start_timeout
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._queue: queue.Queue[_Item] = queue.Queue()
        self._pumps: dict[tuple[str, bool], tuple[_Pump, tuple[int, int] | None]] = {}
        self._dead: dict[str, str] = {}
        self._exclude: frozenset[str] = frozenset()
        self.plan: list[WatchSpec] = []
        self.ready = threading.Event()
        #: The ``stop_event`` :meth:`run` was given (checked while watches are being set up).
        self._run_stop: threading.Event | None = None
        #: seconds after a directory appears before it is rescanned once more
        self.settle = settle
        #: requested directories whose watch cannot run (rescanned every ``poll_interval``)
        self._failed_paths: set[str] = set()
        #: the watch warnings changed: publish even without file changes
        self._republish = False
        #: False while the run loop waits with nothing left to do (see :attr:`idle`)
        self._busy = True
        #: renewed watches still running until their last batch is out (pump, stop time)
        self._retiring: list[tuple[_Pump, float]] = []

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> CatalogWatcher:
        """Run :meth:`run` in a daemon thread; returns self once the first watches are in place."""
        self._thread = threading.Thread(target=self.run, name="skillshelf-watcher", daemon=True)
        self._thread.start()
        self.ready.wait(timeout=10.0)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the coordinator and every pump thread (idempotent)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)

    def __enter__(self) -> CatalogWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def run(self, stop_event: threading.Event | None = None) -> None:
        """Watch until ``stop_event`` (or :meth:`stop`) is set. Blocking; call it from a worker
        thread. Never raises and never stops publishing silently:

        - a rebuild that raises (a tree changing under the scan …) is retried after
          :data:`RETRY_DELAYS`; when it still fails the current generation is published again
          with a ``RebuildFailed`` warning (once per run of failures) and it is retried every
          ``poll_interval`` until it works;
        - an unexpected error of the watcher itself is logged and handled the same way (a full
          rescan is retried);
        - a directory reported as added (created, or moved in) is rescanned once more
          :attr:`settle` seconds later, after the recursive watch holding it was renewed
          (:meth:`_renew`): the file watcher can lose the watch of a folder moved into a freshly
          created one, and whatever was written before a new folder's watch was in place was
          never reported;
        - while a watch cannot run (``WatchFailed``), its directory is rescanned every
          ``poll_interval`` instead;
        - only rebuilds that change what the catalog shows are published
          (:meth:`Generation.same_content <skillshelf.core.model.Generation.same_content>`).

        Stopping is prompt whatever :attr:`poll_interval` is: the coordinator checks the event
        every :data:`STOP_CHECK` seconds, no rebuild starts after it is set, watches still being
        set up are skipped, and every pump is told to stop at once (each notices within one
        ``step``), so ``run`` returns within about ``STOP_CHECK + step`` plus any rebuild already
        running (the TUI quits only when this thread has ended)."""
        stop = stop_event or self._stop
        self._run_stop = stop
        full = False
        pending: set[str] = set()
        settle: dict[str, float] = {}
        failures = 0
        retry_at = 0.0
        first = True
        try:
            try:
                start_only = self.catalog.watch_targets().start_only
                self._exclude = frozenset(r for r in start_only if not os.path.isdir(r))
            except Exception:  # a host that cannot say: watch everything it lists later
                log.exception("reading the watch targets failed")
            while not self._stopping():
                try:
                    newly = self._reconcile()
                    if first:
                        first = False
                        # the watches are in place: what changed since a check the first build
                        # adopted from another process was made is looked for now
                        since = self.catalog.changed_since_ahead()
                        if since is None:
                            full = True
                        else:
                            pending |= since
                        self.ready.set()
                    else:
                        pending |= newly
                    now = time.monotonic()
                    self._retire()
                    due_paths = [p for p, due in settle.items() if due <= now]
                    if due_paths:
                        for path in due_paths:
                            del settle[path]
                        self._renew(due_paths)
                        pending.update(due_paths)
                    if (full or pending or self._republish) and now >= retry_at:
                        error = self._publish(full, pending)
                        if error is None:
                            full, pending, failures, retry_at = False, set(), 0, 0.0
                        else:
                            full, failures = True, failures + 1
                            retry_at = time.monotonic() + self._retry_delay(failures)
                            if failures == len(RETRY_DELAYS) + 1:
                                self._show_failure(error)
                    self._busy = bool(full or pending or settle or self._retiring or self._republish)
                    wait = self.poll_interval
                    if full or pending:
                        wait = min(wait, max(retry_at - time.monotonic(), 0.0))
                    if settle:
                        wait = min(wait, max(min(settle.values()) - time.monotonic(), 0.0))
                    items = self._next_items(stop, wait)
                    self._busy = True
                    if not items:
                        pending |= self._failed_paths  # no watch there: look for changes instead
                        continue
                    f, p, added = self._digest_items(items)
                    full = full or f
                    pending |= p
                    due = time.monotonic() + self.settle
                    for path in added:
                        settle.setdefault(path, due)
                except Exception as exc:  # the watcher must go on: rescan everything, say so if it persists
                    log.exception("the skill watcher hit an unexpected error; rescanning")
                    full, failures = True, failures + 1
                    retry_at = time.monotonic() + self._retry_delay(failures)
                    if failures == len(RETRY_DELAYS) + 1:
                        self._show_failure(exc)
                    if self._next_items(stop, min(self.poll_interval, STOP_CHECK * 4)):
                        full = True  # those events are covered by the full rescan
        finally:
            self.ready.set()
            self._close_pumps([pump for pump, _ in self._pumps.values()] + [p for p, _ in self._retiring])
            self._retiring = []
            self._pumps.clear()

    def _renew(self, added: Sequence[str]) -> None:
        """Start the recursive watches holding the ``added`` directories afresh — the new
        watch walks the tree again, so every folder in it is watched — and stop the old ones
        one debounce later (no gap: while both run, an event may come twice, which costs
        nothing)."""
        keys = {key for key in self._pumps if key[1] and any(_within(a, key[0]) for a in added)}
        for key in sorted(keys):
            if self._stopping():
                return
            old, _ = self._pumps[key]
            request = WatchRequest(key[0], True, self.step, self.debounce, WatchStop())
            try:
                pump = _Pump(self._factory(request), request, self._queue)
            except (OSError, RuntimeError) as exc:
                log.warning("cannot renew the watch of %s: %s", key[0], exc)
                continue
            pump.wait_settled(self._stopping, self.start_timeout)
            if pump.error is not None and not pump.stop.started.is_set():
                log.warning("cannot renew the watch of %s: %s", key[0], pump.error)
                continue  # keep the old one
            self._pumps[key] = (pump, _identity(key[0]))
            # the old watch may hold a batch it has not handed over yet: it goes on until that
            # batch is out (one debounce), then stops
            self._retiring.append((old, time.monotonic() + (self.debounce + 2 * self.step) / 1000 + 0.1))

    def _retire(self) -> None:
        """Stop the renewed watches whose grace period is over."""
        now = time.monotonic()
        due = [p for p, t in self._retiring if t <= now]
        if due:
            self._retiring = [(p, t) for p, t in self._retiring if p not in due]
            self._close_pumps(due)

    def _retry_delay(self, failures: int) -> float:
        return RETRY_DELAYS[failures - 1] if failures <= len(RETRY_DELAYS) else self.poll_interval

    def _show_failure(self, exc: BaseException) -> None:
        """Publish the current generation again with a ``RebuildFailed`` warning (SPEC H2: never silent)."""
        log.error("rebuilding the catalog after file changes failed %d times in a row (%s); retrying every %g s",
                  len(RETRY_DELAYS) + 1, _detail(exc), self.poll_interval)
        try:
            gen = self.catalog.publish_failure(exc)
        except Exception:
            log.exception("publishing the rebuild failure failed")
            return
        self._notify(gen)

    @property
    def idle(self) -> bool:
        """True while the watcher waits for events with nothing pending: every batch handed
        over so far is published (or showed nothing new), no retry, rescan or renewed watch is
        outstanding. Events the file watcher still batches (``step`` / ``debounce``) are not
        known here: wait that long first."""
        return not self._busy and self._queue.empty()

    def _stopping(self) -> bool:
        run_stop = self._run_stop
        return self._stop.is_set() or (run_stop is not None and run_stop.is_set())

    def _next_items(self, stop: threading.Event, timeout: float) -> list[_Item]:
        """The queued pump items, waiting at most ``timeout`` seconds for the first (``[]`` on
        timeout). The wait is sliced into :data:`STOP_CHECK` steps so a set ``stop`` ends it
        promptly whatever the timeout."""
        deadline = time.monotonic() + timeout
        items: list[_Item] = []
        while not stop.is_set() and not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return items
            try:
                items.append(self._queue.get(timeout=min(left, STOP_CHECK)))
                break
            except queue.Empty:
                continue
        while items:
            try:
                items.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return items

    @staticmethod
    def _close_pumps(pumps: Sequence[_Pump]) -> None:
        """Stop every pump at once, then wait for them: each notices within one ``step``, so
        closing N pumps costs one step, not N."""
        for pump in pumps:
            pump.stop.set()
        for pump in pumps:
            pump.close()

    # ------------------------------------------------------------------ internals
    def _relevance_roots(self) -> list[str]:
        # roots only: an event beside a configuration directory (``/tmp/x`` when ``/`` is one)
        # matters only by its name (a feedback loop otherwise: ``watch > /tmp/log``)
        roots = [s.requested for s in self.plan if s.kind == "root"]
        roots.extend(r.scan_dir for r in self.catalog.current.roots if r.provenance is not Provenance.REMOTE)
        return roots

    def _digest_items(self, items: Sequence[_Item]) -> tuple[bool, set[str], set[str]]:
        """``(full rescan needed, relevant changed paths, relevant directories added)``."""
        full = False
        changed: set[str] = set()
        added: set[str] = set()
        roots = self._relevance_roots()
        targets = self.catalog.watch_targets()
        for item in items:
            if item.error is not None:
                self._dead[item.path] = _detail(item.error)
                entry = self._pumps.pop((item.path, True), None) or self._pumps.pop((item.path, False), None)
                if entry is not None:
                    entry[0].stop.set()
                full = True
                continue
            for change, p in item.changes:
                if change not in (_ADDED, _MODIFIED, _DELETED):
                    full = True  # overflow / rescan request (Z148)
                elif is_relevant(p, roots=roots, config_files=targets.config_files, names=targets.names,
                                 components=targets.components, sidecars=targets.sidecars):
                    changed.add(p)
                    if change == _ADDED and os.path.isdir(p):
                        added.add(os.path.normpath(p))
        return full, changed, added

    def _reconcile(self) -> set[str]:
        """Bring the running watches in line with the plan; returns the recursive watch
        directories that were (re)started (to be rescanned whole)."""
        try:
            plan = watch_plan(self.catalog, exclude=self._exclude)
        except (OSError, ValueError) as exc:  # a path the OS refuses: report it, keep the old watches
            log.warning("cannot plan watches for %s: %s", self.catalog.cwd, exc)
            self._set_failures({self.catalog.cwd: f"cannot plan watches: {exc}"})
            return set()
        self.plan = plan
        wanted: dict[tuple[str, bool], str] = {}
        for spec in plan:
            key = (spec.active, spec.recursive)
            wanted.setdefault(key, spec.requested)
        recursive = [a for a, r in wanted if r]
        # a non-recursive watch inside a recursive one is redundant
        wanted = {k: v for k, v in wanted.items() if k[1] or not any(_within(k[0], r) for r in recursive)}
        for key in list(self._pumps):
            pump, ident = self._pumps[key]
            if key not in wanted or _identity(key[0]) != ident or not pump.thread.is_alive():
                if pump.error is not None and not pump.stop.stopped:
                    self._dead.setdefault(key[0], _detail(pump.error))
                pump.close()
                del self._pumps[key]
        newly: set[str] = set()
        failures: dict[str, str] = {}
        started: list[tuple[tuple[str, bool], str, _Pump]] = []
        for key, requested in wanted.items():
            if self._stopping():
                break  # a recursive watch on a big tree takes a while to set up: stop now
            if key in self._pumps:
                continue
            path, rec = key
            ident = _identity(path)
            request = WatchRequest(path, rec, self.step, self.debounce, WatchStop())
            try:
                changes = self._factory(request)
            except (OSError, RuntimeError) as exc:
                log.warning("cannot watch %s: %s", path, exc)
                failures[requested] = _detail(exc)
                continue
            pump = _Pump(changes, request, self._queue)
            self._pumps[key] = (pump, ident)
            started.append((key, requested, pump))
        # every new watch starts in its own thread; wait for them together (one step, not N)
        for key, requested, pump in started:
            pump.wait_settled(self._stopping, self.start_timeout)
            if pump.error is not None and not pump.stop.started.is_set():
                failures[requested] = _detail(pump.error)
                del self._pumps[key]
                continue
            newly.add(key[0])
        if self._stopping():
            return newly  # the failures seen so far are incomplete: publish nothing
        # a watch that died stays reported until it runs again
        for path, detail in list(self._dead.items()):
            if path in newly:
                del self._dead[path]
            else:
                failures.setdefault(path, detail)
        self._set_failures(failures)
        return newly

    def _set_failures(self, failures: dict[str, str]) -> None:
        """Make ``failures`` (requested directory → detail) the catalog's ``WatchFailed``
        warnings; a change is published by the run loop (:attr:`_republish`)."""
        self._failed_paths = {p for p in failures if os.path.isabs(p)}
        warnings = tuple(watch_failed(src, d) for src, d in sorted(failures.items()))
        if self.catalog.set_watch_warnings(warnings):
            self._republish = True
            if self.on_warning is not None:
                try:
                    self.on_warning(warnings)
                except Exception:  # a callback must never stop the watcher
                    log.exception("the watcher's on_warning callback failed")

    def _publish(self, full: bool, paths: set[str]) -> BaseException | None:
        """Rebuild (``full`` or the ``paths``) and publish it when it changes what the catalog
        shows; returns the error of a failed rebuild (logged), else ``None``."""
        if self._stopping():
            return None  # a rebuild after the stop request would only delay the stop
        before = self.catalog.current
        self._republish = False
        try:
            if full:
                gen = self.catalog.refresh(publish_unchanged=False)
            else:
                gen = self.catalog.refresh_paths(paths, publish_unchanged=False)
        except Exception as exc:  # retried by the run loop; shown when it keeps failing
            log.warning("rebuilding the catalog after file changes failed: %s", _detail(exc), exc_info=True)
            self._republish = True
            return exc
        if gen is not before:
            self._notify(gen)
        return None

    def _notify(self, gen: Generation) -> None:
        if self.on_generation is not None:
            try:
                self.on_generation(gen)
            except Exception:  # a callback must never stop the watcher
                log.exception("the watcher's on_generation callback failed (generation %d)", gen.number)


def _detail(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
