"""Host ``claude``: how Claude Code 2.1.332 discovers, parses, shadows, hides and budgets skills.

Modules: :mod:`.roots` (roots, project walk, settings, model and budget), :mod:`.parse` (one
file: frontmatter, YAML fallback, fields, names), :mod:`.bunyaml` (``Bun.YAML.parse``),
:mod:`.text` (JavaScript string semantics, sanitising, ``localeCompare``, terminal width),
:mod:`.listing` (the catalog text and the budget), :mod:`.builtins` (built-in names and sizes),
:mod:`.installed` (built-in text from an installed Claude), :mod:`.tool` (the ``Skill`` tool).

Pipeline of one build: every root in precedence order (managed, user, project from the working
directory up, ``--add-dir``, legacy commands) → each direct child folder holding ``SKILL.md``
(dot folders too, ``synced`` never; symlinks followed, reported under the link) → files over
1,000,000 bytes, folders whose name cannot be offered and the reserved ``anthropic-skills``
names are rejected → inside one root by key (``localeCompare``) → the same file reached again
is folded into the first copy (an alias) → conditional skills (``paths:``) are hidden →
``disable-model-invocation`` and ``skillOverrides`` hide → the first visible copy of each key
is listed, later copies are shadowed by it → built-ins whose name a listed skill took are
shadowed too.

``Source.name`` is the key (folder name), ``display_name`` the shown frontmatter name when it
differs, ``description`` the description as the ``/skills`` dialog shows it (sanitised, without
``when_to_use``; the catalog entry adds it). ``HostContext.paths`` are ``--add-dir`` folders.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

from skillshelf.core.digest import compute_digest
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
    stop_if_cancelled,
)
from skillshelf.core.hosts.claude.builtins import (
    BUILTIN_COMMANDS,
    BUILTIN_SKILLS,
    marker,
)
from skillshelf.core.hosts.claude.installed import BuiltinTexts, builtin_texts
from skillshelf.core.hosts.claude.listing import (
    HEADER,
    Command,
    ListingEntry,
    decide,
    full_description,
    name_part,
)
from skillshelf.core.hosts.claude.parse import (
    FILE_LIMIT,
    ClaudeSkill,
    conditional_paths,
    flag,
    listing_name_ok,
    parse_skill,
    reserved_folder,
)
from skillshelf.core.hosts.claude.roots import (
    MANAGED_DIR,
    ClaudeRoot,
    ClaudeSettings,
    budget_from,
    claude_roots,
    config_dir,
    read_settings,
    resolve_model,
    usage_scores,
)
from skillshelf.core.hosts.claude.text import js_string, locale_sorted, sanitize, width
from skillshelf.core.hosts.claude.tool import ClaudeSkillTool
from skillshelf.core.hosts.client import ClientHost, ClientSession, walk_root
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Generation,
    Provenance,
    Rejected,
    Severity,
    Source,
    Status,
)
from skillshelf.core.walklimits import (
    MAX_WALK_DEPTH,
    MAX_WALK_ENTRIES,
    ancestor_warning,
    depth_warning,
    entries_warning,
    is_ancestor,
)

__all__ = ["BUILTIN_SCHEME", "CLAUDE", "ClaudeHost", "ClaudeSession"]

#: Locator prefix of Claude's built-in skills.
BUILTIN_SCHEME = "builtin://claude/"
_ORDER_NOTE = "managed, user, project (nearest folder first), --add-dir, legacy commands"


def _disk_note(size: int) -> str:
    return f"skipping SKILL.md: {size} bytes exceeds {FILE_LIMIT} byte limit"


@dataclass(frozen=True)
class _Read:
    """One file the walk reached: spelled ``location``, ``canonical``, its root, key, bytes."""

    location: str
    canonical: str
    root: ClaudeRoot
    key: str
    data: bytes | None
    error: str | None


class ClaudeHost(ClientHost):
    """Claude Code 2.1.332 (``@anthropic-ai/claude-code``). ``managed_dir``: the managed policy
    folder (``/etc/claude-code``; tests point it elsewhere); ``clients_dirs``: extra folders to
    look for an installed Claude in (its built-in descriptions are read from there)."""

    name = "claude"
    client = "Claude Code"
    version = "2.1.332"
    labels = HostLabels(catalog="catalog", selected="selected",
                        tool_requests=('{"skill":"pdf"}', '{"skill":"pdf","args":"report.pdf"}'))
    #: Claude Code's own commands (measured, :data:`BUILTIN_COMMANDS`). Unlike Zuno's, they do
    #: not resolve first: the command lookup finds skills before them (the same lookup the
    #: listing's name part shows), so a skill takes the name.
    native_commands = frozenset(f"/{n}" for n, _ in BUILTIN_COMMANDS)
    slash_clash = ("`/{name}` is also Claude Code's own command; its lookup finds skills first, so `/{name}` "
                   "runs this skill instead of Claude Code's own `/{name}`")
    fold_aliases = False
    default_context_window = 1_000_000

    def __init__(self, managed_dir: str = MANAGED_DIR) -> None:
        self.managed_dir = managed_dir

    def open(self, context: HostContext) -> ClaudeSession:
        """A :class:`ClaudeSession` over ``context``."""
        return ClaudeSession(self, context)

    def roots(self, context: HostContext) -> RootPlan:
        """Every root for ``context`` in precedence order (existing or not)."""
        cwd = _real(context.cwd)
        return RootPlan(tuple(r.root for r in claude_roots(cwd, context.env, context.paths,
                                                           managed_dir=self.managed_dir)))

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """Claude's reading of one ``SKILL.md`` keyed by its folder name (settings-dependent
        hiding — ``skillOverrides`` — is applied by the session, not here)."""
        key = os.path.basename(os.path.dirname(location))
        return _verdict(key, data, error, command=False)[1]

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Same-key copies in precedence order: the first visible one is listed, the others are
        shadowed by it (hidden ones stay hidden). Sources must be in root order."""
        return _arbitrate(tuple(sources), ClaudeSettings())

    def order(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Listing order: already root order, each root by key (the session sorts)."""
        return tuple(sources)

    def budget(self, context_window: int | None) -> int | None:
        """The 1% rule for a ``context_window``-token model with the default model's 3
        characters per token (the session also honours the environment and settings)."""
        return max(1, math.floor((context_window or self.default_context_window or 0) * 3 * 0.01))

    def budget_rule(self, context_window: int | None) -> str:
        """The 1% rule in words."""
        w = context_window or self.default_context_window or 0
        return f"1% of {w:,} tokens × 3 characters per token = {self.budget(w):,} columns"

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """Claude's ``Skill`` tool over a live catalog."""
        return ClaudeSkillTool(catalog)


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except OSError:
        return os.path.abspath(path)


def _verdict(key: str, data: bytes | None, error: str | None, *, command: bool) -> tuple[ClaudeSkill | None, Verdict]:
    """(parsed skill or ``None``, verdict) for one file keyed ``key``."""
    if data is None:
        reason = f"[skills] failed to read SKILL.md: {error or 'unreadable'}"
        return None, Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "claude-unreadable", reason),))
    if len(data) > FILE_LIMIT:
        reason = _disk_note(len(data))
        return None, Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "claude-too-large", reason),))
    if not command and reserved_folder(key):
        reason = f"skipping reserved dir name {key!r}: Claude Code never reads a skills folder named synced"
        return None, Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "claude-reserved-folder", reason),))
    skill = parse_skill(data, key, command=command)
    if skill.refused is not None:
        return skill, Verdict(False, reason=skill.refused, diagnostics=skill.diagnostics, frontmatter=dict(skill.metadata))
    hidden: str | None = None
    if skill.paths is not None:
        hidden = _conditional_reason(skill.paths)
    elif skill.dmi:
        hidden = _dmi_reason(key)
    display = skill.display if skill.display is not None and skill.display != key else None
    return skill, Verdict(True, name=key, description=skill.description, display_name=display, hidden=hidden,
                          diagnostics=skill.diagnostics, frontmatter=dict(skill.metadata))


def _conditional_reason(paths: Sequence[str]) -> str:
    return ("conditional skill (paths: " + ", ".join(paths) + "): Claude Code loads it only after a matching file "
            "is read or edited; until then it is neither listed nor in /skills")


def _dmi_reason(key: str) -> str:
    return (f"disable-model-invocation: only the user can run /{key}; the model is not told about it "
            "(/skills shows it as user-invocable-only)")


def _mode_reason(key: str, mode: str, dmi: bool) -> str:
    if dmi and mode == "user-invocable-only":
        return _dmi_reason(key)
    if mode == "off":
        return f"skillOverrides sets {key} off: neither the model nor the user can run it"
    return f"skillOverrides sets {key} user-invocable-only: the model is not told about it"


def _is_builtin(s: Source) -> bool:
    return s.location.startswith(BUILTIN_SCHEME)


def _is_conditional(s: Source) -> bool:
    return not _is_builtin(s) and conditional_paths(s.frontmatter.get("paths")) is not None


def _dmi(s: Source) -> bool:
    return bool(flag(s.frontmatter.get("disable-model-invocation")))


def _arbitrate(sources: tuple[Source, ...], settings: ClaudeSettings) -> tuple[Source, ...]:
    """Statuses for ``sources`` (root order, built-ins last): see the module docstring."""
    out = list(sources)
    winners: dict[str, int] = {}
    for i, s in enumerate(sources):
        if _is_builtin(s) or _is_conditional(s):
            continue
        mode = settings.mode(s.name, _dmi(s))
        if mode in ("user-invocable-only", "off"):
            out[i] = replace(s, status=Status.HIDDEN, status_reason=_mode_reason(s.name, mode, _dmi(s)))
            continue
        out[i] = replace(s, status=Status.OK, status_reason=None, shadowed_by=())
        winners.setdefault(s.name, i)
    for i, s in enumerate(sources):
        if _is_conditional(s) or out[i].status is Status.HIDDEN:
            continue
        w = winners.get(s.name)
        if w is None or w == i:
            continue
        win = sources[w]
        if _is_builtin(s):
            reason = (f"the {win.provenance.value} skill {win.location} has the same name: Claude Code lists it "
                      "instead of its built-in")
        else:
            reason = (f"{win.location} comes first: Claude Code lists the first copy of {s.name!r} in root order "
                      f"({_ORDER_NOTE}); /skills shows this copy unadvertised")
        out[i] = replace(s, status=Status.SHADOWED, shadowed_by=(win.location,), status_reason=reason)
    return tuple(out)


def _listing_notes(sources: tuple[Source, ...], settings: ClaudeSettings) -> tuple[Source, ...]:
    """Findings only the whole workspace decides, added to each listed file: a frontmatter name
    the listing does not show because it resolves to another command or skill, and a
    description the per-entry cap cuts."""
    loaded = [s for s in sources if not _is_builtin(s) and not _is_conditional(s)]
    commands = [Command(s.name, s.display_name or s.name) for s in loaded]
    commands += [Command(n, n, a) for n, a in BUILTIN_COMMANDS]
    cap = settings.entry_cap
    out = list(sources)
    for i, s in enumerate(sources):
        if _is_builtin(s) or s.status is not Status.OK:
            continue
        extra: list[Diagnostic] = []
        line = next((d.line for d in s.diagnostics if d.field == "name" and d.line is not None), None)
        shown = s.display_name
        if (shown is not None and listing_name_part_plain(s.name, shown)
                and name_part(s.name, shown, commands) == s.name):
            named = next((c.key for c in commands if c.key == shown), None)
            first = next((c.key for c in commands if c.shown == shown), None)
            why = (f"`{shown}` is the name of /{named}" if named is not None
                   else f"/{first} comes first with the frontmatter name `{shown}`")
            extra.append(Diagnostic(Severity.INFO, "claude-name-not-listed",
                                    f"the listing shows `- {s.name}` without the frontmatter name: {why}",
                                    field="name", line=line))
        if settings.mode(s.name, _dmi(s)) != "name-only":
            _, cut = full_description(_listing_description(s), cap)
            if cut:
                extra.append(Diagnostic(Severity.INFO, "claude-description-cut",
                                        f"the listing cuts the description (with when_to_use) to {cap:,} characters",
                                        field="description"))
        if extra:
            out[i] = replace(s, diagnostics=s.diagnostics + tuple(extra))
    return tuple(out)


def listing_name_part_plain(key: str, shown: str) -> bool:
    """Whether ``shown`` could appear as ``key (shown)`` by its characters alone (so a plain
    ``- key`` comes from the name lookup)."""
    return shown != key and not key.endswith(":" + shown) and listing_name_ok(shown)


class ClaudeSession(ClientSession):
    """Host ``claude`` over one workspace: builds generations, the catalog and the budget from
    the workspace's roots, settings and environment. Every build rescans everything."""

    def __init__(self, host: ClaudeHost, context: HostContext) -> None:
        super().__init__(host, context)
        self._claude = host
        self._settings = ClaudeSettings()
        self._croots: list[ClaudeRoot] = []
        self._texts: BuiltinTexts | None = None

    # ---- building
    def _walk_claude(self, croot: ClaudeRoot) -> tuple[list[tuple[str, str, str]], list[CatalogWarning]]:
        """(location, canonical, key) of every file ``croot`` holds."""
        if croot.commands:
            return _command_files(croot.root.path)
        found, warnings = walk_root(croot.root, reader=self._host.client)
        out = [(f.location, f.canonical, os.path.basename(os.path.dirname(f.location))) for f in found]
        return out, warnings

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """Rescan every root (``changed`` is not used) and build the next generation."""
        ctx = self._context
        cancel = ctx.cancel if previous is None else None  # (a first build stops on quit)
        self.parse_cache.begin_full_build()
        cwd = _real(ctx.cwd)
        self._settings = settings = read_settings(cwd, ctx.env)
        self._croots = croots = claude_roots(cwd, ctx.env, ctx.paths, managed_dir=self._claude.managed_dir)
        plan = RootPlan(tuple(r.root for r in croots), settings.warnings)
        self._plan = plan
        scan_warnings: list[CatalogWarning] = []
        file_warnings: list[CatalogWarning] = []
        rejected: list[Rejected] = []
        skills: list[Source] = []
        commands: list[Source] = []
        seen_inodes: set[tuple[int, int]] = set()
        for croot in croots:
            files, notes = self._walk_claude(croot)
            scan_warnings.extend(notes)
            accepted: list[Source] = []
            for location, canonical, key in files:
                stop_if_cancelled(cancel)
                if croot.commands:
                    ino = _inode(canonical)
                    if ino is not None and ino in seen_inodes:
                        continue
                    if ino is not None:
                        seen_inodes.add(ino)
                source, bad = self._load(location, canonical, croot, key)
                if bad is not None:
                    rejected.append(bad)
                    if bad.warning is not None:
                        file_warnings.append(bad.warning)
                elif source is not None:
                    accepted.append(source)
            if croot.commands:
                commands.extend(accepted)
            else:
                # equal collation keys keep the directory's own order, as the client reads it
                listed = _listdir_order(croot.root.path)
                accepted.sort(key=lambda s: listed.get(os.path.basename(os.path.dirname(s.location)), 0))
                skills.extend(locale_sorted(accepted, lambda s: s.name))
        loaded = skills + locale_sorted(commands, lambda s: s.name)
        loaded = _fold_same_file(loaded)
        builtins = self._builtin_sources()
        ordered = _listing_notes(_arbitrate(tuple(loaded + builtins), settings), settings)
        warnings = list(plan.warnings) + scan_warnings + file_warnings + list(watch_warnings)
        number = 1 if previous is None else previous.number + 1
        return Generation(number=number, digest=compute_digest(ordered, warnings), host=self._claude.name,
                          cwd=ctx.cwd, roots=plan.roots, sources=ordered, rejected=tuple(rejected),
                          warnings=tuple(warnings), diagnostics=plan.hints)

    def _load(self, location: str, canonical: str, croot: ClaudeRoot, key: str) -> tuple[Source | None, Rejected | None]:
        command = croot.commands
        (skill, verdict, sha, length), st = self.parse_cache.lookup(
            "verdict", canonical, partial(_judge, canonical, key, command), label=f"{location}\0{key}\0{command}")
        size = st.st_size if st is not None else length
        mtime = st.st_mtime if st is not None else 0.0
        root = croot.root
        if not verdict.accepted or skill is None or skill.refused is not None:
            reason = verdict.reason or "Claude Code does not load this file"
            warning = CatalogWarning("claude-rejected", location, reason)
            return None, Rejected(location=location, provenance=root.provenance, canonical=canonical,
                                  name=os.path.basename(os.path.dirname(location)) if not croot.commands else key,
                                  root=root.path, warning=warning,
                                  diagnostics=verdict.diagnostics or (Diagnostic(Severity.ERROR, "rejected", reason),),
                                  content_sha256=sha, size=size, mtime=mtime, frontmatter=dict(verdict.frontmatter))
        status = Status.HIDDEN if verdict.hidden else Status.OK
        return Source(name=key, location=location, provenance=root.provenance, canonical=canonical, root=root.path,
                      description=skill.description, display_name=verdict.display_name,
                      exposure_reason=root.label, status=status, status_reason=verdict.hidden,
                      content_sha256=sha, size=size, mtime=mtime, frontmatter=dict(skill.metadata),
                      diagnostics=verdict.diagnostics), None

    def builtin_texts(self) -> BuiltinTexts:
        """Built-in descriptions from an installed Claude (looked up once per session)."""
        if self._texts is None:
            self._texts = builtin_texts(self._context.env)
        return self._texts

    def _builtin_sources(self) -> list[Source]:
        env = self._context.env
        if _truthy(env.get("CLAUDE_CODE_DISABLE_BUNDLED_SKILLS")):
            skills = [b for b in BUILTIN_SKILLS if b.name == "plugin-authoring"]
        else:
            skills = list(BUILTIN_SKILLS)
        texts = self.builtin_texts()
        out = []
        for b in skills:
            text = texts.text(b)
            out.append(Source(name=b.name, location=BUILTIN_SCHEME + b.name, provenance=Provenance.BUILTIN,
                              canonical=BUILTIN_SCHEME + b.name, description=text if text is not None else marker(b),
                              exposure_reason="Claude Code built-in" + (" (bundled)" if b.fixed else "")))
        return out

    # ---- budget and catalog
    def _window(self, context_window: int | None) -> int | None:
        w = self._context.context_window if context_window is None else context_window
        return w if w is not None else resolve_model(self._context.env, self._settings).window

    def _budget(self, context_window: int | None) -> tuple[float, str]:
        window = self._window(context_window) or 0
        return budget_from(self._context.env, self._settings, window)

    def index_budget(self, context_window: int | None = None) -> int | None:
        """The listing budget in terminal columns (``None`` when unlimited)."""
        value, _ = self._budget(context_window)
        return None if math.isinf(value) and value > 0 else math.floor(value)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The listing text Claude sends the model for ``generation`` (module :mod:`.listing`);
        ``budget`` columns overrides Claude's rule."""
        if budget is None:
            chars, rule = self._budget(context_window)
        else:
            chars, rule = float(budget), f"--budget {budget:,} columns"
        return render_catalog(generation, self._settings, chars, rule, self._usage(),
                              self.builtin_texts(), resolve_model(self._context.env, self._settings).model)

    def _usage(self) -> Mapping[str, float]:
        return usage_scores(_real(self._context.cwd), self._context.env)

    def watch_targets(self) -> WatchTargets:
        """Every root (skills and commands), the settings files and the usage file."""
        if not self._croots:
            self._croots = claude_roots(_real(self._context.cwd), self._context.env, self._context.paths,
                                        managed_dir=self._claude.managed_dir)
        cfg, custom = config_dir(_real(self._context.cwd), self._context.env)
        files = list(self._settings.files or read_settings(_real(self._context.cwd), self._context.env).files)
        files.append(os.path.join(cfg, ".claude.json") if custom else os.path.join(self._context.env.home, ".claude.json"))
        return WatchTargets(roots=tuple(dict.fromkeys(r.root.path for r in self._croots)),
                            config_files=tuple(dict.fromkeys(files)),
                            names=frozenset({"SKILL.md", "settings.json", "settings.local.json"}))


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _listdir_order(path: str) -> dict[str, int]:
    try:
        return {n: i for i, n in enumerate(os.listdir(path))}
    except OSError:
        return {}


def _judge(canonical: str, key: str, command: bool) -> tuple[ClaudeSkill | None, Verdict, str, int]:
    """(parsed skill, verdict, SHA-256 of the bytes, byte count) of the file at ``canonical``
    keyed ``key`` (``""`` and 0 when it cannot be read)."""
    error: str | None = None
    data: bytes | None
    try:
        data = read_regular(canonical, FILE_LIMIT)
    except OSError as exc:
        data, error = None, exc.strerror or str(exc)
    skill: ClaudeSkill | None
    if data is not None and len(data) > FILE_LIMIT:
        reason = _disk_note(_size(canonical, len(data)))
        verdict = Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "claude-too-large", reason),))
        skill = None
    else:
        skill, verdict = _verdict(key, data, error, command=command)
    if skill is not None and skill.body:
        skill = replace(skill, body="")  # kept in the parse cache: never a body (the tool reads the file)
    if data is None:
        return skill, verdict, "", 0
    return skill, verdict, hashlib.sha256(data).hexdigest(), len(data)


def _inode(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _size(path: str, fallback: int) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return fallback



def _command_files(base: str) -> tuple[list[tuple[str, str, str]], list[CatalogWarning]]:
    """Legacy commands below ``base``: every ``*.md`` (hidden folders too, symlinks followed),
    name order; a folder holding a ``SKILL.md`` (any case) gives only that file, keyed by the
    folder. Returns (location, canonical, key) with key = folders joined by ``:`` + the name,
    and the warnings of skillshelf's walk limits (:mod:`skillshelf.core.walklimits`: a symlinked
    folder pointing at an ancestor of ``base`` is not followed; depth and entries are capped)."""
    found: list[str] = []
    warnings: list[CatalogWarning] = []
    seen: set[str] = set()
    if not os.path.isdir(base):
        return [], warnings
    top = os.path.realpath(base)
    note = "Claude Code would walk it"
    stack: list[tuple[str, int, str | None]] = [(base, 0, None)]
    listed = 0
    deep = False
    while stack:
        d, level, via = stack.pop()
        try:
            real = os.path.realpath(d)
            if real in seen:
                continue
            seen.add(real)
            if level > MAX_WALK_DEPTH:
                if not deep:
                    deep = True
                    warnings.append(depth_warning(base, d, via, note))
                continue
            names = sorted(os.listdir(d))
        except OSError:
            continue
        listed += len(names)
        if listed > MAX_WALK_ENTRIES:
            warnings.append(entries_warning(base, d, via, note))
            break
        subdirs: list[tuple[str, int, str | None]] = []
        for n in names:
            p = os.path.join(d, n)
            try:
                st = os.stat(p)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                link = os.path.islink(p)
                target = os.path.realpath(p) if link else ""
                if link and is_ancestor(target, top):
                    warnings.append(ancestor_warning(p, target, base, note))
                    continue
                subdirs.append((p, level + 1, p if link else via))
            elif stat.S_ISREG(st.st_mode) and n.endswith(".md"):
                found.append(p)
        stack.extend(reversed(subdirs))
    by_dir: dict[str, list[str]] = {}
    for p in sorted(found):
        by_dir.setdefault(os.path.dirname(p), []).append(p)
    out: list[tuple[str, str, str]] = []
    for d, files in by_dir.items():
        skill = [p for p in files if os.path.basename(p).lower() == "skill.md"]
        for p in skill[:1] if skill else files:
            if skill:
                rel = os.path.relpath(os.path.dirname(d), base)
                leaf = os.path.basename(d)
            else:
                rel = os.path.relpath(d, base)
                leaf = os.path.basename(p)[:-3]
            ns = "" if rel in (".", "") else rel.replace(os.sep, ":")
            out.append((p, os.path.realpath(p), f"{ns}:{leaf}" if ns else leaf))
    return out, warnings


def _fold_same_file(loaded: list[Source]) -> list[Source]:
    """The same file (real path) reached again: the later spelling becomes an alias of the first."""
    first: dict[str, int] = {}
    out: list[Source] = []
    for s in loaded:
        k = first.get(s.canonical)
        if k is None:
            first[s.canonical] = len(out)
            out.append(s)
        else:
            out[k] = replace(out[k], aliases=out[k].aliases + (s.location,))
    return out


# ------------------------------------------------------------------------------------- catalog

def render_catalog(generation: Generation, settings: ClaudeSettings, budget: float, rule: str,
                   usage: Mapping[str, float], texts: BuiltinTexts, model: str) -> HostCatalog:
    """The listing (module :mod:`.listing`) of ``generation`` within ``budget`` columns."""
    cap = settings.entry_cap
    loaded = [s for s in generation.sources if not _is_builtin(s) and not _is_conditional(s)]
    commands = [Command(s.name, s.display_name or s.name) for s in loaded]
    commands += [Command(n, n, a) for n, a in BUILTIN_COMMANDS]
    listed: list[tuple[Source, ListingEntry, bool, str]] = []
    by_name = {b.name: b for b in BUILTIN_SKILLS}
    missing_text = False
    for s in generation.sources:
        if s.status is not Status.OK:
            continue
        if _is_builtin(s):
            b = by_name[s.name]
            text = texts.text(b)
            missing_text = missing_text or text is None
            if text is not None:
                desc, cut = full_description(text, cap)
                full = f"- {b.name}: {desc}"
                columns = width(full)
            else:
                cut = b.description_len > cap
                full = f"- {b.name}: {marker(b, cap if cut else None)}"
                columns = b.line_width if not cut else len(b.name) + 4 + b.width_of_prefix(cap - 1) + 1
            listed.append((s, ListingEntry(b.name, full, f"- {b.name}", columns, len(b.name) + 2, b.fixed,
                                           usage.get(b.name, 0.0)), cut, ""))
            continue
        mode = settings.mode(s.name, _dmi(s))
        if mode == "name-only":
            head = f"- {s.name}"
            listed.append((s, ListingEntry(s.name, head, head, width(head), width(head), True), False, "name-only"))
            continue
        head = "- " + name_part(s.name, s.display_name or s.name, commands)
        desc, cut = full_description(_listing_description(s), cap)
        full = f"{head}: {desc}"
        listed.append((s, ListingEntry(s.name, full, head, width(full), width(head), False, usage.get(s.name, 0.0)),
                       cut, ""))
    decision = decide([e for _, e, _, _ in listed], budget)
    lines: list[str] = []
    states: dict[str, CatalogEntry] = {}
    for (s, e, cut, mode), keep in zip(listed, decision.keep, strict=False):
        line = e.full if keep else e.name_only
        lines.append(_wire(line))
        shown = line.split(": ", 1)[1] if keep and ": " in line and mode != "name-only" else None
        if mode == "name-only":
            states[s.location] = CatalogEntry(s.location, s.name, EntryState.NAME_ONLY, None,
                                              "skillOverrides: name-only (listed without its description)")
        elif not keep:
            states[s.location] = CatalogEntry(s.location, s.name, EntryState.NAME_ONLY, None,
                                              f"over budget ({decision.total:,} > {_fmt(budget)} columns): "
                                              "listed by name only")
        elif cut:
            states[s.location] = CatalogEntry(s.location, s.name, EntryState.CUT, shown,
                                              f"description cut to {cap:,} characters")
        else:
            states[s.location] = CatalogEntry(s.location, s.name, EntryState.LISTED, shown)
    entries: list[CatalogEntry] = []
    for s in generation.sources:
        if s.location in states:
            entries.append(states[s.location])
        elif s.status is Status.SHADOWED:
            entries.append(CatalogEntry(s.location, s.name, EntryState.HIDDEN, None,
                                        f"shadowed by {s.shadowed_by[0] if s.shadowed_by else 'another copy'}"))
        else:
            entries.append(CatalogEntry(s.location, s.name, EntryState.HIDDEN, None, s.status_reason or "not listed"))
    text = HEADER + "\n".join(lines) if lines else ""
    notes = [
        "sizes are terminal columns (as Claude Code counts them); "
        + ("sent in the system prompt" if model == "claude-opus-5-5" else
           "sent as a <system-reminder> block of the first user message") + f" for {model}",
    ]
    if missing_text:
        notes.append("the built-in descriptions are not available (no installed Claude Code "
                     f"{ClaudeHost.version} found): shown as sized markers; the budget uses their exact sizes")
    elif texts.origin:
        notes.append(f"built-in descriptions read from {texts.origin}")
    finite = not math.isinf(budget)
    return HostCatalog(text=text, budget=math.floor(budget) if finite else None, used=decision.used,
                       entries=tuple(entries), budget_rule=rule, notes=tuple(notes), unit="columns")


def _fmt(budget: float) -> str:
    return f"{budget:,.0f}" if float(budget).is_integer() else f"{budget:,}"


def _listing_description(s: Source) -> str:
    when = s.frontmatter.get("when_to_use")
    w = sanitize(js_string(when)) if when is not None else ""
    d = s.description or ""
    return f"{d} - {w}" if w else d


def _wire(line: str) -> str:
    """A lone surrogate (a cut through a pair) goes out as U+FFFD."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in line):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in line)
    return line


#: The registered instance.
CLAUDE = ClaudeHost()
