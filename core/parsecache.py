"""The persistent parse cache: what a host made of each file, kept between runs.

People open skillshelf many times a day over the same, mostly unchanged folders; reading and
parsing every ``SKILL.md`` again each time is most of the start-up cost. This cache keeps, per
file, what a host's parser said about it (its verdict, the sidecar overlay, the lint draft) in
skillshelf's **own** user cache directory (never an agent's cache), and hands it back when the
file on disk is provably the same.

The same file means the same identity key: canonical path, size, ``mtime_ns``, ``ctime_ns``,
inode and device (:func:`stat_key`). Replacing a file by another with the same size and the
same modification time still changes its inode (a rename over it) or its ``ctime`` (an in-place
write: ``ctime`` cannot be set back), so it is read again. Entries made while the file was
younger than :data:`RACY_NS` are not stored: a second edit inside the file system's timestamp
granularity could otherwise go unseen (git's "racily clean" rule).

Every entry lives in a *namespace*: the cache format, the skillshelf version, a fingerprint of
the installed ``skillshelf.core`` sources, and the host with its rules version — one host's
verdict is never handed to another, and a skillshelf upgrade (or a changed checkout) starts
afresh. A workspace (working directory, extra paths and configuration files, home) has one file
per host, so a file holds only what one workspace reached; a full build drops entries it no
longer reached.

A missing, stale, corrupt or partly written cache file is ignored (and replaced at the next
save): the file carries a magic line, its namespace, its payload length and a CRC-32 checked
before anything is unpickled. Saving writes a temporary file in the same directory and renames
it over the old one (atomic on POSIX and Windows). The cache is a private pickle in a directory
only the user can write (mode 0700): whoever can write there can already run code as the user.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import pickle
import stat as stat_mod
import struct
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from skillshelf.core import cachelock
from skillshelf.core.fileread import tap_reads
from skillshelf.core.paths import private_dirs

__all__ = [
    "CACHE_FORMAT",
    "FREEZE_LOADED",
    "NO_CACHE",
    "RACY_NS",
    "Later",
    "ParseCache",
    "ParseCacheStore",
    "StatKey",
    "code_fingerprint",
    "default_cache_dir",
    "made",
    "stat_key",
    "workspace_key",
    "workspace_parts",
]

log = logging.getLogger(__name__)

#: Bumped whenever the layout of a cache file or of an entry changes.
CACHE_FORMAT = 2
#: A file modified (or whose inode changed) less than this many nanoseconds before it was read
#: is not cached: a second change within the timestamp granularity could keep the same key.
RACY_NS = 2_000_000_000

#: Move every object alive once a cache file is loaded out of the collector's generations
#: (:func:`gc.freeze`), so the full collections of the build and the report that follow do not
#: walk them again (a tenth of a warm 10,000-skill ``index``). Only for a process that ends when
#: its command does (the one-shot CLI sets it): frozen objects are never collected, so in a
#: long-running TUI a cycle reaching them would outlive its use.
FREEZE_LOADED = False
#: Most workspace cache files kept; the least recently written ones are removed beyond that.
MAX_FILES = 64

_MAGIC = b"skillshelf-parse-cache\n"
_HEADER = struct.Struct("<QI")  # payload length (bytes), CRC-32 of the payload

#: ``(size, mtime_ns, ctime_ns, inode, device)`` of a file (symlinks followed).
StatKey = tuple[int, int, int, int, int]

T = TypeVar("T")

#: One planned write of a cache file: ``(file, namespace, value)``.
_Write = tuple[str, str, object]
#: ident → ``(StatKey, value)``, or that pair pickled in a product cache (:meth:`ParseCache._entry`).
_Entries = dict[tuple[str, str, str], object]
#: :meth:`ParseCache.mark`: the journal of entries set and its length then, hits, misses, and the
#: same journal marks of each product cache (``kind`` → ``(journal, length)``).
_Mark = tuple[list[tuple[str, str, str]], int, int, int, dict[str, tuple[list[tuple[str, str, str]], int]]]
#: :meth:`ParseCache.changes_since`: the entries kept since (``None`` for an ident looked up but
#: not kept: :meth:`ParseCache.lookup`), hits, misses, and the entries of each product cache.
_Changes = tuple[_Entries, int, int, dict[str, _Entries]]

#: Something else made from the bytes a host reads: ``(path read, bytes)`` → ``(label, value)``
#: kept beside the host's own value (the lint of the file, for example), or ``None``.
Product = Callable[[str, bytes], "tuple[str, object] | None"]


def stat_key(st: os.stat_result) -> StatKey:
    """The identity key of a file from its ``stat`` result (module docstring)."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def default_cache_dir(xdg_cache_home: str, home: str | None = None) -> str:
    """skillshelf's user cache directory: ``$XDG_CACHE_HOME/skillshelf`` on Linux and other
    XDG systems (``xdg_cache_home`` is the environment's value, core never reads the process
    environment), ``platformdirs.user_cache_dir("skillshelf")`` on macOS and Windows. A relative
    ``xdg_cache_home`` is invalid (the XDG Base Directory specification: ignored), so
    ``<home>/.cache/skillshelf`` then (a relative ``home``: the account's home directory), never
    a folder in the working directory."""
    if sys.platform in ("darwin", "win32"):
        import platformdirs

        return platformdirs.user_cache_dir("skillshelf", appauthor=False)
    if not os.path.isabs(xdg_cache_home) and home:
        from skillshelf.core.paths import own_home

        xdg_cache_home = os.path.join(own_home(home), ".cache")
    return os.path.join(os.path.abspath(xdg_cache_home), "skillshelf")


@functools.cache
def code_fingerprint() -> str:
    """A short hash of the skillshelf version and every installed ``skillshelf.core`` source
    file (relative path, size, ``mtime_ns``): any change to a parser invalidates every entry."""
    import hashlib

    from skillshelf import __version__

    base = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.blake2b(__version__.encode(), digest_size=10)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            rel = os.path.relpath(path, base)
            digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


class _Feed:
    """What another process reads for a cache (:meth:`ParseCache.feed`): the idents whose lookup
    came (``came``), those of entries not looked up here yet (``fresh``), and whether more may come."""

    def __init__(self, pull: Callable[[], object]) -> None:
        self.pull = pull
        self.lock = threading.Lock()
        self.came: set[tuple[str, str, str]] = set()
        self.fresh: set[tuple[str, str, str]] = set()
        self.scope: frozenset[str] | None = None  # (every path the other process looks up, once known)
        self.ended = False


class ParseCache:
    """One host's entries for one workspace: ``(kind, canonical path)`` → ``(StatKey, value)``.

    ``kind`` separates what is kept per file (``verdict``, ``sidecar``, ``lint:spec`` …);
    ``label`` (the spelling a value embeds in its messages, when that is not ``path``) is part
    of the identity too. :meth:`lookup` is the whole interface hosts use. Values must be
    picklable and immutable (they are shared between generations). Thread-safe. A cache with no
    ``file`` keeps entries in memory only; one built with ``enabled`` False (``--no-cache``)
    keeps nothing: every lookup computes.

    What is made from files besides the host's value (kinds with a ``:``, ``lint:spec`` …) is
    kept in memory with each entry pickled on its own, unpickled when it is looked up (each is
    read about once a run, by whoever keeps the result it needs): about a third of the memory
    of its objects (~0.8 KB a file less for the lint of a skill).
    """

    def __init__(self, file: str | None, namespace: str, *, enabled: bool = True) -> None:
        self.file = file
        self.namespace = namespace
        self.enabled = enabled
        self._lock = threading.Lock()
        #: ident → ``(StatKey, value)``, or that pair pickled in a product cache (:meth:`_entry`)
        self._stored: dict[tuple[str, str, str], object] | None = None
        self._used: dict[tuple[str, str, str], object] = {}
        #: the idents set in ``_used`` since the first :meth:`mark`, in order (``None``: none yet)
        self._journal: list[tuple[str, str, str]] | None = None
        self._saved = 0  # entries in the file as last read or written
        self._new = False  # an entry was computed since the last save
        self._full = False  # a full build started since the last save
        self._products: dict[str, Product] = {}
        self._aux: dict[str, ParseCache] = {}
        self._is_aux = False
        self._owner: ParseCache | None = None  # (of a product cache: the host's, whose feed it waits for)
        self._live: set[str] | None = None  # files a build that reused a kept state still reaches
        self._states: dict[str, object] = {}  # whole-build states to write at the next save
        self._feed: _Feed | None = None  # what another process reads for this cache (feed())
        self.hits = 0
        self.misses = 0
        #: whole-build states handed back by :meth:`load_state`
        self.state_hits = 0
        #: What the host's latest first build depended on, when all of it can be proved again
        #: later (host-defined, marshal-able, or a :class:`Later` making it or ``None``; ``None``:
        #: nothing to prove): set by the host, read by whoever keeps the command's output
        #: (:mod:`skillshelf.core.keptoutput`).
        self.output_proof: object | None = None

    # ---- entries (packed in a product cache: class docstring)
    def _entry(self, raw: object) -> tuple[StatKey, object] | None:
        """The ``(StatKey, value)`` an entry in memory stands for (``None``: none, or a packed
        entry that does not unpickle, which is then no hit)."""
        if raw is None or not self._is_aux:
            return raw  # type: ignore[return-value]
        try:
            hit = pickle.loads(raw)  # type: ignore[arg-type]
        except Exception:  # a damaged entry is never an error: it is made again
            return None
        return hit if isinstance(hit, tuple) and len(hit) == 2 else None

    def _pack(self, key: StatKey, value: object) -> object | None:
        """What is kept in memory for ``(key, value)`` (``None``: it cannot be kept)."""
        if not self._is_aux:
            return (key, value)
        try:
            return pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
            log.warning("cannot keep a %s entry in the parse cache: %s", self.namespace.rsplit("|", 1)[-1], exc)
            return None

    # ---- reading the file
    def _load(self) -> dict[tuple[str, str, str], object]:
        if self._stored is None:
            self._stored = _read_file(self.file, self.namespace) if self.file else {}
            self._saved = len(self._stored)
        return self._stored

    def lookup(self, kind: str, path: str, compute: Callable[[], T], *, label: str = "",
               st: os.stat_result | None = None, derive: bool = True) -> tuple[T, os.stat_result | None]:
        """``compute()``'s value for the file at ``path`` (canonical, symlinks resolved), from
        the cache when the file's :func:`stat_key` is unchanged, else computed now and kept.

        Returns ``(value, stat)``; ``stat`` is the ``os.stat`` taken *before* ``compute`` ran
        (``None`` when the file cannot be stat-ed: then nothing is cached). ``st``: a stat the
        caller already has; ``derive`` False: no :meth:`produce` products are made from this
        read. Files that are not regular, and files changed in the last
        :data:`RACY_NS`, are computed every time. ``compute`` must read the file itself and
        must never raise for file problems (its answer for them is what is cached).
        """
        if ":" in kind and self.enabled and not self._is_aux:
            return self._aux_for(kind).lookup(kind, path, compute, label=label, st=st, derive=derive)
        ident = (kind, path, label)
        if st is None:
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                self._passed(ident)
                return compute(), None
        if not self.enabled or not stat_mod.S_ISREG(st.st_mode):
            self._passed(ident)
            return compute(), st
        key = stat_key(st)
        with self._lock:
            raw = self._used.get(ident)
            hit = self._entry(raw)
            if hit is None or hit[0] != key:
                raw = self._load().get(ident)
                hit = self._entry(raw)
            if hit is not None and hit[0] == key:
                self._set(ident, raw)
                self._counted(ident)
                return hit[1], st  # type: ignore[return-value]
            feed = self._feed if self._owner is None else self._owner._feed
        if feed is not None and (self._owner or self)._await(feed, ident):
            with self._lock:
                raw = self._used.get(ident)
                hit = self._entry(raw)
                if hit is not None and hit[0] == key:
                    self._counted(ident)
                    return hit[1], st  # type: ignore[return-value]
        with self._lock:
            self.misses += 1
        products = self._products if derive else None
        if not products:
            value = compute()
            made: list[tuple[tuple[str, str, str], object]] = []
        else:
            read: list[tuple[str, bytes]] = []
            with tap_reads(lambda p, d: read.append((p, d)) if not read else None):
                value = compute()
            made = []
            if read:  # the first file the host read is the one this entry is about
                for product_kind, product in products.items():
                    result = product(*read[0])
                    if result is not None:
                        made.append(((product_kind, path, result[0]), result[1]))
        packed = None
        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= RACY_NS:
            packed = self._pack(key, value)
            for other, product_value in made:
                self._aux_for(other[0]).keep(other, key, product_value)
            if packed is not None:
                with self._lock:
                    self._set(ident, packed)
                    self._new = True
        if packed is None:
            self._passed(ident)
        return value, st

    def _counted(self, ident: tuple[str, str, str]) -> None:
        """Count a lookup answered from an entry (the lock held): a hit, or a miss for an entry
        another process made in this run (:meth:`feed`)."""
        feed = self._feed
        if feed is not None and ident in feed.fresh:
            feed.fresh.discard(ident)
            self.misses += 1
        else:
            self.hits += 1

    def feed(self, pull: Callable[[], object]) -> None:
        """Until :meth:`end_feed`, a lookup that finds no entry for its file first waits for
        another process reading the same files into a cache of its own (a first build's files
        read ahead: :meth:`~skillshelf.core.hosts.zuno.build.ZunoSession.read_ahead`):
        ``pull()`` gives the next value of that cache's :meth:`changes_since` (adopted here), or
        first a ``frozenset`` of every path that process looks up (a lookup of any other path
        never waits), or anything else once no more will come. A file whose entry came is read
        here only when its key differs (changed since); it counts as a miss (it was read in
        this run)."""
        with self._lock:
            self._feed = _Feed(pull)

    def end_feed(self) -> None:
        """Stop waiting for what :meth:`feed` gave (entries that came stay)."""
        with self._lock:
            self._feed = None

    def _await(self, feed: _Feed, ident: tuple[str, str, str]) -> bool:
        """Take what ``feed`` gives until ``ident``'s lookup has come (True) or nothing more
        will (False)."""
        if ident in feed.came:  # (came already: no wait behind whoever is taking the next part)
            return True
        with feed.lock:
            while ident not in feed.came and not feed.ended:
                if feed.scope is not None and ident[1] not in feed.scope:
                    return False
                self._take_part(feed)
            return ident in feed.came

    def _take_part(self, feed: _Feed) -> None:
        """Take the next part ``feed`` gives (its lock held): adopted, or its scope."""
        changes: Any = feed.pull()
        if isinstance(changes, frozenset):
            feed.scope = changes
            return
        try:
            new: _Entries = changes[0]
            products: dict[str, _Entries] = changes[3]
            self.adopt((new, 0, 0, products))
            feed.fresh.update(i for i, raw in new.items() if raw is not None)
            for made in products.values():
                feed.came.update(made)
            feed.came.update(new)  # (last: an ident that came has its entry in place)
        except Exception:  # (None: nothing more; anything else is not a part either)
            feed.ended = True

    def drain_feed(self, stop: threading.Event) -> None:
        """Take what :meth:`feed` still gives until no more will come, or ``stop`` is set, then
        end the feed: for a thread of its own once the build that needed the feed is done, so
        the other process never waits on its pipe and what it sent is here when asked."""
        feed = self._feed
        if feed is None:
            return
        with feed.lock:
            while not feed.ended and not stop.is_set():
                self._take_part(feed)
        with self._lock:
            if self._feed is feed:
                self._feed = None

    def _passed(self, ident: tuple[str, str, str]) -> None:
        """Journal ``ident`` as looked up but not kept (once :meth:`mark` was called): a process
        fed these changes (:meth:`feed`) then stops waiting for it."""
        if self._journal is not None and self.enabled:
            with self._lock:
                if self._journal is not None:
                    self._journal.append(ident)

    @property
    def produces(self) -> bool:
        """True when lookups also make :meth:`produce` products."""
        with self._lock:
            return bool(self._products)

    def mark(self) -> _Mark:
        """What :meth:`changes_since` starts from: where the journal of entries set is now (it is
        kept from the first mark on, in the product caches too) and the counters."""
        with self._lock:
            if self._journal is None:
                self._journal = []
            aux = list(self._aux.items())
            here = self._journal, len(self._journal), self.hits, self.misses
        marks = {}
        for kind, cache in aux:
            with cache._lock:
                if cache._journal is None:
                    cache._journal = []
                marks[kind] = (cache._journal, len(cache._journal))
        return (*here, marks)

    def changes_since(self, mark: _Mark) -> _Changes:
        """The entries kept since :meth:`mark` gave ``mark`` (the idents looked up but not kept
        as ``None``), with the hit and miss counts and the product caches' entries kept since,
        for :meth:`adopt` in another process (a forked reader's). Costs what was kept since,
        not what was kept before: a forked reader hands its entries over in many parts."""
        journal, at, hits, misses, marks = mark
        with self._lock:
            new = _since(self._used, self._journal, journal, at)
            counts = self.hits - hits, self.misses - misses
            aux = list(self._aux.items())
        products: dict[str, _Entries] = {}
        for kind, cache in aux:
            marked, since = marks.get(kind, (None, 0))
            with cache._lock:
                made = _since(cache._used, cache._journal, marked, since)
            if made:
                products[kind] = made
        return new, *counts, products

    def adopt(self, changes: _Changes | None) -> bool:
        """Take the entries and counts :meth:`changes_since` gave in a forked process, as if its
        lookups had run here; False (nothing taken) for ``None``."""
        if changes is None:
            return False
        new, hits, misses, products = changes
        kept = {ident: raw for ident, raw in new.items() if raw is not None}
        with self._lock:
            if self._journal is not None:
                self._journal.extend(new)
            self._used.update(kept)
            self._new = self._new or bool(kept)
            self.hits += hits
            self.misses += misses
        for kind, entries in products.items():
            made = {ident: raw for ident, raw in entries.items() if raw is not None}
            cache = self._aux_for(kind)
            with cache._lock:
                if cache._journal is not None:
                    cache._journal.extend(made)
                cache._used.update(made)
                cache._new = cache._new or bool(made)
        return True

    def _aux_for(self, kind: str) -> ParseCache:
        """The cache of what is made from files besides the host's own value (``lint:spec`` …),
        in a file of its own: a command that does not need it never loads it."""
        with self._lock:
            aux = self._aux.get(kind)
            if aux is None:
                file = None
                if self.file:
                    safe = "".join(c if c.isalnum() else "_" for c in kind)
                    file = self.file.removesuffix(".pickle") + f"-{safe}.pickle"
                aux = self._aux[kind] = ParseCache(file, f"{self.namespace}|{kind}", enabled=self.enabled)
                aux._is_aux = True
                aux._owner = self
                if self._journal is not None:  # (its entries are journaled from the start: mark())
                    aux._journal = []
            return aux

    def keep(self, ident: tuple[str, str, str], key: StatKey, value: object) -> None:
        """Store ``value`` for ``ident`` (kind, path, label) under the identity ``key``."""
        packed = self._pack(key, value)
        if packed is None:
            return
        with self._lock:
            self._set(ident, packed)
            self._new = True

    def _set(self, ident: tuple[str, str, str], raw: object) -> None:
        """``_used[ident] = raw``, journaled once :meth:`mark` was called (the lock held)."""
        if self._journal is not None and self._used.get(ident) is not raw:
            self._journal.append(ident)
        self._used[ident] = raw

    def produce(self, kind: str, product: Product) -> None:
        """From now on, every file a :meth:`lookup` reads also gives ``product(path, bytes)``,
        kept under ``kind`` with the same identity key (see :meth:`peek`), so it never needs a
        second read."""
        with self._lock:
            self._products[kind] = product

    def peek(self, kind: str, path: str, st: os.stat_result | None = None, *, label: str = "") -> object | None:
        """The cached value of ``(kind, path, label)`` when its key matches ``st``, else
        ``None``; nothing is computed (``st`` None: the file is stat-ed now)."""
        if not self.enabled:
            return None
        if ":" in kind and not self._is_aux:
            return self._aux_for(kind).peek(kind, path, st, label=label)
        if st is None:
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                return None
        key = stat_key(st)
        ident = (kind, path, label)
        with self._lock:
            raw = self._used.get(ident) or self._load().get(ident)
            hit = self._entry(raw)
            if hit is not None and hit[0] == key:
                self._set(ident, raw)
                return hit[1]
        return None

    def begin_full_build(self) -> None:
        """A build that reaches every file starts: entries it does not use are dropped at the
        next :meth:`save` (a file deleted or moved away leaves the cache)."""
        with self._lock:
            # what earlier builds used stays readable until this one reuses it
            self._load().update(self._used)
            self._used = {}
            if self._journal is not None:
                self._journal = []
            self._full = True
            self._live = None

    def retain(self, paths: set[str]) -> None:
        """A build that reaches every file but reused a kept whole-build state (so it looked up
        only the files that changed) started: at the next :meth:`save` that writes anyway,
        entries of files outside ``paths`` (and outside what was looked up since) are dropped;
        the others stay, though unused."""
        with self._lock:
            self._full = False
            self._live = set(paths)

    # ---- whole-build states
    def _state_file(self, kind: str) -> str | None:
        if not self.file or not self.enabled:
            return None
        safe = "".join(c if c.isalnum() else "_" for c in kind)
        return self.file.removesuffix(".pickle") + f"-state-{safe}.pickle"

    def has_state(self, kind: str) -> bool:
        """Whether a whole-build state is kept under ``kind`` (its file exists; not read)."""
        file = self._state_file(kind)
        return file is not None and os.path.exists(file)

    def load_state(self, kind: str, cls: type[T]) -> T | None:
        """The whole-build state last kept under ``kind`` with :meth:`keep_state` (in this
        namespace) when it is a ``cls``, else ``None`` (none kept, damaged, another skillshelf or
        host rules, no cache file). What it is worth is the host's business: it must check it
        against the files before using any of it."""
        file = self._state_file(kind)
        if file is None:
            return None
        value: T | None = _read_file(file, f"{self.namespace}|state:{kind}", kind=cls)
        if value is not None:
            with self._lock:
                self.state_hits += 1
        return value

    def keep_state(self, kind: str, value: object) -> None:
        """Write ``value`` (picklable, never changed afterwards; or a :class:`Later` making it) as
        the ``kind`` state at the next :meth:`save`; a later call before that replaces it."""
        if self._state_file(kind) is None:
            return
        with self._lock:
            self._states[kind] = value

    # ---- writing the file
    def save(self) -> bool:
        """Write the entries used since the last full build to :attr:`file`, atomically;
        True when a file was written. Never raises (a read-only or full disk is logged)."""
        return _write_planned(self.plan_save()) > 0

    def plan_save(self) -> list[_Write]:
        """What :meth:`save` writes now — each file with its namespace and value — with the
        bookkeeping of a save done (entries dropped, nothing dirty afterwards): the writes can
        then be made elsewhere (:func:`_write_planned`, a forked child)."""
        if not self.file:
            return []
        with self._lock:
            aux = list(self._aux.values())
            live: set[str] | None = None
            if self._full:
                live = {ident[1] for ident in self._used}
            elif self._live is not None:
                live = self._live | {ident[1] for ident in self._used}
            retained = self._live is not None
            states = self._states
            self._states = {}
        writes: list[_Write] = []
        for a in aux:
            writes.extend(a._plan(live, merge=True))
        for kind, value in states.items():
            file = self._state_file(kind)
            if file is not None:
                writes.append((file, f"{self.namespace}|state:{kind}", value))
        writes.extend(self._plan(live, merge=True) if retained else self._plan(None, merge=False))
        return writes

    def save_forked(self) -> bool:
        """:meth:`save` in a forked child (:func:`skillshelf.core.forked.spawn`: forked once the
        command has made its output), when one may be forked and no products are made; True
        when the write was planned (then made in the child, or here when it could not be
        forked). A one-shot cold build plans it as soon as every file is read; its whole-build
        state follows at the next save."""
        from skillshelf.core import forked

        if not self.file or not self.enabled or self.produces or not forked.available():
            return False
        writes = self.plan_save()
        if writes and not spawn_writes(writes, _write_planned):
            _write_planned(writes)
        return True

    def _plan(self, paths: set[str] | None, *, merge: bool) -> list[_Write]:
        """The write of the entries (``merge``: also those read from the file and not used since
        — a product cache is filled after the build that prunes), keeping only entries whose
        file is in ``paths`` (``None``: all); none when the file would not change."""
        if not self.file:
            return []
        with self._lock:
            if merge and self._live is not None and not self._new:
                return []  # reused a kept state and looked nothing up: the file is as it was
            if merge:
                stored = self._load()
                if paths is not None:
                    gone = [ident for ident in stored if ident[1] not in paths]
                    for ident in gone:
                        del stored[ident]
                    self._new = self._new or bool(gone)
                entries = {**stored, **self._used}
            else:
                entries = dict(self._used)
            if paths is not None:
                entries = {ident: v for ident, v in entries.items() if ident[1] in paths}
            if not self._dirty_locked():
                return []
            self._new = self._full = False
            self._saved = len(entries)
        return [(self.file, self.namespace, entries)]

    def _dirty_locked(self) -> bool:
        # Unchanged when nothing was computed and a full build reused exactly the saved entries
        # (what it used comes from the file, so equal counts mean equal sets).
        return self._new or (self._full and len(self._used) != self._saved)

    @property
    def dirty(self) -> bool:
        """True when :meth:`save` would write."""
        with self._lock:
            aux = list(self._aux.values())
            mine = bool(self.file) and (self._dirty_locked() or bool(self._states))
        return mine or any(a.dirty for a in aux)


#: The cache of a session with caching turned off (``--no-cache``): every lookup computes.
NO_CACHE = ParseCache(None, "", enabled=False)


def workspace_parts(cwd: str, home: str, xdg_config_home: str, xdg_cache_home: str, paths: Sequence[str],
                    config_files: Sequence[str]) -> list[str]:
    """What names a workspace's cache files (:func:`workspace_key`): working directory, home,
    configuration homes, extra paths and configuration layers (what decides which files a build
    reaches)."""
    return [os.path.abspath(cwd), home, xdg_config_home, xdg_cache_home, "paths", *paths, "config", *config_files]


def workspace_key(workspace: Sequence[str]) -> str:
    """The short hash (20 hex digits) that names a workspace's cache files (:class:`ParseCacheStore`)."""
    import hashlib  # (OpenSSL's start-up only where a cache is opened)

    return hashlib.blake2b("\0".join(workspace).encode("utf-8", "surrogateescape"), digest_size=10).hexdigest()


class ParseCacheStore:
    """The parse caches of one workspace, one :class:`ParseCache` per host (SPEC-neutral).

    ``directory``: skillshelf's cache directory (:func:`default_cache_dir`), ``None`` for a
    memory-only store; ``workspace``: what identifies the workspace (working directory, extra
    paths and configuration files, home) — hashed into the file names.
    """

    def __init__(self, directory: str | None, workspace: Sequence[str]) -> None:
        self.directory = directory
        self._workspace = workspace_key(workspace)
        self._lock = threading.Lock()
        self._caches: dict[str, ParseCache] = {}
        self._products: dict[str, Product] = {}
        self._saving = threading.Lock()

    def for_host(self, name: str, rules: str) -> ParseCache:
        """The cache of host ``name`` whose rules are version ``rules`` (the client version it
        emulates); the namespace adds the cache format and :func:`code_fingerprint`."""
        with self._lock:
            cache = self._caches.get(name)
            if cache is None:
                namespace = f"{CACHE_FORMAT}|{code_fingerprint()}|{name}|{rules}"
                file = None
                if self.directory is not None:
                    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
                    file = os.path.join(self.directory, "parse", f"{safe}-{self._workspace}.pickle")
                cache = self._caches[name] = ParseCache(file, namespace)
                for kind, product in self._products.items():
                    cache.produce(kind, product)
            return cache

    def produce(self, kind: str, product: Product) -> None:
        """:meth:`ParseCache.produce` for every host's cache of this workspace."""
        with self._lock:
            self._products[kind] = product
            for cache in self._caches.values():
                cache.produce(kind, product)

    @property
    def dirty(self) -> bool:
        """True when some host's cache has entries to write."""
        with self._lock:
            return any(c.dirty for c in self._caches.values())

    def save(self) -> int:
        """Write every host cache that changed (atomically, one at a time); returns how many
        host caches had files written. Never raises."""
        with self._saving:
            with self._lock:
                caches = list(self._caches.values())
            written = sum(1 for c in caches if _write_planned(c.plan_save()) > 0)
            if written and self.directory is not None:
                _evict(os.path.join(self.directory, "parse"))
            return written

    def plan_save(self) -> list[_Write]:
        """Every write :meth:`save` would make now, with its bookkeeping done (see
        :meth:`ParseCache.plan_save`); :meth:`write_planned` makes them."""
        with self._saving:
            with self._lock:
                caches = list(self._caches.values())
            return [w for c in caches for w in c.plan_save()]

    def write_planned(self, writes: Sequence[_Write]) -> int:
        """Make the writes :meth:`plan_save` gave (atomically, one at a time); the number of
        files written. Never raises."""
        written = _write_planned(writes)
        if written and self.directory is not None:
            _evict(os.path.join(self.directory, "parse"))
        return written


# --------------------------------------------------------------------------------------------
# file format
# --------------------------------------------------------------------------------------------


def _since(used: _Entries, journal: list[tuple[str, str, str]] | None, marked: list[tuple[str, str, str]] | None,
           at: int) -> _Entries:
    """The entries of ``used`` journaled since position ``at`` of the journal ``marked`` (all of
    them when the journal was started afresh since, by a full build, or after the mark)."""
    if marked is not None and marked is journal:
        return {ident: used.get(ident) for ident in journal[at:]}
    return dict(used)


def _read_file(file: str, namespace: str, *, kind: type = dict) -> Any:
    """The entries of ``file`` when it is a complete cache file of ``namespace``, else ``{}``
    (``kind`` object: the value kept in it, else ``None``)."""
    empty: dict[tuple[str, str, str], tuple[StatKey, object]] | None = {} if kind is dict else None
    cachelock.await_writers(_cache_root(file))  # (a command that just ended may still be writing it)
    try:  # (a regular file only: a FIFO in its place never blocks the run)
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            if not stat_mod.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return empty
            data = fh.read()
    except OSError:
        return empty
    try:
        if not data.startswith(_MAGIC):
            return empty
        pos = len(_MAGIC)
        nl = data.index(b"\n", pos)
        if data[pos:nl].decode("utf-8") != namespace:
            return empty
        pos = nl + 1
        length, crc = _HEADER.unpack_from(data, pos)
        payload = memoryview(data)[pos + _HEADER.size:]
        if len(payload) != length or zlib.crc32(payload) != crc:
            return empty
        # Unpickling builds many objects and no garbage: without the collector's passes over
        # them it takes about half the time.
        collecting = gc.isenabled()
        gc.disable()
        try:
            entries = pickle.loads(payload)
        finally:
            if collecting:
                gc.enable()
        if FREEZE_LOADED:
            gc.freeze()
    except Exception as exc:  # a damaged cache is never an error: it is rebuilt
        log.info("ignoring the parse cache %s: %s", file, exc)
        return empty
    if not isinstance(entries, kind):
        return empty
    return entries


def _cache_root(file: str) -> str:
    """The cache directory of a cache file (``<directory>/parse/<name>``)."""
    return os.path.dirname(os.path.dirname(file))


def spawn_writes(writes: Sequence[_Write], write: Callable[[Sequence[_Write]], object]) -> bool:
    """``write(writes)`` in a forked child (:func:`skillshelf.core.forked.spawn`: forked once the
    command's output is made) that holds the cache directory's writer lock
    (:mod:`skillshelf.core.cachelock`: a run started before it ends waits for it); False when no
    child will run it (nothing was written)."""
    from skillshelf.core import forked

    if writes and forked.available():
        cachelock.hold(_cache_root(writes[0][0]))
    return forked.spawn(partial(write, writes))


class Later:
    """A whole-build state (:meth:`ParseCache.keep_state`), or what else a build keeps for the
    next run, made only when it is written: ``make()`` then runs in the writer (a forked child
    after the command's output, or a thread) instead of in the build. ``make`` must read only
    values nobody changes afterwards."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


def made(value: object) -> object:
    """``value``, or what it makes when it is a :class:`Later`."""
    return value.make() if isinstance(value, Later) else value


def _write_planned(writes: Sequence[_Write]) -> int:
    """Write each planned file (:func:`_write_file`; a :class:`Later` value made first); the
    number written. Never raises: a failure is logged and the others are still written."""
    written = 0
    for file, namespace, value in writes:
        try:
            value = made(value)
            try:
                _write_file(file, namespace, value)
            except RecursionError:  # (one entry nested too deep to pickle: the others are still kept)
                if not isinstance(value, dict):
                    raise
                _write_file(file, namespace, {k: v for k, v in value.items() if _picklable(v)})
            written += 1
        except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
            log.warning("could not write the parse cache %s: %s", file, exc)
        except Exception:  # (a Later that failed: a bug, never the command's failure)
            log.exception("could not make what the parse cache %s keeps", file)
    return written


def _picklable(value: object) -> bool:
    try:
        pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        return False
    return True


class _Payload:
    """The file a payload is pickled into, as it is made (never held whole in memory: the kept
    build of 100,000 skills is ~150 MB), with its length and CRC-32."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh
        self.size = 0
        self.crc = 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        self.crc = zlib.crc32(data, self.crc)
        return int(self._fh.write(data))


def _write_file(file: str, namespace: str, entries: object) -> None:
    """Write ``entries`` to ``file`` atomically (temporary file + rename, directory 0700); the
    header's length and CRC-32 are written once the payload is."""
    directory = os.path.dirname(file)
    private_dirs(directory)
    head = _MAGIC + namespace.encode("utf-8") + b"\n"
    fd, tmp = tempfile.mkstemp(prefix=".parse-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(head + _HEADER.pack(0, 0))
            payload = _Payload(fh)
            pickle.Pickler(payload, protocol=pickle.HIGHEST_PROTOCOL).dump(entries)
            fh.seek(len(head))
            fh.write(_HEADER.pack(payload.size, payload.crc))
        os.replace(tmp, file)
    except BaseException:
        _unlink(tmp)
        raise


def _evict(directory: str) -> None:
    """Keep the :data:`MAX_FILES` most recently written cache files of ``directory``; remove
    temporary files left by a process that died while saving (older than an hour)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    now = time.time()
    files: list[tuple[float, str]] = []
    for e in entries:
        try:
            mtime = e.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if e.name.endswith(".tmp"):
            if now - mtime > 3600:
                _unlink(e.path)
        elif e.name.endswith(".pickle"):
            files.append((mtime, e.path))
    files.sort(reverse=True)
    for _, path in files[MAX_FILES:]:
        _unlink(path)


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
