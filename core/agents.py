"""Agent views: which sources an agent configured under ``agents.<name>`` can see (SPEC E4, K2).

Only built-in skills are filtered. A built-in (locator ``builtin://…``) may declare the profiles
allowed to use it and the tools it requires; it is hidden from an agent whose ``profile`` is not
among the allowed ones, or whose explicit ``tools`` list lacks any required tool. External
(file-backed or remote) skills are never filtered by this rule (Z237). Selecting a skill never
widens an agent's tools: this module only ever removes sources.

Unset agent settings do not restrict: ``profile`` ``None`` skips the profile check, ``tools``
``None`` means "no explicit tool list" (Z234's "no tool restriction"). An explicit empty tool list
does restrict (Z235: an incomplete explicit list hides the skill).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Literal, TypeVar

from skillshelf.core.config import AgentConfig
from skillshelf.core.model import SkillEntry, Source

#: Locator scheme of built-in skills (SPEC B1).
BUILTIN_SCHEME = "builtin://"

class _Unset(enum.Enum):
    UNSET = enum.auto()


_UNSET = _Unset.UNSET
_S = TypeVar("_S", Source, SkillEntry)


def is_builtin(location: str) -> bool:
    """True when ``location`` is a built-in locator (``builtin://…``)."""
    return location.startswith(BUILTIN_SCHEME)


def visible_to(source_or_entry: Source | SkillEntry, agent: AgentConfig | None,
               builtin_profiles: tuple[str, ...] | Literal[_Unset.UNSET] | None = _UNSET,
               builtin_tools: tuple[str, ...] | Literal[_Unset.UNSET] = _UNSET) -> bool:
    """Whether ``agent`` can see ``source_or_entry`` (SPEC E4).

    ``builtin_profiles``: the profiles allowed to use the built-in (``None`` = any profile);
    ``builtin_tools``: the tools it requires. When omitted they are taken from a
    :class:`~skillshelf.core.model.Source` (``builtin_profiles`` / ``builtin_tools``); a
    :class:`~skillshelf.core.model.SkillEntry` has none, so pass them explicitly.
    ``agent`` ``None`` (no agent view selected) sees everything. Non-built-in sources are always
    visible (Z237).
    """
    if agent is None or not is_builtin(source_or_entry.location):
        return True
    source = source_or_entry if isinstance(source_or_entry, Source) else None
    if builtin_profiles is _UNSET:
        builtin_profiles = source.builtin_profiles if source is not None else None
    if builtin_tools is _UNSET:
        builtin_tools = source.builtin_tools if source is not None else ()
    if builtin_profiles is not None and agent.profile is not None and agent.profile not in builtin_profiles:
        return False
    if agent.tools is not None:
        have = set(agent.tools)
        if any(tool not in have for tool in builtin_tools):
            return False
    return True


def agent_view(sources: Iterable[_S], agent: AgentConfig | None) -> tuple[_S, ...]:
    """The sources ``agent`` can see, in the given (catalog) order (SPEC E4).

    For :class:`~skillshelf.core.model.Source` items the built-in metadata comes from each
    source; :class:`~skillshelf.core.model.SkillEntry` items are never filtered (they carry no
    built-in metadata), so filter Sources before converting them to entries.
    """
    return tuple(s for s in sources if visible_to(s, agent))
