"""Host ``gemini``: Gemini CLI 0.61.0 (``@google/gemini-cli``), SPEC N.

Modules: :mod:`.setup` (settings, trust, ``.env``, extensions), :mod:`.discover` (roots, the
root glob, precedence and the same-root race), :mod:`.parse` (the frontmatter parser and its
line-based fallback) over :mod:`.jsyaml` (js-yaml 4 semantics), :mod:`.prompt` (the prompt
section, ``skills list``), :mod:`.tool` (``activate_skill``), :mod:`.builtin` (the two built-in
skills), :mod:`.collate` (``localeCompare``).

Gemini CLI is emulated *in this environment*: the trust of the working directory, the settings
files and the environment variables are read as the client would read them, so an untrusted
workspace shows its skill folders as not read, with the reason and how to trust it.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from skillshelf.core.digest import compute_digest
from skillshelf.core.fileread import FileTooLargeError, NotRegularFileError, read_regular
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
from skillshelf.core.hosts.client import MAX_SKILL_BYTES, ClientHost, ClientSession
from skillshelf.core.hosts.gemini.builtin import BUILTINS, find_bundle, marker_sources
from skillshelf.core.hosts.gemini.discover import (
    SKILL_FILE,
    arbitrate,
    glob_skill_files,
    root_plan,
)
from skillshelf.core.hosts.gemini.parse import parse_skill
from skillshelf.core.hosts.gemini.prompt import (
    render_section,
    resolve_model,
    skills_list_text,
    supports_modern,
)
from skillshelf.core.hosts.gemini.setup import GeminiSetup, hydrate, load_setup
from skillshelf.core.hosts.gemini.tool import ActivateSkillTool
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

__all__ = ["GEMINI", "GeminiHost", "GeminiSession", "catalog_skills"]

_NODE_ERRORS = {errno.ENOENT: "ENOENT: no such file or directory, open '{path}'",
                errno.EISDIR: "EISDIR: illegal operation on a directory, read",
                errno.EACCES: "EACCES: permission denied, open '{path}'",
                errno.ELOOP: "ELOOP: too many symbolic links encountered, open '{path}'"}


_ESCAPED = re.compile("[\udc80-\udcff]")  # bytes that are not UTF-8, as os functions hand them over


#: How :func:`_read` ends the error of a FIFO, socket or device: Gemini CLI's read of one never
#: returns (no end of file), so it neither logs nor skips it — its start waits there.
_HANGS = ": Gemini CLI's read of it never ends, so its start hangs here (skillshelf does not read it)"


def _read(path: str) -> tuple[bytes | None, str | None]:
    """(bytes, None) or (None, the error as Gemini CLI logs it)."""
    try:
        data = read_regular(path, limit=MAX_SKILL_BYTES)
    except FileTooLargeError as exc:
        return None, f"{exc}: skillshelf does not read it (Gemini CLI would)"
    except NotRegularFileError as exc:
        return None, f"{exc.kind}{_HANGS}"
    except OSError as exc:
        text = _NODE_ERRORS.get(exc.errno or 0)
        return None, (text.format(path=path) if text else f"{exc.strerror or exc}")
    return data, None


def _judge(host: GeminiHost, location: str) -> tuple[Verdict, str, int]:
    """Gemini CLI's verdict on the file at ``location``, the SHA-256 of its bytes and their
    count (``""`` and 0 when it cannot be read)."""
    data, error = _read(location)
    verdict = host.accept(location, data, error=error)
    if data is None:
        return verdict, "", 0
    return verdict, hashlib.sha256(data).hexdigest(), len(data)


def catalog_skills(sources: Sequence[Source]) -> tuple[Source, ...]:
    """The copy of each name the model is shown, in catalog order: the first enabled source
    per name whose status is ``ok`` or ``race`` (a race shows its usual winner)."""
    seen: set[str] = set()
    out: list[Source] = []
    for s in sources:
        if s.name in seen:
            continue
        if s.enabled and s.status in (Status.OK, Status.RACE):
            out.append(s)
            seen.add(s.name)
        elif s.status is Status.DISABLED:
            seen.add(s.name)
    return tuple(out)


def _listed(sources: Sequence[Source]) -> tuple[Source, ...]:
    """One source per name, as ``skills list`` shows it (disabled included), catalog order."""
    seen: set[str] = set()
    out: list[Source] = []
    for s in sources:
        if s.name not in seen and s.status in (Status.OK, Status.RACE, Status.DISABLED):
            out.append(s)
            seen.add(s.name)
    return tuple(out)


class GeminiSession(ClientSession):
    """Gemini CLI over one workspace. Every build reads the settings, trust and extensions
    again and rescans every root."""

    def __init__(self, host: GeminiHost, context: HostContext) -> None:
        super().__init__(host, context)
        self._gemini = host
        self._setup: GeminiSetup | None = None
        self._bundle: str | None = None
        self._hydration: dict[str, dict[str, str]] = {}

    @property
    def setup(self) -> GeminiSetup:
        """The settings, trust and extensions of the latest build."""
        if self._setup is None:
            self.load()
        assert self._setup is not None
        return self._setup

    @property
    def bundle(self) -> str | None:
        """The installed Gemini CLI 0.61.0 bundle folder used for the built-ins, or ``None``."""
        if self._setup is None:
            self.load()
        return self._bundle

    def load(self) -> tuple[list[Root], list[CatalogWarning]]:
        """Read the settings, trust and extensions again: the roots in processing order (unread
        ones say why) and the warnings made on the way."""
        ctx = self._context
        env = dict(ctx.env.vars)
        self._setup = load_setup(ctx.cwd, ctx.env.home, env)
        self._bundle = find_bundle(env)
        self._hydration = {
            os.path.normpath(os.path.join(e.path, "skills")): {
                "extensionPath": e.path, "workspacePath": self._setup.cwd, "/": "/", "pathSeparator": "/"}
            for e in self._setup.extensions if e.active}
        roots, warnings = root_plan(self._setup, self._bundle)
        for extra in ctx.paths:
            warnings.append(CatalogWarning("gemini-path-ignored", extra,
                                           f"{extra}: Gemini CLI has no extra skill folders (--path is ignored)"))
        return roots, warnings

    def hydration(self, source: Source) -> dict[str, str] | None:
        """The ``${…}`` values of the extension ``source`` comes from, or ``None``."""
        return self._hydration.get(source.root)

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """Read the setup, scan the roots in order, settle copies (``changed`` is not used)."""
        host, ctx = self._gemini, self._context
        cancel = ctx.cancel if previous is None else None  # (a first build stops on quit)
        cache = self.parse_cache
        cache.begin_full_build()
        roots, warnings = self.load()
        setup = self.setup
        self._plan = RootPlan(tuple(roots), tuple(warnings))
        processing: list[Source] = []
        rejected: list[Rejected] = []
        file_warnings: list[CatalogWarning] = []
        if self._bundle is None and setup.skills_enabled and not setup.fatal:
            processing.extend(marker_sources())
        seen: set[str] = set()
        for root in roots:
            if root.unread:
                continue
            matches, notes = glob_skill_files(root)
            warnings.extend(notes)
            ext = self._hydration.get(root.path)
            for location, _levels in matches:
                stop_if_cancelled(cancel)
                if location in seen:
                    continue  # the same location replaces itself silently
                seen.add(location)
                canonical = os.path.realpath(location)
                (verdict, sha, size), st = cache.lookup(
                    "verdict", canonical, partial(_judge, host, location), label=location)
                mtime = st.st_mtime if st is not None else 0.0
                if not verdict.accepted or verdict.name is None:
                    reason = verdict.reason or "Gemini CLI does not load this file"
                    warning = CatalogWarning("gemini-rejected", location, reason)
                    file_warnings.append(warning)
                    rejected.append(Rejected(
                        location=location, provenance=root.provenance, canonical=canonical,
                        name=os.path.basename(os.path.dirname(location)), root=root.path, warning=warning,
                        diagnostics=verdict.diagnostics or (Diagnostic(Severity.ERROR, "gemini-rejected", reason),),
                        content_sha256=sha, size=size, mtime=mtime, frontmatter=dict(verdict.frontmatter)))
                    continue
                name, description = verdict.name, verdict.description
                if ext is not None:
                    name, description = hydrate(name, ext), hydrate(description or "", ext)
                processing.append(Source(
                    name=name, location=location, provenance=root.provenance, canonical=canonical, root=root.path,
                    description=description, display_name=verdict.display_name, exposure_reason=root.label,
                    content_sha256=sha, size=size, mtime=mtime, frontmatter=dict(verdict.frontmatter),
                    diagnostics=verdict.diagnostics))
        labels = {r.path: r.label for r in roots}
        ordered = [self._disable(s) for s in arbitrate(processing, labels)]
        warnings = warnings + file_warnings + list(watch_warnings)
        number = 1 if previous is None else previous.number + 1
        return Generation(number=number, digest=compute_digest(ordered, warnings), host=host.name, cwd=ctx.cwd,
                          roots=tuple(roots), sources=tuple(ordered), rejected=tuple(rejected),
                          warnings=tuple(warnings))

    def _disable(self, source: Source) -> Source:
        if source.status not in (Status.OK, Status.RACE):
            return source
        files = self.setup.disabled_by(source.name)
        if files is None:
            return source
        return replace(source, enabled=False, status=Status.DISABLED,
                       disabled_reason=f"skills.disabled in {', '.join(files)}")

    def body(self, source: Source) -> str:
        """``source``'s body as Gemini CLI holds it (trimmed; extension values filled in).
        Raises ``OSError`` when the file cannot be read."""
        if source.location.startswith("builtin://"):
            b = next(b for b in BUILTINS if b.name == source.name)
            return (f"[built-in skill {b.name}: {b.body:,} characters of instructions, read from an installed "
                    "Gemini CLI 0.61.0]")
        data = read_regular(source.location, MAX_SKILL_BYTES)
        parsed = parse_skill(data)
        ext = self.hydration(source)
        return hydrate(parsed.body, ext) if ext is not None else parsed.body

    def skills_list(self, generation: Generation, *, include_builtin: bool = True) -> str:
        """What ``gemini skills list [--all]`` prints for ``generation``."""
        return skills_list_text(_listed(generation.sources), include_builtin=include_builtin)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The ``# Available Agent Skills`` section of ``generation`` (no budget)."""
        setup = self.setup
        shown = catalog_skills(generation.sources)
        text = render_section(shown, setup.model) if setup.catalog_in_prompt else ""
        state = EntryState.LISTED if setup.catalog_in_prompt else EntryState.HIDDEN
        note = "" if setup.catalog_in_prompt else "GEMINI_PROMPT_AGENTSKILLS takes the section out of the prompt"
        entries = []
        for s in shown:
            n = note
            if s.status is Status.RACE:
                n = "either copy may win; the text shows the usual winner"
            entries.append(CatalogEntry(s.location, s.name, state, s.description, n))
        return HostCatalog(text=text, budget=None, used=len(text), entries=tuple(entries),
                           budget_rule="no budget: Gemini CLI lists every enabled skill in full "
                                       "(no per-entry cap, no total limit)",
                           notes=tuple(self._notes(generation, shown)))

    def _notes(self, generation: Generation, shown: Sequence[Source]) -> list[str]:
        setup = self.setup
        notes: list[str] = []
        resolved = resolve_model(setup.model)
        lead = "call the `activate_skill` tool" if supports_modern(setup.model) else \
            "you can call the `activate_skill` tool"
        notes.append(f"model {setup.model} ({setup.model_by}, resolves to {resolved}): the sentence says \"{lead}\"; "
                     "set GEMINI_MODEL or model.name to see another model's form")
        if not setup.trusted and not setup.fatal:
            notes.append("the workspace is not trusted: interactively Gemini CLI first asks whether to trust it; "
                         "`gemini -p` refuses to run here (exit 55) unless given --skip-trust")
        if not setup.catalog_in_prompt:
            notes.append("GEMINI_PROMPT_AGENTSKILLS is 0/false: the section is left out of the system prompt; "
                         "activate_skill still works")
        for s in shown:
            if s.status is Status.RACE:
                notes.append(f"{s.name}: either copy may win ({', '.join((s.location, *s.shadowed_by))}); "
                             f"the text shows the usual winner {s.location}")
        blocks: dict[str, int] = {}
        for s in shown:
            blocks[s.root] = blocks.get(s.root, 0) + 1
        if any(n > 1 for n in blocks.values()):
            notes.append("inside one root the order of the entries is not fixed (Gemini CLI emits each folder when "
                         "its check finishes); the text shows the usual order, descending by folder name")
        if any(s.location.startswith("builtin://") for s in shown):
            notes.append("the built-in skills' descriptions are stand-ins of their real length: no Gemini CLI "
                         "0.61.0 bundle was found (on PATH or in SKILLSHELF_CLIENTS_DIR)")
        if shown:
            notes.append("with any skill enabled, the Core Mandates list also gets a 507-character "
                         "\"Skill Guidance\" bullet, outside this section")
        if setup.env.get("GEMINI_SYSTEM_MD"):
            notes.append("GEMINI_SYSTEM_MD is set: the section replaces ${AgentSkills} in that file (a description "
                         "holding $& or $1 would be expanded)")
        return notes

    def watch_targets(self) -> WatchTargets:
        """Every root folder plus the settings, trust, ``.env`` and extension files."""
        plan = self._plan or RootPlan(tuple(self.load()[0]))
        dirs = tuple(dict.fromkeys(r.scan_dir for r in plan.roots))
        files = self.setup.files
        return WatchTargets(roots=dirs, config_dirs=tuple(dict.fromkeys(os.path.dirname(f) for f in files)),
                            config_files=files,
                            names=frozenset({SKILL_FILE, "settings.json", "system-defaults.json", "trustedFolders.json",
                                             ".env", "gemini-extension.json", "extension-enablement.json",
                                             ".gemini-extension-install.json"}))



class GeminiHost(ClientHost):
    """Gemini CLI 0.61.0 (SPEC N): roots by trust and settings, js-yaml then a line parser,
    sanitised names as keys, later roots win, a race inside one root, no catalog budget."""

    name = "gemini"
    client = "Gemini CLI"
    version = "0.61.0"
    labels = HostLabels(catalog="catalog", selected="selected", tool_requests=('{"name":"pdf"}',))
    fold_aliases = False
    #: Gemini CLI 0.61.0's built-in slash commands with its default settings, read from its
    #: bundle (``BuiltinCommandLoader``: plan, agents and hooks on; restore, permissions, voice,
    #: upgrade and the developer ones off). Its resolver keeps a built-in's name and renames a
    #: skill that collides with it to ``name1`` (the first free number).
    native_commands = frozenset(f"/{c}" for c in (
        "about", "agents", "auth", "bug", "bug-memory", "chat", "clear", "commands", "compress", "copy", "corgi",
        "directory", "docs", "editor", "export-session", "extensions", "footer", "gemma", "help", "hooks", "ide",
        "init", "mcp", "memory", "model", "plan", "policies", "privacy", "quit", "resume", "rewind", "settings",
        "setup-github", "shortcuts", "skills", "stats", "tasks", "terminal-setup", "theme", "tools", "vim"))
    slash_clash = "`/{name}` is Gemini CLI's own command, so it renames this skill's: reach it as `/{name}1`, not `/{name}`"

    def open(self, context: HostContext) -> GeminiSession:
        """A :class:`GeminiSession` over ``context``."""
        return GeminiSession(self, context)

    def roots(self, context: HostContext) -> RootPlan:
        """The roots in processing order; unread ones (untrusted workspace, skills off) say why."""
        session = GeminiSession(self, context)
        roots, warnings = session.load()
        return RootPlan(tuple(roots), tuple(warnings))

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """Gemini CLI's parser on one file: dropped (why), or the name it is listed under (sanitised)
        and the description it holds, with the fallbacks it took as diagnostics."""
        if _ESCAPED.search(location):
            reason = "the path is not valid UTF-8; Gemini CLI never matches it"
            return Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "gemini-path-not-utf8",
                                                                         reason),))
        if data is None and error is not None and error.endswith(_HANGS):
            reason = f"it is {error}"  # no log line: the client never gets past the read
            return Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "gemini-unreadable", reason),))
        if data is None:
            reason = (f"Gemini CLI cannot read it and skips it, logging \"Error parsing skill file {location}: "
                      f"Error: {error or 'unreadable'}\"")
            return Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "gemini-unreadable", reason),))
        parsed = parse_skill(data)
        if parsed.name is None:
            return Verdict(False, reason=f"Gemini CLI skips it silently: {parsed.reason}",
                           diagnostics=parsed.diagnostics, frontmatter=parsed.frontmatter)
        return Verdict(True, name=parsed.name, description=parsed.description,
                       display_name=parsed.raw_name if parsed.raw_name != parsed.name else None,
                       diagnostics=parsed.diagnostics, frontmatter=parsed.frontmatter)

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Later roots win; same-root copies race (either may win); catalog order returned."""
        return arbitrate(sources)

    def render_catalog(self, sources: Sequence[Source], budget: int | None) -> HostCatalog:
        """The section for ``sources`` with the default model (``auto``)."""
        shown = catalog_skills(sources)
        text = render_section(shown, "auto")
        return HostCatalog(text=text, budget=None, used=len(text),
                           entries=tuple(CatalogEntry(s.location, s.name, EntryState.LISTED, s.description)
                                         for s in shown))

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """``activate_skill`` over a live catalog of this host (``None`` for another host's)."""
        session = catalog.session
        if not isinstance(session, GeminiSession):
            return None

        def skills() -> Sequence[Source]:
            return catalog_skills(catalog.current.sources)

        return ActivateSkillTool(skills, session.body)


#: The registered instance.
GEMINI = GeminiHost()
