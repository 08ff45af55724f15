"""Host ``opencode``: how opencode 1.18.33 (npm ``opencode-ai``) discovers, parses, races, hides
and lists Agent Skills.

Modules: :mod:`.workspace` (paths, worktree, switches, configuration, permission rules, roots),
:mod:`.walk` (node-glob with symlinks followed), :mod:`.jsyaml` and :mod:`.matter` (gray-matter,
js-yaml 3 and the sanitize retry), :mod:`.verdict` (the skill check and its diagnostics),
:mod:`.catalog` (the ``<available_skills>`` section), :mod:`.builtin` (``customize-opencode``),
:mod:`.tool` (the ``skill`` tool).

Pipeline of one build: the workspace (a bad switch value, a config layer that is not valid, or
a file named ``.opencode`` makes opencode refuse to start: no roots, one warning saying so) →
every root in scan order, walked by node-glob's rules → the same path string twice is one file,
but the same file under two spellings is two (opencode never compares real paths) → each file
read and parsed → the built-in first, then every same-name group settled as opencode does: the
parses run concurrently and each one that finishes overwrites the name, so **any copy may win**
(status ``race``, the other copies in ``shadowed_by``); a file named ``customize-opencode``
always replaces the built-in; byte-identical copies that need the sanitize retry share
gray-matter's cache (only the first one parsed loads) → the ``skill`` permission hides names →
opencode's listing order (array-index names, the built-in's slot, then the rest).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.base import (
    CatalogEntry,
    EntryState,
    HostCatalog,
    HostContext,
    HostLabels,
    RootPlan,
    SkillToolLike,
    ToolCatalog,
    Verdict,
    WatchTargets,
)
from skillshelf.core.hosts.client import (
    MAX_SKILL_BYTES,
    ClientHost,
    ClientSession,
    Found,
)
from skillshelf.core.hosts.opencode.builtin import BUILTIN, BUILTIN_LOCATION, BuiltinTexts, builtin_texts
from skillshelf.core.hosts.opencode.catalog import Entry, render, sort_entries
from skillshelf.core.hosts.opencode.matter import strip_bom
from skillshelf.core.hosts.opencode.tool import OpencodeSkillTool
from skillshelf.core.hosts.opencode.verdict import decode, verdict
from skillshelf.core.hosts.opencode.walk import MAX_FOLDERS, WalkBudget, walk
from skillshelf.core.hosts.opencode.workspace import (
    Rule,
    Workspace,
    evaluate,
    load_workspace,
    skill_disabled,
)
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
)

__all__ = ["BUILTIN_LOCATION", "OPENCODE", "OpencodeHost", "OpencodeSession", "catalog_of", "evaluate", "skill_disabled"]

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def _array_index(name: str) -> int | None:
    """The number when ``name`` is a JavaScript array index (such keys come first in
    ``Object.values``), else ``None``."""
    if _ARRAY_INDEX.fullmatch(name) and int(name) <= 4_294_967_294:
        return int(name)
    return None


def _is_builtin(source: Source) -> bool:
    return source.location == BUILTIN_LOCATION


def _race_reason(count: int, name: str) -> str:
    return (f"{count} files are named `{name}`: opencode parses them concurrently and each parse that "
            "finishes overwrites the name (WARN duplicate skill name), so any of them may win")


def _join(*parts: str | None) -> str:
    return "; ".join(p for p in parts if p)


class OpencodeHost(ClientHost):
    """opencode 1.18.33 (see the package docstring). Immutable; per-workspace state lives in
    :class:`OpencodeSession`."""

    name = "opencode"
    client = "opencode"
    version = "1.18.33"
    labels = HostLabels(catalog="catalog", selected="selected", tool_requests=('{"name":"pdf"}',))
    fold_aliases = False
    #: opencode 1.18.33's own slash commands, read from its binary: the server's built-in
    #: commands ``init`` and ``review`` (its command list skips a skill whose name a command
    #: already holds) and the terminal UI's slash names.
    native_commands = frozenset(f"/{c}" for c in (
        "init", "review", "compact", "summarize", "copy", "export", "fork", "redo", "rename", "share", "thinking",
        "toggle-thinking", "timeline", "timestamps", "toggle-timestamps", "undo", "unshare", "editor", "new",
        "exit", "skills"))
    slash_clash = ("`/{name}` is opencode's own command, which keeps the name: the model still loads this skill "
                   "with the skill tool, but `/{name}` does not run it")

    def open(self, context: HostContext) -> OpencodeSession:
        """An :class:`OpencodeSession` over ``context``."""
        return OpencodeSession(self, context)

    def roots(self, context: HostContext) -> RootPlan:
        """opencode's roots for ``context`` in scan order (none when it would refuse to start)."""
        return _plan(load_workspace(context))

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """opencode's parser and skill check on one file (:func:`.verdict.verdict`)."""
        return verdict(location, data, error=error)

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Same-name files race (every copy ``race``, the others in ``shadowed_by``); a file named
        like the built-in shadows it. Order is kept."""
        out = list(sources)
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(sources):
            if not _is_builtin(s):
                groups.setdefault(s.name, []).append(i)
        for name, members in groups.items():
            if len(members) < 2:
                continue
            for i in members:
                s = sources[i]
                hidden = s.status_reason if s.status is Status.HIDDEN else None
                out[i] = replace(s, status=Status.RACE,
                                 shadowed_by=tuple(sources[j].location for j in members if j != i),
                                 status_reason=_join(_race_reason(len(members), name), hidden))
        for i, s in enumerate(sources):
            if _is_builtin(s) and s.name in groups:
                files = tuple(sources[j].location for j in groups[s.name])
                out[i] = replace(s, status=Status.SHADOWED, shadowed_by=files,
                                 status_reason="a skill file with the built-in's name always replaces it: opencode "
                                               "registers the built-in before it reads any file")
        return tuple(out)

    def order(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """``opencode debug skill``'s order: array-index names ascending, the built-in's slot
        (``customize-opencode``), then first parse completion, here discovery order."""
        def key(item: tuple[int, Source]) -> tuple[int, int, int]:
            i, s = item
            number = _array_index(s.name)
            if number is not None:
                return (0, number, i)
            if s.name == BUILTIN.name:
                return (1, 0 if _is_builtin(s) else 1, i)
            return (2, 0, i)

        return tuple(s for _, s in sorted(enumerate(sources), key=key))

    def budget_rule(self, context_window: int | None) -> str:
        """opencode has none."""
        return "no budget: opencode sends every skill's whole description"

    def render_catalog(self, sources: Sequence[Source], budget: int | None) -> HostCatalog:
        """The section for ``sources`` with no permission rules (a session knows its rules:
        :meth:`OpencodeSession.catalog`)."""
        return catalog_of(sources, (), None, BuiltinTexts())

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """opencode's ``skill`` tool over a live catalog (of this host: its session's workspace;
        another host's catalog gets the workspace read afresh)."""
        session = catalog.session

        def workspace() -> Workspace:
            return session.workspace if isinstance(session, OpencodeSession) else load_workspace(session.context)

        return OpencodeSkillTool(catalog, workspace)


def _plan(ws: Workspace) -> RootPlan:
    hints = (Diagnostic(Severity.INFO, "opencode-worktree", f"project walk: {ws.cwd} up to {ws.worktree} "
                        f"({ws.worktree_note})"),)
    return RootPlan(roots=ws.roots, warnings=ws.warnings, hints=hints)


def _cache_key(path: str) -> str | None:
    try:
        return strip_bom(decode(read_regular(path, MAX_SKILL_BYTES))[0])
    except OSError:
        return None


def _cache_groups(out: list[Source], rejected: Sequence[Rejected]) -> None:
    """Byte-identical copies that need the sanitize retry share gray-matter's cache entry: only
    the first one parsed loads, and a BOM'd twin parsed first lets none load. Marks them in
    ``out`` (in place) as racing."""
    rescued = [i for i, s in enumerate(out) if any(d.code == "opencode-sanitize-retry" for d in s.diagnostics)]
    if not rescued:
        return
    keys: dict[str, list[int]] = {}
    for i in rescued:
        key = _cache_key(out[i].canonical)
        if key is not None:
            keys.setdefault(key, []).append(i)
    twins: dict[str, list[str]] = {}
    for r in rejected:
        if any(d.code == "opencode-invalid-frontmatter" for d in r.diagnostics) and r.warning is not None:
            key = _cache_key(r.canonical)
            if key is not None and key in keys:
                twins.setdefault(key, []).append(r.location)
    for key, members in keys.items():
        blockers = twins.get(key, [])
        if len(members) + len(blockers) < 2:
            continue
        note = ("byte-identical copies need opencode's sanitize retry and share gray-matter's cache: only the first "
                "one parsed loads, the others are dropped silently")
        if blockers:
            note += "; when the copy with a BOM is parsed first, none of them loads"
        for i in members:
            s = out[i]
            others = [out[j].location for j in members if j != i] + blockers
            by = tuple(dict.fromkeys([*(s.shadowed_by if s.status is Status.RACE else ()), *others]))
            previous = s.status_reason if s.status in (Status.RACE, Status.HIDDEN) else None
            out[i] = replace(s, status=Status.RACE, shadowed_by=by, status_reason=_join(previous, note))


#: The diagnostic a logged parse failure gets when byte-identical copies of it exist.
CACHE_TWIN = "opencode-cache-twin"


def _failed_twins(rejected: list[Rejected]) -> None:
    """Byte-identical copies that fail to parse share gray-matter's cache entry too: opencode
    logs ``failed to load skill`` for whichever copy it parses first (its parses run
    concurrently) and drops the others without a log. Each member gets a
    :data:`CACHE_TWIN` note naming the others (in place): which one is logged is not fixed."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rejected):
        if any(d.code == "opencode-frontmatter-error" for d in r.diagnostics):
            key = _cache_key(r.canonical)
            if key is not None:
                groups.setdefault(key, []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        for i in members:
            r = rejected[i]
            others = ", ".join(rejected[j].location for j in members if j != i)
            note = Diagnostic(Severity.INFO, CACHE_TWIN,
                              f"byte-identical to {others}: opencode logs the failure for whichever copy it parses "
                              "first and drops the others without a log")
            rejected[i] = replace(r, diagnostics=(*r.diagnostics, note))


def _permissions(out: list[Source], rules: Sequence[Rule]) -> None:
    """Names the ``skill`` permission denies are hidden from the model (in place)."""
    off = skill_disabled(rules)
    for i, s in enumerate(out):
        if s.status is Status.SHADOWED:
            continue
        if off is not None:
            why = (f"the skill permission is denied for every name ({off.describe()}): opencode leaves the whole "
                   "skills section out of the system prompt and offers no skill tool")
        else:
            rule = evaluate(s.name, rules)
            if rule.action != "deny":
                continue
            why = f"the skill permission denies `{s.name}` ({rule.describe()}): left out of <available_skills>"
        if s.status is Status.RACE:
            out[i] = replace(s, status_reason=_join(s.status_reason, why))
        else:
            previous = s.status_reason if s.status is Status.HIDDEN else None
            out[i] = replace(s, status=Status.HIDDEN, status_reason=_join(previous, why))


def _builtin_source(texts: BuiltinTexts) -> Source:
    description = texts.description if texts.description is not None else BUILTIN.description_marker()
    body = texts.content if texts.content is not None else BUILTIN.content_marker()
    return Source(name=BUILTIN.name, location=BUILTIN_LOCATION, provenance=Provenance.BUILTIN,
                  canonical=BUILTIN_LOCATION, description=description, exposure_reason="built-in",
                  body=body)


def _denied(source: Source, rules: Sequence[Rule]) -> bool:
    return evaluate(source.name, rules).action == "deny"


def catalog_of(sources: Sequence[Source], rules: Sequence[Rule], fatal: str | None,
               texts: BuiltinTexts) -> HostCatalog:
    """The section opencode puts in the prompt for ``sources`` (a generation's, enabled) under
    ``rules``; ``fatal`` when opencode would not start. Race groups are rendered with their
    first copy in scan order, and :attr:`HostCatalog.notes` says so."""
    notes: list[str] = []
    order = sort_entries([s.name for s in sources])
    ranked = [sources[i] for i in order]
    if fatal is not None:
        entries = tuple(CatalogEntry(s.location, s.name, EntryState.HIDDEN, None, fatal) for s in ranked)
        return HostCatalog(text="", budget=None, used=0, entries=entries, notes=(fatal,),
                           budget_rule="no budget")
    off = skill_disabled(rules)
    if off is not None:
        why = f"no skills section: the skill permission is denied for every name ({off.describe()})"
        entries = tuple(CatalogEntry(s.location, s.name, EntryState.HIDDEN, None, why) for s in ranked)
        return HostCatalog(text="", budget=None, used=0, entries=entries, notes=(why,),
                           budget_rule="no budget")
    chosen: dict[str, Source] = {}
    copies: dict[str, int] = {}
    for s in sources:
        if s.status is Status.SHADOWED:
            continue
        copies[s.name] = copies.get(s.name, 0) + 1
        chosen.setdefault(s.name, s)
    shown: list[Entry] = []
    states: dict[str, tuple[EntryState, str]] = {}
    for s in ranked:
        pick = chosen.get(s.name)
        if pick is not s:
            note = (s.status_reason or "shadowed") if s.status is Status.SHADOWED else (
                f"races with {copies.get(s.name, 1) - 1} other file(s) for `{s.name}`: the section holds one "
                "entry per name, and any copy may be that entry")
            states[s.location] = (EntryState.HIDDEN, note)
            continue
        if _denied(s, rules):
            states[s.location] = (EntryState.HIDDEN, f"the skill permission denies `{s.name}`")
            continue
        if s.description is None:
            states[s.location] = (EntryState.HIDDEN, "no description key")
            continue
        location = BUILTIN.location if _is_builtin(s) else s.location
        shown.append(Entry(s.name, s.description, location))
        note = "" if copies.get(s.name, 1) == 1 else (
            f"one of {copies[s.name]} racing copies of `{s.name}`: shown with the first in scan order")
        states[s.location] = (EntryState.LISTED, note)
    text = render(shown)
    entries = tuple(CatalogEntry(s.location, s.name, states[s.location][0],
                                 s.description if states[s.location][0] is EntryState.LISTED else None,
                                 states[s.location][1]) for s in ranked)
    racing = [f"`{n}` ({c} copies)" for n, c in copies.items() if c > 1]
    if racing:
        notes.append("opencode's same-name race: " + ", ".join(racing) + " — opencode parses the copies "
                     "concurrently and keeps whichever finishes last; the catalog text shows each with its first "
                     "copy in scan order, but any copy may be the one opencode shows")
    builtin = chosen.get(BUILTIN.name)
    if builtin is not None and _is_builtin(builtin):
        if texts.description is not None:
            notes.append(f"built-in `{BUILTIN.name}`: its text is read from {texts.origin}")
        else:
            notes.append(f"built-in `{BUILTIN.name}`: skillshelf does not ship opencode's text; a marker of the "
                         f"same length ({BUILTIN.description_len} characters) stands in for its description "
                         "(put opencode 1.18.33 on PATH to see it)")
    return HostCatalog(text=text, budget=None, used=len(text), entries=entries, notes=tuple(notes),
                       budget_rule="no budget: opencode sends every skill's whole description")


class OpencodeSession(ClientSession):
    """opencode over one workspace: the :class:`.workspace.Workspace` of the latest build, the
    built-in texts, and the walk budget."""

    def __init__(self, host: OpencodeHost, context: HostContext) -> None:
        super().__init__(host, context)
        self._workspace: Workspace | None = None
        self._budget = WalkBudget()
        self._texts: BuiltinTexts | None = None

    @property
    def workspace(self) -> Workspace:
        """What opencode derived from the environment for the latest build."""
        if self._workspace is None:
            self._workspace = load_workspace(self._context)
        return self._workspace

    def builtin_texts(self) -> BuiltinTexts:
        """The built-in's text from an installed opencode (read once per session)."""
        if self._texts is None:
            env = self._context.env
            self._texts = builtin_texts(env.get("PATH"), env.get("HOME") or env.home)
        return self._texts

    def _plan_roots(self) -> RootPlan:
        self._workspace = load_workspace(self._context)
        self._budget = WalkBudget()
        return _plan(self._workspace)

    def _walk(self, root: Root) -> tuple[list[Found], list[CatalogWarning]]:
        return walk(root, self._budget)

    def _found(self, plan: RootPlan) -> tuple[list[Found], list[CatalogWarning], dict[str, list[str]]]:
        found, warnings, aliases = super()._found(plan)
        if self._budget.exhausted is not None:
            if self._budget.loops:
                message = (f"opencode would not finish: the symlink loops below {next(iter(self._budget.loops))} "
                           "multiply the paths it walks exponentially (the real client grows until it is killed "
                           f"for lack of memory); skillshelf stopped after {MAX_FOLDERS:,} folders")
            else:
                message = (f"skillshelf stopped after {MAX_FOLDERS:,} folders at {self._budget.exhausted}; "
                           "opencode would go on, so the listing is incomplete")
            warnings.append(CatalogWarning("opencode-walk-limit", self._budget.exhausted, message))
        return found, warnings, aliases

    def _read(self, found: Sequence[Found], aliases: Mapping[str, Sequence[str]],
              cancel: threading.Event | None = None) -> tuple[list[Source], list[Rejected], list[CatalogWarning]]:
        sources, rejected, warnings = super()._read(found, aliases, cancel)
        _failed_twins(rejected)
        return sources, rejected, warnings

    def _settle(self, sources: Sequence[Source], rejected: Sequence[Rejected]) -> tuple[Source, ...]:
        host = self._host
        ws = self.workspace
        if ws.fatal is not None:
            return ()
        out = list(host.arbitrate([_builtin_source(self.builtin_texts()), *sources]))
        _cache_groups(out, rejected)
        _permissions(out, ws.rules)
        return host.order(out)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The section opencode appends to the system prompt (no budget: ``budget`` is ignored)."""
        ws = self.workspace
        return catalog_of([s for s in generation.sources if s.enabled], ws.rules, ws.fatal, self.builtin_texts())

    def watch_targets(self) -> WatchTargets:
        """Every root, every folder of the project walk and the config folders (new ``.claude``,
        ``.agents``, ``.opencode`` folders and config files), and every config file read."""
        ws = self.workspace
        roots = tuple(dict.fromkeys(r.scan_dir for r in ws.roots))
        folders = tuple(dict.fromkeys([*ws.walk, ws.home, ws.config_dir, *ws.config_dirs]))
        return WatchTargets(roots=roots, config_dirs=folders, config_files=ws.config_files,
                            names=frozenset({"SKILL.md", "opencode.json", "opencode.jsonc", "config.json"}),
                            components=frozenset({".claude", ".agents", ".opencode"}))


#: The registered instance.
OPENCODE = OpencodeHost()
