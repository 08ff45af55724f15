"""Where Gemini CLI looks for skills, which files it matches, and which copy of a name wins.

Roots, in processing order (``SkillManager.discoverSkills``): the bundle's ``builtin`` folder;
``<extension>/skills`` of each active extension; ``homedir()/.gemini/skills``;
``homedir()/.agents/skills``; then, only in a trusted workspace, ``cwd/.gemini/skills`` and
``cwd/.agents/skills``. ``skills.enabled: false`` (or a settings error that stops the client)
means no root is read.

In each root, ``glob(["SKILL.md", "*/SKILL.md"])`` without dot entries or ``node_modules``:
the root's own ``SKILL.md`` first, then one ``<child>/SKILL.md`` per folder or symlink, in
descending byte order of the child's name — but each match is emitted when its ``lstat``
finishes, so the order inside a root is a race. A link to a folder is followed and reported
under the link's path; a ``SKILL.md`` that is a symlink passes whatever it points to (broken
links and links to folders fail when read).

Identity is the sanitised name (case-sensitive). Every later copy replaces the earlier one
(``Map.set``): later roots win, and the name keeps the catalog position where it was first
seen. Two copies of one name in one root race: whichever ``lstat`` finishes last wins, so
either may win — except that the root's own ``SKILL.md`` is always matched first and so always
loses to a child. The same location reached twice replaces itself silently.

Whether a folder holds ``SKILL.md`` is read from its listing (the same answer on a
case-insensitive file system). What the client passes over in silence is reported as
skillshelf's warnings (:mod:`skillshelf.core.unseen`): a near-miss file name (``skill.md`` …) where
a ``SKILL.md`` would be read, and a dot folder holding a ``SKILL.md``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import replace

from skillshelf.core.hosts.gemini.setup import GeminiSetup
from skillshelf.core.model import CatalogWarning, Provenance, Root, Source, Status
from skillshelf.core.unseen import NOT_COUNTED, dot_folder_warning, is_near_miss, near_miss_warning

__all__ = [
    "arbitrate",
    "conflict_line",
    "glob_skill_files",
    "root_plan",
    "trust_hint",
]

SKILL_FILE = "SKILL.md"
_SKIP = ("node_modules",)


def _root(provenance: Provenance, path: str, label: str, unread: str = "") -> Root:
    path = os.path.normpath(path)
    return Root(provenance=provenance, path=path, exists=os.path.isdir(path), min_depth=0, max_depth=1,
                skip=_SKIP, file_links=True, resolve=False, label=label, unread=unread)


def trust_hint(setup: GeminiSetup) -> str:
    """How to make Gemini CLI trust the working directory, in its own terms."""
    return (f"to trust it: choose \"Trust folder\" when Gemini CLI asks in {setup.cwd}, add "
            f"\"{setup.cwd}\": \"TRUST_FOLDER\" to {setup.trust_file}, or set GEMINI_CLI_TRUST_WORKSPACE=true")


def root_plan(setup: GeminiSetup, bundle: str | None) -> tuple[list[Root], list[CatalogWarning]]:
    """The roots in processing order (unread ones carry the reason) and the warnings that
    explain the unread ones."""
    warnings: list[CatalogWarning] = list(setup.warnings)
    off = ""
    if setup.fatal:
        off = f"Gemini CLI stops before it looks for skills: {setup.fatal.splitlines()[0]}"
        warnings.append(CatalogWarning("gemini-config-error", setup.fatal.splitlines()[0].removeprefix("Error in ")
                                       .split(":", 1)[0], setup.fatal))
    elif not setup.skills_enabled:
        off = f"skills.enabled is false in {setup.skills_enabled_by}: Gemini CLI discovers no skills"
        warnings.append(CatalogWarning("gemini-skills-off", setup.skills_enabled_by, off))
    roots: list[Root] = []
    if bundle is not None:
        roots.append(_root(Provenance.BUILTIN, os.path.join(bundle, "builtin"), "built-in (Gemini CLI bundle)", off))
    for ext in setup.extensions:
        if ext.active:
            roots.append(_root(Provenance.USER, os.path.join(ext.path, "skills"), f"extension {ext.name}", off))
    home = setup.home
    roots.append(_root(Provenance.USER, os.path.join(home, ".gemini", "skills"), "user .gemini/skills", off))
    roots.append(_root(Provenance.USER, os.path.join(home, ".agents", "skills"), "user .agents/skills", off))
    ws_off = off
    if not off and not setup.trusted:
        ws_off = ("Gemini CLI does not read the workspace skill folders: the workspace is not trusted "
                  f"({setup.trust_reason})")
        warnings.append(CatalogWarning("gemini-untrusted", setup.cwd, f"{ws_off}; {trust_hint(setup)}"))
    roots.append(_root(Provenance.PROJECT, os.path.join(setup.cwd, ".gemini", "skills"), "workspace .gemini/skills",
                       ws_off))
    roots.append(_root(Provenance.PROJECT, os.path.join(setup.cwd, ".agents", "skills"), "workspace .agents/skills",
                       ws_off))
    return roots, warnings


def _lstat_not_dir(path: str) -> bool:
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def glob_skill_files(root: Root) -> tuple[list[tuple[str, int]], list[CatalogWarning]]:
    """The root's matches in the client's usual order as (location, folder levels), and the
    things skillshelf noticed that the client passes over silently."""
    out: list[tuple[str, int]] = []
    notes: list[CatalogWarning] = []
    top = root.path
    try:
        if not os.path.isdir(top):
            if os.path.lexists(top):
                notes.append(CatalogWarning("gemini-root-not-folder", top,
                                            f"{top} is not a folder; Gemini CLI ignores it"))
            return out, notes
    except OSError:
        return out, notes
    try:
        with os.scandir(top) as it:
            entries = list(it)
    except OSError as exc:
        notes.append(CatalogWarning("unreadable", top, f"cannot read {top}: {exc.strerror or exc}"))
        return out, notes
    own = os.path.join(top, SKILL_FILE)
    if any(e.name == SKILL_FILE for e in entries) and _lstat_not_dir(own):
        out.append((own, 0))
    else:
        notes.extend(near_miss_warning(e.path, "Gemini CLI") for e in entries if is_near_miss(e.name))
    names: list[str] = []
    for entry in entries:
        name = entry.name
        if name.startswith(".") and name not in NOT_COUNTED and _listed(entry.path, SKILL_FILE):
            notes.append(dot_folder_warning(entry.path, 1, True, "Gemini CLI",
                                            "rename the folder without the leading `.` to include it"))
        if name.startswith(".") or name in _SKIP:
            continue
        if any(0xDC80 <= ord(c) <= 0xDCFF for c in name):
            if os.path.lexists(os.path.join(entry.path, SKILL_FILE)):
                shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                notes.append(CatalogWarning(
                    "gemini-name-not-utf8", os.path.join(top, shown),
                    f"the folder name {shown!r} is not valid UTF-8; Gemini CLI never matches a SKILL.md inside it"))
            continue
        try:
            if not (entry.is_dir(follow_symlinks=False) or entry.is_symlink()):
                continue
        except OSError:
            continue
        names.append(name)
    names.sort(key=lambda s: s.encode("utf-8"), reverse=True)
    for name in names:
        folder = os.path.join(top, name)
        path = os.path.join(folder, SKILL_FILE)
        listed = _names(folder)
        if SKILL_FILE in listed and _lstat_not_dir(path):
            out.append((path, 1))
        elif SKILL_FILE not in listed:
            notes.extend(near_miss_warning(os.path.join(folder, n), "Gemini CLI") for n in sorted(listed)
                         if is_near_miss(n))
    return out, notes


def _names(folder: str) -> set[str]:
    """The entry names of ``folder`` (empty when it cannot be listed: the client matches nothing)."""
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _listed(folder: str, name: str) -> bool:
    """Whether ``folder`` (a folder) lists an entry called exactly ``name``."""
    return os.path.isdir(folder) and name in _names(folder)


def conflict_line(name: str, new: Source, old: Source) -> str:
    """The line Gemini CLI prints when ``new`` replaces ``old`` (the same location: none)."""
    if old.provenance is Provenance.BUILTIN:
        return f'Skill "{name}" from "{new.location}" is overriding the built-in skill.'
    return (f'Skill conflict detected: "{name}" from "{new.location}" is overriding the same skill '
            f'from "{old.location}".')


def _is_own(source: Source) -> bool:
    """The root's own ``SKILL.md`` (always matched first in its root)."""
    return os.path.dirname(source.location) == source.root


def arbitrate(sources: Sequence[Source], labels: dict[str, str] | None = None) -> tuple[Source, ...]:
    """Settle same-name copies; ``sources`` in processing order (root by root). Returns them in
    catalog order: each name where it was first seen, its winner first (for a race the usual
    winner, then the other candidates), then the copies it replaced, in processing order."""
    labels = labels or {}
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(sources):
        groups.setdefault(s.name, []).append(i)
    out: list[Source] = []
    for name, members in groups.items():
        if len(members) == 1:
            out.append(sources[members[0]])
            continue
        last_root = sources[members[-1]].root
        in_last = [i for i in members if sources[i].root == last_root]
        children = [i for i in in_last if not _is_own(sources[i])]
        candidates = children if children else in_last[-1:]
        usual = candidates[-1]  # processed last in the usual order
        settled: dict[int, Source] = {}
        if len(candidates) > 1:
            where = labels.get(last_root, last_root)
            reason = (f'{len(candidates)} copies of "{name}" in {where}: Gemini CLI checks the folders of one root '
                      "in parallel and keeps the copy whose check finishes last, so either may win (usually "
                      f"{sources[usual].location}, in the alphabetically first folder)")
            for i in candidates:
                others = tuple(sources[j].location for j in candidates if j != i)
                settled[i] = replace(sources[i], status=Status.RACE, shadowed_by=others, status_reason=reason)
        winners = tuple(sources[i].location for i in candidates)
        for k, i in enumerate(members):
            if i in candidates:
                continue
            later = members[k + 1] if k + 1 < len(members) else usual
            if later in candidates:
                later = usual
            line = conflict_line(name, sources[later], sources[i])
            if len(winners) > 1:
                line += " Either race candidate may end up the winner."
            elif later != usual:
                line += f' In the end "{sources[usual].location}" wins.'
            settled[i] = replace(sources[i], status=Status.SHADOWED, shadowed_by=winners, status_reason=line)
        order = [usual] + [i for i in candidates if i != usual] + [i for i in members if i not in candidates]
        out.extend(settled.get(i, sources[i]) for i in order)
    return tuple(out)
