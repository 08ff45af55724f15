"""Host ``zuno``: the Zuno coding agent's skill catalog as Zuno 0.10.3's code behaves (SPEC D,
K, E, P, L, H, R, corrected by ``conformance/zuno-from-code.md``).

Modules: :mod:`.roots` (the ordered root list, watch roots, the git-confirmed worktree),
:mod:`.build` (the session that builds and incrementally refreshes generations), :mod:`.prompt`
(the two prompt sections: trigger policy and budgeted index with coverage sentences),
:mod:`.pack` / :mod:`.builtins` (Zuno's own built-in skills, keyed by Zuno version),
:mod:`.installed` (Zuno's texts read from an installed Zuno), :mod:`.natives` (Zuno's native
agents), :mod:`.window` (the configured model's context window), :mod:`.selection` (``$name``,
``/name`` and the bare name), :mod:`.zuno_json` (Zuno's own report shapes). The shared rule
families it uses — frontmatter, sidecars, configuration, render, tool — live in
:mod:`skillshelf.core`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from skillshelf.core.hosts.base import Feature, HostContext, HostLabels, RootPlan, SkillToolLike, ToolCatalog, Verdict
from skillshelf.core.hosts.zuno.pack import PACK_VERSION
from skillshelf.core.model import Diagnostic, Severity, Source

if TYPE_CHECKING:  # the session machinery (configuration, YAML, walks) is imported when first used:
    # naming the host (the TUI's first frame, ``--help``) reads none of it
    from skillshelf.core.hosts.zuno.build import ZunoSession

__all__ = ["ZUNO", "ZunoHost", "ZunoSession"]


class ZunoHost:
    """Zuno 0.10.3 (SPEC D1–D6 and the rest of the seed system).

    Same-name sources are all kept and addressed by locator (visible ambiguity, SPEC D6), so
    :meth:`arbitrate` changes nothing; exposure, ``skills.config`` and sidecars decide what the
    model sees.
    """

    name = "zuno"
    client = "Zuno"
    version = PACK_VERSION
    lint_target = "spec"
    labels = HostLabels(catalog="index", selected="required", selected_unit="bytes", tool_requests=(
        '{"action":"list"}', '{"action":"search","query":"pdf"}', '{"action":"load","name":"pdf"}',
        '{"action":"read_resource","name":"pdf","path":"references/forms.md"}'))
    features = frozenset({Feature.CONFIG, Feature.AGENTS, Feature.REMOTE, Feature.EXPOSURE, Feature.FORMS,
                          Feature.SELECTED_BUDGET, Feature.AMBIGUITY, Feature.NATIVE_REPORTS,
                          Feature.CHECK_AHEAD})
    #: Zuno's own slash commands (``skillshelf.core.resolve.NATIVE_COMMANDS``; spelled there, read
    #: when first asked for: a kept output's proof imports this package and not the resolver)
    @functools.cached_property
    def native_commands(self) -> frozenset[str]:
        """Zuno's own slash commands (SPEC S1)."""
        from skillshelf.core.resolve import NATIVE_COMMANDS

        return frozenset(NATIVE_COMMANDS)

    def describe(self) -> str:
        """``Zuno 0.10.3``."""
        return f"{self.client} {self.version}"

    def slash_note(self, name: str) -> str | None:
        """``/plan`` stays Zuno's own command (SPEC S1): the skill is reached as ``$plan``."""
        if f"/{name}" not in self.native_commands:
            return None
        return f"`/{name}` is Zuno's own command, which resolves first: reach this skill as `${name}`, not `/{name}`"

    def open(self, context: HostContext) -> ZunoSession:
        """A :class:`ZunoSession` over ``context`` (with this host's parse cache of it)."""
        from skillshelf.core.hosts.zuno.build import ZunoSession  # (a kept output's proof needs no build)

        return ZunoSession(context, cache=context.parse_cache(self.name, self.version))

    def roots(self, context: HostContext) -> RootPlan:
        """SPEC D1 rows 1–5 for ``context`` (configuration read for ``skills.paths``; remote
        directories come only from a session's pull)."""
        from skillshelf.core.config import load_config
        from skillshelf.core.hosts.zuno.roots import git_worktree, uncovered_folders, zuno_roots

        worktree = git_worktree(context.cwd, context.env)
        config = load_config(cwd=context.cwd, worktree=worktree, home=context.env.home,
                             xdg_config_home=context.env.xdg_config_home, env=context.env.vars,
                             extra_files=context.config_files)
        roots, warnings = zuno_roots(context.env, context.cwd, paths=config.paths + context.paths, worktree=worktree)
        return RootPlan(roots, warnings, uncovered_folders(context.env, context.cwd, roots, worktree=worktree))

    def accept(self, location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
        """SPEC F1–F3 on one file: accepted with its name and description, or the warning."""
        from skillshelf.core.frontmatter import parse_skill_bytes, unreadable_warning  # (YAML when a file is read)

        if data is None:
            warning = unreadable_warning(location, error or "unreadable")
            return Verdict(False, reason=warning.message,
                           diagnostics=(Diagnostic(Severity.ERROR, "unreadable", warning.message),))
        parse = parse_skill_bytes(data, location)
        if parse.warning is not None or parse.name is None:
            reason = parse.warning.message if parse.warning is not None else "no name"
            return Verdict(False, reason=reason, diagnostics=parse.diagnostics, frontmatter=parse.frontmatter)
        return Verdict(True, name=parse.name, description=parse.description, diagnostics=parse.diagnostics,
                       frontmatter=parse.frontmatter,
                       hidden=None if parse.description is not None else "no description")

    def arbitrate(self, sources: Sequence[Source]) -> tuple[Source, ...]:
        """Unchanged: every same-name source stays, ambiguous (SPEC D6)."""
        return tuple(sources)

    def skill_tool(self, catalog: ToolCatalog) -> SkillToolLike | None:
        """Zuno's ``skill`` tool (SPEC L) over the live ``catalog``."""
        from skillshelf.core.tool import SkillTool  # the tool's imports only when a tool is asked for

        return SkillTool(catalog)


#: The registered instance.
ZUNO = ZunoHost()


def __getattr__(name: str) -> Any:
    """``ZunoSession``, imported when first asked for."""
    if name == "ZunoSession":
        from skillshelf.core.hosts.zuno.build import ZunoSession

        return ZunoSession
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
