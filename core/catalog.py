"""The live skill catalog: build, refresh, keep-last-valid, publish (SPEC H1–H3, D5–D6, K4, E2).

A :class:`Catalog` owns the inputs (working directory, environment, configuration layers, extra
paths, host) and publishes immutable :class:`~skillshelf.core.model.Generation` snapshots. Readers
hold a generation; publishing swaps one reference (``Catalog.current``), so a reader never sees a
half-updated catalog.

Data path (DESIGN): environment + config → host roots → scan → discovery (dedupe) → parse each
``SKILL.md`` (host rules) → sidecars → ``skills.config`` rules → Generation.
"""

from __future__ import annotations

import hashlib
import os
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
        if not s.enabled:
            continue
        parts = [
            s.name,
            s.location,
            s.description or "",
            s.display_name or "",
            s.short_description or "",
        ]
        h.update("\0".join(parts).encode("utf-8", "surrogatepass"))
        h.update(b"\0" + bytes([s.exposure.digest_byte]))
        for m in s.metadata_sources:
            h.update(b"\0" + m.encode("utf-8", "surrogatepass"))
        h.update(b"\0" + s.content_sha256.encode("ascii"))
        h.update(b"\xff")
    for w in warnings:
        h.update(w.source.encode("utf-8", "surrogatepass") + b"\0" + w.message.encode("utf-8", "surrogatepass") + b"\xff")
    return h.hexdigest()


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

        Concurrent calls collapse: each call takes a ticket; a rescan that *started* after a
        caller's ticket was taken covers that caller, which then returns that rescan's generation
        instead of scanning again. ``pull_remote`` re-pulls ``skills.urls`` first.
        """
        with self._ticket_lock:
            self._requested += 1
            ticket = self._requested
        with self._lock:
            if self._covered >= ticket and not pull_remote:
                return self.current
            with self._ticket_lock:
                covers = self._requested
            if pull_remote:
                self._remote_pulled = False
            gen = self._build(previous=self._current)
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

    def _build(self, previous: Generation | None) -> Generation:
        inp = self._inputs
        config = self._load_config()
        self.config = config
        config_diags: tuple[Diagnostic, ...] = tuple(getattr(config, "diagnostics", ()) or ())
        cfg_paths = tuple(getattr(config, "paths", ()) or ())
        urls = tuple(getattr(config, "urls", ()) or ())
        self._pull_remote(urls)

        if inp.host == "zhin":
            from skillshelf.core.hosts.zhin import build_zhin_generation

            gen = build_zhin_generation(
                inp.cwd, paths=cfg_paths + inp.paths, previous=previous, version=__version__
            )
            return gen

        from skillshelf.core.discovery import discover
        from skillshelf.core.hosts.zuno import zuno_roots

        roots, root_warnings = zuno_roots(
            inp.env, inp.cwd, paths=cfg_paths + inp.paths, remote_dirs=self._remote_dirs
        )
        disc = discover(roots)
        hints: tuple[Diagnostic, ...] = ()
        try:
            from skillshelf.core.hosts.zuno import uncovered_folders

            hints = tuple(uncovered_folders(inp.env, inp.cwd, roots))
        except ImportError:  # pragma: no cover
            pass
        except Exception as exc:  # hints are best effort, never fatal
            hints = (Diagnostic(Severity.INFO, "hint-failed", f"could not look for uncovered folders: {exc}"),)

        sources, rejected, file_warnings = _build_sources(disc.matches, config, previous)

        warnings: list[CatalogWarning] = []
        warnings.extend(root_warnings)
        warnings.extend(disc.warnings)
        warnings.extend(self._remote_warnings)
        warnings.extend(file_warnings)
        for d in config_diags:
            if d.code == "config-invalid":
                warnings.append(CatalogWarning("config-invalid", d.path or "", d.message))

        builtins = _builtin_sources()
        all_sources = tuple(builtins) + tuple(sources)
        digest = compute_digest(all_sources, warnings)
        number = 1 if previous is None else previous.number + 1
        return Generation(
            number=number,
            digest=digest,
            host=inp.host,
            cwd=inp.cwd,
            roots=tuple(disc.roots),
            sources=all_sources,
            rejected=tuple(rejected),
            warnings=tuple(warnings),
            diagnostics=tuple(config_diags) + tuple(getattr(disc, "diagnostics", ()) or ()) + hints,
        )


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


def _build_sources(
    matches: Sequence[Any], config: Any, previous: Generation | None
) -> tuple[list[Source], list[Rejected], list[CatalogWarning]]:
    """Parse every match, apply sidecars and ``skills.config`` rules, keep-last-valid (H3).

    Returns (sources in discovery order incl. disabled, rejected files, per-file warnings in
    discovery order — sidecar warnings before that file's parse warning).
    """
    from skillshelf.core.frontmatter import parse_skill_file
    from skillshelf.core.sidecar import read_sidecars

    prev_by_loc: dict[str, Source] = {}
    if previous is not None:
        prev_by_loc = {s.location: s for s in previous.sources if s.provenance is not Provenance.BUILTIN}

    sources: list[Source] = []
    rejected: list[Rejected] = []
    warnings: list[CatalogWarning] = []
    for m in matches:
        skill_dir = os.path.dirname(m.location)
        sidecar = read_sidecars(skill_dir)
        parse = parse_skill_file(m.location, location=m.location)
        file_warnings = list(sidecar.warnings)
        if parse.warning is not None:
            file_warnings.append(parse.warning)
        warnings.extend(file_warnings)

        broken_kinds = [w for w in file_warnings if w.kind in KEEP_LAST_VALID_KINDS]
        prev = prev_by_loc.get(m.location)
        if broken_kinds and prev is not None and prev.status is not Status.DISABLED:
            kept = replace(
                prev,
                status=Status.KEPT_LAST_VALID,
                diagnostics=tuple(parse.diagnostics)
                + tuple(sidecar.diagnostics)
                + (
                    Diagnostic(
                        Severity.WARNING,
                        "kept-last-valid",
                        f"the file is broken now ({broken_kinds[0].message}); the last valid version stays in the catalog until it is fixed",
                        path=m.location,
                    ),
                ),
            )
            sources.append(kept)
            warnings.append(
                CatalogWarning(
                    "kept-last-valid",
                    m.location,
                    f"kept the last valid version of skill {m.location}: {broken_kinds[0].message}",
                )
            )
            continue

        mtime = _stat(m.location)
        if parse.warning is not None or parse.name is None:
            rejected.append(
                Rejected(
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
                    mtime=mtime,
                    frontmatter=dict(parse.frontmatter or {}),
                )
            )
            continue

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
        sources.append(
            Source(
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
                mtime=mtime,
                frontmatter=dict(parse.frontmatter or {}),
                diagnostics=tuple(parse.diagnostics) + tuple(sidecar.diagnostics),
            )
        )
    return sources, rejected, warnings
