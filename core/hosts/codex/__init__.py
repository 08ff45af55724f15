"""Host ``codex``: Codex CLI 0.171.0 (SPEC N; the oracle is ``codex app-server`` ``skills/list``
and ``codex debug prompt-input``).

Modules: :mod:`.text` (Rust string semantics), :mod:`.serde` (serde_yaml over libyaml events,
exact messages), :mod:`.parse` (``SKILL.md`` and ``agents/openai.yaml``), :mod:`.discovery`
(roots, the walk, ``skills/list``), :mod:`.catalog` (the ``<skills_instructions>`` block and
its budget).

Codex lists every copy of a name (no shadowing by name; the same file reached twice is one
record, first root wins). ``Source.location`` is the path ``skills/list`` reports (symlinks
resolved); the path as walked (the catalog's spelling) is its alias. Codex gives the model no
skill tool for filesystem skills (it reads ``SKILL.md`` with its shell), so :meth:`skill_tool`
is ``None``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from skillshelf.core.digest import compute_digest
from skillshelf.core.hosts.base import (
    CatalogEntry,
    EntryState,
    HostCatalog,
    HostContext,
    RootPlan,
    Verdict,
    WatchTargets,
)
from skillshelf.core.hosts.client import ClientHost, ClientSession
from skillshelf.core.hosts.codex import catalog as cat
from skillshelf.core.hosts.codex.discovery import (
    MAX_SCAN_DEPTH,
    CodexConfig,
    CodexError,
    CodexListing,
    CodexSkill,
    listing,
    resolve_roots,
)
from skillshelf.core.hosts.codex.parse import MISSING_FRONTMATTER, ParseError, error_line, load_sidecar, parse_skill
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

__all__ = ["CODEX", "CodexHost", "CodexSession"]

_PROVENANCE = {"repo": Provenance.PROJECT, "user": Provenance.USER, "system": Provenance.SYSTEM,
               "admin": Provenance.MANAGED}
_CATALOG_SCOPE = {"system": 0, "admin": 1, "repo": 2, "user": 3}
HIDDEN_REASON = ("agents/openai.yaml sets policy.allow_implicit_invocation: false — Codex never lists it "
                 "to the model; it is used only when named ($name)")


def _label(path: str, scope: str, config: CodexConfig) -> str:
    if scope == "system":
        return "Codex system skills ($CODEX_HOME/skills/.system)"
    if scope == "admin":
        return "admin skills (/etc/codex/skills)"
    if scope == "user":
        return "~/.agents/skills" if path == os.path.join(config.home, ".agents", "skills") else "$CODEX_HOME/skills"
    return "project .codex/skills" if os.path.basename(os.path.dirname(path)) == ".codex" else "project .agents/skills"


def _error_code(message: str) -> tuple[str, str | None]:
    if message == MISSING_FRONTMATTER:
        return "missing-frontmatter", None
    if message.startswith("invalid YAML"):
        return "invalid-yaml", None
    if message.startswith("missing field `description`"):
        return "missing-description", "description"
    if message.startswith(("invalid name", "invalid qualified name")):
        return "name-too-long", "name"
    if message.startswith("failed to read file"):
        return "unreadable", None
    return "rejected", None


def _rejected(err: CodexError, silent: bool = False) -> Rejected:
    code, field = _error_code(err.message)
    line, column = error_line(err.message) if code == "invalid-yaml" else (None, None)
    note = err.message + (" (Codex drops errors of system skills without a word)" if silent else "")
    diag = Diagnostic(Severity.ERROR, code, note, field=field, line=line, column=column)
    return Rejected(location=err.path, provenance=_PROVENANCE[err.scope], canonical=err.path,
                    name=os.path.basename(os.path.dirname(err.path)), root="",
                    aliases=(err.discovered,) if err.discovered != err.path else (),
                    warning=CatalogWarning("codex-rejected", err.path, err.message), diagnostics=(diag,))


def _source(s: CodexSkill) -> Source:
    diags: list[Diagnostic] = []
    if s.name_from_folder:
        diags.append(Diagnostic(Severity.INFO, "name-from-folder",
                                "no string `name` in the frontmatter: Codex names the skill after its folder",
                                field="name"))
    if s.repaired:
        diags.append(Diagnostic(Severity.WARNING, "yaml-repaired",
                                "the frontmatter is not valid YAML; it loads only after Codex's repair pass "
                                "(an unquoted `: ` or a flow-like value is single-quoted)"))
    status, reason, enabled = Status.OK, None, True
    if not s.enabled:
        status, enabled = Status.DISABLED, False
        reason = f"[[skills.config]] in {s.disabled_by} sets enabled = false"
    elif not s.implicit:
        status, reason = Status.HIDDEN, HIDDEN_REASON
    return Source(
        name=s.name, location=s.path, provenance=_PROVENANCE[s.scope], canonical=s.path, root=s.root,
        aliases=(s.discovered,) if s.discovered != s.path else (), description=s.description,
        display_name=(s.sidecar.interface or {}).get("displayName"), exposure_reason=f"scope {s.scope}",
        enabled=enabled, disabled_reason=reason if not enabled else None, status=status,
        status_reason=reason, diagnostics=tuple(diags),
    )


class CodexSession(ClientSession):
    """Codex over one workspace: builds from :func:`.discovery.listing` (Codex's own walk)."""

    def __init__(self, host: CodexHost, context: HostContext) -> None:
        super().__init__(host, context)
        self._codex_host = host
        self.listing: CodexListing | None = None
        self.codex_config: CodexConfig | None = None

    def _config(self, cwd: str | None = None) -> CodexConfig:
        ctx = self.context
        return CodexConfig(cwd or ctx.cwd, ctx.env.home, ctx.env.vars)

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """``skills/list`` as Sources (every copy), errors as Rejected (once per file)."""
        config = self._config()
        found = listing(config)
        self.listing, self.codex_config = found, config
        sources = tuple(_source(s) for s in found.skills)
        rejected: list[Rejected] = []
        seen: set[str] = set()
        for err in found.errors:
            if err.path not in seen:
                seen.add(err.path)
                rejected.append(_rejected(err))
        for err in found.silent:
            if err.path not in seen:
                seen.add(err.path)
                rejected.append(_rejected(err, silent=True))
        warnings = [r.warning for r in rejected if r.warning is not None] + list(watch_warnings)
        return _generation(self.context, previous, plan_roots(config), sources, tuple(rejected), warnings)

    def watch_targets(self) -> WatchTargets:
        """Every candidate root, the user config and the project layers' folders."""
        config = self.codex_config or self._config()
        roots = [p for p, _ in resolve_roots(config)] + [os.path.join(d, "skills") for d in config.project_layers]
        roots += [os.path.join(self.context.cwd, ".agents", "skills"), os.path.join(self.context.cwd, ".codex")]
        return WatchTargets(roots=tuple(dict.fromkeys(roots)), config_dirs=(config.codex_home,),
                            config_files=(config.user_path,),
                            names=frozenset({"SKILL.md", "openai.yaml", "config.toml", "plugin.json"}))

    def index_budget(self, context_window: int | None = None) -> int | None:
        """The budget in bytes (a token budget × 4, or characters)."""
        budget, _ = self._budget(context_window)
        return budget.limit * 4 if budget.tokens else budget.limit

    def _budget(self, context_window: int | None) -> tuple[cat.Budget, str]:
        config = self.codex_config or self._config()
        window = self.context.context_window if context_window is None else context_window
        model = config.effective.get("model")
        return cat.budget_for(config.skills(), model if isinstance(model, str) else None,
                              config.effective.get("model_context_window"), window)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None) -> HostCatalog:
        """The ``<skills_instructions>`` block (``debug prompt-input`` resolves the working
        directory's symlinks first, so a symlinked one is re-listed from its real path)."""
        real = os.path.realpath(self.context.cwd)
        config = self.codex_config or self._config()
        found = self.listing
        if real != self.context.cwd or found is None:
            config = self._config(real)
            found = listing(config)
        chosen, rule = self._budget(context_window)
        if budget is not None:
            chosen, rule = cat.Budget(False, budget), f"--budget {budget:,} characters"
        model = config.effective.get("model")
        slug = model if isinstance(model, str) else cat.DEFAULT_MODEL
        usage = cat.MODELS.get(slug, cat.UNKNOWN_MODEL)[2]
        texts, missing = cat.prose_texts(cat.find_codex_binary(self.context.env.vars))
        notes: list[str] = []
        if missing:
            notes.append(f"Codex's own text ({', '.join(missing)}) is read from an installed Codex; none was found, "
                         "so same-length markers stand in (the budget arithmetic stays exact)")
        shown = [s for s in found.skills if s.enabled and s.implicit]
        shown.sort(key=lambda s: (_CATALOG_SCOPE[s.scope], s.name.encode("utf-8", "surrogatepass"),
                                  s.path.encode("utf-8", "surrogateescape")))
        entries: dict[str, CatalogEntry] = {}
        include = config.skills().get("include_instructions") is not False
        text = ""
        if not include:
            notes.append("[skills] include_instructions = false: Codex sends no skills block")
        if include and shown:
            lines = [cat.CatalogLine(s.path, s.name, cat.cap(s.description), s.discovered, s.root) for s in shown]
            text, fit = cat.render(lines, found.root_order, chosen, texts, usage)
            for line, skill, a in zip(lines, shown, fit.alloc, strict=False):
                if a is None:
                    entries[skill.path] = CatalogEntry(skill.path, skill.name, EntryState.OMITTED,
                                                       note="left out: not even its name and path fit the budget")
                elif a == 0 and line.description:
                    entries[skill.path] = CatalogEntry(skill.path, skill.name, EntryState.NAME_ONLY, "",
                                                       "description dropped by the budget")
                elif a < len(skill.description):
                    entries[skill.path] = CatalogEntry(skill.path, skill.name, EntryState.CUT, line.description[:a],
                                                       f"description cut to {a:,} of {len(skill.description):,} characters")
                else:
                    entries[skill.path] = CatalogEntry(skill.path, skill.name, EntryState.LISTED, skill.description)
        out: list[CatalogEntry] = []
        for source in generation.sources:
            if not source.enabled:
                continue
            e = entries.get(source.location)
            if e is None:
                note = source.status_reason or ("no skills block is sent" if not include else "not shown")
                e = CatalogEntry(source.location, source.name, EntryState.HIDDEN, note=note)
            out.append(e)
        return HostCatalog(text=text, budget=self.index_budget(context_window) if budget is None else budget,
                           used=len(text.encode("utf-8")), entries=tuple(out), budget_rule=rule, notes=tuple(notes))


def plan_roots(config: CodexConfig) -> tuple[Root, ...]:
    """Every candidate root with Codex's walk rules (for reports and "not read" reasons)."""
    out = []
    for path, scope in resolve_roots(config):
        out.append(Root(_PROVENANCE[scope], path, exists=os.path.isdir(path), dot=False, min_depth=0,
                        max_depth=MAX_SCAN_DEPTH, file_links=False, resolve=True,
                        label=_label(path, scope, config)))
    return tuple(out)


def _generation(ctx: HostContext, previous: Generation | None, roots: tuple[Root, ...], sources: tuple[Source, ...],
                rejected: tuple[Rejected, ...], warnings: list[CatalogWarning]) -> Generation:
    number = 1 if previous is None else previous.number + 1
    return Generation(number=number, digest=compute_digest(sources, warnings), host="codex", cwd=ctx.cwd,
                      roots=roots, sources=sources, rejected=rejected, warnings=tuple(warnings))


class CodexHost(ClientHost):
    """Codex CLI 0.171.0."""

    name = "codex"
    client = "Codex"
    version = "0.171.0"
    default_context_window = 500000

    def open(self, context: HostContext) -> CodexSession:
        """A :class:`CodexSession`."""
        return CodexSession(self, context)

    def roots(self, context: HostContext) -> RootPlan:
        """Codex's candidate roots for ``context``."""
        return RootPlan(plan_roots(CodexConfig(context.cwd, context.env.home, context.env.vars)))

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """Codex's parser on one file (messages exact; sidecar hiding included)."""
        if data is None:
            msg = f"failed to read file: {error or 'unreadable'}"
            return Verdict(False, reason=msg, diagnostics=(Diagnostic(Severity.ERROR, "unreadable", msg),))
        try:
            text = data.decode("utf-8")
            parsed = parse_skill(text, os.path.basename(os.path.dirname(os.path.abspath(location))))
        except UnicodeDecodeError as exc:
            msg = f"failed to read file: invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"
            return Verdict(False, reason=msg, diagnostics=(Diagnostic(Severity.ERROR, "unreadable", msg),))
        except ParseError as exc:
            rej = _rejected(CodexError(location, str(exc), location, "repo"))
            return Verdict(False, reason=str(exc), diagnostics=rej.diagnostics)
        skill = CodexSkill(parsed.name, parsed.description, location, "repo", "", location,
                           name_from_folder=parsed.name_from_folder, repaired=parsed.repaired)
        side = load_sidecar(os.path.dirname(os.path.abspath(location)))
        skill = replace(skill, sidecar=side, implicit=side.implicit)
        src = _source(skill)
        return Verdict(True, name=parsed.name, description=parsed.description, diagnostics=src.diagnostics,
                       hidden=HIDDEN_REASON if not side.implicit else None)

    def render_catalog(self, sources: Sequence[Source], budget: int | None) -> HostCatalog:
        """Not used: :class:`CodexSession` renders from Codex's listing."""
        raise NotImplementedError


#: The registered instance.
CODEX = CodexHost()
