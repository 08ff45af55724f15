"""The model-visible skills listing of Claude Code 2.1.332, byte for byte, and its budget.

Text: ``The following skills are available for use with the Skill tool:\\n\\n`` then one entry
per listed skill joined by ``\\n`` (no trailing newline); nothing at all when nothing is listed.

Entry: ``- <name part>: <description>``, or ``- <name part>`` when the budget dropped the
description (``- <key>`` always for a ``skillOverrides`` ``name-only`` skill). The name part is
``key (frontmatter name)`` when the shown name differs from the key, the key does not end with
``:<shown>``, the shown name is made of letters, marks, digits and ``_:.-`` (≤ 256), and looking
it up among every command (exact key first, then shown names and aliases; skills in root order,
then the built-in commands) finds this very skill; else just ``key``. The description is
``description`` + `` - when_to_use``, cut to the per-entry cap (UTF-16 units, default 1,536) as
``cap - 1`` units + ``…``.

Budget, in terminal columns (``Bun.stringWidth``): ``H`` = Σ width(full entries) + (n − 1).
``H ≤ budget``: everything is shown in full. Otherwise the *fixed* entries (name-only skills and
the 11 bundled built-ins) keep their lines, every other entry starts name-only, and in order of
usage score (highest first; ties in list order) each one gets its description back when the
extra columns still fit in what is left — greedy, a miss does not stop later, shorter entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillshelf.core.hosts.claude.parse import listing_name_ok
from skillshelf.core.hosts.claude.text import u16len, u16slice

__all__ = ["HEADER", "Command", "Decision", "ListingEntry", "decide", "full_description", "name_part"]

#: The fixed sentence before the entries (66 characters and two newlines).
HEADER = "The following skills are available for use with the Skill tool:\n\n"


@dataclass(frozen=True)
class Command:
    """One command for the name lookup: its ``key``, shown name and aliases."""

    key: str
    shown: str
    aliases: tuple[str, ...] = ()


def _lookup(name: str, commands: Sequence[Command]) -> Command | None:
    for c in commands:
        if c.key == name:
            return c
    for c in commands:
        if c.shown == name or name in c.aliases:
            return c
    return None


def name_part(key: str, shown: str, commands: Sequence[Command]) -> str:
    """``key`` or ``key (shown)`` (module docstring): the lookup of ``shown`` must land on a
    command keyed ``key``."""
    if shown == key or key.endswith(":" + shown) or not listing_name_ok(shown):
        return key
    hit = _lookup(shown, commands)
    if hit is None or hit.key != key:
        return key
    return f"{key} ({shown})"


def full_description(description: str, cap: int) -> tuple[str, bool]:
    """The description as listed and whether the cap cut it."""
    if u16len(description) > cap:
        return u16slice(description, cap - 1) + "\u2026", True
    return description, False


@dataclass(frozen=True)
class ListingEntry:
    """One entry before the budget: ``key``; ``full`` and ``name_only`` lines (``full`` of a
    built-in without known text is a stand-in whose width is ``full_width``); ``fixed`` keeps its
    full line whatever the budget; ``score`` its usage priority."""

    key: str
    full: str
    name_only: str
    full_width: int
    name_width: int
    fixed: bool = False
    score: float = 0.0


@dataclass(frozen=True)
class Decision:
    """The budget's outcome: ``keep[i]`` whether entry ``i`` keeps its full line, ``total`` the
    columns of every full line (``H``), ``used`` the columns of the lines sent, ``over`` H > budget."""

    keep: tuple[bool, ...]
    total: int
    used: int
    over: bool


def decide(entries: Sequence[ListingEntry], budget: float) -> Decision:
    """Apply the budget (module docstring) to ``entries`` in list order."""
    n = len(entries)
    if n == 0:
        return Decision((), 0, 0, False)
    total = sum(e.full_width for e in entries) + (n - 1)
    keep = [True] * n
    over = total > budget
    if over and not all(e.fixed for e in entries):
        base = sum(e.full_width if e.fixed else e.name_width for e in entries) + (n - 1)
        room = budget - base
        order = sorted(range(n), key=lambda i: -entries[i].score)
        for i in order:
            e = entries[i]
            if e.fixed:
                continue
            extra = e.full_width - e.name_width
            if extra <= room:
                room -= extra
            else:
                keep[i] = False
    used = sum(e.full_width if k else e.name_width for e, k in zip(entries, keep)) + (n - 1)
    return Decision(tuple(keep), total, used, over)
