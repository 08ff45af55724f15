"""The skills section opencode 1.18.33 appends, last, to the system prompt — byte for byte.

::

    Skills provide specialized instructions and workflows for specific tasks.
    Use the skill tool to load a skill when a task matches its description.
    <available_skills>
      <skill>
        <name>NAME</name>
        <description>DESCRIPTION</description>
        <location>LOCATION</location>
      </skill>
      …
    </available_skills>

One entry per name (the copy that won the race; the built-in unless a file took its name),
sorted with ``String.prototype.localeCompare`` (ICU root collation, en-US: case- and
accent-insensitive first, punctuation not ignored, digits not numeric — :func:`collation_key`,
``pyuca``), skills whose name the ``skill`` permission denies left out, then skills without a
``description`` key left out. Only the location is escaped (``& < > " '``); name and
description go in raw, line breaks included. No per-entry cap and no total budget. When no
skill remains the block is ``No skills are currently available.``; when the ``skill``
permission is denied for every name the whole section is absent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from skillshelf.core.hosts.jsorder import keyer, uca_collator

__all__ = ["EMPTY", "HEADER", "Entry", "collation_key", "escape_location", "render", "sort_entries"]

#: The section's first two lines.
HEADER = ("Skills provide specialized instructions and workflows for specific tasks.\n"
          "Use the skill tool to load a skill when a task matches its description.")
#: The block when no skill is shown.
EMPTY = "No skills are currently available."


@dataclass(frozen=True)
class Entry:
    """One skill as the section prints it: ``location`` as opencode holds it (``<built-in>``)."""

    name: str
    description: str
    location: str


def _collator() -> Any:
    return uca_collator()


@lru_cache(maxsize=16_384)
def collation_key(name: str) -> tuple[int, ...]:
    """A sort key ordering names as ``a.localeCompare(b)`` does in opencode's runtime."""
    return tuple(_collator().sort_key(name))


def sort_entries(names: Sequence[str]) -> list[int]:
    """Indices of ``names`` in ``localeCompare`` order (stable: equal keys keep their order)."""
    key = keyer(names, collation_key)
    return sorted(range(len(names)), key=lambda i: key(names[i]))


def escape_location(path: str) -> str:
    """opencode's escaping of ``<location>`` (``&`` first, then ``< > " '``)."""
    return (path.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def render(entries: Sequence[Entry]) -> str:
    """The section for ``entries`` (already sorted and filtered), without a final newline."""
    if not entries:
        return HEADER + "\n" + EMPTY
    lines = ["<available_skills>"]
    for e in entries:
        lines += ["  <skill>", f"    <name>{e.name}</name>", f"    <description>{e.description}</description>",
                  f"    <location>{escape_location(e.location)}</location>", "  </skill>"]
    lines.append("</available_skills>")
    return HEADER + "\n" + "\n".join(lines)
