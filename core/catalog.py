"""The live skill catalog: build, refresh, keep-last-valid, publish (SPEC H1–H3, D5–D6, K4, E2).

A :class:`Catalog` owns the inputs (working directory, environment, configuration layers, extra
paths, host) and publishes immutable :class:`~skillshelf.core.model.Generation` snapshots. Readers
hold a generation; publishing swaps one reference (``Catalog.current``), so a reader never sees a
half-updated catalog.

Data path (DESIGN): environment + config → host roots → scan → discovery (dedupe) → parse each
``SKILL.md`` (host rules) → sidecars → ``skills.config`` rules → Generation.
"""

from __future__ import annotations

import bisect
import errno
import hashlib
import os
import stat as stat_mod
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from skillshelf import __version__
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Exposure,
    Generation,
    Provenance,
    Rejected,
    Root,
    Severity,
    Source,
    Status,
)
from skillshelf.core.scan import SKILL_FILENAME, _Walk, path_sort_key

#: Warning kinds after which the previous valid entry of that file is kept (conformance §6, SPEC H3).
KEEP_LAST_VALID_KINDS = frozenset(
    {"Unreadable", "Frontmatter", "MissingName", "InvalidDescription", "MetadataUnreadable", "MetadataMalformed"}
)


def compute_digest(sources: Iterable[Source], warnings: Iterable[CatalogWarning]) -> str:
    """Hex SHA-256 of a generation (SPEC H1, conformance §6 "digest").

    Per enabled source in catalog order, NUL-separated: name, location, description,
    display name, short description, the exposure byte (0 index, 1 search, 2 explicit), each
    metadata source, the hex SHA-256 of the whole source file; then ``0xff``. Then per warning:
    ``source NUL message 0xff``. Absent optional strings hash as empty strings.
    """
    h = hashlib.sha256()
    for s in sources:
        if s.enabled:
            h.update(_source_digest_bytes(s))
    for w in warnings:
        h.update(_warning_digest_bytes(w))
    return h.hexdigest()


def _source_digest_bytes(s: Source) -> bytes:
    """One source's contribution to :func:`compute_digest` (ends with ``0xff``)."""
    parts = [
        s.name,
        s.location,
        s.description or "",
        s.display_name or "",
        s.short_description or "",
    ]
    out = [("\0".join(parts)).encode("utf-8", "surrogatepass"), b"\0" + bytes([s.exposure.digest_byte])]
    for m in s.metadata_sources:
        out.append(b"\0" + m.encode("utf-8", "surrogatepass"))
    out.append(b"\0" + s.content_sha256.encode("ascii") + b"\xff")
    return b"".join(out)


def _warning_digest_bytes(w: CatalogWarning) -> bytes:
    """One warning's contribution to :func:`compute_digest`: ``source NUL message 0xff``."""
    return w.source.encode("utf-8", "surrogatepass") + b"\0" + w.message.encode("utf-8", "surrogatepass") + b"\xff"


@dataclass
class _Inputs:
    cwd: str
    env: Any  # skillshelf.core.paths.Environment
    host: str
    paths: tuple[str, ...]
    config_files: tuple[str, ...]
    context_window: int | None


class Catalog:
    """A live catalog over one working directory (DESIGN "Stable Python surface").

    Build with :meth:`open`; read :attr:`current` (the published :class:`Generation`);
    call :meth:`refresh` to rescan (returns the new generation; concurrent calls are serialised
    and a call that arrives while another refresh runs is folded into the next one, SPEC H2).
    ``on_publish`` callbacks receive each new generation (used by the TUI and ``watch``).
    """

    def __init__(self, inputs: _Inputs) -> None:
        self._inputs = inputs
        self._lock = threading.Lock()
        self._ticket_lock = threading.Lock()
        self._requested = 0
        self._covered = 0
        self._current: Generation | None = None
        self._remote_dirs: tuple[str, ...] = ()
        self._remote_warnings: tuple[CatalogWarning, ...] = ()
        self._remote_origins: Mapping[str, Any] = {}
        self._remote_pulled = False
        self.config: Any = None
        self._listeners: list[Callable[[Generation], None]] = []
        self._pending_paths: set[str] = set()
        self._pending_full = False
        self._snap: _Snapshot | None = None
        self._watch_warnings: tuple[CatalogWarning, ...] = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def open(
        cls,
        cwd: str,
        *,
        env: Any = None,
        host: str = "zuno",
        paths: Sequence[str] = (),
        config_files: Sequence[str] = (),
        context_window: int | None = None,
        pull_remote: bool = True,
    ) -> "Catalog":
        """Build the first generation (number 1) for ``cwd``.

        ``env`` is a :class:`skillshelf.core.paths.Environment` (``None`` reads the process
        environment once, here at the edge). ``paths`` are extra ``skills.paths`` entries appended
        after the configured ones (``--path``); ``config_files`` extra configuration layers
        (``--config``, highest precedence). ``context_window`` in tokens drives the budgets (U1–U2).
        ``pull_remote`` False skips ``skills.urls`` downloads (tests, offline use). Never raises for
        bad skills or bad config: those become diagnostics/warnings in the generation.
        """
        from skillshelf.core.paths import Environment

        if env is None:
            env = Environment.from_mapping(None)
        cwd = os.path.abspath(cwd)
        cat = cls(
            _Inputs(
                cwd=cwd,
                env=env,
                host=host,
                paths=tuple(paths),
                config_files=tuple(config_files),
                context_window=context_window,
            )
        )
        cat._pull_on_build = pull_remote
        cat._publish(cat._build(previous=None))
        return cat

    # ------------------------------------------------------------------ public surface
    @property
    def current(self) -> Generation:
        """The latest published generation."""
        assert self._current is not None
        return self._current

    @property
    def cwd(self) -> str:
        """Absolute working directory the catalog was opened for."""
        return self._inputs.cwd

    @property
    def env(self) -> Any:
        """The :class:`~skillshelf.core.paths.Environment` in use."""
        return self._inputs.env

    @property
    def host(self) -> str:
        """Host name (``zuno`` or ``zhin``)."""
        return self._inputs.host

    @property
    def context_window(self) -> int | None:
        """Context window in tokens, or ``None`` when unknown (SPEC U1)."""
        return self._inputs.context_window

    @property
    def remote_origins(self) -> Mapping[str, Any]:
        """Pulled remote skill directory → (url, version) (SPEC R)."""
        return self._remote_origins

    @property
    def index_budget(self) -> int:
        """Index budget in characters (SPEC U1) from config ``maxContextTokens`` and the window."""
        from skillshelf.core.budget import index_budget_chars

        mct = getattr(self.config, "max_context_tokens", None)
        return index_budget_chars(max_context_tokens=mct, context_window=self._inputs.context_window)

    @property
    def selected_budget(self) -> int:
        """Selected-body budget in tokens (SPEC U2)."""
        from skillshelf.core.budget import selected_budget_tokens

        mst = getattr(self.config, "max_selected_context_tokens", None)
        return selected_budget_tokens(
            context_window=self._inputs.context_window, max_selected_context_tokens=mst
        )

    def subscribe(self, callback: Callable[[Generation], None]) -> None:
        """Call ``callback(generation)`` after every publish (from the publishing thread)."""
        self._listeners.append(callback)

    def refresh(self, *, pull_remote: bool = False) -> Generation:
        """Rescan everything and publish a new generation (number + 1), SPEC H2–H3.

        A refresh always publishes, even when nothing changed (conformance §6). Concurrent calls
        collapse: each call takes a ticket; a rescan that *started* after a caller's ticket was
        taken covers that caller, which then returns that rescan's generation instead of
        scanning again. ``pull_remote`` re-pulls ``skills.urls`` first. Pending
        :meth:`refresh_paths` requests are folded into the full rescan.
        """
        return self._request(None, pull_remote=pull_remote)

    def refresh_paths(self, changed: Iterable[str]) -> Generation:
        """Re-read only what ``changed`` paths can affect and publish a new generation (SPEC H2).

        ``changed``: absolute paths reported by a watcher (files or directories, existing or
        gone). Each path is mapped to every spelling it has in the catalog (through the roots'
        own symlinks and any symlinked directory met by the scan, both ways); a directory is
        rescanned from disk as a subtree (so ``mkdir -p a/b && write`` is caught even when the
        watcher missed the nested file), a ``SKILL.md`` or sidecar re-reads its skill directory.
        Configuration layers and the root list are always re-read (a few small files): a root
        that appeared, vanished or changed is rescanned whole; ``skills.config`` changes re-apply
        the rules to every source without re-parsing. Everything else reuses the previous
        generation's parsed sources. Anything the patch cannot decide exactly (a symlink loop,
        a warning inside the changed subtree, too many spellings, host ``zhin``) falls back to
        rescanning that root or everything.

        The result equals what :meth:`refresh` would publish from the same previous generation
        (same sources and order, rejected, warnings and their order, digest), and like
        :meth:`refresh` it always publishes (number + 1). Concurrent calls collapse into one
        rebuild covering the union of their paths; a pending :meth:`refresh` turns it into a full
        rescan. Never raises for file-system problems.
        """
        paths = {os.path.normpath(os.path.abspath(p)) for p in changed}
        return self._request(paths)

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

    def _request(self, paths: set[str] | None, *, pull_remote: bool = False) -> Generation:
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
            if pull_remote:
                self._remote_pulled = False
            try:
                gen = self._build(previous=self._current, changed=None if full else pending)
            except BaseException:
                with self._ticket_lock:  # nothing is lost: the next request rescans everything
                    self._pending_full = True
                raise
            self._covered = covers
            self._publish(gen)
            return gen

    # ------------------------------------------------------------------ building
    def _publish(self, gen: Generation) -> None:
        self._current = gen
        for cb in list(self._listeners):
            try:
                cb(gen)
            except Exception:  # a listener must never break publishing
                pass

    def _load_config(self) -> Any:
        try:
            from skillshelf.core.config import load_config
        except ImportError:  # pragma: no cover - during bring-up
            return None
        from skillshelf.core.paths import find_worktree

        inp = self._inputs
        return load_config(
            cwd=inp.cwd,
            worktree=find_worktree(inp.cwd),
            home=inp.env.home,
            xdg_config_home=inp.env.xdg_config_home,
            env=inp.env.vars,
            extra_files=inp.config_files,
        )

    def _pull_remote(self, urls: Sequence[str]) -> None:
        if self._remote_pulled:
            return
        self._remote_pulled = True
        if not urls or not getattr(self, "_pull_on_build", True):
            self._remote_dirs, self._remote_warnings, self._remote_origins = (), (), {}
            return
        from skillshelf.core.remote import cache_root, pull

        res = pull(list(urls), cache_root(self._inputs.env.xdg_cache_home))
        self._remote_dirs = tuple(res.roots)
        self._remote_warnings = tuple(res.warnings)
        self._remote_origins = dict(getattr(res, "origins", {}) or {})

    def _build(self, previous: Generation | None, changed: set[str] | None = None) -> Generation:
        """Build the next generation. ``changed`` None → rescan and re-read everything; a set of
        paths → the incremental rebuild of :meth:`refresh_paths` (same result)."""
        inp = self._inputs
        config = self._load_config()
        self.config = config
        config_diags: tuple[Diagnostic, ...] = tuple(getattr(config, "diagnostics", ()) or ())
        cfg_paths = tuple(getattr(config, "paths", ()) or ())
        urls = tuple(getattr(config, "urls", ()) or ())
        self._pull_remote(urls)

        if inp.host == "zhin":
            from skillshelf.core.hosts.zhin import build_zhin_generation

            self._snap = None
            gen = build_zhin_generation(
                inp.cwd,
                paths=cfg_paths + inp.paths,
                previous=previous,
                version=__version__,
                home=inp.env.home,
                search_path=inp.env.vars.get("PATH"),
            )
            return gen

        from skillshelf.core.hosts.zuno import zuno_roots

        roots, root_warnings = zuno_roots(
            inp.env, inp.cwd, paths=cfg_paths + inp.paths, remote_dirs=self._remote_dirs
        )
        snap = self._snap
        if previous is None or snap is None or snap.generation is not previous:
            snap = None
        if snap is not None:  # keep the previous Root objects for equal roots (cheap identity checks)
            same = {r: r for r in snap.roots}
            roots = tuple(same.get(r, r) for r in roots)
        plan = None
        if changed is not None and snap is not None:
            plan = _plan_patch(snap, roots, changed)
        edited: set[str] | None = None
        if plan is None:
            root_scans = tuple(_scan_tree(r.scan_dir, r.dot) for r in roots)
            touched: Callable[[str], bool] | None = None
        else:
            root_scans, touched, touched_paths = plan
            edited = _edited_locations(snap, roots, root_scans, touched_paths)
        if edited is not None:  # same roots, same scans: the fold would give the same matches
            matches = snap.matches
            scan_warnings = [w for rs in root_scans for w in rs.warnings]
        else:
            reuse = None
            if touched is not None and snap is not None:
                reuse = {m.canonical: m for m in snap.matches}
            matches, scan_warnings = _fold(roots, root_scans, reuse)
        hints: tuple[Diagnostic, ...] = ()
        try:
            from skillshelf.core.hosts.zuno import uncovered_folders

            hints = tuple(uncovered_folders(inp.env, inp.cwd, roots))
        except ImportError:  # pragma: no cover
            pass
        except Exception as exc:  # hints are best effort, never fatal
            hints = (Diagnostic(Severity.INFO, "hint-failed", f"could not look for uncovered folders: {exc}"),)

        rules = tuple(getattr(config, "rules", ()) or ())
        if edited is not None and snap.rules == rules:
            outputs, parsed = _assemble_edited(edited, config, rules, snap)
        else:
            outputs, parsed = _assemble(matches, config, rules, previous, snap, touched)
        sources: list[Source] = []
        rejected: list[Rejected] = []
        file_warnings: list[CatalogWarning] = []
        for m in matches:
            out = outputs[m.location]
            if isinstance(out.entry, Source):
                sources.append(out.entry)
            else:
                rejected.append(out.entry)
            file_warnings.extend(out.warnings)

        warnings: list[CatalogWarning] = []
        warnings.extend(root_warnings)
        warnings.extend(scan_warnings)
        warnings.extend(self._remote_warnings)
        warnings.extend(file_warnings)
        for d in config_diags:
            if d.code == "config-invalid":
                warnings.append(CatalogWarning("config-invalid", d.path or "", d.message))
        warnings.extend(self._watch_warnings)

        builtins = snap.builtins if (snap is not None and touched is not None) else _builtin_sources()
        all_sources = tuple(builtins) + tuple(sources)
        digest, digest_cache = _cached_digest(all_sources, warnings, snap.digest_cache if snap else {})
        number = 1 if previous is None else previous.number + 1
        gen = Generation(
            number=number,
            digest=digest,
            host=inp.host,
            cwd=inp.cwd,
            roots=tuple(roots),
            sources=all_sources,
            rejected=tuple(rejected),
            warnings=tuple(warnings),
            diagnostics=tuple(config_diags) + hints,
        )
        self._snap = _Snapshot(
            generation=gen,
            roots=tuple(roots),
            scans=root_scans,
            matches=matches,
            parsed=parsed,
            outputs=outputs,
            rules=rules,
            builtins=tuple(builtins),
            digest_cache=digest_cache,
        )
        return gen


def _builtin_sources() -> tuple[Source, ...]:
    try:
        from skillshelf.core.builtin import builtin_sources
    except ImportError:  # pragma: no cover - during bring-up
        return ()
    return tuple(builtin_sources(__version__))


def _stat(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


@dataclass(frozen=True)
class _Parsed:
    """What reading one skill directory gave: its sidecars, its ``SKILL.md`` parse, its mtime."""

    sidecar: Any
    parse: Any
    mtime: float


@dataclass(frozen=True)
class _Output:
    """One match turned into a catalog entry (a :class:`Source` or :class:`Rejected`) plus its
    warnings in publish order; ``match`` and ``rules`` are the inputs it was made from."""

    match: Any
    rules: tuple[Any, ...]
    entry: Source | Rejected
    warnings: tuple[CatalogWarning, ...]


@dataclass(frozen=True)
class _RootScan:
    """One root's scan (as :func:`skillshelf.core.scan.scan` reports it) plus what an incremental
    refresh needs: ``keys`` the :func:`path_sort_key` of each match (for bisecting a subtree's
    block out) and ``links`` every symlinked directory met, as ``(spelled, canonical target)``."""

    matches: tuple[str, ...]
    canonicals: tuple[str, ...]
    keys: tuple[bytes, ...]
    warnings: tuple[CatalogWarning, ...]
    links: tuple[tuple[str, str], ...] = ()


@dataclass
class _Snapshot:
    """The inputs behind the latest generation, kept for :meth:`Catalog.refresh_paths`."""

    generation: Generation
    roots: tuple[Root, ...]
    scans: tuple[_RootScan, ...]
    matches: tuple[Any, ...]
    parsed: dict[str, _Parsed]
    outputs: dict[str, _Output]
    rules: tuple[Any, ...]
    builtins: tuple[Source, ...]
    digest_cache: dict[int, tuple[Source, bytes]]
    _by_dir: dict[str, str] | None = None

    def location_by_dir(self) -> dict[str, str]:
        """Skill directory (as spelled by the locator) → locator, built once per snapshot."""
        if self._by_dir is None:
            self._by_dir = {m.location.rpartition("/")[0]: m.location for m in self.matches}
        return self._by_dir


class _RecordingWalk(_Walk):
    """:class:`skillshelf.core.scan._Walk` that also records every symlinked directory it follows."""

    def __init__(self, dot: bool) -> None:
        super().__init__(dot)
        self.links: list[tuple[str, str]] = []

    def symlink(self, path: str, name: str, subdirs: list[tuple[str, str, int]]) -> None:
        before = len(subdirs)
        super().symlink(path, name, subdirs)
        if len(subdirs) > before:
            self.links.append((path, subdirs[-1][1]))


_EMPTY_SCAN = _RootScan((), (), (), ())


def _scan_tree(scan_dir: str, dot: bool) -> _RootScan:
    """Exactly :func:`skillshelf.core.scan.scan` (same matches, canonicals, warnings, order),
    plus sort keys and the symlinked directories met (``scan_dir`` itself included when it is
    spelled through a symlink)."""
    walk = _RecordingWalk(dot)
    try:
        st = os.stat(scan_dir)
    except FileNotFoundError:
        if os.path.islink(scan_dir):
            walk.broken(scan_dir)
        return _RootScan((), (), (), tuple(walk.warnings))
    except NotADirectoryError:
        return _EMPTY_SCAN
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            walk.loop(scan_dir, None)
        else:
            walk.unreadable(scan_dir, exc)
        return _RootScan((), (), (), tuple(walk.warnings))
    if not stat_mod.S_ISDIR(st.st_mode):
        return _EMPTY_SCAN
    top = os.path.realpath(scan_dir)
    walk.run(scan_dir, top)
    pairs = dict(zip(walk.matches, walk.canonicals))
    keyed = sorted((path_sort_key(m), m) for m in pairs)
    warnings = sorted(walk.warnings, key=lambda w: path_sort_key(w.source))
    links = list(walk.links)
    if top != scan_dir:
        links.append((scan_dir, top))
    return _RootScan(
        tuple(m for _, m in keyed),
        tuple(pairs[m] for _, m in keyed),
        tuple(k for k, _ in keyed),
        tuple(warnings),
        tuple(links),
    )


def _scan_entry(path: str, dot: bool) -> _RootScan | None:
    """What the walk of a root reports for the single entry ``path`` (a changed file or
    directory inside the root) and everything below it. ``None`` when the answer needs the
    whole root's context (a dangling or looping link, a ``SKILL.md`` that is not a regular file,
    an unreadable entry): the caller then rescans the root."""
    name = path.rsplit("/", 1)[-1]
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return _EMPTY_SCAN
    except OSError:
        return None
    mode = lst.st_mode
    if stat_mod.S_ISLNK(mode):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return None
    if stat_mod.S_ISDIR(mode):
        if name == SKILL_FILENAME:
            return None
        return _scan_tree(path, dot)
    if name == SKILL_FILENAME:
        if stat_mod.S_ISREG(mode):
            return _RootScan((path,), (os.path.realpath(path),), (path_sort_key(path),), ())
        return None
    return _EMPTY_SCAN


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + "/") or directory == "/"


def _spellings(changed: Iterable[str], scans: Sequence[_RootScan]) -> set[str] | None:
    """Every spelling of the changed paths the catalog can know them by: each path, its
    canonical form, and its image through every recorded symlinked directory (root links and
    dangling links too), both ways, to a fixed point. ``None`` when that exceeds 512 paths."""
    links: list[tuple[str, str]] = []
    for rs in scans:
        links.extend(rs.links)
        for w in rs.warnings:
            if w.kind == "broken-symlink":
                links.append((w.source, os.path.realpath(w.source)))
    out: set[str] = set()
    frontier: list[str] = []
    for p in changed:
        for q in (p, os.path.realpath(p)):
            if q not in out:
                out.add(q)
                frontier.append(q)
    while frontier:
        x = frontier.pop()
        for spelled, target in links:
            if _within(x, target):
                y = spelled + x[len(target):] if target != "/" else spelled + x
            elif _within(x, spelled):
                y = target + x[len(spelled):]
            else:
                continue
            y = os.path.normpath(y)
            if y not in out:
                out.add(y)
                frontier.append(y)
                if len(out) > 512:
                    return None
    return out


def _minimal(paths: Iterable[str]) -> list[str]:
    """``paths`` without those lying below another one (sorted)."""
    kept: list[str] = []
    for p in sorted(set(paths), key=path_sort_key):
        if kept and _within(p, kept[-1]):
            continue
        kept.append(p)
    return kept


def _patch_root(old: _RootScan, dot: bool, changed: Sequence[str]) -> _RootScan | None:
    """``old`` with the block of each changed path (the path itself and everything below it)
    replaced by a fresh scan of that entry. ``None`` when the exact answer needs a whole-root
    rescan (see :func:`_scan_entry`; also any symlink loop in the root, any old warning at, below
    or above a changed path, and any warning in the fresh subtree)."""
    if any(w.kind == "symlink-loop" for w in old.warnings):
        return None
    matches = list(old.matches)
    canonicals = list(old.canonicals)
    keys = list(old.keys)
    links = list(old.links)
    for c in changed:
        if any(_within(w.source, c) or _within(c, w.source) for w in old.warnings):
            return None
        sub = _scan_entry(c, dot)
        if sub is None or sub.warnings:
            return None
        k = path_sort_key(c)
        lo = bisect.bisect_left(keys, k)
        hi = bisect.bisect_left(keys, k + b"\x01", lo)
        matches[lo:hi] = sub.matches
        canonicals[lo:hi] = sub.canonicals
        keys[lo:hi] = sub.keys
        links = [link for link in links if not _within(link[0], c)] + list(sub.links)
    return _RootScan(tuple(matches), tuple(canonicals), tuple(keys), old.warnings, tuple(links))


def _plan_patch(
    snap: _Snapshot, roots: Sequence[Root], changed: Iterable[str]
) -> tuple[tuple[_RootScan, ...], Callable[[str], bool], frozenset[str]] | None:
    """Per-root scans for an incremental refresh, the predicate "this locator's skill
    directory must be re-read", and the set of paths that predicate is built from.
    ``None`` → do a full rebuild instead."""
    spelled = _spellings(changed, snap.scans)
    if spelled is None:
        return None
    old = dict(zip(snap.roots, snap.scans))
    scans: list[_RootScan] = []
    touched = set(spelled)
    for root in roots:
        sd = root.scan_dir
        rs = old.get(root)
        if rs is None or any(_within(sd, c) for c in spelled):
            scans.append(_scan_tree(sd, root.dot))
            touched.add(sd)
            continue
        inside: list[str] = []
        prefix = sd + "/"
        for c in spelled:
            if c.startswith(prefix):
                if not root.dot and any(part[:1] == "." for part in c[len(prefix):].split("/")):
                    continue
                inside.append(c)
        if not inside:
            scans.append(rs)
            continue
        patched = _patch_root(rs, root.dot, _minimal(inside))
        scans.append(patched if patched is not None else _scan_tree(sd, root.dot))
    return tuple(scans), _toucher(touched), frozenset(touched)


def _edited_locations(snap: _Snapshot, roots: Sequence[Root], scans: Sequence[_RootScan],
                      paths: frozenset[str]) -> set[str] | None:
    """The fast path of :meth:`Catalog.refresh_paths` for edits inside existing skills: when the
    roots and every root scan are unchanged (no skill added, removed or moved) and no changed
    path is a directory or a root, the locators :func:`_toucher` would select are exactly those
    whose skill directory is a changed path or one of its ancestors — found by walking up from
    each path instead of testing all matches. ``None`` → use the general path."""
    if len(roots) != len(snap.roots) or any(a is not b for a, b in zip(roots, snap.roots)):
        return None
    if any(a is not b and a != b for a, b in zip(scans, snap.scans)):
        return None
    scan_dirs = {r.scan_dir for r in roots}
    by_dir = snap.location_by_dir()
    out: set[str] = set()
    for p in paths:
        if p in scan_dirs or os.path.isdir(p):
            return None
        x = p
        while x:
            loc = by_dir.get(x)
            if loc is not None:
                out.add(loc)
            x = x.rpartition("/")[0]
    return out


def _toucher(paths: set[str]) -> Callable[[str], bool]:
    """Predicate on a locator: its skill directory is at, above or below a changed path."""
    ancestors: set[str] = set()
    for p in paths:
        x = p
        while x and x not in ancestors:
            ancestors.add(x)
            x = x.rpartition("/")[0]
    prefixes = tuple(p.rstrip("/") + "/" for p in paths)

    def touched(location: str) -> bool:
        d = location.rpartition("/")[0]
        return d in ancestors or d.startswith(prefixes)

    return touched


def _fold(
    roots: Sequence[Root], scans: Sequence[_RootScan], reuse: Mapping[str, Any] | None = None
) -> tuple[tuple[Any, ...], list[CatalogWarning]]:
    """Discovery's fold (:func:`skillshelf.core.discovery.discover`) over already made scans:
    matches de-duplicated by canonical path in discovery order, later spellings as aliases;
    the scan warnings in root order. ``reuse`` (canonical → previous match) lets an unchanged
    match keep its object (same locator, same root object, same aliases)."""
    from skillshelf.core.discovery import Match, dedupe

    found, warnings = dedupe(roots, scans)
    out: list[Any] = []
    for c, location, root, also in found:
        aliases = tuple(also)
        hit = reuse.get(c) if reuse else None
        if hit is not None and hit.location == location and hit.root is root and hit.aliases == aliases:
            out.append(hit)
            continue
        out.append(Match(location=location, canonical=c, provenance=root.provenance, root=root, aliases=aliases))
    return tuple(out), warnings


def _cached_digest(
    sources: Sequence[Source], warnings: Sequence[CatalogWarning], cache: Mapping[int, tuple[Source, bytes]]
) -> tuple[str, dict[int, tuple[Source, bytes]]]:
    """:func:`compute_digest` reusing each unchanged source object's bytes from ``cache``
    (keyed by object identity; the object is kept in the cache so its id stays unique)."""
    new: dict[int, tuple[Source, bytes]] = {}
    chunks: list[bytes] = []
    for s in sources:
        if not s.enabled:
            continue
        hit = cache.get(id(s))
        data = hit[1] if hit is not None and hit[0] is s else _source_digest_bytes(s)
        new[id(s)] = (s, data)
        chunks.append(data)
    chunks.extend(_warning_digest_bytes(w) for w in warnings)
    return hashlib.sha256(b"".join(chunks)).hexdigest(), new


def _assemble(
    matches: Sequence[Any],
    config: Any,
    rules: tuple[Any, ...],
    previous: Generation | None,
    snap: _Snapshot | None,
    touched: Callable[[str], bool] | None,
) -> tuple[dict[str, _Output], dict[str, _Parsed]]:
    """Turn every match into its entry (H3 keep-last-valid included). ``touched`` None → read
    every skill directory; else only those it names, reusing ``snap``'s parses and, when the
    match and the rules are unchanged too, its finished entries."""
    from skillshelf.core.frontmatter import parse_skill_file
    from skillshelf.core.sidecar import read_sidecars

    old_out = snap.outputs if snap is not None else {}
    old_parsed = snap.parsed if snap is not None else {}
    same_rules = snap is not None and snap.rules == rules
    prev_by_loc: dict[str, Source] | None = None
    outputs: dict[str, _Output] = {}
    parsed: dict[str, _Parsed] = {}
    for m in matches:
        loc = m.location
        p: _Parsed | None = None
        if touched is not None and not touched(loc):
            o = old_out.get(loc)
            if o is not None and same_rules and (o.match is m or o.match == m):
                outputs[loc] = o
                parsed[loc] = old_parsed[loc]
                continue
            p = old_parsed.get(loc)
        if p is None:
            p = _Parsed(read_sidecars(os.path.dirname(loc)), parse_skill_file(loc, location=loc), _stat(loc))
        parsed[loc] = p
        if prev_by_loc is None:
            prev_by_loc = {}
            if previous is not None:
                prev_by_loc = {s.location: s for s in previous.sources if s.provenance is not Provenance.BUILTIN}
        outputs[loc] = _assemble_one(m, p, config, rules, prev_by_loc.get(loc))
    return outputs, parsed


def _assemble_edited(
    edited: set[str], config: Any, rules: tuple[Any, ...], snap: _Snapshot
) -> tuple[dict[str, _Output], dict[str, _Parsed]]:
    """:func:`_assemble` for the edit fast path: the previous outputs, with only the ``edited``
    locators' skill directories re-read. The previous entry of a locator is the one the
    previous generation holds (its output), as keep-last-valid needs (SPEC H3)."""
    from skillshelf.core.frontmatter import parse_skill_file
    from skillshelf.core.sidecar import read_sidecars

    outputs = dict(snap.outputs)
    parsed = dict(snap.parsed)
    for loc in edited:
        old = snap.outputs[loc]
        p = _Parsed(read_sidecars(os.path.dirname(loc)), parse_skill_file(loc, location=loc), _stat(loc))
        parsed[loc] = p
        prev = old.entry if isinstance(old.entry, Source) else None
        outputs[loc] = _assemble_one(old.match, p, config, rules, prev)
    return outputs, parsed


def _assemble_one(m: Any, p: _Parsed, config: Any, rules: tuple[Any, ...], prev: Source | None) -> _Output:
    """One match → its entry and warnings (sidecar warnings, then the parse warning, then
    ``kept-last-valid``).

    Keep-last-valid (SPEC H3, conformance §6): when a warning of a kind in
    :data:`KEEP_LAST_VALID_KINDS` names the previous generation's entry for this locator —
    its source is that entry's location or one of its metadata sources — the previous
    **whole** entry stays (status ``kept-last-valid``, today's diagnostics), the new warning is
    still published and a ``kept-last-valid`` warning follows it.
    """
    sidecar, parse = p.sidecar, p.parse
    file_warnings = list(sidecar.warnings)
    if parse.warning is not None:
        file_warnings.append(parse.warning)

    if prev is not None and prev.status is not Status.DISABLED:
        names = {prev.location, *prev.metadata_sources}
        broken = [w for w in file_warnings if w.kind in KEEP_LAST_VALID_KINDS and w.source in names]
        if broken:
            kept = replace(
                prev,
                status=Status.KEPT_LAST_VALID,
                diagnostics=tuple(parse.diagnostics)
                + tuple(sidecar.diagnostics)
                + (
                    Diagnostic(
                        Severity.WARNING,
                        "kept-last-valid",
                        f"the file is broken now ({broken[0].message}); the last valid version stays in the catalog until it is fixed",
                        path=m.location,
                    ),
                ),
            )
            file_warnings.append(
                CatalogWarning(
                    "kept-last-valid",
                    m.location,
                    f"kept the last valid version of skill {m.location}: {broken[0].message}",
                )
            )
            return _Output(m, rules, kept, tuple(file_warnings))

    skill_dir = os.path.dirname(m.location)
    if parse.warning is not None or parse.name is None:
        entry: Source | Rejected = Rejected(
            location=m.location,
            provenance=m.provenance,
            canonical=m.canonical,
            name=os.path.basename(skill_dir),
            root=m.root.path,
            aliases=tuple(m.aliases),
            warning=parse.warning,
            diagnostics=tuple(parse.diagnostics),
            content_sha256=parse.content_sha256,
            size=parse.size,
            mtime=p.mtime,
            frontmatter=dict(parse.frontmatter or {}),
        )
        return _Output(m, rules, entry, tuple(file_warnings))

    # Exposure precedence (E2): config rule, else sidecar, else index.
    exposure = sidecar.resolved_exposure
    reason = sidecar.reason()
    enabled = True
    disabled_reason = None
    decision = config.decide(m.canonical) if config is not None else None
    if decision is not None and decision.rule is not None:
        enabled = decision.enabled
        if decision.exposure is not None:
            exposure = decision.exposure
            reason = f"{decision.rule.describe()} (exposure: {decision.exposure.value})"
        if not enabled:
            disabled_reason = f"{decision.rule.describe()} (enabled: false)"
    entry = Source(
        name=parse.name,
        location=m.location,
        provenance=m.provenance,
        canonical=m.canonical,
        root=m.root.path,
        aliases=tuple(m.aliases),
        description=parse.description,
        display_name=sidecar.display_name,
        short_description=sidecar.short_description,
        exposure=exposure,
        exposure_reason=reason,
        enabled=enabled,
        disabled_reason=disabled_reason,
        status=Status.OK if enabled else Status.DISABLED,
        metadata_sources=tuple(sidecar.metadata_sources),
        content_sha256=parse.content_sha256,
        size=parse.size,
        mtime=p.mtime,
        frontmatter=dict(parse.frontmatter or {}),
        diagnostics=tuple(parse.diagnostics) + tuple(sidecar.diagnostics),
    )
    return _Output(m, rules, entry, tuple(file_warnings))


def _build_sources(
    matches: Sequence[Any], config: Any, previous: Generation | None
) -> tuple[list[Source], list[Rejected], list[CatalogWarning]]:
    """Parse every match, apply sidecars and ``skills.config`` rules, keep-last-valid (H3).

    Returns (sources in discovery order incl. disabled, rejected files, per-file warnings in
    discovery order — sidecar warnings before that file's parse warning).
    """
    rules = tuple(getattr(config, "rules", ()) or ())
    outputs, _ = _assemble(matches, config, rules, previous, None, None)
    sources: list[Source] = []
    rejected: list[Rejected] = []
    warnings: list[CatalogWarning] = []
    for m in matches:
        out = outputs[m.location]
        (sources if isinstance(out.entry, Source) else rejected).append(out.entry)  # type: ignore[arg-type]
        warnings.extend(out.warnings)
    return sources, rejected, warnings
