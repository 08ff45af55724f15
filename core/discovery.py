"""Ordered roots → matches, de-duplicated by canonical path (SPEC D1–D6).

:func:`discover` scans each root (a :class:`~skillshelf.core.model.Root`, built by a host
module such as :mod:`skillshelf.core.hosts.zuno`) in the order given and folds the results:
the identity of a ``SKILL.md`` is its canonical, symlink-resolved path (SPEC D5); the first
spelling and provenance that reach it win, later spellings become ``aliases``. Names are not
looked at here at all (SPEC D6: same-name sources are all kept — the catalog reads names).

:func:`uncovered_folders` is the browser-only hint of SPEC D2: ``SKILL.md`` files sitting in
a well-known folder of another product (or a legacy Zuno place) that no root covers.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from skillshelf.core.model import CatalogWarning, Diagnostic, Provenance, Root, Severity, fast_init
from skillshelf.core.paths import (
    AUTO_WORKTREE,
    Environment,
    WorktreeArg,
    canonical,
    is_within,
    project_walk,
    resolve_worktree,
)
from skillshelf.core.scan import ScanResult, scan

__all__ = [
    "HOME_HINT_FOLDERS",
    "PROJECT_HINT_FOLDERS",
    "Discovery",
    "Match",
    "discover",
    "uncovered_folders",
]


@fast_init
@dataclass(frozen=True)
class Match:
    """One discovered ``SKILL.md`` (SPEC D4, D5).

    ``location``: absolute path as first reached — the locator. ``canonical``: its
    symlink-resolved path — the identity. ``provenance`` / ``root``: the root that reached it
    first. ``aliases``: every later, different spelling of the same canonical file (through a
    later root or a symlink alias), in discovery order, without repeats.
    """

    location: str
    canonical: str
    provenance: Provenance
    root: Root
    aliases: tuple[str, ...] = ()

    @property
    def directory(self) -> str:
        """The skill directory: the parent of ``location`` (as spelled)."""
        return self.location.rsplit("/", 1)[0] or "/"


@dataclass(frozen=True)
class Discovery:
    """The outcome of :func:`discover`.

    ``roots``: the roots scanned, in order. ``matches``: in discovery order (roots in order,
    each root's matches in path order). ``warnings``: catalog warnings in order — those passed
    in (for instance ``PathNotFound`` from building the roots) first, then each root's scan
    warnings (``unreadable``, ``symlink-loop``, ``broken-symlink``, ``not-a-file``) in root
    order. ``diagnostics``: browser-only hints (info ``uncovered-folder``, SPEC D2). ``scans``:
    each root's :class:`~skillshelf.core.scan.ScanResult`, parallel to ``roots`` (what an
    incremental rebuild patches).
    """

    roots: tuple[Root, ...]
    matches: tuple[Match, ...]
    warnings: tuple[CatalogWarning, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    scans: tuple[ScanResult, ...] = field(default=(), compare=False, repr=False)

    def dirs(self) -> list[str]:
        """The parent directory of every match, in discovery order, each once (Z009, Z030)."""
        seen: set[str] = set()
        out: list[str] = []
        for match in self.matches:
            parent = match.directory
            if parent not in seen:
                seen.add(parent)
                out.append(parent)
        return out

    def locations(self) -> list[str]:
        """Every match's locator, in discovery order."""
        return [m.location for m in self.matches]


def discover(
    roots: Sequence[Root],
    *,
    warnings: Sequence[CatalogWarning] = (),
    diagnostics: Sequence[Diagnostic] = (),
    scans: Sequence[ScanResult] | None = None,
    reuse: Mapping[str, Match] | None = None,
) -> Discovery:
    """Scan ``roots`` in order and de-duplicate by canonical path (SPEC D1, D4, D5): the one
    discovery every host catalog runs.

    Each root's :attr:`~skillshelf.core.model.Root.scan_dir` is scanned with its ``dot``
    rule; a missing one is silent (its ``exists`` flag is informational only, so a root that
    appeared since the list was built is still scanned). ``scans`` (parallel to ``roots``)
    replaces the scanning when an incremental rebuild already patched them. ``reuse``
    (canonical → previous match) lets an unchanged match keep its object (same locator, same
    root object, same aliases), so an incremental build can skip it cheaply. ``warnings``
    (root-building warnings such as ``PathNotFound``) and ``diagnostics`` are carried into the
    result, ahead of scan warnings. Never raises for file-system problems.

    The fold: the identity of a ``SKILL.md`` is its canonical path; the first spelling and
    provenance that reach it win, a later, different spelling becomes an alias.
    """
    done = tuple(scans) if scans is not None else tuple(scan(root.scan_dir, dot=root.dot) for root in roots)
    order: list[str] = []  # canonical paths in discovery order
    first: dict[str, tuple[str, Root]] = {}
    aliases: dict[str, list[str]] = {}
    scan_warnings: list[CatalogWarning] = []
    for root, result in zip(roots, done, strict=True):
        scan_warnings.extend(result.warnings)
        for location, canon in zip(result.matches, result.canonicals, strict=True):
            known = first.get(canon)
            if known is None:
                first[canon] = (location, root)
                aliases[canon] = []
                order.append(canon)
            elif location != known[0] and location not in aliases[canon]:
                aliases[canon].append(location)
    matches: list[Match] = []
    for c in order:
        location, root = first[c]
        also = tuple(aliases[c])
        hit = reuse.get(c) if reuse else None
        if hit is not None and hit.location == location and hit.root is root and hit.aliases == also:
            matches.append(hit)
            continue
        # a file reached by its real path (most are) keeps one string for both: every source and
        # every kept parse holds it, so a second equal copy would cost ~100 bytes a skill
        matches.append(Match(location=location, canonical=location if c == location else c,
                             provenance=root.provenance, root=root, aliases=also))
    return Discovery(tuple(roots), tuple(matches), tuple(warnings) + tuple(scan_warnings), tuple(diagnostics),
                     done)


# ---- SPEC D2: uncovered well-known folders -------------------------------------------------

#: Folders looked for in every directory of the project walk (cwd up to the worktree).
#: ``.zuno/skill`` and ``.agents/skills`` are the real roots; they are listed so that a hint
#: appears when a switch (``ZUNO_DISABLE_PROJECT_CONFIG`` / ``ZUNO_DISABLE_EXTERNAL_SKILLS``)
#: removed them.
PROJECT_HINT_FOLDERS: tuple[str, ...] = (
    ".zuno/skill",
    ".zuno/skills",
    ".agents/skills",
    ".agents/skill",
    ".claude/skills",
    ".opencode/skill",
    ".opencode/skills",
    ".codex/skills",
    ".github/skills",
    ".gemini/skills",
    ".cursor/skills",
)

#: Folders looked for under the home directory (``~`` = ``Environment.home``) and, for the
#: ``$XDG_CONFIG_HOME`` ones, under the configured XDG directory.
HOME_HINT_FOLDERS: tuple[str, ...] = (
    "~/.agents/skills",
    "~/.agents/skill",
    "~/.zuno/skill",
    "~/.zuno/skills",
    "~/.claude/skills",
    "~/.codex/skills",
    "~/.opencode/skill",
    "~/.opencode/skills",
    "~/.gemini/skills",
    "~/.cursor/skills",
    "$XDG_CONFIG_HOME/zuno/skill",
    "$XDG_CONFIG_HOME/zuno/skills",
    "$XDG_CONFIG_HOME/opencode/skill",
    "$XDG_CONFIG_HOME/opencode/skills",
)


def _covered(path: str, roots: Sequence[Root], path_canon: str) -> bool:
    """True when some root's scan would walk into ``path`` (component-wise, dot rule too)."""
    for root in roots:
        base = root.scan_dir
        for spelled, base_spelled in ((path, base), (path_canon, canonical(base))):
            if is_within(spelled, base_spelled):
                rest = os.path.relpath(spelled, base_spelled)
                parts = [] if rest == "." else rest.split("/")
                if root.dot or not any(p.startswith(".") for p in parts):
                    return True
    return False


def _hint_entry(path: str, home: str) -> str:
    if is_within(path, home) and path != home:
        return "~/" + os.path.relpath(path, home)
    return path


def uncovered_folders(env: Environment, cwd: str, roots: Sequence[Root],
                      *, worktree: WorktreeArg = AUTO_WORKTREE) -> tuple[Diagnostic, ...]:
    """Info diagnostics for well-known skill folders that no root covers (SPEC D2).

    Looks only at the exact folders of :data:`PROJECT_HINT_FOLDERS` (in every directory of
    ``project_walk(cwd, worktree)``; ``worktree`` defaults to ``find_worktree(cwd)``) and
    :data:`HOME_HINT_FOLDERS`. For each existing one
    that no root's scan would reach (neither as spelled nor canonically, honouring each
    root's dot rule) and that holds at least one ``SKILL.md`` (scanned with ``dot=False``, as
    a ``skills.paths`` entry would be), one diagnostic: severity info, code
    ``uncovered-folder``, ``path`` = the folder, message naming the count, and ``hint`` = the
    configuration line that would add it, e.g. ``{"skills": {"paths": ["~/.claude/skills"]}}``.
    Order: project folders nearest first, then home folders; each folder once.
    """
    home = os.path.normpath(os.path.abspath(os.path.join(cwd, env.home)))
    xdg = os.path.normpath(os.path.abspath(os.path.join(cwd, env.xdg_config_home)))
    candidates: list[str] = []
    for directory in project_walk(cwd, resolve_worktree(cwd, worktree)):
        for rel in PROJECT_HINT_FOLDERS:
            candidates.append(os.path.join(directory, rel))
    for spec in HOME_HINT_FOLDERS:
        if spec.startswith("~/"):
            candidates.append(os.path.join(home, spec[2:]))
        else:
            candidates.append(os.path.join(xdg, spec.split("/", 1)[1]))
    out: list[Diagnostic] = []
    seen: set[str] = set()
    for folder in candidates:
        if not os.path.isdir(folder):
            continue
        canon = canonical(folder)
        if canon in seen:
            continue
        seen.add(canon)
        if _covered(folder, roots, canon):
            continue
        count = len(scan(folder, dot=False).matches)
        if not count:
            continue
        files = "file" if count == 1 else "files"
        hint = json.dumps({"skills": {"paths": [_hint_entry(folder, home)]}})
        out.append(
            Diagnostic(
                severity=Severity.INFO,
                code="uncovered-folder",
                message=f"{count} SKILL.md {files} in {folder} not covered by any root; "
                        f"add it to skills.paths to load them",
                hint=hint,
                path=folder,
            )
        )
    return tuple(out)
