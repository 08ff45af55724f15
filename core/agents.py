"""Agents: which sources an agent sees, its required skills, how a prompt selects a skill
(conformance Z-A; SPEC E4, S2 as corrected in v2).

An agent is described by an :class:`AgentSetup` (a host builds it: Zuno's native agents come
with their own required skills and permission overlays; configuration adds to them). There is
no ``profile`` setting: **the agent's name is its profile**. A built-in is visible to an agent
when that name is one of the built-in's profiles, every tool it requires is in the agent's
explicit ``tools`` list (when there is one), and no permission rule hides one of them
(``builtin.rs`` ``visible_to``). Any other source is visible to every agent (Z237). Selecting a
skill never widens an agent's tools: this module only removes sources.

Permission rules are evaluated the way Zuno's permission crate does for tool visibility: the
*last* rule whose permission name matches the tool decides; a tool is hidden when that rule
denies it for every pattern (``*``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from skillshelf.core.model import Exposure, Source

__all__ = [
    "AgentSetup",
    "PermissionRule",
    "RequiredOutcome",
    "agent_view",
    "bare_mention",
    "dollar_mention",
    "is_builtin",
    "preloaded_by_prompt",
    "required_ambiguous_message",
    "required_unavailable_message",
    "resolve_required_skills",
    "tool_hidden",
    "visible_to",
]

#: Locator scheme of built-in skills.
BUILTIN_SCHEME = "builtin://"

_S = TypeVar("_S", bound=Source)


@dataclass(frozen=True)
class PermissionRule:
    """One permission rule: ``permission`` (a tool name or a ``*`` wildcard), ``pattern`` (``*``
    for the whole tool) and ``action`` (``allow``, ``deny`` or ``ask``); ``origin`` says where it
    came from (``native overlay of plan``, a configuration file)."""

    permission: str
    action: str
    pattern: str = "*"
    origin: str = ""


def tool_hidden(tool: str, rules: Sequence[PermissionRule]) -> bool:
    """Whether ``rules`` hide ``tool`` from the model: the last rule whose permission matches
    ``tool`` (``*`` wildcards allowed) denies it for pattern ``*``. No matching rule: visible."""
    for rule in reversed(rules):
        if fnmatch.fnmatchcase(tool, rule.permission):
            return rule.action == "deny" and rule.pattern == "*"
    return False


@dataclass(frozen=True)
class AgentSetup:
    """Everything that decides what one agent sees (conformance Z-A).

    ``native``: one of the host's own agents; ``configured``: an ``agents.<name>`` entry exists.
    ``required_skills``: names preloaded on every turn (configuration replaces a native's own
    list); ``tools``: the explicit tool allowlist (``None`` = no list, no restriction);
    ``rules``: permission rules in evaluation order (native overlay, then configuration);
    ``model``: the agent's own ``provider/model`` when configured. ``notes``: what the host
    wants said about this agent (a ``profile`` key Zuno ignores …).
    """

    name: str
    native: bool = False
    configured: bool = False
    required_skills: tuple[str, ...] = ()
    tools: tuple[str, ...] | None = None
    rules: tuple[PermissionRule, ...] = ()
    model: str | None = None
    notes: tuple[str, ...] = ()

    def tool_visible(self, tool: str) -> bool:
        """Whether ``tool`` reaches the model for this agent (allowlist and rules)."""
        if self.tools is not None and tool not in self.tools:
            return False
        return not tool_hidden(tool, self.rules)


def is_builtin(location: str) -> bool:
    """True when ``location`` is a built-in locator (``builtin://…``)."""
    return location.startswith(BUILTIN_SCHEME)


def visible_to(source: Source, agent: AgentSetup | None) -> bool:
    """Whether ``agent`` can see ``source`` (Zuno ``visible_to``). ``agent`` ``None`` (no agent
    view) sees everything; non-built-ins are always visible; a built-in needs the agent's name
    among its profiles (``builtin_profiles`` ``None``: every agent) and each of its
    ``builtin_tools`` visible to the agent."""
    if agent is None or not is_builtin(source.location):
        return True
    allowed = source.builtin_profiles
    if allowed is not None and agent.name not in allowed:
        return False
    return all(agent.tool_visible(tool) for tool in source.builtin_tools)


def agent_view(sources: Iterable[_S], agent: AgentSetup | None) -> tuple[_S, ...]:
    """The sources ``agent`` can see, in the given (catalog) order."""
    if agent is None:
        return tuple(sources)
    # (visible_to, with its first test spelled out: 10,000 file-backed sources, no call each)
    return tuple(s for s in sources if not s.location.startswith(BUILTIN_SCHEME) or visible_to(s, agent))


# --------------------------------------------------------------------------- requiredSkills


def required_unavailable_message(agent: str, name: str) -> str:
    """Zuno's text for a required name no visible source declares."""
    return f"agents.{agent}.requiredSkills references unavailable Skill `{name}` after Agent visibility filtering"


def required_ambiguous_message(agent: str, name: str, locations: Sequence[str]) -> str:
    """Zuno's text for a required name several visible sources declare."""
    sources = ", ".join(f"`{loc}`" for loc in locations)
    return f"agents.{agent}.requiredSkills references ambiguous Skill `{name}`; matching sources: {sources}"


@dataclass(frozen=True)
class RequiredOutcome:
    """``requiredSkills`` resolved over an agent's visible sources (conformance Z-A).

    ``resolved``: ``(name, source)`` for each name that matched exactly one source, in order;
    ``failures``: ``(name, Zuno's text)`` for the others, in order. Zuno stops at the first
    failure (:attr:`refusal`); the later names are still checked here so the view can show them.
    """

    resolved: tuple[tuple[str, Source], ...]
    failures: tuple[tuple[str, str], ...]

    @property
    def refusal(self) -> str | None:
        """The text Zuno stops with (the first failure), else ``None``."""
        return self.failures[0][1] if self.failures else None


def resolve_required_skills(agent: str, names: Sequence[str], visible: Sequence[Source]) -> RequiredOutcome:
    """Resolve ``names`` over the enabled sources ``agent`` sees (any exposure: a required skill
    is an explicit reference), the way Zuno's ``resolve_required_skill_identities`` does."""
    resolved: list[tuple[str, Source]] = []
    failures: list[tuple[str, str]] = []
    for name in names:
        matches = [s for s in visible if s.name == name]
        if not matches:
            failures.append((name, required_unavailable_message(agent, name)))
        elif len(matches) == 1:
            resolved.append((name, matches[0]))
        else:
            failures.append((name, required_ambiguous_message(agent, name, [s.location for s in matches])))
    return RequiredOutcome(tuple(resolved), tuple(failures))


# --------------------------------------------------------------------------- prompt mentions

_IDENTIFIER_EXTRA = frozenset("-_.:/")


def _identifier_char(ch: str) -> bool:
    return (ch.isascii() and ch.isalnum()) or ch in _IDENTIFIER_EXTRA


def _mention(prompt: str, marker: str) -> int | None:
    if not marker:
        return None
    start = prompt.find(marker)
    while start >= 0:
        before = prompt[start - 1] if start > 0 else ""
        end = start + len(marker)
        after = prompt[end] if end < len(prompt) else ""
        if not (before and _identifier_char(before)) and not (after and _identifier_char(after)):
            return start
        start = prompt.find(marker, start + 1)
    return None


def bare_mention(prompt: str, name: str) -> int | None:
    """Offset of the first mention of ``name`` in ``prompt`` bounded on both sides by characters
    outside ``[A-Za-z0-9-_.:/]`` (or the ends), else ``None`` (Zuno ``first_explicit_skill_mention``)."""
    return _mention(prompt, name)


def dollar_mention(prompt: str, name: str) -> int | None:
    """Offset of the first ``$name`` in ``prompt`` bounded the same way, else ``None``."""
    return _mention(prompt, "$" + name) if name else None


def preloaded_by_prompt(prompt: str, visible: Sequence[Source]) -> tuple[Source, ...]:
    """The sources a user prompt preloads (Zuno ``preload_explicit_skills``): each name mentioned
    bare (``$name`` for explicit-only skills), in order of first mention, when exactly one
    visible source declares it."""
    mentioned: list[tuple[int, str]] = []
    for s in visible:
        at = dollar_mention(prompt, s.name) if s.exposure is Exposure.EXPLICIT else bare_mention(prompt, s.name)
        if at is not None:
            mentioned.append((at, s.name))
    mentioned.sort()
    out: list[Source] = []
    seen: set[str] = set()
    for _, name in mentioned:
        if name in seen:
            continue
        seen.add(name)
        matches = [s for s in visible if s.name == name]
        if len(matches) == 1:
            out.append(matches[0])
    return tuple(out)
