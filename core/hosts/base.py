"""The ``Host`` protocol: one agent's skill rules behind one interface (SPEC N1; DESIGN "Hosts").

The catalog machinery (scan, dedupe, parse, generations, watch) is shared; a host supplies the
decisions: where it looks (:meth:`Host.roots`), what it accepts from one ``SKILL.md``
(:meth:`Host.accept`), how same-name copies are arbitrated (:meth:`Host.arbitrate`), and what
the model is shown (:meth:`HostSession.catalog`). A :class:`~skillshelf.core.catalog.Catalog`
opens one :class:`HostSession` per workspace; the session keeps whatever per-workspace state the
host needs (configuration, remote pulls, incremental snapshots) and builds each
:class:`~skillshelf.core.model.Generation`.

Views never compare host names: what differs between hosts is asked of the host object
(its :class:`Feature` set, :class:`HostLabels`, session methods).
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from skillshelf.core.model import CatalogWarning, Diagnostic, Generation, Rejected, Root, Severity, Source
from skillshelf.core.parsecache import NO_CACHE, ParseCache, ParseCacheStore
from skillshelf.core.paths import Environment

if TYPE_CHECKING:
    from skillshelf.core.agents import AgentSetup
    from skillshelf.core.config import Config
    from skillshelf.core.forked import Ahead
    from skillshelf.core.tokens import TokenSpan
    from skillshelf.core.tool import ToolResult

__all__ = [
    "BUILT_IN_BODY",
    "UNKNOWN_WINDOW",
    "BuildCancelled",
    "BuildProgress",
    "CatalogEntry",
    "ContextWindow",
    "EntryState",
    "Fact",
    "Feature",
    "Host",
    "HostCatalog",
    "HostContext",
    "HostLabels",
    "HostSession",
    "LazyEntries",
    "LoadedPage",
    "ProgressSink",
    "PromptSection",
    "RootPlan",
    "SkillToolLike",
    "Throttle",
    "ToolCatalog",
    "Verdict",
    "WatchTargets",
    "WindowOrigin",
    "flag_window",
    "progress_sink",
    "reporting_progress",
    "stop_if_cancelled",
]


class Feature(str, enum.Enum):
    """Optional abilities a host has; views show the matching screens and meters only for these."""

    #: ``skills.config`` rules and conflict resolution by writing them (SPEC K, K5).
    CONFIG = "config"
    #: ``agents.<name>`` views, required skills (SPEC E4, S2).
    AGENTS = "agents"
    #: ``skills.urls`` remote indexes (SPEC R).
    REMOTE = "remote"
    #: index / search / explicit exposure (SPEC E1).
    EXPOSURE = "exposure"
    #: several render forms (index / list / verbose, SPEC P).
    FORMS = "forms"
    #: a selected-body budget (SPEC U2–U3).
    SELECTED_BUDGET = "selected-budget"
    #: ``always: true`` bodies injected into every prompt (SPEC Z5).
    ALWAYS = "always"
    #: same-name copies are all kept and addressed by locator (SPEC D6: visible ambiguity).
    AMBIGUITY = "ambiguity"
    #: ``debug skill`` / ``debug agent`` can print the agent's own report shapes (``--format zuno``).
    NATIVE_REPORTS = "native-reports"
    #: a first build kept for the next run, whose check can be made ahead
    #: (:meth:`HostSession.check_ahead`; the TUI forks for it only then).
    CHECK_AHEAD = "check-ahead"


@dataclass(frozen=True)
class HostLabels:
    """Words a view uses for this host.

    ``catalog``: what the model-facing listing is called (``index``, ``catalog``);
    ``selected``: the meter label for bodies added to every request (``required``, ``always``);
    ``selected_unit``: the unit of :meth:`HostSession.selected_budget` (``tokens``; Zuno
    compares selected bodies in UTF-8 ``bytes``).
    ``tool_requests``: example requests of the host's skill tool, each one JSON object as the
    model sends it (``()`` when the host gives the model no skill tool) — shown when a request
    cannot be read.
    """

    catalog: str = "index"
    selected: str = "required"
    selected_unit: str = "tokens"
    tool_requests: tuple[str, ...] = ()


class WindowOrigin(str, enum.Enum):
    """Where a context window came from (conformance Z-W)."""

    #: ``--context-window`` (or a what-if value)
    FLAG = "--context-window"
    #: the provider section of the host's configuration
    CONFIG = "configuration"
    #: the model catalog the host keeps on disk
    MODEL_CATALOG = "model catalog"
    #: skillshelf's own table of known windows
    TABLE = "skillshelf's table"
    #: not known: the host's defaults apply
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ContextWindow:
    """The model context window the budgets are computed from, and where it came from.

    ``tokens``: the window (``None`` or 0: not known, the host's defaults apply); ``origin``;
    ``model``: the ``provider/model`` it is the window of, when known; ``source``: the file
    it was read from, when it was read from one; ``note``: why it is unknown, when it is.
    """

    tokens: int | None
    origin: WindowOrigin
    model: str | None = None
    source: str = ""
    note: str = ""

    @property
    def known(self) -> bool:
        """True when a positive window is known."""
        return bool(self.tokens)

    def describe(self) -> str:
        """One line: ``anthropic/claude-sonnet-4 · 200,000 tokens from the model catalog
        (/home/u/.cache/zuno/models.json)``, or why the window is unknown."""
        head = f"{self.model} · " if self.model else ""
        if self.origin is WindowOrigin.UNKNOWN or not self.tokens:
            why = f" ({self.note})" if self.note else ""
            if self.origin is WindowOrigin.MODEL_CATALOG:
                return f"{head}the model catalog declares no window{why}"
            return f"{head}context window unknown{why}"
        where = f" ({self.source})" if self.source else ""
        the = "the " if self.origin in (WindowOrigin.CONFIG, WindowOrigin.MODEL_CATALOG) else ""
        return f"{head}{self.tokens:,} tokens from {the}{self.origin.value}{where}"


#: No window known and none configured.
UNKNOWN_WINDOW = ContextWindow(None, WindowOrigin.UNKNOWN)


def flag_window(tokens: int | None) -> ContextWindow:
    """The window of ``--context-window`` (``None``: not given, unknown)."""
    if tokens is None:
        return UNKNOWN_WINDOW
    return ContextWindow(tokens, WindowOrigin.FLAG, note="--context-window 0" if not tokens else "")


@dataclass(frozen=True)
class PromptSection:
    """One section a host adds to the model's prompt for its skills (conformance Z-P).

    ``id`` (``skills.policy``, ``skills.index``), ``source`` (the host's label for it: ``zuno
    skill trigger policy``), ``text`` exactly as sent; ``budgeted``: the characters counted
    against the catalog budget (the budgeted render; the rest of the section — coverage
    sentences, a policy — is prompt cost outside the budget); ``stand_in``: the text holds
    stand-ins of the same size for prose skillshelf does not have (Zuno not installed).
    """

    id: str
    source: str
    text: str
    budgeted: int = 0
    stand_in: bool = False

    @property
    def name(self) -> str:
        """The short name of the section: the last part of :attr:`id` (``policy``, ``index``)."""
        return self.id.rsplit(".", 1)[-1]

    @property
    def characters(self) -> int:
        """Length of :attr:`text` in characters."""
        return len(self.text)

    @property
    def bytes(self) -> int:
        """Length of :attr:`text` in UTF-8 bytes."""
        return len(self.text.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class HostContext:
    """The inputs of one opened workspace, built once at the edge (SPEC C1).

    ``paths``: extra ``skills.paths`` entries (``--path``); ``config_files``: extra
    configuration layers (``--config``); ``context_window`` in tokens (``None`` = the host's
    own default); ``pull_remote``: whether ``skills.urls`` may be downloaded; ``cache``: the
    persistent parse cache of this workspace (``None``: every build reads every file);
    ``cancel``: set it to stop a remote pull in progress (the TUI does on quit); ``defer_pull``:
    the first build skips the remote pull, the next one pulls (the TUI shows the local catalog
    at once and pulls right after); ``ahead``: the value of :meth:`HostSession.check_ahead`
    being computed by a forked child (:class:`~skillshelf.core.forked.Ahead`), taken by the
    first build (stopped by the catalog after it, for a host that has nothing to check ahead).
    """

    cwd: str
    env: Environment
    paths: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()
    context_window: int | None = None
    pull_remote: bool = True
    cache: ParseCacheStore | None = field(default=None, compare=False, repr=False)
    cancel: threading.Event | None = field(default=None, compare=False, repr=False)
    defer_pull: bool = field(default=False, compare=False)
    ahead: Ahead | None = field(default=None, compare=False, repr=False)

    def parse_cache(self, host: str, rules: str) -> ParseCache:
        """Host ``host``'s parse cache (rules version ``rules``) for this workspace; a cache
        that keeps nothing when :attr:`cache` is ``None``."""
        return NO_CACHE if self.cache is None else self.cache.for_host(host, rules)


@dataclass(frozen=True)
class RootPlan:
    """The roots a host scans for one workspace, in its discovery order, plus the warnings made
    while building them (``PathNotFound`` …) and browser-only hints (``uncovered-folder``)."""

    roots: tuple[Root, ...]
    warnings: tuple[CatalogWarning, ...] = ()
    hints: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """What a host makes of one ``SKILL.md`` (its parser's tolerance, SPEC N1–N2).

    ``accepted`` False → the file is rejected; ``reason`` says why in the host's terms.
    Accepted: ``name`` and ``description`` exactly as the host lists them (after its own
    folding and fallbacks); ``display_name`` the frontmatter name when the host lists the skill
    under another key; ``hidden`` the reason the model never sees it (``None`` = visible).
    ``diagnostics`` are the host's findings (never the Agent Skills lint).
    """

    accepted: bool
    name: str | None = None
    description: str | None = None
    display_name: str | None = None
    hidden: str | None = None
    reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    frontmatter: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class BuildProgress:
    """A build still under way (never a generation: nothing is published until it ends).

    ``done`` files read of ``total`` (the files discovery found); ``sources`` and ``rejected``:
    the entries made so far in discovery order, before the host's precedence and order apply
    (so a view can show the first rows at once and mark them provisional). ``checking``: the
    entries are an earlier run's whole list in the order its generation listed them (the host's
    built-ins first: this session's when made in time, else that run's), shown while the files are checked
    against it (``done`` of ``total`` files checked or read again so far); a later report with
    the very same ``sources`` object only moves the count on."""

    done: int
    total: int
    sources: tuple[Source, ...] = ()
    rejected: tuple[Rejected, ...] = ()
    checking: bool = False


#: Receives :class:`BuildProgress` from a building session (from the building thread).
ProgressSink = Callable[[BuildProgress], None]

_progress = threading.local()


class reporting_progress:
    """While active, builds made in this thread report :class:`BuildProgress` to ``sink`` (a
    session asks :func:`progress_sink`; hosts that cannot report simply build). A view uses it
    to show the first rows of a large catalog before the build ends."""

    def __init__(self, sink: ProgressSink) -> None:
        self._sink = sink
        self._outer: ProgressSink | None = None

    def __enter__(self) -> None:
        self._outer = getattr(_progress, "sink", None)
        _progress.sink = self._sink

    def __exit__(self, *exc: object) -> None:
        _progress.sink = self._outer


def progress_sink() -> ProgressSink | None:
    """The :class:`reporting_progress` sink of this thread, or ``None``."""
    return getattr(_progress, "sink", None)


class BuildCancelled(Exception):
    """A first build stopped part-way because its context's ``cancel`` was set (the TUI
    quitting while it still reads): no generation is made."""


def stop_if_cancelled(cancel: threading.Event | None) -> None:
    """Raise :class:`BuildCancelled` when ``cancel`` is set (a first build asks between files)."""
    if cancel is not None and cancel.is_set():
        raise BuildCancelled


class Throttle:
    """When a build reports: first after ``first`` seconds, then at growing intervals (each
    report costs the view a redraw of every row so far)."""

    def __init__(self, first: float = 0.15) -> None:
        self._start = time.monotonic()
        self._next = first

    def due(self) -> bool:
        """True when a report is due now (then the next one is scheduled)."""
        elapsed = time.monotonic() - self._start
        if elapsed < self._next:
            return False
        self._next = max(self._next * 2.5, elapsed + 0.3)
        return True


@dataclass(frozen=True)
class WatchTargets:
    """What to watch so that every change that can alter this host's catalog is seen (SPEC H4).

    ``roots``: directories watched recursively at their exact location (through their nearest
    existing ancestor while missing); ``config_dirs``: directories watched non-recursively for
    configuration files; ``config_files``: exact configuration files; ``names``: file names
    whose change always matters (``SKILL.md``, sidecars, configuration file names);
    ``components``: path components that make any event relevant; ``sidecars``: file names
    relevant inside an ``agents/`` folder; ``start_only``: roots watched only when they
    already existed when watching started (Zuno's ``~/.agents/skills``, SPEC H4).
    """

    roots: tuple[str, ...]
    config_dirs: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()
    names: frozenset[str] = frozenset({"SKILL.md"})
    components: frozenset[str] = frozenset()
    sidecars: frozenset[str] = frozenset()
    start_only: tuple[str, ...] = ()


class EntryState(str, enum.Enum):
    """The fate of one listed source in a host's model catalog (SPEC N4, P6)."""

    LISTED = "listed"
    #: listed with its description shortened by the budget or the per-entry cap
    CUT = "cut"
    #: listed by name only: the budget dropped the whole description
    NAME_ONLY = "name-only"
    #: left out of the catalog by the budget
    OMITTED = "omitted"
    #: never shown to the model (exposure, a host rule, no description …)
    HIDDEN = "hidden"


@dataclass(frozen=True)
class CatalogEntry:
    """One source's line in the catalog: ``state``, the description as shown (``None`` when no
    description is shown) and a short ``note`` in the host's terms (why cut, why hidden)."""

    location: str
    name: str
    state: EntryState
    shown: str | None = None
    note: str = ""


class LazyEntries(Sequence[CatalogEntry]):
    """A tuple of :class:`CatalogEntry` made by ``make()`` when first read (a text render never
    reads them); compares, hashes and pickles as that tuple."""

    __slots__ = ("_items", "_make")

    def __init__(self, make: Callable[[], Sequence[CatalogEntry]]) -> None:
        self._make: Callable[[], Sequence[CatalogEntry]] | None = make
        self._items: tuple[CatalogEntry, ...] | None = None

    @property
    def made(self) -> bool:
        """True once the entries have been made."""
        return self._items is not None

    def _all(self) -> tuple[CatalogEntry, ...]:
        items = self._items
        if items is None:
            make = self._make
            assert make is not None
            items = self._items = tuple(make())
            self._make = None
        return items

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[CatalogEntry]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyEntries):
            other = other._all()
        return self._all() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[type, tuple[tuple[CatalogEntry, ...]]]:
        return tuple, (self._all(),)


@dataclass(frozen=True)
class HostCatalog:
    """The text a host puts in the model's prompt for its skills, and what it cost (SPEC N5, P).

    ``text``: exactly that text (``""`` when the host sends none). ``budget``: the room allowed
    in ``unit`` (``characters`` unless the host counts otherwise: Codex ``tokens``, Claude
    ``columns``; ``None`` = the host has no budget); ``used``: what is counted against it;
    ``budget_rule``: where the budget came from, in words. ``entries``: every enabled source in
    catalog order with its :class:`EntryState` (a tuple, or :class:`LazyEntries`). ``notes``:
    anything else the user should know (an instruction section that is absent, a text the host
    reads at run time …).
    ``sections``: the prompt sections ``text`` is made of, in order, with their sizes (empty
    for hosts that send one undivided text); ``window``: the context window the budget was
    computed from; ``selected_rule``: the selected-body budget rule in words (``""``: none).
    ``token_spans``: where ``text`` holds stand-ins for the host's own prose and the real
    texts' token counts, for :meth:`~skillshelf.core.tokens.TokenCounter.count_spliced` (so
    the count is the same with or without the host installed).
    """

    text: str
    budget: int | None
    used: int
    entries: Sequence[CatalogEntry] = ()
    budget_rule: str = ""
    notes: tuple[str, ...] = ()
    unit: str = "characters"
    sections: tuple[PromptSection, ...] = ()
    window: ContextWindow = UNKNOWN_WINDOW
    selected_rule: str = ""
    token_spans: tuple[TokenSpan, ...] = ()

    @property
    def listed(self) -> int:
        """Entries the model sees (listed, cut or name-only)."""
        return sum(1 for e in self.entries if e.state in (EntryState.LISTED, EntryState.CUT, EntryState.NAME_ONLY))


@dataclass(frozen=True)
class Fact:
    """One host-specific line of the source pane (:meth:`HostSession.source_facts`).

    ``label`` (a short word, ``catalog``, ``tools``) and ``value`` (one line); ``detail``: lines
    shown indented under it (each locked tool, a hint); ``severity``: ``WARNING`` / ``ERROR``
    colour the value, ``None`` is plain. Text is raw: views make it visible (SPEC X1).
    """

    label: str
    value: str
    detail: tuple[str, ...] = ()
    severity: Severity | None = None


#: :attr:`LoadedPage.error_code` of a skill built into the client whose text skillshelf does not
#: have (no installed client to read it from): not a refusal, the body is simply not on disk.
BUILT_IN_BODY = "built-in"


@dataclass(frozen=True)
class LoadedPage:
    """One page of what the host hands the model when a skill is loaded (:meth:`HostSession.load_page`).

    ``text``: exactly that page (``""`` on a refusal); ``next_cursor``: pass it back for the next
    page, ``None`` on the last one (``complete`` True); ``label`` names what was called, in the
    host's terms (``skill tool load``, ``load_skill text``). ``error``: the host's refusal
    sentence (``error_code`` its code, ``bodyless``) — the skill cannot be loaded as asked.
    ``body``: the skill's own text inside ``text`` when the host wraps it in lines of its own
    (the body-only view), ``None`` when ``text`` is shown as is; ``first_line``: the file's line
    number where ``body`` (or ``text``) starts, when known; ``pages``: the page count, when known.
    ``injected``: on the first page, the text the host adds to *every* prompt for this skill
    without it being loaded (Zhin's ``always: true``, SPEC Z5, U2–U3), else ``None``.
    """

    text: str
    next_cursor: str | None
    complete: bool
    label: str
    error: str | None = None
    error_code: str = ""
    body: str | None = None
    first_line: int | None = None
    pages: int | None = None
    injected: str | None = None


@runtime_checkable
class SkillToolLike(Protocol):
    """A host's skill tool: one request (the JSON object the model sends) → one result.
    Raises :class:`skillshelf.core.tool.ToolError` when the host refuses the call."""

    def call(self, request: Mapping[str, object]) -> ToolResult: ...


class HostSession(Protocol):
    """One host over one workspace: builds generations and answers per-workspace questions.

    ``config``: the merged configuration of the latest build (an empty :class:`Config` for
    hosts without one); ``remote_origins``: pulled remote skill directory → (URL, version).
    """

    @property
    def context(self) -> HostContext: ...

    @property
    def config(self) -> Config: ...

    @property
    def remote_origins(self) -> Mapping[str, tuple[str, str | None]]: ...

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """The next generation (number = previous + 1, or 1). ``changed`` None → rescan
        everything; a set of absolute paths → the same result, re-reading only what those paths
        can affect (hosts without an incremental path may rescan everything).
        ``watch_warnings`` (kind ``WatchFailed``) are published after every other warning.
        Never raises for bad skills or bad configuration."""
        ...

    def request_pull(self) -> None:
        """Pull remote indexes again at the next build (no-op for hosts without them)."""
        ...

    def check_ahead(self) -> object | None:
        """What the first build (no previous generation) checks against the files, computed
        now, in a process of its own, for that build to adopt through
        :attr:`HostContext.ahead`; ``None`` for a host with nothing to check ahead. The value is
        picklable and the build adopts it only when it is about what the build itself found."""
        ...

    def read_ahead(self, lint: Callable[[str, str, ParseCache], object] | None = None) -> None:
        """When :meth:`check_ahead` finds nothing to check (a first build will read every file):
        read what that build reads into the parse cache now, in a process of its own, sending
        what is kept as it is made (:func:`~skillshelf.core.forked.ahead_part`: values of
        :meth:`~skillshelf.core.parsecache.ParseCache.changes_since`) for the first build to be
        fed (:meth:`~skillshelf.core.parsecache.ParseCache.feed`); then, with ``lint``, call
        ``lint(location, canonical, cache)`` for every file read (what it keeps is sent the same
        way, for the views' lint). No-op for a host that does not build that way."""
        ...

    def changed_since_ahead(self) -> frozenset[str] | None:
        """What changed, since the check the first build adopted (:meth:`check_ahead`) was
        made, of what the build took from it, found now (once; a watcher asks when its watches
        are in place): directories to rescan (:meth:`Catalog.refresh_paths
        <skillshelf.core.catalog.Catalog.refresh_paths>`), ``None`` to rescan everything; empty
        when no check was adopted or it was asked already."""
        ...

    def index_budget(self, context_window: int | None = None) -> int | None:
        """The catalog budget in characters for ``context_window`` tokens (``None`` = the
        context's); ``None`` when the host has no budget."""
        ...

    def window(self, context_window: int | None = None) -> ContextWindow:
        """The context window the budgets use: ``context_window`` tokens when given (a what-if),
        else the host's own resolution (``--context-window``, the configured model …)."""
        ...

    def agent_names(self) -> tuple[str, ...]:
        """Agents a user can pick for this host, in the host's order (``()``: no agents)."""
        ...

    def agent(self, name: str) -> AgentSetup:
        """What decides what agent ``name`` sees (its own data plus the configuration)."""
        ...

    def selected_budget(self, context_window: int | None = None) -> int | None:
        """The selected-body budget in :attr:`HostLabels.selected_unit` (SPEC U2; Zuno: UTF-8
        bytes, Z-U), ``None`` when the host has none."""
        ...

    def watch_targets(self) -> WatchTargets:
        """What a watcher must watch for the latest build (SPEC H4)."""
        ...

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The model catalog of ``generation``: ``context_window`` tokens overrides the
        session's, ``budget`` characters overrides the host's rule; ``agent``: whose prompt
        (hosts with agents; ``None`` = the host's default agent)."""
        ...

    def source_facts(self, source: Source) -> tuple[Fact, ...]:
        """What this host alone says about ``source`` for the source pane (``()`` when nothing);
        may read the skill's folder. Never raises for file-system problems."""
        ...

    def load_page(self, source: Source, cursor: str | None = None, *, resource: str | None = None) -> LoadedPage:
        """One page of what the host hands the model when ``source`` is loaded (as if it were
        enabled and listed: the browser shows every source's body). ``cursor``: the previous
        page's ``next_cursor`` (``None`` = the first page). ``resource``: a file of the skill
        folder (relative, ``/``-separated) instead of the body; a host that hands over no files
        answers with ``error``. Refusals come back as ``error``, never raised."""
        ...


class ToolCatalog(Protocol):
    """What a host's skill tool needs of a live catalog (a
    :class:`~skillshelf.core.catalog.Catalog` is one): the published generation, a rescan when
    a requested skill is not found (SPEC I3), and the host's session over the workspace."""

    @property
    def current(self) -> Generation: ...

    @property
    def session(self) -> HostSession: ...

    def refresh(self) -> Generation: ...


class Host(Protocol):
    """One agent's skill rules (SPEC N1). Hosts are immutable and registered by ``name``.

    ``client`` and ``version`` name what is emulated (``Claude Code``, ``2.1.332``);
    ``lint_target`` the :class:`skillshelf.core.lint.Target` value used for this host's lint
    column; ``features`` the optional abilities; ``native_commands`` the client's own slash
    commands, ``/``-prefixed (a skill named like one clashes with it: :meth:`slash_note`).
    """

    @property
    def name(self) -> str: ...

    @property
    def client(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def lint_target(self) -> str: ...

    @property
    def labels(self) -> HostLabels: ...

    @property
    def features(self) -> frozenset[Feature]: ...

    @property
    def native_commands(self) -> frozenset[str]: ...

    def open(self, context: HostContext) -> HostSession:
        """A session over ``context`` (nothing is scanned until :meth:`HostSession.build`)."""
        ...

    def slash_note(self, name: str) -> str | None:
        """How a skill called ``name`` is reached when one of :attr:`native_commands` has that
        whole name (SPEC S1), in this host's terms (``reachable as `$plan`, not `/plan```);
        ``None`` when no command has it."""
        ...

    def roots(self, context: HostContext) -> RootPlan:
        """The roots this host scans for ``context``, in discovery order."""
        ...

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """This host's verdict on one ``SKILL.md`` at ``location`` whose bytes are ``data``
        (``None`` when it could not be read; ``error`` says why)."""
        ...

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Same-name (or same-key) copies settled the host's way: each source comes back with
        its status (``ok``, ``shadowed`` with ``shadowed_by``, ``race`` …); order is kept."""
        ...

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """The host's skill tool over a live catalog, or ``None`` when the host gives the model
        no skill tool with known behaviour."""
        ...

    def describe(self) -> str:
        """One line naming what is emulated: ``Claude Code 2.1.332``."""
        ...
