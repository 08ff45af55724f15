"""Shared machinery of the client hosts — Claude Code, Codex, opencode, Gemini CLI (SPEC N).

Each client host is a :class:`ClientHost` subclass that supplies the decisions (roots, parser
verdict, precedence, listing order, catalog text and budget); :class:`ClientSession` runs the
common pipeline over them:

roots (:meth:`ClientHost.roots`) → walk each root by its own rules (:func:`walk_root`: depth,
dot folders, skipped names, file symlinks, resolved paths) → one record per file (the same file
reached twice is folded when the host folds it) → read the bytes (:mod:`skillshelf.core.fileread`)
→ :meth:`ClientHost.accept` → :meth:`ClientHost.arbitrate` (shadowed copies, races) →
:meth:`ClientHost.order` → :class:`~skillshelf.core.model.Generation`.

Every build rescans everything: client trees are browsed, not served, and a full build of 1,000
skills takes a fraction of a second.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat as stat_mod
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from types import MappingProxyType

from skillshelf.core.agents import AgentSetup
from skillshelf.core.config import Config
from skillshelf.core.digest import compute_digest
from skillshelf.core.fileread import FileTooLargeError, read_regular
from skillshelf.core.frontmatter import split_document
from skillshelf.core.hosts.base import (
    BUILT_IN_BODY,
    BuildProgress,
    ContextWindow,
    Fact,
    Feature,
    HostCatalog,
    HostContext,
    HostLabels,
    LoadedPage,
    RootPlan,
    SkillToolLike,
    Throttle,
    ToolCatalog,
    Verdict,
    WatchTargets,
    flag_window,
    progress_sink,
    stop_if_cancelled,
)
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Generation,
    Rejected,
    Root,
    Severity,
    Source,
    Status,
)
from skillshelf.core.parsecache import ParseCache
from skillshelf.core.paths import canonical as real_path
from skillshelf.core.scan import SKILL_FILENAME
from skillshelf.core.unseen import NOT_COUNTED, count_skill_files, dot_folder_warning, is_near_miss, near_miss_warning

__all__ = [
    "MAX_SKILL_BYTES",
    "ClientHost",
    "ClientSession",
    "Found",
    "race",
    "shadow",
    "walk_root",
]

#: Largest ``SKILL.md`` read (bytes): skillshelf's safety limit, not the clients' (they read any
#: size); a larger file is rejected, never read, with a note giving its size.
MAX_SKILL_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Found:
    """One ``SKILL.md`` a root's walk reached: ``location`` as the client reports it (the
    spelling, or the resolved path for a ``resolve`` root), ``canonical`` its resolved path,
    ``levels`` the folders between the scan directory and the file, ``root`` the root."""

    location: str
    canonical: str
    levels: int
    root: Root


def _warning(kind: str, path: str, message: str) -> CatalogWarning:
    return CatalogWarning(kind, path, message)


def walk_root(root: Root, *, stop_at_skill: bool = False, reader: str = "the client"
              ) -> tuple[list[Found], list[CatalogWarning]]:
    """Every ``SKILL.md`` under ``root.scan_dir`` that the root's rules let through.

    Rules (:class:`~skillshelf.core.model.Root`): a match sits ``levels`` folders below the
    scan directory with :meth:`Root.depth_allowed`; folders are entered only while a deeper
    match is still allowed; dot folders only when ``root.dot``; folder names in ``root.skip``
    never; symlinked folders are followed (a link back onto the current path is a loop, not
    followed); a symlinked ``SKILL.md`` counts only when ``root.file_links``. ``stop_at_skill``:
    a folder holding a ``SKILL.md`` is not descended into (the client treats it as one skill).
    Siblings are visited in name order. Problems (unreadable folders, loops, dangling links)
    become warnings labelled as skillshelf's observations; the client itself is silent. So do a
    near-miss file name (``skill.md`` …) where a ``SKILL.md`` would be read and a skipped dot
    folder holding ``SKILL.md`` files (:mod:`skillshelf.core.unseen`; ``reader`` names the client).
    A root the client does not read here (``root.unread``) yields nothing.
    Never raises for file-system problems.
    """
    found: list[Found] = []
    warnings: list[CatalogWarning] = []
    if root.unread:
        return found, warnings
    top = root.scan_dir
    try:
        if not os.path.isdir(top):
            return found, warnings
        top_canon = real_path(top)
    except OSError:
        return found, warnings
    deepest = root.depth if root.depth is not None else root.max_depth
    # stack of (spelled dir, canonical dir, levels, chain of canonical ancestors)
    stack: list[tuple[str, str, int, frozenset[str]]] = [(top, top_canon, 0, frozenset({top_canon}))]
    while stack:
        spelled, canon, levels, chain = stack.pop()
        try:
            with os.scandir(spelled) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            warnings.append(_warning("unreadable", spelled, f"cannot read {spelled}: {exc.strerror or exc}"))
            continue
        subdirs: list[tuple[str, str, int, frozenset[str]]] = []
        has_skill = False
        if not any(e.name == SKILL_FILENAME for e in entries) and root.depth_allowed(levels):
            warnings.extend(near_miss_warning(e.path, reader) for e in entries if is_near_miss(e.name))
        for entry in entries:
            name = entry.name
            path = entry.path
            try:
                is_link = entry.is_symlink()
                if name == SKILL_FILENAME:
                    if is_link and not root.file_links:
                        continue
                    try:
                        st = os.stat(path)
                    except FileNotFoundError:
                        warnings.append(_warning("broken-symlink", path, f"broken symlink: {path}"))
                        continue
                    if stat_mod.S_ISREG(st.st_mode):
                        has_skill = True
                        if root.depth_allowed(levels):
                            real = real_path(path)
                            found.append(Found(real if root.resolve else path, real, levels, root))
                        continue
                    if not stat_mod.S_ISDIR(st.st_mode):
                        warnings.append(_warning("not-a-file", path, f"{path} is named SKILL.md but is not a regular file"))
                        continue
                if deepest is not None and levels + 1 > deepest:
                    continue
                if name.startswith(".") and not root.dot:
                    if name not in NOT_COUNTED:
                        count, complete = count_skill_files(path)
                        if count:
                            warnings.append(dot_folder_warning(
                                path, count, complete, reader,
                                "move them to a folder whose name does not start with `.` to include them"))
                    continue
                if root.skips(name):
                    continue
                if is_link:
                    try:
                        st = os.stat(path)
                    except FileNotFoundError:
                        warnings.append(_warning("broken-symlink", path, f"broken symlink: {path}"))
                        continue
                    except OSError as exc:
                        if exc.errno == errno.ELOOP:
                            warnings.append(_warning("symlink-loop", path, f"symlink loop: {path}"))
                        continue
                    if not stat_mod.S_ISDIR(st.st_mode):
                        continue
                    target = real_path(path)
                    if target in chain:
                        warnings.append(_warning("symlink-loop", path, f"symlink loop: {path} leads back to {target}; not followed"))
                        continue
                    subdirs.append((path, target, levels + 1, chain | {target}))
                elif entry.is_dir(follow_symlinks=False):
                    sub = canon.rstrip("/") + "/" + name
                    subdirs.append((path, sub, levels + 1, chain | {sub}))
            except OSError as exc:
                warnings.append(_warning("unreadable", path, f"cannot read {path}: {exc.strerror or exc}"))
        if stop_at_skill and has_skill:
            continue
        stack.extend(reversed(subdirs))
    return found, warnings


def shadow(sources: Sequence[Source], key: Callable[[Source], Hashable], rank: Callable[[Source], object],
           reason: Callable[[Source, Source], str]) -> tuple[Source, ...]:
    """Same-``key`` copies: the one with the lowest ``rank`` stays ``ok`` (ties: first in
    order); every other becomes ``shadowed`` by it, ``status_reason`` = ``reason(loser,
    winner)``. Sources already not ``ok`` (hidden …) still compete and keep their status when
    they win. Order is kept."""
    groups: dict[Hashable, list[int]] = {}
    for i, s in enumerate(sources):
        groups.setdefault(key(s), []).append(i)
    out = list(sources)
    for members in groups.values():
        if len(members) < 2:
            continue
        win = min(members, key=lambda i: (rank(sources[i]), i))
        for i in members:
            if i != win:
                out[i] = replace(sources[i], status=Status.SHADOWED, shadowed_by=(sources[win].location,),
                                 status_reason=reason(sources[i], sources[win]))
    return tuple(out)


def race(sources: Sequence[Source], key: Callable[[Source], Hashable], reason: str) -> tuple[Source, ...]:
    """Same-``key`` copies of which the client keeps whichever it finishes last (SPEC N3): every
    copy becomes ``race`` with the others in ``shadowed_by`` — either may win."""
    groups: dict[Hashable, list[int]] = {}
    for i, s in enumerate(sources):
        groups.setdefault(key(s), []).append(i)
    out = list(sources)
    for members in groups.values():
        if len(members) < 2:
            continue
        for i in members:
            others = tuple(sources[j].location for j in members if j != i)
            out[i] = replace(sources[i], status=Status.RACE, shadowed_by=others, status_reason=reason)
    return tuple(out)


class ClientHost:
    """Base of the client hosts; subclasses set the class attributes and override the hooks.

    Required hooks: :meth:`roots`, :meth:`accept`, :meth:`render_catalog`. Optional:
    :meth:`arbitrate` (default: nothing shadowed), :meth:`order` (default: discovery order),
    :meth:`budget` (default: no budget), :meth:`skill_tool` (default: none). ``fold_aliases``:
    the same file reached through two roots is one record (first spelling wins) when True.
    ``stop_at_skill``: see :func:`walk_root`. ``default_context_window``: tokens of the
    client's default model (``None`` when it does not matter).
    """

    name = ""
    client = ""
    version = ""
    labels = HostLabels(catalog="catalog", selected="selected")
    features: frozenset[Feature] = frozenset()
    native_commands: frozenset[str] = frozenset()
    #: :meth:`slash_note`'s text for a skill named like one of :attr:`native_commands`
    #: (``{name}`` is the skill's name).
    slash_clash = ""
    fold_aliases = True
    stop_at_skill = False
    default_context_window: int | None = None

    @property
    def lint_target(self) -> str:
        """The lint target named after the host (SPEC N6)."""
        return self.name

    def describe(self) -> str:
        """``Claude Code 2.1.332``."""
        return f"{self.client} {self.version}"

    def slash_note(self, name: str) -> str | None:
        """:attr:`slash_clash` for a skill named like one of :attr:`native_commands` (whole
        names), else ``None``."""
        if not self.slash_clash or f"/{name}" not in self.native_commands:
            return None
        return self.slash_clash.format(name=name)

    def open(self, context: HostContext) -> ClientSession:
        """A :class:`ClientSession` over ``context``."""
        return ClientSession(self, context)

    # ---- hooks
    def roots(self, context: HostContext) -> RootPlan:
        """The client's roots for ``context`` in its discovery order."""
        raise NotImplementedError

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """The client's parser on one file."""
        raise NotImplementedError

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Precedence among same-name copies (default: every copy listed)."""
        return tuple(sources)

    def order(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """The client's listing order (default: discovery order)."""
        return tuple(sources)

    def budget(self, context_window: int | None) -> int | None:
        """Catalog budget in characters for a ``context_window``-token model (``None`` = the
        client's default model); ``None`` when the client has no budget."""
        return None

    def budget_rule(self, context_window: int | None) -> str:
        """The budget rule in words."""
        return "no budget"

    def render_catalog(self, sources: Sequence[Source], budget: int | None) -> HostCatalog:
        """The catalog text the client puts in the prompt for ``sources`` (enabled, listing
        order, every status), within ``budget`` characters."""
        raise NotImplementedError

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """The client's skill tool, when its behaviour is known (default: none)."""
        return None


class ClientSession:
    """One client host over one workspace (a :class:`~skillshelf.core.hosts.base.HostSession`)."""

    def __init__(self, host: ClientHost, context: HostContext) -> None:
        self._host = host
        self._context = context
        self.config: Config = Config()
        self.remote_origins: Mapping[str, tuple[str, str | None]] = MappingProxyType({})
        self._plan: RootPlan | None = None
        #: This host's parse cache for the workspace (:mod:`skillshelf.core.parsecache`).
        self.parse_cache = context.parse_cache(host.name, host.version)

    @property
    def context(self) -> HostContext:
        """The workspace inputs."""
        return self._context

    def request_pull(self) -> None:
        """Client hosts have no remote indexes."""

    def check_ahead(self) -> None:
        """Client hosts keep no first build: nothing to check ahead."""
        return None

    def read_ahead(self, lint: Callable[[str, str, ParseCache], object] | None = None) -> None:
        """Client hosts' first builds are not fed from another process."""

    def changed_since_ahead(self) -> frozenset[str]:
        """Nothing was checked ahead."""
        return frozenset()

    def _window(self, context_window: int | None) -> int | None:
        return self._context.context_window if context_window is None else context_window

    def index_budget(self, context_window: int | None = None) -> int | None:
        """The client's catalog budget in characters (``None``: no budget)."""
        return self._host.budget(self._window(context_window))

    def selected_budget(self, context_window: int | None = None) -> int | None:
        """Client hosts have no selected-body budget."""
        return None

    def window(self, context_window: int | None = None) -> ContextWindow:
        """``context_window`` tokens, else ``--context-window`` (no other source is read)."""
        return flag_window(self._context.context_window if context_window is None else context_window)

    def agent_names(self) -> tuple[str, ...]:
        """No agent views for this host."""
        return ()

    def agent(self, name: str) -> AgentSetup:
        """An agent that sees every source (this host has no agent rules)."""
        return AgentSetup(name=name)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The client's catalog of ``generation``; ``budget`` characters overrides its rule."""
        window = self._window(context_window)
        chars = self._host.budget(window) if budget is None else budget
        result = self._host.render_catalog([s for s in generation.sources if s.enabled], chars)
        rule = self._host.budget_rule(window) if budget is None else f"--budget {budget:,} characters"
        return replace(result, budget=chars, budget_rule=rule)

    def source_facts(self, source: Source) -> tuple[Fact, ...]:
        """Nothing beyond the shared fields (status, shadowed copies and reasons are on the
        source itself)."""
        return ()

    def load_page(self, source: Source, cursor: str | None = None, *, resource: str | None = None) -> LoadedPage:
        """The ``SKILL.md`` body as one page (what a client reads when the skill is invoked,
        frontmatter removed); resource files are read by the client's own file tools, so
        ``resource`` is refused."""
        label = "SKILL.md body"
        if resource is not None:
            return LoadedPage("", None, True, label, error_code="no-resources",
                              error=f"{self._host.client} reads a skill's other files with its own file tools")
        if source.body is not None:  # a skill shipped inside the client
            return LoadedPage(source.body, None, True, label, pages=1)
        if source.location.startswith("builtin://"):  # shipped inside the client, its text not known here
            return LoadedPage("", None, True, label, error_code=BUILT_IN_BODY, error=(
                f"{source.name} is built into {self._host.client} {self._host.version}: its body is inside the "
                "client, not in a SKILL.md file skillshelf can read"))
        try:
            split = split_document(read_regular(source.location, MAX_SKILL_BYTES).decode("utf-8", errors="replace"))
        except OSError as exc:
            return LoadedPage("", None, True, label, error=f"cannot read {source.location}: {exc.strerror or exc}",
                              error_code="unreadable")
        return LoadedPage(split.body, None, True, label, first_line=split.body_line or 1, pages=1)

    def watch_targets(self) -> WatchTargets:
        """Every root's scan directory (watched through its nearest ancestor while missing)."""
        plan = self._plan or self._host.roots(self._context)
        dirs = tuple(dict.fromkeys(r.scan_dir for r in plan.roots))
        return WatchTargets(roots=dirs, names=frozenset({SKILL_FILENAME}))

    def _walk(self, root: Root) -> tuple[list[Found], list[CatalogWarning]]:
        """One root's matches (:func:`walk_root` by default; a session may walk its own way)."""
        return walk_root(root, stop_at_skill=self._host.stop_at_skill, reader=self._host.client)

    def _found(self, plan: RootPlan) -> tuple[list[Found], list[CatalogWarning], dict[str, list[str]]]:
        found: list[Found] = []
        warnings: list[CatalogWarning] = []
        aliases: dict[str, list[str]] = {}
        first: dict[str, Found] = {}
        spelled: set[str] = set()
        for root in plan.roots:
            matches, notes = self._walk(root)
            warnings.extend(notes)
            for f in matches:
                if self._host.fold_aliases:
                    known = first.get(f.canonical)
                    if known is not None:
                        if f.location != known.location and f.location not in aliases[known.location]:
                            aliases[known.location].append(f.location)
                        continue
                    first[f.canonical] = f
                    aliases[f.location] = []
                elif f.location in spelled:
                    continue  # the same spelling reached through two roots is one file to every client
                spelled.add(f.location)
                found.append(f)
        return found, warnings, aliases

    def _plan_roots(self) -> RootPlan:
        """The roots of this build (the host's :meth:`ClientHost.roots` by default)."""
        return self._host.roots(self._context)

    def _read(self, found: Sequence[Found], aliases: Mapping[str, Sequence[str]],
              cancel: threading.Event | None = None) -> tuple[list[Source], list[Rejected], list[CatalogWarning]]:
        """Read every found file and ask the host's parser: accepted sources, rejected files and
        one warning per rejection. Raises :class:`BuildCancelled` once ``cancel`` is set."""
        host = self._host
        sources: list[Source] = []
        rejected: list[Rejected] = []
        file_warnings: list[CatalogWarning] = []
        cache = self.parse_cache
        sink = progress_sink()
        throttle = Throttle() if sink is not None else None
        for n, f in enumerate(found, 1):
            stop_if_cancelled(cancel)
            if throttle is not None and sink is not None and throttle.due():
                sink(BuildProgress(n - 1, len(found), tuple(sources), tuple(rejected)))
            location, canonical = f.location, f.canonical
            (verdict, sha, size), st = cache.lookup(
                "verdict", canonical, partial(_judge, host, location, canonical), label=location)
            mtime = st.st_mtime if st is not None else 0.0
            also = tuple(aliases.get(f.location, ()))
            if not verdict.accepted or verdict.name is None:
                reason = verdict.reason or f"{host.client} does not load this file"
                warning = CatalogWarning(f"{host.name}-rejected", f.location, reason)
                file_warnings.append(warning)
                rejected.append(Rejected(
                    location=f.location, provenance=f.root.provenance, canonical=f.canonical,
                    name=os.path.basename(os.path.dirname(f.location)), root=f.root.path, aliases=also,
                    warning=warning, diagnostics=verdict.diagnostics or (Diagnostic(Severity.ERROR, "rejected", reason),),
                    content_sha256=sha, size=size, mtime=mtime, frontmatter=dict(verdict.frontmatter),
                ))
                continue
            sources.append(Source(
                name=verdict.name, location=f.location, provenance=f.root.provenance, canonical=f.canonical,
                root=f.root.path, aliases=also, description=verdict.description,
                display_name=verdict.display_name,
                exposure_reason=f.root.label or f.root.provenance.value,
                status=Status.HIDDEN if verdict.hidden else Status.OK, status_reason=verdict.hidden,
                content_sha256=sha, size=size, mtime=mtime, frontmatter=dict(verdict.frontmatter),
                diagnostics=verdict.diagnostics,
            ))
        return sources, rejected, file_warnings

    def _settle(self, sources: Sequence[Source], rejected: Sequence[Rejected]) -> tuple[Source, ...]:
        """The listed sources in the host's order after its precedence (``arbitrate`` then
        ``order`` by default; ``rejected`` is there for hosts whose outcome depends on them)."""
        return self._host.order(self._host.arbitrate(sources))

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """Rescan every root (``changed`` is not used) and build the next generation."""
        host, ctx = self._host, self._context
        self.parse_cache.begin_full_build()
        plan = self._plan_roots()
        self._plan = plan
        found, scan_warnings, aliases = self._found(plan)
        sources, rejected, file_warnings = self._read(found, aliases, ctx.cancel if previous is None else None)
        ordered = self._settle(sources, rejected)
        warnings = list(plan.warnings) + scan_warnings + file_warnings + list(watch_warnings)
        number = 1 if previous is None else previous.number + 1
        return Generation(
            number=number, digest=compute_digest(ordered, warnings), host=host.name, cwd=ctx.cwd,
            roots=plan.roots, sources=ordered, rejected=tuple(rejected), warnings=tuple(warnings),
            diagnostics=plan.hints,
        )


def _judge(host: ClientHost, location: str, canonical: str) -> tuple[Verdict, str, int]:
    """``host``'s verdict on the file at ``canonical`` (reached as ``location``), the SHA-256 of
    its bytes and their count (``""`` and 0 when it cannot be read)."""
    data: bytes | None
    error: str | None = None
    try:
        data = read_regular(canonical, limit=MAX_SKILL_BYTES)
    except FileTooLargeError as exc:
        data, error = None, f"{exc} ({host.client} would read it)"
    except OSError as exc:
        data, error = None, exc.strerror or str(exc)
    verdict = host.accept(location, data, error=error)
    if data is None:
        return verdict, "", 0
    return verdict, hashlib.sha256(data).hexdigest(), len(data)



def unique(items: Iterable[str]) -> tuple[str, ...]:
    """``items`` without repeats, first occurrence kept."""
    return tuple(dict.fromkeys(items))
