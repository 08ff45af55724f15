"""Host ``zuno``: the three ways a prompt selects a skill, for the source pane (conformance Z-A,
SPEC S1).

- ``$name``: preloads the one source of that name (explicit-only skills included);
- ``/name``: runs it as a slash command when the name is unambiguous, described and not a
  native command (native commands resolve first);
- the bare name in a prompt, bounded by characters outside ``[A-Za-z0-9-_.:/]``: preloads it
  when the name is unambiguous and the skill is not explicit-only (Zuno
  ``preload_explicit_skills``).

Ambiguity is counted over the enabled sources, as Zuno's ``named`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillshelf.core.hosts.base import Fact
from skillshelf.core.model import Exposure, Severity, Source
from skillshelf.core.resolve import NATIVE_COMMANDS

__all__ = ["selection_facts"]


def selection_facts(source: Source, sources: Sequence[Source]) -> tuple[Fact, ...]:
    """One :class:`Fact` ``select`` listing ``$name``, ``/name`` and the bare name, each with
    what it does for ``source`` (never raises)."""
    if not source.enabled:
        return (Fact("select", "disabled by skills.config: no prompt selects it", severity=Severity.WARNING),)
    name = source.name
    same = [s for s in sources if s.enabled and s.name == name]
    ambiguous = len(same) > 1
    lines: list[str] = []
    if ambiguous:
        lines.append(f"${name}  not preloaded: {len(same)} sources declare `{name}`; the skill tool needs the "
                     "exact source")
    else:
        lines.append(f"${name}  preloads this skill")
    command = "/" + name
    if command in NATIVE_COMMANDS:
        lines.append(f"{command}  Zuno's native command, never this skill")
    elif ambiguous:
        lines.append(f"{command}  disabled: the name is ambiguous")
    elif not source.described:
        lines.append(f"{command}  not offered: the skill has no description")
    else:
        lines.append(f"{command}  runs this skill")
    if source.exposure is Exposure.EXPLICIT:
        lines.append(f"{name} (in a prompt)  no effect: explicit-only skills need ${name}")
    elif ambiguous:
        lines.append(f"{name} (in a prompt)  no effect: the name is ambiguous")
    else:
        lines.append(f"{name} (in a prompt)  preloads this skill when the word stands alone")
    usable = sum(1 for line in lines if "preloads" in line or "runs this" in line)
    value = f"{usable} of 3 ways select it" if usable else "no prompt selects it by name"
    return (Fact("select", value, tuple(lines), Severity.WARNING if ambiguous else None),)
