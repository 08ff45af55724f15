"""Zhin dependencies, private tools and always-on skills (SPEC Z5; zhin-scenarios §2, H003, H006).

- Dependencies: only the list ``compatibility.deps`` is read; each non-blank string entry is
  looked up on PATH (``shutil.which`` — no shell, nothing executed; Zhin runs ``which <dep>``);
  other entries are skipped. The missing ones give **one** warning whose text is Zhin's:
  ``⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能：`` + names joined by ``, ``.
- Private tools: every directory ``tools/<tool>/`` inside a skill whose name matches
  ``^[a-z0-9][a-z0-9-]*$``, sorted by name, is a tool only that skill unlocks. Qualified names:
  ``skill__<skill>__<tool>`` (plugin skill) or ``agent__<agent>__skill__<skill>__<tool>``
  (agent-private skill). They stay locked (hidden from the model) until the skill is loaded.
- ``always: true`` skills are injected into every prompt, so their instructions count against
  the selected-body budget (SPEC U2–U3) on every request.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from skillshelf.core.budget import SelectedBody
from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.zhin.markdown import split_zhin_markdown
from skillshelf.core.model import Diagnostic, Generation, Provenance, Severity, Source
from skillshelf.core.tokens import approx_tokens

__all__ = [
    "DEPENDENCY_WARNING_PREFIX",
    "always_bodies",
    "always_sources",
    "check_deps",
    "declared_deps",
    "dependency_warning_text",
    "missing_deps",
    "private_tool_names",
    "private_tools",
    "qualified_tool_name",
    "skill_agent",
]

#: Zhin's dependency warning prefix (``⚠️`` = U+26A0 U+FE0F, full-width colon).
DEPENDENCY_WARNING_PREFIX = "⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能："

_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


def declared_deps(frontmatter: Any) -> list[str]:
    """The ``compatibility.deps`` entries Zhin checks: non-blank strings, in order, as written.

    Anything that is not a mapping with a list ``compatibility.deps`` gives ``[]``; non-string
    and blank entries are skipped (Zhin skips them too).
    """
    if not isinstance(frontmatter, Mapping):
        return []
    comp = frontmatter.get("compatibility")
    if not isinstance(comp, Mapping):
        return []
    deps = comp.get("deps")
    if not isinstance(deps, list):
        return []
    return [d for d in deps if isinstance(d, str) and d.strip()]


def missing_deps(deps: Iterable[str], *, which: Callable[[str], str | None] | None = None,
                 path: str | None = None) -> list[str]:
    """The entries of ``deps`` not found as executables, in order.

    ``which`` defaults to :func:`shutil.which` with ``path`` (``None`` = the process PATH). A
    name holding a NUL or otherwise refused by the lookup counts as missing. Never runs anything.
    """
    out = []
    for dep in deps:
        try:
            found = which(dep) if which is not None else shutil.which(dep, path=path)
        except (OSError, ValueError):
            found = None
        if not found:
            out.append(dep)
    return out


def dependency_warning_text(missing: Sequence[str]) -> str:
    """Zhin's warning line for ``missing`` names, or ``""`` when nothing is missing."""
    return DEPENDENCY_WARNING_PREFIX + ", ".join(missing) if missing else ""


def check_deps(frontmatter: Any, *, which: Callable[[str], str | None] | None = None,
               path: str | None = None) -> Diagnostic | None:
    """SPEC Z5: one warning ``missing-deps`` (field ``compatibility``) naming every declared
    dependency that is not on PATH, with Zhin's exact text as message; ``None`` when all are
    found or none are declared. ``which``/``path`` as in :func:`missing_deps`."""
    missing = missing_deps(declared_deps(frontmatter), which=which, path=path)
    if not missing:
        return None
    return Diagnostic(
        Severity.WARNING,
        "missing-deps",
        dependency_warning_text(missing),
        field="compatibility",
        hint="install " + ", ".join(missing) + " or put them on PATH; Zhin prefixes this warning to the loaded instructions",
    )


def skill_agent(source: Source) -> str | None:
    """The agent owning an agent-private skill (``.../agents/<agent>/skills/<skill>/SKILL.md``,
    provenance ``zhin-agent``), else ``None``."""
    if source.provenance is not Provenance.ZHIN_AGENT:
        return None
    parts = source.location.replace("\\", "/").split("/")
    if len(parts) >= 5 and parts[-3] == "skills" and parts[-5] == "agents":
        return parts[-4]
    return None


def qualified_tool_name(skill: str, tool: str, agent: str | None = None) -> str:
    """``skill__<skill>__<tool>``, or ``agent__<agent>__skill__<skill>__<tool>`` (H003, H006)."""
    if agent:
        return f"agent__{agent}__skill__{skill}__{tool}"
    return f"skill__{skill}__{tool}"


def private_tool_names(skill_dir: str) -> list[str]:
    """Names of the private tool directories of one skill (``tools/<tool>/`` with a valid name),
    sorted by code point. Missing or unreadable ``tools/`` gives ``[]``."""
    try:
        entries = list(os.scandir(os.path.join(skill_dir, "tools")))
    except OSError:
        return []
    names = []
    for e in entries:
        try:
            is_dir = e.is_dir()
        except OSError:
            is_dir = False
        if is_dir and _NAME.fullmatch(e.name):
            names.append(e.name)
    return sorted(names)


def private_tools(source: Source) -> list[tuple[str, str]]:
    """``[(qualified_name, tool_directory)]`` for the skill's private tools (SPEC Z5, H003), in
    name order. Agent-private skills use the ``agent__<agent>__skill__…`` form."""
    skill_dir = source.directory
    if not skill_dir:
        return []
    agent = skill_agent(source)
    return [
        (qualified_tool_name(source.name, t, agent), os.path.join(skill_dir, "tools", t))
        for t in private_tool_names(skill_dir)
    ]


def always_sources(generation: Generation) -> tuple[Source, ...]:
    """Enabled sources whose frontmatter says ``always: true`` (boolean), in catalog order.

    Agent-private skills count only when their agent is selected, so they are left out here.
    """
    return tuple(
        s for s in generation.sources
        if s.enabled and s.frontmatter.get("always") is True and s.provenance is not Provenance.ZHIN_AGENT
    )


def always_bodies(generation: Generation, *, read: Callable[[Source], str] | None = None) -> list[SelectedBody]:
    """The ``always: true`` skills as :class:`~skillshelf.core.budget.SelectedBody` records
    (label ``always: <name>``, tokens = the agent's approximation of the injected instructions,
    characters / 4 rounded up), ready for :func:`~skillshelf.core.budget.check_selected` (SPEC
    U3, Z5). ``read`` returns the injected text of a source (default: the Zhin instructions —
    the body after the frontmatter, trimmed; an unreadable file counts 0 tokens and is labelled
    so)."""
    out = []
    for s in always_sources(generation):
        label = f"always: {s.name}"
        try:
            text = read(s) if read is not None else _instructions(s.location)
        except OSError as exc:
            text = ""
            label += f" (unreadable: {exc.strerror or exc})"
        out.append(SelectedBody(label=label, location=s.location, tokens=approx_tokens(text)))
    return out


def _instructions(path: str) -> str:
    text = read_regular(path).decode("utf-8", errors="replace")
    return split_zhin_markdown(text)[1]
