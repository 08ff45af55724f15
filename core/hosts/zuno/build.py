"""Host ``zuno``: one workspace's generations, built and refreshed incrementally (SPEC D1–D6,
K, E2, H1–H3, R).

Data path: configuration layers → roots (:mod:`.roots`) → scan (:mod:`skillshelf.core.scan`) →
fold by canonical path (:func:`skillshelf.core.discovery.discover`) → parse each ``SKILL.md``
(:mod:`skillshelf.core.frontmatter`) → sidecars (:mod:`skillshelf.core.sidecar`) →
``skills.config`` rules (:mod:`skillshelf.core.config`) → built-ins first → digest.

:meth:`ZunoSession.build` with a set of changed paths re-reads only what they can affect
(:mod:`skillshelf.core.incremental`) and reuses every other parse and entry; the
result equals a full rebuild from the same previous generation. The digest's bytes of each source
(:func:`~skillshelf.core.digest.source_digest_bytes`, ~2 µs a source) are made again at each
build rather than kept beside the generation, whose text they repeat (~0.6 KB a skill).

A session's first build reuses the first build of an earlier run when the workspace has a
parse cache (:class:`_Kept`, kept with :meth:`~skillshelf.core.parsecache.ParseCache.keep_state`):
configuration, roots and the walk of every root are done afresh, then every ``SKILL.md`` and
sidecar is ``stat``-ed; a skill directory whose files all have the identity keys they had when
they were read (:func:`_dir_keys`: size, times, inode, device — racy files never match) keeps
its finished entry, every other one is read again. So a start over an unchanged tree reads no
file, and the result is exactly a fresh build's. The proofs and keys of that check may be taken
by another process (:meth:`ZunoSession.check_ahead`, :class:`KeptCheck`) a little earlier: the
first build adopts them for the very kept build it loaded, and what it kept on their word is
looked at again when asked (:meth:`ZunoSession.changed_since_ahead`: a watcher, once its watches
are in place). With no kept build, that process reads ahead what the first build reads
(:meth:`ZunoSession.read_ahead`) and the build takes each entry from it
(:meth:`~skillshelf.core.parsecache.ParseCache.feed`): the same entries, keyed by the same
identity, read once.
"""

from __future__ import annotations

import atexit
import functools
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from skillshelf.core import forked
from skillshelf.core.agents import AgentSetup, agent_view
from skillshelf.core.budget import index_budget_chars, selected_budget_bytes
from skillshelf.core.config import Config, RuleEntry
from skillshelf.core.digest import (
    DigestCache,
    PackedDigests,
    cached_digest,
    is_host_warning,
    source_digest_bytes,
)
from skillshelf.core.discovery import Match, discover
from skillshelf.core.hosts.base import (
    BuildProgress,
    ContextWindow,
    Fact,
    HostCatalog,
    HostContext,
    LoadedPage,
    ProgressSink,
    Throttle,
    WatchTargets,
    flag_window,
    progress_sink,
    stop_if_cancelled,
)
from skillshelf.core.hosts.zuno.builtins import BuiltinPack, builtin_pack
from skillshelf.core.hosts.zuno.installed import POLICY_TOKENS, ZunoTexts, policy_marker, zuno_texts
from skillshelf.core.hosts.zuno.natives import DEFAULT_AGENT, agent_names, agent_setup
from skillshelf.core.hosts.zuno.prompt import budget_rule, selected_rule, zuno_catalog
from skillshelf.core.hosts.zuno.proof import (
    DirKeys,
    dir_keys,
    dir_keys_stat,
    executable_identity,
    file_identity,
    inputs_text,
    models_file,
    record,
    workspace_config,
    workspace_hints,
    workspace_roots,
    zuno_executable,
)
from skillshelf.core.hosts.zuno.roots import git_worktree, zuno_watch_roots
from skillshelf.core.hosts.zuno.selection import selection_facts
from skillshelf.core.hosts.zuno.window import resolve_window
from skillshelf.core.incremental import edited_locations, plan_patch
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Generation,
    Provenance,
    Rejected,
    Root,
    Severity,
    Source,
    Status,
    fast_init,
)
from skillshelf.core.parsecache import NO_CACHE, Later, ParseCache
from skillshelf.core.paths import canonical
from skillshelf.core.scan import ScanResult, ScanSeen, scan
from skillshelf.core.scanproof import ScanProof, prove
from skillshelf.core.sidecar import NO_SIDECAR, SIDECAR_DIR, Sidecar, read_sidecars, sidecar_paths

if TYPE_CHECKING:
    from skillshelf.core.forked import Ahead
    from skillshelf.core.frontmatter import SkillParse

__all__ = ["KEEP_LAST_VALID_KINDS", "RELEVANT_COMPONENTS", "RELEVANT_NAMES", "SIDECAR_NAMES", "ZunoSession"]

#: Warning kinds after which the previous valid entry of that file is kept (conformance §6, SPEC H3).
KEEP_LAST_VALID_KINDS = frozenset(
    {"Unreadable", "Frontmatter", "MissingName", "InvalidDescription", "MetadataUnreadable", "MetadataMalformed"}
)

#: Watch targets: components that make an event relevant (conformance §6), sidecar and
#: configuration file names (SPEC E2, K1).
RELEVANT_COMPONENTS = frozenset({"skill", "skills", ".agents", ".zuno"})
RELEVANT_NAMES = frozenset({"SKILL.md", "zuno.json", "zuno.jsonc"})
SIDECAR_NAMES = frozenset({"openai.yaml", "zuno.yaml"})


@fast_init
@dataclass(frozen=True)
class _Parsed:
    """What reading one skill directory gave: its sidecars, its ``SKILL.md`` parse, its mtime."""

    sidecar: Sidecar
    parse: SkillParse
    mtime: float


@fast_init
@dataclass(frozen=True)
class _Output:
    """One match turned into a catalog entry (a :class:`Source` or :class:`Rejected`) plus its
    warnings in publish order; ``match`` and ``rules`` are the inputs it was made from."""

    match: Match
    rules: tuple[RuleEntry, ...]
    entry: Source | Rejected
    warnings: tuple[CatalogWarning, ...]


@dataclass
class _Snapshot:
    """The inputs behind the latest generation, kept for the next incremental build."""

    generation: Generation
    roots: tuple[Root, ...]
    scans: tuple[ScanResult, ...]
    matches: tuple[Match, ...]
    parsed: dict[str, _Parsed]
    outputs: dict[str, _Output]
    rules: tuple[RuleEntry, ...]
    builtins: tuple[Source, ...]
    #: the generation this one was built from (``None`` for the first)
    basis: Generation | None = None
    _by_dir: dict[str, str] | None = None

    def valid_for(self, previous: Generation) -> bool:
        """Whether this snapshot describes ``previous``: it is the generation built here, or the
        catalog did not publish that build because it showed exactly what ``previous`` shows
        (``Catalog.refresh(publish_unchanged=False)``)."""
        gen = self.generation
        return gen is previous or (self.basis is previous and gen.same_content(previous))

    def location_by_dir(self) -> dict[str, str]:
        """Skill directory (as spelled by the locator) → locator, built once per snapshot."""
        if self._by_dir is None:
            self._by_dir = {m.location.rpartition("/")[0]: m.location for m in self.matches}
        return self._by_dir


#: What a skill directory's files were when read (:func:`_dir_keys`): the ``SKILL.md`` key, then
#: (when an ``agents/`` entry exists) each sidecar's key or ``"missing"``; ``None``: not to be
#: trusted next time (racy, not a regular file, unreadable).
_DirKeys = DirKeys

#: :meth:`ParseCache.keep_state` kind of the kept first build.
_KEPT = "zuno-first-build"
#: :meth:`ParseCache.keep_state` kind of what checking it needs (:class:`_CheckState`).
_KEPT_CHECK = "zuno-first-build-check"


@dataclass(frozen=True)
class _Kept:
    """A first build (no previous generation) kept for the next run's first build (module
    docstring): the inputs it was made from and its finished entries, with the identity keys of
    each skill directory's files taken *before* they were read."""

    roots: tuple[Root, ...]
    scans: tuple[ScanResult, ...]
    matches: tuple[Match, ...]
    outputs: dict[str, _Output]
    rules: tuple[RuleEntry, ...]
    keys: dict[str, _DirKeys]
    digests: PackedDigests
    #: per root (parallel to ``scans``): what its walk looked at, when that can be trusted
    #: (:mod:`skillshelf.core.scanproof`); a root whose proof holds is not walked again
    proofs: tuple[ScanProof | None, ...] = ()
    #: random, new with each kept build: names it (its :class:`_CheckState` has the same)
    token: bytes = b""
    #: the built-ins its generation listed first (the last run's list is shown with them when
    #: this run's are not made in time)
    builtins: tuple[Source, ...] = ()


@dataclass(frozen=True)
class _CheckState:
    """What checking a kept first build needs, kept beside it (a small part of it, loaded alone
    by :meth:`ZunoSession.check_ahead`): its ``token``, its ``proofs`` and per match its locator,
    canonical path, whether its root is one of the kept roots (its listing is then proved with
    that root's) and its keys."""

    token: bytes
    proofs: tuple[ScanProof | None, ...]
    rows: tuple[tuple[str, str, bool], ...]
    keys: tuple[_DirKeys, ...]

    @classmethod
    def of(cls, kept: _Kept) -> _CheckState:
        """The check state of ``kept`` (the root test by identity, as :meth:`ZunoSession.build`
        makes it on the same objects)."""
        roots = {id(r) for r in kept.roots}
        return cls(kept.token, kept.proofs,
                   tuple((m.location, m.canonical, id(m.root) in roots) for m in kept.matches),
                   tuple(kept.keys.get(m.location) for m in kept.matches))


def _dir_keys(m: Match, now_ns: int, listed: _DirKeys | bool = False) -> _DirKeys:
    """The identity keys of what :func:`_read` reads for ``m`` (:func:`.proof.dir_keys`: its
    ``SKILL.md`` and, when ``agents/`` exists beside it, both sidecars). ``listed``: the keys
    kept for ``m`` when its folder's listing is proved unchanged."""
    return dir_keys(m.location, m.canonical, sidecar_paths, now_ns, listed)


#: Seconds a first build waits for the check made ahead (:meth:`ZunoSession.check_ahead`) beyond
#: the time it took itself to load the kept build: the child, started before this process imported
#: its interface, loads the small :class:`_CheckState` and checks (about as long as the load).
AHEAD_SLACK_S = 0.1
#: Seconds the first report of a kept build (the last run's list, shown while the files are
#: checked) waits for Zuno's texts being read beside the kept build's load (an installed ``zuno``
#: is run for them) before it goes with the last run's built-ins instead of this run's.
TEXTS_SLACK_S = 0.1


@dataclass(frozen=True)
class KeptCheck:
    """A kept first build checked against the files (:meth:`ZunoSession.check_ahead`): the
    kept build checked (its ``token``); for each root's scan proof, whether it held; when every
    root's held, the skill directories whose keys (:func:`_dir_keys`, taken after the proofs)
    differ from the kept ones: locator → keys now (``None`` otherwise: the build walks the
    roots whose proof failed and takes every key itself)."""

    token: bytes
    holds: tuple[bool, ...]
    changed: dict[str, _DirKeys] | None


#: What a first build that adopted no check looked at (:meth:`ZunoSession.changed_since_ahead`):
#: each root's walk proof and folder, the matches, their keys and the ids of the roots whose kept
#: walk was reused (their keys were taken with the kept ones as listed).
_FirstLook = tuple[tuple[ScanProof | None, ...], tuple[str, ...], Sequence[Match], Mapping[str, _DirKeys],
                   frozenset[int]]


def _changed_since(proofs: tuple[ScanProof | None, ...], scan_dirs: tuple[str, ...], matches: Sequence[Match],
                   keys: Mapping[str, _DirKeys], proven: frozenset[int]) -> frozenset[str]:
    """What to rescan since a first build's own walks (``proofs``, ``scan_dirs``: each root's
    folder) and keys: the folder of each root whose walk's proof does not hold now, or was never
    made (walked again), and each skill directory whose keys differ now, or could not be taken
    then (a file changed within the racy window is never taken as unchanged)."""
    stale = {scan_dirs[i] for i, p in enumerate(proofs) if p is None or not p.holds()}
    now = time.time_ns()
    for m in matches:
        was = keys.get(m.location)
        if was is None or dir_keys(m.location, m.canonical, sidecar_paths, now,
                                   was if id(m.root) in proven else False) != was:
            stale.add(os.path.dirname(m.location))
    return frozenset(stale)


def _check_kept(state: _CheckState) -> KeptCheck:
    """What :meth:`ZunoSession.build` checks of a kept build before it uses it, done now from its
    :class:`_CheckState` (one proof per root): the proofs, then (when every root's held) every
    skill directory's keys, exactly as the build takes them (the kept keys as ``listed`` for a
    match whose root is a kept root, proved)."""
    holds = tuple(p is not None and p.holds() for p in state.proofs)
    if not all(holds):
        return KeptCheck(state.token, holds, None)
    now = time.time_ns()
    changed: dict[str, _DirKeys] = {}
    for (location, canon, proved), was in zip(state.rows, state.keys, strict=True):
        k = dir_keys(location, canon, sidecar_paths, now, was if proved else False)
        if k != was:
            changed[location] = k
    return KeptCheck(state.token, holds, changed)


class ZunoSession:
    """Host ``zuno`` over one workspace (a :class:`~skillshelf.core.hosts.base.HostSession`).

    Holds the merged configuration of the latest build (:attr:`config`), the remote pull of
    ``skills.urls`` (done once, on the first build, unless the context forbids it; again after
    :meth:`request_pull`) and the snapshot the incremental path patches; ``cache``: the host's
    parse cache of the workspace (:meth:`HostContext.parse_cache`; none by default). Not
    thread-safe by itself: the catalog serialises builds.
    """

    def __init__(self, context: HostContext, *, cache: ParseCache = NO_CACHE) -> None:
        self._context = context
        self.config: Config = Config()
        self._remote_dirs: tuple[str, ...] = ()
        self._remote_warnings: tuple[CatalogWarning, ...] = ()
        self._remote_origins: Mapping[str, tuple[str, str | None]] = MappingProxyType({})
        self._pulled = False
        self._deferred = False
        self._snap: _Snapshot | None = None
        self._adopted: KeptCheck | None = None  # the check made ahead the first build adopted
        #: a first build that adopted no check: its own walks' proofs and keys, with each root's
        #: folder, for :meth:`changed_since_ahead`; ``False``: nothing to look at (none taken:
        #: no cache)
        self._first: _FirstLook | Literal[False] = False
        self._kept_token = b""  # of the kept build the first build wrote (if it wrote one)
        self._texts: ZunoTexts | None = None
        self._texts_identity: tuple[object, ...] | None = None
        self._pack: BuiltinPack | None = None
        self._texts_lock = threading.RLock()  # (read once: by a build, or beside a first one)
        self._window: ContextWindow = flag_window(context.context_window)
        self._cache = cache

    @property
    def context(self) -> HostContext:
        """The workspace inputs."""
        return self._context

    @property
    def remote_origins(self) -> Mapping[str, tuple[str, str | None]]:
        """Pulled remote skill directory → (configured URL, index version or ``None``), SPEC R."""
        return self._remote_origins

    @property
    def texts(self) -> ZunoTexts:
        """What was read from an installed Zuno (read once, at the first build)."""
        with self._texts_lock:
            if self._texts is None:
                # what the texts are read from, taken before they are read (the kept-output proof)
                self._texts_identity = executable_identity(zuno_executable(self._context.env), time.time_ns())
                self._texts = zuno_texts(self._context.env)
            return self._texts

    @property
    def builtins(self) -> BuiltinPack:
        """Zuno's built-ins for this session (conformance Z-B)."""
        with self._texts_lock:
            if self._pack is None:
                self._pack = builtin_pack(self.texts)
            return self._pack

    def _builtins_beside(self) -> threading.Thread | None:
        """Read Zuno's texts and make the built-ins in a thread (``None``: made already), for a
        first build that reports progress: the last run's list is reported with them, as its
        generation lists it, when they are made in time (:data:`TEXTS_SLACK_S`)."""
        if self._pack is not None:
            return None

        def make() -> None:
            try:
                self.builtins  # noqa: B018  (made here; the build makes them itself if this fails)
            except Exception:  # pragma: no cover - zuno_texts never raises
                return

        thread = threading.Thread(target=make, name="skillshelf-zuno-texts", daemon=True)
        thread.start()
        return thread

    def window(self, context_window: int | None = None, *, agent: str | None = None) -> ContextWindow:
        """The context window (conformance Z-W): ``context_window`` tokens when given, else
        ``--context-window``, else the window of the configured model (``agent``'s own model
        when it has one)."""
        if context_window is not None:
            return flag_window(context_window)
        if agent is not None and self._context.context_window is None:
            model = self.agent(agent).model
            if model is not None:
                return resolve_window(self.config, self._context.env, self._context.cwd, model=model)
        return self._window

    def index_budget(self, context_window: int | None = None) -> int:
        """The index budget in characters (Zuno ``skill_metadata_budget``, SPEC U1)."""
        return index_budget_chars(max_context_tokens=self.config.max_context_tokens,
                                  context_window=self.window(context_window).tokens)

    def selected_budget(self, context_window: int | None = None) -> int:
        """The selected-body budget in UTF-8 bytes (conformance Z-U)."""
        return selected_budget_bytes(context_window=self.window(context_window).tokens,
                                     max_selected_context_tokens=self.config.max_selected_context_tokens)

    def agent_names(self) -> tuple[str, ...]:
        """Zuno's visible native agents, then the configured ones (conformance Z-A)."""
        return agent_names(self.config)

    def agent(self, name: str) -> AgentSetup:
        """Native data and ``agents.<name>`` combined (:func:`.natives.agent_setup`)."""
        return agent_setup(self.config, name)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """What ``agent`` (default: Zuno's default agent, ``orchestrator``) is given for its skills:
        the trigger policy and the budgeted index with its coverage sentences (conformance Z-P);
        ``budget`` characters overrides the index budget."""
        name = agent or DEFAULT_AGENT
        setup = self.agent(name)
        window = self.window(context_window, agent=name)
        mct = self.config.max_context_tokens
        if budget is None:
            budget = index_budget_chars(max_context_tokens=mct, context_window=window.tokens)
            rule = budget_rule(max_context_tokens=mct, window=window)
        else:
            rule = f"--budget {budget:,} characters"
        visible = agent_view([s for s in generation.sources if s.enabled], setup)
        texts = self.texts
        policy = texts.policy if texts.policy is not None else policy_marker(self.builtins.version)
        return zuno_catalog(generation.sources, visible, budget, policy=policy,
                            policy_stand_in=texts.policy is None,
                            policy_tokens=POLICY_TOKENS if texts.policy is None else None,
                            include_instructions=self.config.include_instructions, agent=name, rule=rule,
                            window=window,
                            selected=selected_rule(max_selected_context_tokens=self.config.max_selected_context_tokens,
                                                   window=window),
                            notes=(f"built-ins: {self.builtins.label}",
                                   *(f"Zuno's texts: {n}" for n in texts.notes)))

    def source_facts(self, source: Source) -> tuple[Fact, ...]:
        """How a prompt selects ``source`` (``$name``, ``/name``, its bare name) and, for a
        built-in, which Zuno it belongs to and whether its texts are stand-ins."""
        generation = self._snap.generation if self._snap is not None else None
        sources = generation.sources if generation is not None else (source,)
        facts = list(selection_facts(source, sources))
        if source.provenance is Provenance.BUILTIN:
            facts.append(Fact("built-in", self.builtins.label))
            if source.stand_ins:
                facts.append(Fact("stand-in", f"{' and '.join(source.stand_ins)}: Zuno's own text is not available "
                                  "here; a stand-in of the same size is shown", severity=Severity.WARNING))
        return tuple(facts)

    def load_page(self, source: Source, cursor: str | None = None, *, resource: str | None = None) -> LoadedPage:
        """One page of the ``skill`` tool's ``load`` (or ``read_resource``) of ``source``
        (:func:`skillshelf.core.hosts.zuno.loading.load_page`, SPEC L3–L6)."""
        from skillshelf.core.hosts.zuno import loading  # (the skill tool only when a page is shown)

        return loading.load_page(source, cursor, resource=resource)

    def request_pull(self) -> None:
        """Pull ``skills.urls`` again at the next build (``p`` in the TUI, ``refresh(pull_remote=True)``)."""
        self._pulled = False

    def check_ahead(self) -> KeptCheck | None:
        """The kept first build's check (:class:`KeptCheck`), for a first build in another
        process to adopt (:meth:`~skillshelf.core.hosts.base.HostSession.check_ahead`);
        ``None`` when no first build is kept. Loads only the kept build's
        :class:`_CheckState` and reads no configuration: the build adopts the check only for
        the kept build it loads itself (the same token)."""
        if not self._cache.enabled or not self._cache.file:
            return None
        state = self._cache.load_state(_KEPT_CHECK, _CheckState)
        if state is None or not state.token:
            return None
        return _check_kept(state)

    def read_ahead(self, lint: Callable[[str, str, ParseCache], object] | None = None) -> None:
        """Read what a first build with nothing kept reads (the files of this workspace's matches
        and their sidecars) into the parse cache, sending what is kept every
        :data:`~skillshelf.core.forked.CHUNK` files, then ``lint(location, canonical, cache)``
        every match the same way (:meth:`~skillshelf.core.hosts.base.HostSession.read_ahead`:
        the list is never held back by the lint). The workspace, roots and
        matches are the first build's (no remote pull: a first build that may pull defers it);
        the reads are shared with a forked child of this process where one may fork. The first
        part is the set of paths it looks up (each match's ``SKILL.md``, and both sidecars of
        each that has ``agents/``: a lookup of another path is never waited for). Nothing is read
        when a first build is kept (the first build checks it: :meth:`check_ahead`)."""
        ctx = self._context
        cache = self._cache
        if cache.has_state(_KEPT):
            return
        worktree = self.worktree()
        config = workspace_config(ctx.cwd, ctx.env, ctx.config_files, worktree)
        roots, _ = workspace_roots(ctx.cwd, ctx.env, ctx.paths, config, (), worktree)
        walked = forked.claim_map(partial(_walk, since=None), roots, meanwhile=_import_reader)
        matches = discover(roots, scans=tuple(result for result, _ in walked)).matches
        agents = [os.path.lexists(os.path.join(os.path.dirname(m.location), SIDECAR_DIR)) for m in matches]
        scope = {m.canonical for m in matches}
        for m, has in zip(matches, agents, strict=True):
            if has:
                scope.update(sidecar_paths(os.path.dirname(m.location)))
        forked.ahead_part(frozenset(scope))
        marks = [cache.mark()]

        def each(i: int, _: None) -> None:
            if (i + 1) % forked.CHUNK == 0:  # (once per chunk, this process's or the child's)
                forked.ahead_part(cache.changes_since(marks[0]))
                marks[0] = cache.mark()
            else:  # (what the pipe could not take: sent as soon as the other process reads)
                forked.ahead_flush()

        forked.chunk_map(partial(_read_only, matches, agents, cache), range(len(matches)), each,
                         extra=_CacheChanges(cache), adopt=cache.adopt)
        forked.ahead_part(cache.changes_since(marks[0]))
        if lint is not None:
            marks[0] = cache.mark()
            forked.chunk_map(partial(_lint_only, lint, cache), matches, each, extra=_CacheChanges(cache),
                             adopt=cache.adopt)
            forked.ahead_part(cache.changes_since(marks[0]))

    def changed_since_ahead(self) -> frozenset[str] | None:
        """What changed since the check the first build adopted, of what the build took on its
        word (:meth:`~skillshelf.core.hosts.base.HostSession.changed_since_ahead`), looked at
        again from the kept build's :class:`_CheckState` on disk — the one the check was made
        of, or the one the first build wrote (its keys are those the build recorded): the
        walks of the roots whose proof the check found holding, then (when it held for every
        root: the build took the keys from it) every skill directory's keys, against those the
        build recorded. ``None`` — rescan everything — when such a walk no longer holds, or no
        such state is on disk (another run's, damaged, gone); else the directories of the
        skills whose keys differ now (or could not be taken). A first build that adopted no
        check (it read the files itself, or was fed them: nothing kept) is looked at against its
        own walks and keys: the folder of each root whose walk is not proved unchanged, and the
        skill directories whose keys differ (:func:`_changed_since`); nothing when it took none
        (no cache). Once: the next call answers ``frozenset()``."""
        check, self._adopted = self._adopted, None
        first, self._first = self._first, False
        if check is None:
            if first is False:
                return frozenset()
            # the first build took no check from another process: what changed since its own walks
            # and keys (every file read while the TUI started)
            return _changed_since(*first)
        state = self._cache.load_state(_KEPT_CHECK, _CheckState)
        if (state is None or not state.token or state.token not in (check.token, self._kept_token)
                or len(state.proofs) != len(check.holds)):
            return None
        # (the proofs of the roots the check found holding are the kept ones in either state)
        for held, proof in zip(check.holds, state.proofs, strict=True):
            if held and (proof is None or not proof.holds()):
                return None
        recorded = check.changed
        if recorded is None:  # (the build took every key itself)
            return frozenset()
        checked = state.token == check.token  # (else the state the build wrote: its keys are the recorded ones)
        now = time.time_ns()
        stale: set[str] = set()
        for (location, canon, proved), was in zip(state.rows, state.keys, strict=True):
            if checked and location in recorded:
                was = recorded[location]
            if was is None or dir_keys(location, canon, sidecar_paths, now, was if proved else False) != was:
                stale.add(os.path.dirname(location))  # (keys that could not be taken: never unchanged)
        return frozenset(stale)

    def _take_check(self, kept: _Kept | None, waited_s: float) -> KeptCheck | None:
        """The check made ahead (:attr:`HostContext.ahead`) when it is of ``kept``, the state
        just loaded in ``waited_s`` seconds; ``None`` otherwise (the build checks itself). The
        child is stopped when there is no kept build to check or it is late. When the check
        state kept beside ``kept`` is not its own, it is kept again (written at the next save)."""
        ahead = self._context.ahead
        if ahead is None:
            return None
        if kept is None:  # (nothing to check: the child reads ahead what this build reads, then lints)
            self._cache.feed(partial(_next_part, ahead.handed(), self._context.cancel))
            return None
        check = ahead.take(waited_s + AHEAD_SLACK_S)
        if (isinstance(check, KeptCheck) and kept.token and check.token == kept.token
                and len(check.holds) == len(kept.proofs)):
            return check
        if not kept.token:
            return None
        if isinstance(check, KeptCheck):
            token: bytes | None = check.token
        else:  # (no answer: is the kept build's own check state there?)
            state = self._cache.load_state(_KEPT_CHECK, _CheckState)
            token = state.token if state is not None else None
        if token != kept.token:
            # the kept build's check state is gone, damaged or another's (two runs saving at once,
            # a run ended between the two writes): kept again, so that the next start can adopt
            self._cache.keep_state(_KEPT_CHECK, _CheckState.of(kept))
        return None

    # ------------------------------------------------------------------ building
    def worktree(self) -> str | None:
        """The worktree, confirmed with git as Zuno does (conformance Z-T)."""
        return git_worktree(self._context.cwd, self._context.env)


    def _pull_remote(self, urls: Sequence[str]) -> None:
        if self._pulled:
            return
        if self._context.defer_pull and not self._deferred:
            self._deferred = True  # the first generation shows the local skills; the next build pulls
            return
        self._pulled = True
        if not urls or not self._context.pull_remote:
            self._remote_dirs, self._remote_warnings, self._remote_origins = (), (), MappingProxyType({})
            return
        from skillshelf.core.remote import cache_root, pull  # (its HTTP stack only when skills.urls is set)

        res = pull(list(urls), cache_root(self._context.env.xdg_cache_home), cancel=self._context.cancel)
        self._remote_dirs = tuple(res.roots)
        self._remote_warnings = tuple(res.warnings)
        self._remote_origins = MappingProxyType(dict(res.origins))

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """The next generation; ``changed`` None → rescan and re-read everything, a set of
        paths → the incremental rebuild (same result). ``watch_warnings`` are published last."""
        ctx = self._context
        worktree = self.worktree()
        config = workspace_config(ctx.cwd, ctx.env, ctx.config_files, worktree)
        self.config = config
        models_identity = file_identity(models_file(ctx.env, ctx.cwd), time.time_ns()) if previous is None else None
        self._window = resolve_window(config, ctx.env, ctx.cwd, flag=ctx.context_window)
        self._pull_remote(config.urls)

        roots, root_warnings = workspace_roots(ctx.cwd, ctx.env, ctx.paths, config, self._remote_dirs, worktree)
        snap = self._snap
        if previous is None or snap is None or not snap.valid_for(previous):
            snap = None
        if snap is not None:  # keep the previous Root objects for equal roots (cheap identity checks)
            same = {r: r for r in snap.roots}
            roots = tuple(same.get(r, r) for r in roots)
        # (a first build in a view: an installed Zuno is run for its texts while the kept build loads)
        texts = self._builtins_beside() if previous is None and progress_sink() is not None else None
        loading = time.monotonic()
        kept = self._kept(roots) if previous is None else None
        loading = time.monotonic() - loading
        shown: BuildProgress | None = None
        if kept is not None:
            roots = kept.roots
            sink = progress_sink()
            if sink is not None:  # the last run's list at once, while the files are checked against it
                # as the generation will list it: the built-ins first, when they are made in time the
                # very objects, so a view can keep what it made of this list when the check finds
                # nothing changed (else the last run's: a view makes the list again)
                if texts is not None:
                    texts.join(TEXTS_SLACK_S)
                pack = self._pack
                entries = [o.entry for o in kept.outputs.values()]
                shown = BuildProgress(0, len(entries), (*(pack.sources if pack is not None else kept.builtins),
                                                        *(e for e in entries if isinstance(e, Source))),
                                      tuple(e for e in entries if isinstance(e, Rejected)), checking=True)
                sink(shown)
        # the kept build's proofs and keys, checked ahead by another process (a first build only)
        check = self._take_check(kept, loading) if previous is None else None
        if previous is None:
            self._adopted = check  # (what the build takes from it is looked at again later)
        plan = None
        if changed is not None and snap is not None:
            plan = plan_patch(snap.roots, snap.scans, roots, changed)
        if plan is None and kept is None:
            self._cache.begin_full_build()
        edited: set[str] | None = None
        touched: Callable[[str], bool] | None = None
        keeping = previous is None and self._cache.enabled and bool(self._cache.file)
        proofs: list[ScanProof | None] = [None] * len(roots)
        proven: set[int] = set()  # ids of the roots whose kept walk is reused
        since = time.time_ns()  # before any walk (scanproof's racy window)
        if plan is None:
            scans_now: list[ScanResult | None] = []
            walks: list[int] = []  # the roots walked again
            for i, r in enumerate(roots):
                if kept is not None and i < len(kept.proofs):
                    proof = kept.proofs[i]
                    if proof is not None and (check.holds[i] if check is not None else proof.holds()):
                        scans_now.append(kept.scans[i])
                        proofs[i] = proof
                        proven.add(id(r))
                        continue
                scans_now.append(None)
                walks.append(i)
            walk = partial(_walk, since=since if keeping else None)
            if kept is not None and sum(len(kept.scans[i].matches) if i < len(kept.scans) else forked.MIN_ITEMS
                                        for i in walks) < forked.MIN_ITEMS:
                walked = [walk(roots[i]) for i in walks]  # (small walks last time: a fork costs more)
            else:  # (the YAML reader imported while the child walks, when files will be read)
                walked = forked.claim_map(walk, [roots[i] for i in walks],
                                          meanwhile=_import_reader if kept is None else None)
            for i, (result, proof) in zip(walks, walked, strict=True):
                scans_now[i] = result
                proofs[i] = proof
            root_scans = tuple(s for s in scans_now if s is not None)
            assert len(root_scans) == len(roots)
        else:
            assert snap is not None
            root_scans, touched, touched_paths = plan
            edited = edited_locations(snap.roots, snap.scans, snap.location_by_dir(), roots, root_scans,
                                      touched_paths)
        if edited is not None:  # same roots, same scans: the fold would give the same matches
            assert snap is not None
            matches = snap.matches
            scan_warnings = [w for rs in root_scans for w in rs.warnings]
        elif kept is not None and root_scans == kept.scans:  # the same walk: the same fold
            matches = kept.matches
            scan_warnings = [w for rs in root_scans for w in rs.warnings]
        else:
            reuse = None
            if touched is not None and snap is not None:
                reuse = {m.canonical: m for m in snap.matches}
            elif kept is not None:
                reuse = {m.canonical: m for m in kept.matches}
            found = discover(roots, scans=root_scans, reuse=reuse)
            matches, scan_warnings = found.matches, list(found.warnings)
        hints = workspace_hints(ctx.cwd, ctx.env, roots, worktree)
        keys: dict[str, _DirKeys] | None = None
        cold: tuple[dict[str, _Output], dict[str, _Parsed]] | None = None  # (a cold first build's)
        made_digests: dict[int, tuple[Source, bytes]] = {}  # (and the digest bytes of its sources)
        if previous is None and self._cache.enabled and self._cache.file:
            now = time.time_ns()  # before anything is read (a file changed while read is read again next time)
            if kept is not None and proven:
                old_keys = kept.keys
                if check is not None and check.changed is not None and matches is kept.matches:
                    now_keys = check.changed  # (every root proven: the keys as the check took them)
                    keys = {m.location: now_keys[m.location] if m.location in now_keys else old_keys.get(m.location)
                            for m in matches}
                else:
                    keys = {m.location: _dir_keys(m, now, old_keys.get(m.location) if id(m.root) in proven else False)
                            for m in matches}
            elif kept is None and progress_sink() is None:  # a cold first build: each read right after its keys
                keys, made_outputs, made_parsed = _read_assembled(matches, config, config.rules, self._cache, now,
                                                                  digests=made_digests)
                cold = (made_outputs, made_parsed)
                self._cache.save_forked()  # every entry is made: planned now (written when the command ends)
            else:
                keys = {m.location: _dir_keys(m, now) for m in matches}

        rules = config.rules
        if kept is not None:
            assert keys is not None
            outputs, parsed = _assemble_kept(matches, config, rules, kept, keys, self._cache, shown,
                                             self._context.cancel)
        elif edited is not None and snap is not None and snap.rules == rules:
            outputs, parsed = _assemble_edited(edited, config, rules, snap, self._cache)
        elif cold is not None:
            outputs, parsed = cold
        else:
            outputs, parsed = _assemble(matches, config, rules, previous, snap, touched, self._cache,
                                        self._context.cancel if previous is None else None)
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
        for d in config.diagnostics:
            if d.code == "config-invalid":
                warnings.append(CatalogWarning("config-invalid", d.path or "", d.message))
        warnings.extend(watch_warnings)

        builtins = snap.builtins if (snap is not None and touched is not None) else self.builtins.sources
        all_sources = tuple(builtins) + tuple(sources)
        # a first build reuses the digest bytes kept with an earlier run's first build (read with
        # it anyway); they are not kept for later builds (module docstring)
        host_warnings = [w for w in warnings if is_host_warning(w)]
        packed = kept.digests if kept is not None else None
        digest = packed.digest_of(all_sources, host_warnings) if packed is not None else None
        digest_cache: DigestCache | None = None  # (None: the kept list's sources, their bytes as kept)
        if digest is None:
            digest, digest_cache = cached_digest(all_sources, host_warnings,
                                                 packed.cache() if packed is not None else made_digests)
        number = 1 if previous is None else previous.number + 1
        gen = Generation(
            number=number,
            digest=digest,
            host="zuno",
            cwd=ctx.cwd,
            roots=tuple(roots),
            sources=all_sources,
            rejected=tuple(rejected),
            warnings=tuple(warnings),
            diagnostics=_refusal_diagnostics(config) + tuple(config.diagnostics) + tuple(hints),
        )
        self._snap = _Snapshot(
            generation=gen,
            roots=tuple(roots),
            scans=root_scans,
            matches=tuple(matches),
            parsed=parsed,
            outputs=outputs,
            rules=rules,
            builtins=tuple(builtins),
            basis=previous,
        )
        if keys is not None:
            # what only the next run needs is made by the cache's writer, not here (Later)
            if (kept is None or matches is not kept.matches or kept.rules != rules or keys != kept.keys
                    or tuple(proofs) != kept.proofs or kept.builtins != tuple(builtins)):
                token = os.urandom(16)
                made = functools.cache(partial(
                    _made_kept, digest_cache, packed, tuple(roots), root_scans, tuple(matches), outputs, rules, keys,
                    tuple(proofs), token, tuple(builtins)))
                self._cache.keep_state(_KEPT, Later(made))
                self._cache.keep_state(_KEPT_CHECK, Later(lambda: _CheckState.of(made())))
                self._kept_token = token
            self._cache.output_proof = None
            texts_identity = self._texts_identity
            if (texts_identity is not None and models_identity is not None and not ctx.defer_pull
                    and not (config.urls and ctx.pull_remote)):
                inputs = (ctx.cwd, tuple(ctx.paths), tuple(ctx.config_files), ctx.context_window, ctx.pull_remote,
                          texts_identity, models_identity)
                self._cache.output_proof = Later(partial(
                    _output_proof, inputs, inputs_text(worktree=worktree, config=config, roots=roots,
                                                       root_warnings=root_warnings, hints=hints, context=inputs),
                    tuple(proofs), tuple(matches), keys))
        if previous is None and kept is None and ctx.ahead is not None:
            _drain(self._cache)  # (the rest the child reads ahead — its lint — taken as it comes)
        if previous is None and check is None:  # (what the watcher, once in place, looks at again)
            # (without a cache no keys are taken: nothing is looked at again, `r` rescans; what is
            # held is what the build holds anyway: a one-shot command never asks)
            self._first = False if keys is None else (tuple(proofs), tuple(r.scan_dir for r in roots), matches,
                                                       keys, frozenset(proven))
        if previous is not None and changed is None:
            self._adopted = None  # (this full rescan looked at everything again)
            self._first = False
        return gen

    def _kept(self, roots: tuple[Root, ...]) -> _Kept | None:
        """The first build kept by an earlier run, when its roots are exactly ``roots``."""
        if not self._cache.enabled or not self._cache.file:
            return None
        kept = self._cache.load_state(_KEPT, _Kept)
        if kept is None or kept.roots != roots:
            return None
        return kept

    def watch_targets(self) -> WatchTargets:
        """Zuno's watch roots (SPEC H4, Z153–Z156) and its configuration directories."""
        ctx = self._context
        env, cwd = ctx.env, ctx.cwd
        config = self.config
        rule_paths = tuple(r.raw_path for r in config.rules)
        roots = zuno_watch_roots(env, cwd, paths=config.paths + ctx.paths, config_paths=rule_paths,
                                 worktree=self.worktree())
        base = os.path.abspath(cwd)
        dirs = [os.path.join(os.path.normpath(os.path.join(base, env.xdg_config_home)), "zuno")]
        extra_dir = env.get("ZUNO_CONFIG_DIR")
        if extra_dir:
            dirs.append(os.path.normpath(os.path.join(base, extra_dir)))
        single = env.get("ZUNO_CONFIG")
        if single:
            dirs.append(os.path.dirname(os.path.normpath(os.path.join(base, single))))
        for f in ctx.config_files:
            dirs.append(os.path.dirname(os.path.normpath(os.path.join(base, f))))
        shared = canonical(os.path.join(os.path.normpath(os.path.join(base, env.home)), ".agents", "skills"))
        return WatchTargets(
            roots=roots,
            config_dirs=tuple(dirs),
            config_files=tuple(ctx.config_files),
            names=RELEVANT_NAMES,
            components=RELEVANT_COMPONENTS,
            sidecars=SIDECAR_NAMES,
            start_only=(shared,),
        )


def _made_kept(digest_cache: DigestCache | None, packed: PackedDigests | None, roots: tuple[Root, ...],
               scans: tuple[ScanResult, ...], matches: tuple[Match, ...], outputs: dict[str, _Output],
               rules: tuple[RuleEntry, ...], keys: dict[str, _DirKeys], proofs: tuple[ScanProof | None, ...],
               token: bytes, builtins: tuple[Source, ...]) -> _Kept:
    """The kept first build (:class:`_Kept`); its digest bytes packed from ``digest_cache``, or
    ``packed`` (the kept list's, when the build took its digest from them)."""
    if digest_cache is not None:
        packed = PackedDigests.of(digest_cache.values())
    assert packed is not None
    return _Kept(roots, scans, matches, outputs, rules, keys, packed, proofs, token, builtins)


def _output_proof(context: tuple[Any, ...], inputs: str, proofs: tuple[ScanProof | None, ...],
                  matches: tuple[Match, ...], keys: dict[str, _DirKeys]) -> tuple[Any, ...] | None:
    """:func:`~.proof.record` of a first build that read ``matches`` with ``keys``."""
    return record(
        context=context,
        inputs=inputs,
        proofs=proofs,
        locations=[m.location for m in matches],
        canonicals=[m.canonical for m in matches],
        sidecars=[sidecar_paths(m.location.rsplit("/", 1)[0] or "/")
                  if (k := keys[m.location]) is not None and len(k) > 1 else ("", "") for m in matches],
        keys=[keys[m.location] for m in matches])


def _walk(root: Root, since: int | None) -> tuple[ScanResult, ScanProof | None]:
    """:func:`scan` of ``root`` and, when ``since`` (:func:`time.time_ns` before the first walk
    of the build) is given, its proof (:func:`prove`, taken right after the walk)."""
    seen = ScanSeen() if since is not None else None
    result = scan(root.scan_dir, dot=root.dot, seen=seen)
    return result, prove(root.scan_dir, seen, since) if seen is not None and since is not None else None


def _import_reader() -> None:
    """Import the YAML reader (:func:`_read_skill`'s; a warm start over an unchanged tree reads
    no file and never imports it)."""
    import skillshelf.core.frontmatter  # noqa: F401


def _read_skill(location: str) -> SkillParse:
    # the YAML reader is imported when a file is read: a warm start over an unchanged tree reads none
    from skillshelf.core.frontmatter import parse_skill_file

    # slim: a generation never holds skill bodies (the tool and the views read them from the file
    # when they are shown), and the parse cache keeps no file's text
    return parse_skill_file(location, location=location, slim=True)


def _read(m: Match, cache: ParseCache, st: os.stat_result | None = None, agents: bool | None = None) -> _Parsed:
    """One skill directory read through the parse cache: the ``SKILL.md`` parse keyed by the
    canonical file (the locator is part of the key: messages name it), the sidecars by theirs.
    ``st``, ``agents``: the canonical file's ``stat`` and whether ``agents/`` exists, when the
    caller has just looked (:func:`.proof.dir_keys_stat`)."""
    location = m.location
    parse, st = cache.lookup("zuno-skill", m.canonical,
                             partial(_read_skill, location), label=location, st=st)
    sidecar = NO_SIDECAR if agents is False else read_sidecars(os.path.dirname(location), cache=cache, agents=agents)
    return _Parsed(sidecar, parse, st.st_mtime if st is not None else 0.0)


def _drain(cache: ParseCache) -> None:
    """:meth:`ParseCache.drain_feed` in a thread of its own, stopped at this process's exit
    (before the child it reads from is: exit handlers run last registered first)."""
    stop = threading.Event()
    thread = threading.Thread(target=cache.drain_feed, args=(stop,), name="skillshelf-read-ahead", daemon=True)
    thread.start()

    def stopped() -> None:
        stop.set()
        thread.join(forked.PATIENCE_S)

    atexit.register(stopped)


def _next_part(ahead: Ahead, cancel: threading.Event | None = None) -> object | None:
    """The next part a child reading ahead sent (:meth:`ZunoSession.read_ahead`), ``None`` when
    no more will come (it sent nothing for :data:`~skillshelf.core.forked.PATIENCE_S`, or
    ``cancel`` was set — the TUI quitting: stopped)."""
    got, part = ahead.part(forked.PATIENCE_S, cancel)
    return part if got else None


def _lint_only(lint: Callable[[str, str, ParseCache], object], cache: ParseCache, m: Match) -> None:
    """``lint`` of ``m`` for what it keeps in ``cache`` alone (:meth:`ZunoSession.read_ahead`)."""
    lint(m.location, m.canonical, cache)


def _read_only(matches: Sequence[Match], agents: Sequence[bool], cache: ParseCache, i: int) -> None:
    """:func:`_read` of ``matches[i]`` (``agents[i]``: whether its ``agents/`` exists) for what it
    keeps in ``cache`` alone."""
    _read(matches[i], cache, agents=agents[i])


def _keyed_read(m: Match, cache: ParseCache, now_ns: int) -> tuple[_DirKeys, _Parsed]:
    """:func:`_dir_keys` of ``m`` then :func:`_read` of it, sharing the ``stat`` of its
    ``SKILL.md`` and the look for ``agents/`` (the keys are still taken before the read)."""
    keys, st, agents = dir_keys_stat(m.location, m.canonical, sidecar_paths, now_ns)
    return keys, _read(m, cache, st, agents)


def _read_assembled(matches: Sequence[Match], config: Config, rules: tuple[RuleEntry, ...], cache: ParseCache,
                    now_ns: int | None = None, previous: Generation | None = None,
                    digests: dict[int, tuple[Source, bytes]] | None = None,
                    ) -> tuple[dict[str, _DirKeys], dict[str, _Output], dict[str, _Parsed]]:
    """:func:`_read` of every match and its entry (:func:`_assemble_one`; keep-last-valid from
    ``previous``), locator → result in match order, and, when ``now_ns`` is given, its
    :func:`_dir_keys` taken just before the read (else ``{}``). Reads are shared with a forked
    child when :mod:`skillshelf.core.forked` allows it, each entry made here as its read comes
    in (same results: each read depends on its files only; the child's cache entries are
    adopted here). ``digests``: filled with each enabled source's digest bytes (a
    :data:`~skillshelf.core.digest.DigestCache`), made with its :attr:`~Source.entry` while the
    child still reads."""
    from skillshelf.core import forked

    if matches:  # the YAML reader, imported once before a fork, not in both processes
        _import_reader()
    if now_ns is None:
        read: Callable[[Match], tuple[_DirKeys, _Parsed]] = lambda m: (None, _read(m, cache))  # noqa: E731
    else:
        read = partial(_keyed_read, cache=cache, now_ns=now_ns)
    prev_by_loc: dict[str, Source] = {}
    if previous is not None:
        prev_by_loc = {s.location: s for s in previous.sources if s.provenance is not Provenance.BUILTIN}
    n = len(matches)
    made: list[tuple[_DirKeys, _Parsed, _Output] | None] = [None] * n

    def each(i: int, result: tuple[_DirKeys, _Parsed]) -> None:
        m = matches[i]
        out = _assemble_one(m, result[1], config, rules, prev_by_loc.get(m.location))
        made[i] = (result[0], result[1], out)
        source = out.entry
        if digests is not None and isinstance(source, Source) and source.enabled:
            source.entry  # noqa: B018  (made now: every view and the index render use it)
            digests[id(source)] = (source, source_digest_bytes(source))

    if not forked.available():
        for i, m in enumerate(matches):
            each(i, read(m))
    else:
        forked.chunk_map(read, matches, each, extra=_CacheChanges(cache), adopt=cache.adopt)
    keys: dict[str, _DirKeys] = {}
    outputs: dict[str, _Output] = {}
    parsed: dict[str, _Parsed] = {}
    for m, row in zip(matches, made, strict=True):
        assert row is not None
        loc = m.location
        if now_ns is not None:
            keys[loc] = row[0]
        parsed[loc] = row[1]
        outputs[loc] = row[2]
    return keys, outputs, parsed


class _CacheChanges:
    """In a forked reader: the parse-cache entries kept since the last call (the first call:
    since this was made), for :meth:`ParseCache.adopt` in the parent."""

    def __init__(self, cache: ParseCache) -> None:
        self._cache = cache
        self._mark = cache.mark()

    def __call__(self) -> object:
        changes = self._cache.changes_since(self._mark)
        self._mark = self._cache.mark()
        return changes


def _assemble(
    matches: Sequence[Match],
    config: Config,
    rules: tuple[RuleEntry, ...],
    previous: Generation | None,
    snap: _Snapshot | None,
    touched: Callable[[str], bool] | None,
    cache: ParseCache,
    cancel: threading.Event | None = None,
) -> tuple[dict[str, _Output], dict[str, _Parsed]]:
    """Turn every match into its entry (H3 keep-last-valid included). ``touched`` None → read
    every skill directory; else only those it names, reusing ``snap``'s parses and, when the
    match and the rules are unchanged too, its finished entries. Reports the entries made so
    far to a :func:`~skillshelf.core.hosts.base.progress_sink` now and then (else every match is
    read and made at once: :func:`_read_assembled`). Raises
    :class:`~skillshelf.core.hosts.base.BuildCancelled` once ``cancel`` is set."""
    sink = progress_sink()
    if touched is None and sink is None:
        return _read_assembled(matches, config, rules, cache, None, previous)[1:]
    throttle = Throttle() if sink is not None else None
    old_out = snap.outputs if snap is not None else {}
    old_parsed = snap.parsed if snap is not None else {}
    same_rules = snap is not None and snap.rules == rules
    prev_by_loc: dict[str, Source] | None = None
    outputs: dict[str, _Output] = {}
    parsed: dict[str, _Parsed] = {}
    for m in matches:
        stop_if_cancelled(cancel)
        loc = m.location
        p: _Parsed | None = None
        if touched is not None and not touched(loc):
            o = old_out.get(loc)
            if o is not None and same_rules and (o.match is m or o.match == m):
                outputs[loc] = o
                old = old_parsed.get(loc)  # not kept for entries reused from a kept first build
                if old is not None:
                    parsed[loc] = old
                continue
            p = old_parsed.get(loc)
        if p is None:
            p = _read(m, cache)
        parsed[loc] = p
        if prev_by_loc is None:
            prev_by_loc = {}
            if previous is not None:
                prev_by_loc = {s.location: s for s in previous.sources if s.provenance is not Provenance.BUILTIN}
        outputs[loc] = _assemble_one(m, p, config, rules, prev_by_loc.get(loc))
        if throttle is not None and sink is not None and throttle.due():
            _report(sink, outputs, len(matches))
    return outputs, parsed


def _assemble_kept(
    matches: Sequence[Match],
    config: Config,
    rules: tuple[RuleEntry, ...],
    kept: _Kept,
    keys: Mapping[str, _DirKeys],
    cache: ParseCache,
    shown: BuildProgress | None = None,
    cancel: threading.Event | None = None,
) -> tuple[dict[str, _Output], dict[str, _Parsed]]:
    """:func:`_assemble` for a first build over a kept one: a match whose directory's files have
    the keys they had (``keys`` now, taken before any read) keeps its kept entry when the match
    and the rules are the same; every other one is read (through the parse cache) and assembled
    as a first build does (no previous entry: keep-last-valid never applies, so a kept
    ``kept-last-valid`` entry is made again). The parse cache then keeps only entries of files
    these matches reach (:meth:`~skillshelf.core.parsecache.ParseCache.retain`). ``shown``: the
    kept list already reported (then reports only move its count on). Raises
    :class:`~skillshelf.core.hosts.base.BuildCancelled` once ``cancel`` is set."""
    sink = progress_sink()
    throttle = Throttle() if sink is not None else None
    old_keys = kept.keys
    old_out = kept.outputs
    same_rules = kept.rules == rules
    live: set[str] = set()
    outputs: dict[str, _Output] = {}
    parsed: dict[str, _Parsed] = {}
    for m in matches:
        stop_if_cancelled(cancel)
        loc = m.location
        k = keys.get(loc)
        live.add(m.canonical)
        if k is None or len(k) > 1:
            live.update(sidecar_paths(os.path.dirname(loc)))
        o = old_out.get(loc) if same_rules and k is not None and old_keys.get(loc) == k else None
        if (o is not None and (o.match is m or o.match == m)
                and not (isinstance(o.entry, Source) and o.entry.status is Status.KEPT_LAST_VALID)):
            outputs[loc] = o
        else:
            p = _read(m, cache)
            parsed[loc] = p
            outputs[loc] = _assemble_one(m, p, config, rules, None)
        if throttle is not None and sink is not None and throttle.due():
            if shown is not None:
                sink(replace(shown, done=len(outputs), total=len(matches)))
            else:
                _report(sink, outputs, len(matches))
    cache.retain(live)
    return outputs, parsed


def _report(sink: ProgressSink, outputs: dict[str, _Output], total: int) -> None:
    entries = [o.entry for o in outputs.values()]
    sink(BuildProgress(len(outputs), total, tuple(e for e in entries if isinstance(e, Source)),
                       tuple(e for e in entries if isinstance(e, Rejected))))


def _assemble_edited(
    edited: set[str], config: Config, rules: tuple[RuleEntry, ...], snap: _Snapshot, cache: ParseCache
) -> tuple[dict[str, _Output], dict[str, _Parsed]]:
    """:func:`_assemble` for the edit fast path: the previous outputs, with only the ``edited``
    locators' skill directories re-read. The previous entry of a locator is the one the
    previous generation holds (its output), as keep-last-valid needs (SPEC H3)."""
    outputs = dict(snap.outputs)
    parsed = dict(snap.parsed)
    for loc in edited:
        old = snap.outputs[loc]
        p = _read(old.match, cache)
        parsed[loc] = p
        prev = old.entry if isinstance(old.entry, Source) else None
        outputs[loc] = _assemble_one(old.match, p, config, rules, prev)
    return outputs, parsed


def _assemble_one(m: Match, p: _Parsed, config: Config, rules: tuple[RuleEntry, ...],
                  prev: Source | None) -> _Output:
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

    if parse.warning is not None or parse.name is None:
        entry: Source | Rejected = Rejected(
            location=m.location,
            provenance=m.provenance,
            canonical=m.canonical,
            name=os.path.basename(os.path.dirname(m.location)),
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
    decision = config.decide(m.canonical)
    if decision.rule is not None:
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


def _refusal_diagnostics(config: Config) -> tuple[Diagnostic, ...]:
    """A diagnostic per reason Zuno would refuse to start (Z-K), except where a configuration
    diagnostic already says the same thing at the same place (an unparsable layer)."""
    said = {d.message for d in config.diagnostics}
    return tuple(r.diagnostic() for r in config.refusals if r.diagnostic_text not in said)
