"""Host ``zhin``: the Zhin bot framework's skill format (SPEC Z1–Z5; zhin-scenarios).

Modules: :mod:`.markdown` (JavaScript whitespace, the frontmatter split, the YAML loader),
:mod:`.skills` (plugin roots, the parser, the generation, the ``# Skills (catalog)`` section),
:mod:`.load` (what ``load_skill`` hands the model), :mod:`.deps` (dependencies, private tools,
``always`` bodies).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from skillshelf import __version__
from skillshelf.core.agents import AgentSetup
from skillshelf.core.budget import selected_budget_tokens
from skillshelf.core.config import Config, load_config
from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.base import (
    CatalogEntry,
    ContextWindow,
    EntryState,
    Fact,
    Feature,
    HostCatalog,
    HostContext,
    HostLabels,
    LoadedPage,
    RootPlan,
    SkillToolLike,
    ToolCatalog,
    Verdict,
    WatchTargets,
    flag_window,
)
from skillshelf.core.hosts.zhin.deps import always_sources, check_deps, private_tools, skill_agent
from skillshelf.core.hosts.zhin.load import ZhinLoadTool, zhin_read_instructions
from skillshelf.core.hosts.zhin.markdown import split_zhin_markdown
from skillshelf.core.hosts.zhin.skills import (
    ZhinSkillError,
    build_zhin_generation,
    catalog_description,
    parse_zhin_markdown,
    render_zhin_catalog,
    zhin_roots,
)
from skillshelf.core.model import CatalogWarning, Diagnostic, Generation, Provenance, Severity, Source
from skillshelf.core.paths import find_worktree

if TYPE_CHECKING:
    from skillshelf.core.parsecache import ParseCache

__all__ = ["ZHIN", "ZhinHost", "ZhinSession"]

#: Path components and file names whose change can alter a Zhin catalog (SPEC Z1, Z5).
RELEVANT_COMPONENTS = frozenset({"skills", "agents", "tools"})
#: :attr:`LoadedPage.label` of what ``load_skill`` returns.
LOAD_LABEL = "load_skill text"


class ZhinSession:
    """Host ``zhin`` over one workspace: plugin roots are the working directory and each
    ``skills.paths`` / ``--path`` entry (SPEC Z1). Every build rescans everything."""

    def __init__(self, context: HostContext) -> None:
        self._context = context
        self.config: Config = Config()
        self.remote_origins: Mapping[str, tuple[str, str | None]] = MappingProxyType({})
        self._cache = context.parse_cache(ZhinHost.name, ZhinHost.version)

    def request_pull(self) -> None:
        """Zhin has no remote indexes."""

    def check_ahead(self) -> None:
        """Zhin keeps no first build: nothing to check ahead."""
        return None

    def read_ahead(self, lint: Callable[[str, str, ParseCache], object] | None = None) -> None:
        """Zhin's first build is not fed from another process."""

    def changed_since_ahead(self) -> frozenset[str]:
        """Nothing was checked ahead."""
        return frozenset()

    @property
    def context(self) -> HostContext:
        """The workspace inputs."""
        return self._context

    def plugin_paths(self) -> tuple[str, ...]:
        ctx = self._context
        self.config = load_config(cwd=ctx.cwd, worktree=find_worktree(ctx.cwd), home=ctx.env.home,
                                  xdg_config_home=ctx.env.xdg_config_home, env=ctx.env.vars,
                                  extra_files=ctx.config_files)
        return self.config.paths + ctx.paths

    def build(self, previous: Generation | None, changed: frozenset[str] | None,
              watch_warnings: Sequence[CatalogWarning] = ()) -> Generation:
        """Rescan every plugin (``changed`` is not used: Zhin trees are small)."""
        ctx = self._context
        self._cache.begin_full_build()
        return build_zhin_generation(
            ctx.cwd,
            paths=self.plugin_paths(),
            previous=previous,
            version=__version__,
            home=ctx.env.home,
            search_path=ctx.env.vars.get("PATH"),
            extra_warnings=watch_warnings,
            cache=self._cache,
        )

    def watch_targets(self) -> WatchTargets:
        """Each plugin directory, recursively."""
        ctx = self._context
        plugins = [ctx.cwd]
        for entry in self.config.paths + ctx.paths:
            path = entry
            if path.startswith("~/"):
                path = os.path.join(ctx.env.home, path[2:])
            plugins.append(os.path.normpath(os.path.join(ctx.cwd, path)))
        return WatchTargets(roots=tuple(dict.fromkeys(plugins)), names=frozenset({"SKILL.md"}),
                            components=RELEVANT_COMPONENTS)

    def index_budget(self, context_window: int | None = None) -> int | None:
        """Zhin's catalog has no character budget (each line is cut at 96 characters instead)."""
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

    def selected_budget(self, context_window: int | None = None) -> int:
        """The selected-body budget the ``always`` bodies count against (SPEC U2, Z5), tokens."""
        window = self._context.context_window if context_window is None else context_window
        return selected_budget_tokens(context_window=window,
                                      max_selected_context_tokens=self.config.max_selected_context_tokens)

    def catalog(self, generation: Generation, *, context_window: int | None = None,
                budget: int | None = None, agent: str | None = None) -> HostCatalog:
        """The ``# Skills (catalog)`` section for ``agent`` (SPEC Z3); no budget."""
        text = render_zhin_catalog(generation.sources, agent=agent)
        entries = []
        for s in generation.sources:
            if not s.enabled:
                continue
            if s.provenance is Provenance.ZHIN_AGENT and skill_agent(s) != agent:
                entries.append(CatalogEntry(s.location, s.name, EntryState.HIDDEN,
                                            note=f"agent-private: shown only to agent {skill_agent(s)}"))
                continue
            shown = catalog_description(s.description)
            whole = " ".join((s.description or "").split())
            if shown.endswith("…") and not whole.endswith("…"):
                entries.append(CatalogEntry(s.location, s.name, EntryState.CUT, shown,
                                            note="description cut at 96 characters"))
            else:
                entries.append(CatalogEntry(s.location, s.name, EntryState.LISTED, shown))
        return HostCatalog(text=text, budget=None, used=len(text), entries=tuple(entries),
                           budget_rule="no budget: each description is cut at 96 characters")


    def _which(self, name: str) -> str | None:
        """``shutil.which`` on the workspace environment's PATH (Zhin runs ``which``; nothing is run here)."""
        return shutil.which(name, path=self._context.env.vars.get("PATH"))

    def source_facts(self, source: Source) -> tuple[Fact, ...]:
        """The Zhin facts of ``source`` (SPEC Z3, Z5): its exact catalog line, the owning agent of
        an agent-private skill, the private tools (locked until ``load_skill``) and the
        dependencies missing from the workspace's PATH. Reads ``tools/``; runs nothing."""
        facts = [Fact("catalog", f" - {source.name}: {catalog_description(source.description)}")]
        agent = skill_agent(source)
        if agent:
            facts.append(Fact("agent", f"{agent}  (agent-private: listed only for this agent)"))
        try:
            tools = private_tools(source)
        except OSError:
            tools = []
        if tools:
            facts.append(Fact("tools", f"{len(tools)} private  locked until load_skill",
                              tuple(f"🔒 {name}" for name, _path in tools), Severity.WARNING))
        else:
            facts.append(Fact("tools", "none private"))
        deps = check_deps(source.frontmatter, which=self._which)
        if deps is not None:
            facts.append(Fact("deps", deps.message, (f"hint: {deps.hint}",) if deps.hint else (), Severity.WARNING))
        return tuple(facts)

    def load_page(self, source: Source, cursor: str | None = None, *, resource: str | None = None) -> LoadedPage:
        """What ``load_skill`` returns for ``source`` (SPEC Z4–Z5: the missing-dependency warning,
        then the extracted instructions), as one page; ``injected`` holds the instructions an
        ``always: true`` skill adds to every prompt. Zhin hands over no resource files (a
        skill's files are its private tools), so ``resource`` is refused."""
        if resource is not None:
            return LoadedPage("", None, True, LOAD_LABEL, error_code="no-resources",
                              error="Zhin's load_skill hands over no files of the skill folder "
                                    "(its tools/ are private tools, unlocked by loading the skill)")
        try:
            text = zhin_read_instructions(source, which=self._which)
        except (OSError, ValueError) as exc:
            return LoadedPage("", None, True, LOAD_LABEL, error=f"cannot load {source.name}: {exc}",
                              error_code="unreadable")
        injected = None
        if always_sources(Generation(0, "", "zhin", self._context.cwd, (), (source,), (), ())):
            try:
                injected = split_zhin_markdown(read_regular(source.location).decode("utf-8", errors="replace"))[1]
            except OSError:
                injected = ""
        return LoadedPage(text, None, True, LOAD_LABEL, pages=1, injected=injected)


class ZhinHost:
    """Zhin (zhinjs/zhin ``packages/im/skill``), SPEC Z."""

    name = "zhin"
    client = "Zhin"
    version = "im/skill"
    lint_target = "zhin"
    labels = HostLabels(catalog="catalog", selected="always", tool_requests=('{"action":"load","name":"pdf"}',))
    features = frozenset({Feature.ALWAYS, Feature.SELECTED_BUDGET})
    native_commands: frozenset[str] = frozenset()

    def slash_note(self, name: str) -> str | None:
        """Zhin has no slash commands a skill could clash with."""
        return None

    def describe(self) -> str:
        """``Zhin (im/skill)``."""
        return f"{self.client} ({self.version})"

    def open(self, context: HostContext) -> ZhinSession:
        """A :class:`ZhinSession` over ``context``."""
        return ZhinSession(context)

    def roots(self, context: HostContext) -> RootPlan:
        """The Z1 roots of every plugin."""
        session = ZhinSession(context)
        roots, warnings = zhin_roots(context.cwd, session.plugin_paths(), home=context.env.home)
        return RootPlan(tuple(roots), tuple(warnings))

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """Zhin's parser on one file (its folder name is the runtime name)."""
        name = os.path.basename(os.path.dirname(location))
        if data is None:
            reason = f"failed to read skill {location}: {error or 'unreadable'}"
            return Verdict(False, reason=reason, diagnostics=(Diagnostic(Severity.ERROR, "unreadable", reason),))
        text = data.decode("utf-8", errors="replace")
        try:
            skill = parse_zhin_markdown(text, local_name=name, source=location)
        except ZhinSkillError as exc:
            return Verdict(False, reason=str(exc), diagnostics=(exc.diagnostic(location),))
        return Verdict(True, name=skill.name, description=skill.description, frontmatter=skill.metadata)

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Unchanged: Zhin names skills by folder, one per folder."""
        return tuple(sources)

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """Zhin's ``load_skill`` (:class:`.load.ZhinLoadTool`) over the live ``catalog``."""
        return ZhinLoadTool(catalog)


#: The registered instance.
ZHIN = ZhinHost()
