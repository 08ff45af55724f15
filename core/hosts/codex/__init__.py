"""Host ``codex``: how Codex CLI 0.171.0 finds, parses, lists, hides and budgets Agent Skills
(SPEC N; the oracle is the client's ``skills/list`` and ``codex debug prompt-input``).

Modules: :mod:`.setup` (configuration layers, project root, roots), :mod:`.walk` (the
breadth-first walk and plugin namespaces), :mod:`.serde` (serde_yaml over libyaml events),
:mod:`.parse` (``SKILL.md`` and ``agents/openai.yaml``), :mod:`.catalog` (the model's catalog
and its budget), :mod:`.prose` (Codex's own sentences, read from an installed binary).

What skillshelf shows: ``Source.location`` is the path ``skills/list`` reports (symlinks
resolved); ``Source.catalog_location`` the path the catalog shows (the canonical root plus the
path as walked). Codex lists every copy of a name; only the same file reached through two roots
is folded (the first root in Codex's order keeps it, later spellings are aliases). Rejected
files carry Codex's exact error message; Codex repeats it once per root reaching the file.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from skillshelf.core.digest import compute_digest
from skillshelf.core.fileread import FileTooLargeError, read_regular
from skillshelf.core.hosts.base import (
    CatalogEntry,
    EntryState,
    Fact,
    Feature,
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
from skillshelf.core.hosts.client import ClientHost, ClientSession
from skillshelf.core.hosts.codex.catalog import (
    DEFAULT_MODEL,
    MODELS,
    UNKNOWN_MODEL,
    Budget,
    CatalogItem,
    budget_for,
    capped,
    catalog_order,
    render,
)
from skillshelf.core.hosts.codex.parse import (
    MAX_QUALIFIED_NAME_LEN,
    SIDECAR,
    Parsed,
    Sidecar,
    load_sidecar,
    parse_skill,
    too_large_note,
)
from skillshelf.core.hosts.codex.prose import Texts, find_texts
from skillshelf.core.hosts.codex.serde import collapse
from skillshelf.core.hosts.codex.setup import Setup, load_setup
from skillshelf.core.hosts.codex.walk import namespace_resolver, plugin_namespace
from skillshelf.core.hosts.codex.walk import walk as walk_root
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
from skillshelf.core.paths import Environment

__all__ = ["CODEX", "CodexHost", "CodexSession", "error_records", "skill_records"]

LIST_SCOPES = {"repo": 0, "user": 1, "system": 2, "admin": 3}
HIDDEN_REASON = f"{SIDECAR} sets policy.allow_implicit_invocation: false; Codex lists it but never shows it to the model"


def _qualified(parsed: Parsed, namespace: str | None) -> tuple[str | None, str | None]:
    """(name, error): the name with its plugin namespace, or Codex's error when too long."""
    if parsed.name is None or namespace is None:
        return parsed.name, None
    name = f"{namespace}:{parsed.name}"
    if len(name) > MAX_QUALIFIED_NAME_LEN:
        return None, f"invalid qualified name: exceeds maximum length of {MAX_QUALIFIED_NAME_LEN} characters"
    return name, None


def _products_reason(sidecar: Sidecar) -> str:
    listed = ", ".join(sidecar.products)
    return (f"{SIDECAR} limits policy.products to [{listed}], without codex: Codex 0.171.0 leaves the skill out "
            "(not listed, not shown to the model, no error)")


def _verdict(parsed: Parsed, namespace: str | None, sidecar: Sidecar) -> Verdict:
    """The host's verdict from the parse, the namespace and the sidecar."""
    if parsed.error is not None:
        return Verdict(False, reason=parsed.error, diagnostics=parsed.diagnostics, frontmatter=parsed.fields)
    name, error = _qualified(parsed, namespace)
    if error is not None or name is None:
        reason = error or "no name"
        diag = Diagnostic(Severity.ERROR, "codex-error", reason, field="name")
        return Verdict(False, reason=reason, diagnostics=(*parsed.diagnostics, diag), frontmatter=parsed.fields)
    diags = list(parsed.diagnostics)
    if sidecar.ignored is not None:
        diags.append(Diagnostic(Severity.WARNING, "codex-sidecar-ignored",
                                f"Codex ignores the whole {SIDECAR}: {sidecar.ignored}", path=sidecar.path))
    if not sidecar.for_codex:
        reason = _products_reason(sidecar)
        diags.append(Diagnostic(Severity.WARNING, "codex-products", reason, path=sidecar.path))
        return Verdict(False, reason=reason, diagnostics=tuple(diags), frontmatter=parsed.fields)
    hidden = HIDDEN_REASON if sidecar.implicit is False else None
    return Verdict(True, name=name, description=parsed.description,
                   display_name=parsed.name if name != parsed.name else None, hidden=hidden,
                   diagnostics=tuple(diags), frontmatter=parsed.fields)


def _read(path: str) -> tuple[bytes | None, str | None]:
    try:
        return read_regular(path), None
    except FileTooLargeError as exc:
        return None, too_large_note(exc)
    except OSError as exc:
        if exc.errno is None:
            return None, str(exc)
        return None, f"{exc.strerror} (os error {exc.errno})"


def _parse_file(path: str) -> tuple[Parsed, str, int]:
    """Codex's parse of the file at ``path`` (its folder is the skill folder), the SHA-256 of
    its bytes and their count (``""`` and 0 when it cannot be read)."""
    data, error = _read(path)
    if data is None:
        reason = f"failed to read file: {error}"
        return Parsed(error=reason, diagnostics=(Diagnostic(Severity.ERROR, "codex-error", reason),)), "", 0
    return parse_skill(data, os.path.dirname(path)), hashlib.sha256(data).hexdigest(), len(data)


class CodexHost(ClientHost):
    """Codex CLI 0.171.0 (SPEC N). ``system_dir`` is Codex's system configuration folder
    (``/etc/codex``: ``config.toml`` and the admin ``skills`` root)."""

    name = "codex"
    client = "Codex"
    version = "0.171.0"
    labels = HostLabels(catalog="catalog", selected="selected")
    features = frozenset({Feature.AMBIGUITY})
    default_context_window = MODELS[DEFAULT_MODEL][0]
    #: Codex 0.171.0's slash commands, read from its binary (the popup's names and their
    #: descriptions, and the ``/name`` spellings of its help texts); a name found only as a
    #: description is left out. Skills are mentioned with ``$name``, never ``/name``.
    native_commands = frozenset(f"/{c}" for c in (
        "model", "permissions", "experimental", "skills", "review", "rename", "new", "resume", "fork", "init",
        "compact", "plan", "clear", "diff", "mention", "status", "mcp", "apps", "plugins", "quit", "exit",
        "feedback", "rollout", "ps", "stop", "copy", "export", "import", "theme", "statusline", "debug-config",
        "pwd", "cd", "vim", "raw", "rc", "keymap", "daybreak", "side", "btw", "goal", "usage", "voice", "ide",
        "worktree", "archive", "delete", "subagents", "test-approval"))
    slash_clash = "`/{name}` is Codex's own command: reach this skill as `${name}` (or from /skills), not `/{name}`"

    def __init__(self, system_dir: str = "/etc/codex") -> None:
        self.system_dir = system_dir

    def open(self, context: HostContext) -> CodexSession:
        """A :class:`CodexSession` over ``context``."""
        return CodexSession(self, context)

    def setup(self, context: HostContext) -> Setup:
        """Codex's configuration and roots for ``context`` (:func:`.setup.load_setup`)."""
        cwd = os.path.abspath(context.cwd)
        return load_setup(cwd, context.env, context.config_files, context.paths, self.system_dir)

    def roots(self, context: HostContext) -> RootPlan:
        """Codex's roots in its order, the warnings that stop it (no roots) and hints."""
        setup = self.setup(context)
        return RootPlan(setup.roots, setup.warnings, setup.hints)

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """Codex's verdict on the ``SKILL.md`` at ``location`` (read as its canonical path:
        the folder name is the fallback name; ``agents/openai.yaml`` beside it and the nearest
        plugin manifest above it are read). ``error``: why the file could not be read."""
        if data is None:
            reason = f"failed to read file: {error or 'unreadable'}"
            return Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "codex-error", reason),))
        folder = os.path.dirname(location)
        namespace = None
        d = folder
        while True:
            namespace = plugin_namespace(d)
            parent = os.path.dirname(d)
            if namespace is not None or parent == d:
                break
            d = parent
        return _verdict(parse_skill(data, folder), namespace, load_sidecar(folder))

    def order(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """``skills/list`` order: scope (repo, user, system, admin), name bytes, path by components."""
        return tuple(sorted(sources, key=_list_key))

    def budget(self, context_window: int | None) -> int | None:
        """The default catalog budget in tokens for a ``context_window``-token model (the
        session knows the configured model and limits)."""
        return budget_for(model=None, context_window=context_window, max_context_tokens=None).limit

    def budget_rule(self, context_window: int | None) -> str:
        """The default budget rule in words."""
        return budget_for(model=None, context_window=context_window, max_context_tokens=None).rule

    def render_catalog(self, sources: Sequence[Source], budget: int | None) -> HostCatalog:
        """The catalog of ``sources`` alone (each root taken as its own alias root); the session's
        :meth:`CodexSession.catalog` is the exact one."""
        chosen = Budget("characters", budget) if budget is not None else budget_for(
            model=None, context_window=None, max_context_tokens=None)
        items = [_item(s, s.root, 0) for s in sources if s.enabled and s.status is Status.OK]
        texts = find_texts_default()
        shown = render(items, chosen, texts.values)
        return HostCatalog(shown.text, chosen.limit, shown.cost, budget_rule=chosen.rule, notes=(texts.note,),
                           unit=chosen.unit)

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """None: Codex gives the model no skill tool for file skills; the model opens the
        ``SKILL.md`` path from the catalog with its shell."""
        return None


_DEFAULT_TEXTS: Texts | None = None


def find_texts_default() -> Texts:
    """Codex's sentences for a caller without an environment (markers unless found before)."""
    global _DEFAULT_TEXTS
    if _DEFAULT_TEXTS is None:
        _DEFAULT_TEXTS = find_texts(Environment(home="/", xdg_config_home="", xdg_cache_home=""))
    return _DEFAULT_TEXTS


def _list_key(s: Source) -> tuple[int, bytes, list[bytes]]:
    scope = SCOPES_BY_PROVENANCE.get(s.provenance, "user")
    parts = [p.encode("utf-8", "surrogateescape") for p in s.location.split("/") if p]
    return LIST_SCOPES.get(scope, 9), s.name.encode("utf-8", "surrogateescape"), parts


SCOPES_BY_PROVENANCE = {Provenance.PROJECT: "repo", Provenance.USER: "user", Provenance.SYSTEM: "system",
                        Provenance.MANAGED: "admin"}


def _item(s: Source, root: str, rank: int) -> CatalogItem:
    return CatalogItem(s.name, s.description or "", SCOPES_BY_PROVENANCE.get(s.provenance, "user"), s.location,
                       s.catalog_location or s.location, root, rank, s.location)


@dataclass
class _Report:
    """One root's reading of one file."""

    root: Root
    spelled: str
    verdict: Verdict
    seq: int = 0


class CodexSession(ClientSession):
    """Codex over one workspace: builds generations (roots, walk, parse, fold, order) and the
    catalog with the session's configuration."""

    def __init__(self, host: CodexHost, context: HostContext) -> None:
        super().__init__(host, context)
        self._codex = host
        self._setup: Setup | None = None
        self._texts: Texts | None = None

    @property
    def setup(self) -> Setup:
        """The configuration and roots of the latest build (read now when none yet)."""
        if self._setup is None:
            self._setup = self._codex.setup(self._context)
        return self._setup

    def texts(self) -> Texts:
        """Codex's own catalog sentences (read once per session)."""
        if self._texts is None:
            self._texts = find_texts(self._context.env)
        return self._texts

    # ---- build
    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """Rescan every root (``changed`` is not used) and build the next generation."""
        setup = self._codex.setup(self._context)
        cancel = self._context.cancel if previous is None else None  # (a first build stops on quit)
        self._setup = setup
        plan = RootPlan(setup.roots, setup.warnings, setup.hints)
        self._plan = plan
        scan_warnings: list[CatalogWarning] = []
        reports: dict[str, list[_Report]] = {}
        parsed_cache: dict[str, tuple[Parsed, str, int, float]] = {}
        cache = self.parse_cache
        cache.begin_full_build()
        sidecars: dict[str, Sidecar] = {}
        seq = 0
        seen_manifests: set[str] = set()
        for root in plan.roots:
            if not root.exists:
                continue
            top = root.resolved or os.path.realpath(root.path)
            walked = walk_root(top, follow=root.provenance is not Provenance.SYSTEM, label=root.label)
            scan_warnings.extend(walked.warnings)
            if not walked.files:
                continue
            problems: list[tuple[str, str]] = []
            resolve = namespace_resolver(top, walked.files, walked.plugin_dirs, problems)
            for manifest, why in problems:
                if manifest not in seen_manifests:
                    seen_manifests.add(manifest)
                    scan_warnings.append(CatalogWarning(
                        "codex-plugin-manifest", manifest,
                        f"{manifest}: {why}; Codex gives the skills below it no plugin namespace from it"))
            for spelled, canon in walked.files:
                stop_if_cancelled(cancel)
                if canon not in parsed_cache:
                    (got, sha, size), st = cache.lookup("verdict", canon, partial(_parse_file, canon))
                    parsed_cache[canon] = (got, sha, size, st.st_mtime if st is not None else 0.0)
                parsed = parsed_cache[canon][0]
                folder = os.path.dirname(canon)
                if parsed.error is None and folder not in sidecars:
                    sidecars[folder] = load_sidecar(folder)
                verdict = _verdict(parsed, resolve(canon), sidecars.get(folder, Sidecar()))
                seq += 1
                reports.setdefault(canon, []).append(_Report(root, spelled, verdict, seq))
        sources, rejected, file_warnings = self._settle_reports(reports, parsed_cache, sidecars, setup)
        ordered = self._codex.order(sources)
        warnings = list(plan.warnings) + scan_warnings + file_warnings + list(watch_warnings)
        number = 1 if previous is None else previous.number + 1
        return Generation(
            number=number, digest=compute_digest(ordered, warnings), host=self._codex.name, cwd=self._context.cwd,
            roots=plan.roots, sources=ordered, rejected=tuple(rejected), warnings=tuple(warnings),
            diagnostics=plan.hints,
        )

    @staticmethod
    def _rejected(canon: str, bad: list[_Report], aliases: tuple[str, ...], sha: str, size: int,
                  mtime: float) -> Rejected:
        """One rejected file from every root's failed reading of it (in root order): Codex's
        message, its diagnostics, and one note per root that reports the error again."""
        first = bad[0]
        v = first.verdict
        reason = v.reason or "rejected"
        error = _is_error(v)
        diags = list(v.diagnostics)
        if error:
            for other in bad[1:]:
                if other.root.provenance is not Provenance.SYSTEM:
                    diags.append(Diagnostic(Severity.INFO, "codex-reported-again",
                                            f"Codex reports this error again for {other.root.label} {other.root.path}",
                                            path=other.root.path))
            if any(r.root.provenance is Provenance.SYSTEM for r in bad):
                diags.append(Diagnostic(Severity.INFO, "codex-error-unreported",
                                        "Codex 0.171.0 does not report errors of skills in its system root: it "
                                        "skips this file silently there"))
        warning = CatalogWarning("codex-rejected" if error else "codex-left-out", canon, reason)
        return Rejected(
            location=canon, provenance=first.root.provenance, canonical=canon,
            name=os.path.basename(os.path.dirname(canon)), root=first.root.path, aliases=aliases,
            warning=warning, diagnostics=tuple(diags), content_sha256=sha, size=size, mtime=mtime,
            frontmatter=dict(v.frontmatter),
        )

    def _settle_reports(self, reports: dict[str, list[_Report]], parsed: dict[str, tuple[Parsed, str, int, float]],
                        sidecars: dict[str, Sidecar], setup: Setup
                        ) -> tuple[list[Source], list[Rejected], list[CatalogWarning]]:
        sources: list[Source] = []
        rejected: list[Rejected] = []
        warnings: list[CatalogWarning] = []
        # a rejected file takes the place of its first reported error in Codex's error list
        order: dict[str, int] = {}
        for canon, reps in reports.items():
            bad = [r for r in reps if not r.verdict.accepted]
            told = [r for r in bad if r.root.provenance is not Provenance.SYSTEM] or bad
            if told:
                order[canon] = told[0].seq
        for canon, reps in reports.items():
            _, sha, size, mtime = parsed[canon]
            spellings = list(dict.fromkeys(r.spelled for r in reps))
            aliases = tuple(s for s in spellings if s != canon)
            ok = [r for r in reps if r.verdict.accepted]
            bad = [r for r in reps if not r.verdict.accepted]
            if ok:
                first = ok[0]
                v = first.verdict
                folder = os.path.dirname(canon)
                side = sidecars.get(folder, Sidecar())
                status, status_reason = (Status.HIDDEN, v.hidden) if v.hidden else (Status.OK, None)
                diags = list(v.diagnostics)
                for other in ok[1:]:
                    if other.root is not first.root:
                        diags.append(Diagnostic(Severity.INFO, "codex-same-file",
                                                f"also reached through {other.root.label} {other.root.path}; Codex "
                                                f"lists the file once, from {first.root.label}", path=other.spelled))
                sources.append(Source(
                    name=v.name or "", location=canon, provenance=first.root.provenance, canonical=canon,
                    root=first.root.path, aliases=aliases, description=v.description, display_name=v.display_name,
                    exposure_reason=first.root.label, status=status, status_reason=status_reason,
                    metadata_sources=(side.path,) if side.path else (), content_sha256=sha, size=size, mtime=mtime,
                    frontmatter=dict(v.frontmatter), diagnostics=tuple(diags),
                    catalog_location=first.spelled if first.spelled != canon else None,
                ))
            if bad:
                rejected.append(self._rejected(canon, bad, aliases, sha, size, mtime))
                if rejected[-1].warning is not None:
                    warnings.append(rejected[-1].warning)
        rejected.sort(key=lambda r: order.get(r.location, 0))
        sources = _apply_rules(sources, setup)
        return sources, rejected, warnings

    def source_facts(self, source: Source) -> tuple[Fact, ...]:
        """Codex's scope, the path its catalog shows when it differs from the listed one, the
        short description ``skills/list`` carries, and what ``agents/openai.yaml`` gives
        (reads the sidecar again). Never raises."""
        facts = [Fact("scope", SCOPES_BY_PROVENANCE.get(source.provenance, "user"))]
        if source.catalog_location:
            facts.append(Fact("catalog path", source.catalog_location,
                              ("skills/list reports the resolved path; the catalog shows the path as walked",)))
        meta = source.frontmatter.get("metadata")
        short = meta.get("short-description") if isinstance(meta, dict) else None
        if isinstance(short, str) and collapse(short):
            facts.append(Fact("short", collapse(short), ("skills/list shortDescription; the catalog never uses it",)))
        side = load_sidecar(os.path.dirname(source.location))
        if side.ignored is not None:
            facts.append(Fact("sidecar", f"{SIDECAR} ignored: {side.ignored}", (), Severity.WARNING))
        elif side.path is not None:
            shown = [f"{k}={v}" for k, v in (side.interface or {}).items() if v is not None]
            if side.implicit is False:
                shown.append("allow_implicit_invocation=false")
            if side.products:
                shown.append("products=" + ",".join(side.products))
            facts.append(Fact("sidecar", f"{SIDECAR}: " + ("; ".join(shown) if shown else "nothing Codex uses")))
        return tuple(facts)

    # ---- catalog and budget
    def _budget(self, context_window: int | None) -> Budget:
        setup = self.setup
        window = context_window if context_window is not None else self._context.context_window
        source = "--context-window"
        if window is None:
            window = setup.context_window
            source = f"model_context_window in {setup.origins.get('model_context_window', 'the configuration')}"
        return budget_for(model=setup.model, context_window=window, max_context_tokens=setup.max_context_tokens,
                          origins=setup.origins, window_from=source)

    def index_budget(self, context_window: int | None = None) -> int | None:
        """The catalog budget in its unit (:attr:`HostCatalog.unit`: tokens, or characters
        for a window ≤ 0)."""
        return self._budget(context_window).limit

    def watch_targets(self) -> WatchTargets:
        """Every root (at its path and its resolved path), every project folder that would add a
        root when created, and the configuration files."""
        setup = self.setup
        dirs = tuple(dict.fromkeys([r.path for r in setup.roots] + [r.resolved for r in setup.roots if r.resolved]
                                   + list(setup.candidates)))
        files = [os.path.join(setup.codex_home, "config.toml"), os.path.join(self._codex.system_dir, "config.toml")]
        files += list(setup.config_files)
        return WatchTargets(roots=dirs, config_files=tuple(files),
                            names=frozenset({"SKILL.md", "openai.yaml", "config.toml", "plugin.json"}),
                            sidecars=frozenset({"openai.yaml"}))

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The ``<skills_instructions>`` block of ``generation``: ``context_window`` tokens plays
        ``-c model_context_window``; ``budget`` characters replaces Codex's budget rule."""
        setup = self.setup
        texts = self.texts()
        notes = [texts.note]
        if budget is not None:
            chosen = Budget("characters", budget, f"--budget {budget:,} characters")
        else:
            chosen = self._budget(context_window)
        if setup.fatal is not None:
            return HostCatalog("", chosen.limit, 0, budget_rule=chosen.rule, unit=chosen.unit,
                               notes=(f"Codex 0.171.0 does not start with this configuration: {setup.fatal}",))
        ranks: dict[str, int] = {}
        by_path: dict[str, Root] = {}
        for i, r in enumerate(generation.roots):
            by_path.setdefault(r.path, r)
            if r.resolved:
                ranks.setdefault(r.resolved, i)
        enabled = [s for s in generation.sources if s.enabled]
        items: dict[str, CatalogItem] = {}
        for s in enabled:
            root = by_path.get(s.root)
            top = root.resolved if root is not None and root.resolved else s.root
            items[s.location] = _item(s, top, ranks.get(top, len(ranks)))
        shown = [items[s.location] for s in enabled if s.status is Status.OK]
        slug = setup.model or DEFAULT_MODEL
        usage = MODELS.get(slug, UNKNOWN_MODEL)[2]
        result = render(shown, chosen, texts.values, usage=usage)
        alloc = {it.key: a for it, a in zip(result.items, result.alloc, strict=True)}
        entries: list[CatalogEntry] = []
        for it in catalog_order(list(items.values())):
            s = next(x for x in enabled if x.location == it.key)
            entries.append(_entry(s, it, alloc, s.location in alloc))
        if not setup.include_instructions:
            where = setup.origins.get("include_instructions", "the configuration")
            notes.append(f"skills.include_instructions = false ({where}): Codex sends no skills block; this is the "
                         "block it would send")
            text = ""
        else:
            text = result.text
        if usage:
            notes.append(f"model {slug} gets Codex's \"How to use skills\" text after the list (not counted in the budget)")
        if result.text and result.aliased:
            notes.append("aliased form: locators are rN/… under the root table (cheaper than absolute paths here)")
        if shown and not result.text:
            notes.append("no skill is shown to the model: Codex sends no skills block")
        return HostCatalog(text, chosen.limit, result.cost, tuple(entries), chosen.rule, tuple(notes), chosen.unit)


def _is_error(v: Verdict) -> bool:
    return not any(d.code == "codex-products" for d in v.diagnostics)


def _entry(s: Source, it: CatalogItem, alloc: dict[str, int | None], listed: bool) -> CatalogEntry:
    if s.status is Status.HIDDEN:
        return CatalogEntry(s.location, s.name, EntryState.HIDDEN, None, s.status_reason or "hidden")
    if not listed:
        return CatalogEntry(s.location, s.name, EntryState.HIDDEN, None, s.status_reason or "not shown")
    a = alloc[it.key]
    desc = capped(it.description)
    if a is None:
        return CatalogEntry(s.location, s.name, EntryState.OMITTED, None,
                            "left out: even its name and path no longer fit the budget")
    if a == 0:
        return CatalogEntry(s.location, s.name, EntryState.NAME_ONLY, None,
                            "name and path only: the descriptions no longer fit the budget")
    if a < len(desc):
        return CatalogEntry(s.location, s.name, EntryState.CUT, desc[:a],
                            f"description cut to {a:,} of {len(it.description):,} characters: Codex shares the budget "
                            "evenly between descriptions")
    if desc != it.description:
        return CatalogEntry(s.location, s.name, EntryState.CUT, desc,
                            f"description cut to 1,021 of {len(it.description):,} characters + ...: Codex's per-entry cap")
    return CatalogEntry(s.location, s.name, EntryState.LISTED, desc)


def _apply_rules(sources: list[Source], setup: Setup) -> list[Source]:
    """``skills.config`` rules in order (later wins): a path rule names one canonical file, a
    name rule every skill of that (qualified) name."""
    state: dict[str, tuple[bool, str]] = {}
    for rule in setup.rules:
        targets = [rule.value] if rule.kind == "path" else [s.location for s in sources if s.name == rule.value]
        for t in targets:
            state[t] = (rule.enabled, rule.where)
    out: list[Source] = []
    for s in sources:
        enabled, where = state.get(s.location, (True, ""))
        if not enabled:
            s = replace(s, enabled=False, status=Status.DISABLED,
                        disabled_reason=f"{where} disables it (Codex lists it with enabled: false; not in the catalog)")
        out.append(s)
    return out



# ---------------------------------------------------------------------------- skills/list records
def skill_records(generation: Generation) -> list[dict[str, object]]:
    """The ``skills/list`` ``skills`` records Codex gives for ``generation`` (in its order):
    ``name``, ``description``, ``shortDescription``, ``interface``, ``dependencies`` (when set),
    ``path``, ``scope``, ``enabled``, ``pluginId``. Reads each skill's sidecar again."""
    out: list[dict[str, object]] = []
    for s in generation.sources:
        rec: dict[str, object] = {"name": s.name, "description": s.description}
        meta = s.frontmatter.get("metadata")
        short = meta.get("short-description") if isinstance(meta, dict) else None
        if isinstance(short, str) and collapse(short):
            rec["shortDescription"] = collapse(short)
        side = load_sidecar(os.path.dirname(s.location))
        if side.interface is not None:
            rec["interface"] = side.interface
        if side.dependencies is not None:
            rec["dependencies"] = side.dependencies
        rec.update({"path": s.location, "scope": SCOPES_BY_PROVENANCE.get(s.provenance, "user"),
                    "enabled": s.enabled, "pluginId": None})
        out.append(rec)
    return out


def error_records(generation: Generation) -> list[dict[str, object]]:
    """The ``skills/list`` ``errors`` Codex gives for ``generation``, one per file in first-report
    order with ``count`` = how many times Codex repeats it (once per root reaching the file);
    system-root errors and left-out files are not reported. A configuration Codex cannot read
    is its one error, at the cwd."""
    out: list[dict[str, object]] = []
    for w in generation.warnings:
        if w.kind == "codex-config-error" and w.message.startswith("failed to reload config: "):
            out.append({"path": w.source, "message": w.message, "count": 1})
    for r in generation.rejected:
        if r.warning is None or r.warning.kind != "codex-rejected":
            continue
        again = sum(1 for d in r.diagnostics if d.code == "codex-reported-again")
        first = 0 if r.provenance is Provenance.SYSTEM else 1
        if first + again == 0:
            continue
        out.append({"path": r.location, "message": r.warning.message, "count": first + again})
    return out


#: The registered host.
CODEX = CodexHost()

