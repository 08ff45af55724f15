"""One workspace seen by several hosts side by side (SPEC N4).

:func:`compare` opens one catalog per host over the same :class:`HostContext` and lines their
generations up by skill file (canonical path): a :class:`Row` per file, a :class:`Cell` per host
saying what that host made of it — listed, description cut or dropped by the budget, omitted by
the budget, shadowed (by which file), in a race (either may win), hidden from the model,
disabled, rejected (why), or not read at all (which roots the client scans instead).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.base import CatalogEntry, EntryState, Host, HostContext
from skillshelf.core.model import Generation, Rejected, Root, Source, Status

__all__ = ["Cell", "CellState", "Comparison", "HostColumn", "Row", "compare", "unread_reason"]


class CellState(str, enum.Enum):
    """What one host made of one skill file."""

    LISTED = "listed"
    CUT = "cut"
    NAME_ONLY = "name-only"
    OMITTED = "omitted"
    SHADOWED = "shadowed"
    RACE = "race"
    HIDDEN = "hidden"
    DISABLED = "disabled"
    REJECTED = "rejected"
    NOT_READ = "not-read"

    @property
    def seen_by_model(self) -> bool:
        """The model sees this skill (possibly with a shortened description)."""
        return self in (CellState.LISTED, CellState.CUT, CellState.NAME_ONLY, CellState.RACE)


@dataclass(frozen=True)
class Cell:
    """One host's verdict on one file: ``name`` and ``description`` as that host lists them
    (``None`` when it does not), ``reason`` in the host's terms, ``by`` the locators of the
    copies that win over (shadowed) or compete with (race) this one."""

    state: CellState
    name: str | None = None
    description: str | None = None
    reason: str = ""
    by: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """``{"state", "name", "description", "reason", "by"}`` (``by``: one locator, a list for
        a race, or ``None``)."""
        by: object = None
        if self.state is CellState.RACE:
            by = list(self.by)
        elif self.by:
            by = self.by[0]
        return {"state": self.state.value, "name": self.name, "description": self.description,
                "reason": self.reason, "by": by}


@dataclass(frozen=True)
class Row:
    """One skill file: ``location`` its canonical path, ``spellings`` every path a host reached
    it by, ``cells`` host name → :class:`Cell` (every compared host)."""

    location: str
    spellings: tuple[str, ...]
    cells: Mapping[str, Cell]

    @property
    def disagree(self) -> bool:
        """The hosts do not all agree on whether and how the model sees this file."""
        return len({(c.state, c.name) for c in self.cells.values()}) > 1


@dataclass(frozen=True)
class HostColumn:
    """One compared host: its name, the client and version emulated, how many files it lists
    to the model, the characters of its catalog and its budget (``None`` = no budget) in
    ``budget_unit`` (the host's own: characters, tokens, columns)."""

    name: str
    client: str
    version: str
    listed: int
    catalog_chars: int
    budget: int | None
    budget_rule: str = ""
    budget_unit: str = "characters"
    #: what the host counts against ``budget``, in ``budget_unit`` (Zuno: the index section only,
    #: not the whole prompt; Claude Code: the listing's columns; Codex: tokens)
    budget_used: int = 0

    def to_json(self) -> dict[str, object]:
        """``{"name", "client", "version", "listed", "catalogChars", "budget", "budgetRule",
        "budgetUnit", "budgetUsed"}``."""
        return {"name": self.name, "client": self.client, "version": self.version, "listed": self.listed,
                "catalogChars": self.catalog_chars, "budget": self.budget, "budgetRule": self.budget_rule,
                "budgetUnit": self.budget_unit, "budgetUsed": self.budget_used}


@dataclass(frozen=True)
class Comparison:
    """Every compared host (in the order given) and every skill file any of them reached."""

    hosts: tuple[HostColumn, ...]
    rows: tuple[Row, ...]
    generations: Mapping[str, Generation] = field(default_factory=dict, compare=False)

    def disagreeing(self) -> tuple[Row, ...]:
        """Rows where the hosts disagree."""
        return tuple(r for r in self.rows if r.disagree)

    def to_json(self) -> dict[str, object]:
        """``{"hosts": [...], "rows": [{"location", "cells": {host: cell}}]}`` (SPEC N4)."""
        return {
            "hosts": [h.to_json() for h in self.hosts],
            "rows": [{"location": r.location, "cells": {n: c.to_json() for n, c in r.cells.items()}}
                     for r in self.rows],
        }


def _relative_parts(path: str, base: str) -> list[str]:
    rest = os.path.relpath(path, base)
    return [] if rest == "." else rest.split("/")


class _Unread:
    """:func:`unread_reason` for one host's roots, with what every call shares computed once."""

    def __init__(self, host: Host, roots: Sequence[Root]) -> None:
        self.client = host.describe()
        self.roots = [(root, os.path.normpath(root.scan_dir)) for root in roots]
        kinds = list(dict.fromkeys(r.label or r.scan_dir for r in roots if not r.unread))
        self.shown = ", ".join(kinds[:6]) + (", …" if len(kinds) > 6 else "") if kinds else ""

    def __call__(self, spellings: Sequence[str]) -> str:
        client = self.client
        for spelled in spellings:
            path = os.path.normpath(spelled)
            for root, base in self.roots:
                if not path.startswith(base + "/") and not (base == "/" and path != "/"):
                    continue
                if root.unread:
                    return root.unread
                parts = _relative_parts(os.path.dirname(path), base)
                where = root.label or root.scan_dir
                if any(p.startswith(".") for p in parts) and not root.dot:
                    return f"in a dot folder below {where}; {client} skips dot folders there"
                skipped = [p for p in parts if root.skips(p)]
                if skipped:
                    return f"inside {skipped[0]}/ below {where}; {client} does not look there"
                if not root.depth_allowed(len(parts)):
                    pattern = root.to_json()["pattern"]
                    return f"{len(parts)} folder level(s) below {where}; {client} reads {pattern} there"
                if os.path.islink(spelled) and not root.file_links:
                    return f"SKILL.md is a symlink; {client} ignores symlinked SKILL.md files"
                return f"below {where}, but {client} does not descend into another skill's folder"
        folder = os.path.dirname(os.path.dirname(spellings[0])) if spellings else ""
        return f"{client} does not read {folder} (it reads {self.shown})" if self.shown else f"{client} reads no folder here"


def unread_reason(host: Host, roots: Sequence[Root], spellings: Sequence[str]) -> str:
    """Why ``host`` never read a ``SKILL.md`` known by ``spellings``, from its ``roots`` rules:
    the first root whose scan directory contains a spelling explains what excluded it (a dot
    folder, a skipped folder name, the depth, a symlinked file, or why the client does not read
    that root here — ``Root.unread``); else the folders it reads."""
    return _Unread(host, roots)(spellings)


def _catalog_cell(source: Source, entry: CatalogEntry | None) -> Cell:
    if entry is None or entry.state is EntryState.LISTED:
        return Cell(CellState.LISTED, source.name, entry.shown if entry and entry.shown is not None
                    else source.catalog_description)
    state = {EntryState.CUT: CellState.CUT, EntryState.NAME_ONLY: CellState.NAME_ONLY,
             EntryState.OMITTED: CellState.OMITTED, EntryState.HIDDEN: CellState.HIDDEN}[entry.state]
    # a hidden skill is still listed (to the user) with its description; cut: as shown, dropped: none
    shown = source.catalog_description if state is CellState.HIDDEN else entry.shown
    return Cell(state, source.name, shown, entry.note)


def _source_cell(source: Source, entry: CatalogEntry | None, canon: Mapping[str, str]) -> Cell:
    by = tuple(canon.get(b, b) for b in source.shadowed_by)
    if source.status is Status.SHADOWED:
        return Cell(CellState.SHADOWED, source.name, source.catalog_description, source.status_reason or "", by)
    if source.status is Status.RACE:
        return Cell(CellState.RACE, source.name, source.catalog_description,
                    source.status_reason or "either copy may win", by)
    if source.status is Status.HIDDEN:
        return Cell(CellState.HIDDEN, source.name, source.catalog_description, source.status_reason or "")
    if source.status is Status.DISABLED:
        return Cell(CellState.DISABLED, source.name, source.catalog_description, source.disabled_reason or "")
    return _catalog_cell(source, entry)


def compare(context: HostContext, hosts: Sequence[Host]) -> Comparison:
    """Open ``context`` under every host in ``hosts`` and line the results up by file.

    Rows are in first-seen order (hosts in the order given, each host's sources then its
    rejected files). Never raises for bad skills or configuration (each catalog turns them
    into diagnostics)."""
    generations: dict[str, Generation] = {}
    columns: list[HostColumn] = []
    per_host: list[tuple[Host, Generation, dict[str, Source], dict[str, Rejected], dict[str, CatalogEntry]]] = []
    order: dict[str, list[str]] = {}
    for host in hosts:
        cat = Catalog.from_context(host, context)
        gen = cat.current
        generations[host.name] = gen
        shown = cat.model_catalog()
        entries = {e.location: e for e in shown.entries}
        # a host sending several sections (Zuno) budgets one of them; others count in their own unit
        counted = shown.used if shown.unit != "characters" or shown.sections else len(shown.text)
        columns.append(HostColumn(host.name, host.client, host.version, shown.listed, len(shown.text),
                                  shown.budget, shown.budget_rule, shown.unit, counted))
        by_canon: dict[str, Source] = {}
        rejected: dict[str, Rejected] = {}
        for s in gen.sources:
            by_canon.setdefault(s.canonical, s)
            spell = order.setdefault(s.canonical, [])
            for loc in (s.location, *s.aliases):
                if loc not in spell:
                    spell.append(loc)
        for r in gen.rejected:
            rejected.setdefault(r.canonical, r)
            spell = order.setdefault(r.canonical, [])
            for loc in (r.location, *r.aliases):
                if loc not in spell:
                    spell.append(loc)
        per_host.append((host, gen, by_canon, rejected, entries))
    rows: list[Row] = []
    unread: dict[str, _Unread] = {}
    canon_of: dict[str, str] = {}
    for _, gen, *_rest in per_host:
        for s in gen.sources:
            canon_of[s.location] = s.canonical
    for location, spellings in order.items():
        if location.startswith("builtin://") or not os.path.isabs(location):
            continue
        cells: dict[str, Cell] = {}
        for host, gen, by_canon, rejected, entries in per_host:
            src = by_canon.get(location)
            if src is not None:
                cells[host.name] = _source_cell(src, entries.get(src.location), canon_of)
            elif location in rejected:
                cells[host.name] = Cell(CellState.REJECTED, reason=rejected[location].reason)
            else:
                why = unread.get(host.name)
                if why is None:
                    why = unread[host.name] = _Unread(host, gen.roots)
                cells[host.name] = Cell(CellState.NOT_READ, reason=why(spellings))
        rows.append(Row(location, tuple(spellings), cells))
    return Comparison(tuple(columns), tuple(rows), generations)
