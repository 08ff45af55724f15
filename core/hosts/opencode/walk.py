"""node-glob as opencode 1.18.33 runs it: ``<prefix>/**/SKILL.md`` with ``follow: true``,
``nodir: true``, ``absolute: true`` and ``dot`` per root.

- ``**`` matches any depth, zero included (``<root>/skills/SKILL.md`` itself matches);
- a match is a non-directory named exactly ``SKILL.md`` (case-sensitive): a symlink to a file
  counts, a *broken* ``SKILL.md`` symlink counts too (its read fails later); a folder named
  ``SKILL.md`` is no match but is entered;
- dot folders are entered only when ``root.dot``; nothing else is skipped (``node_modules`` is
  scanned);
- symlinked folders are followed at any depth and reported under the link's spelling; a broken
  one is skipped; unreadable folders are skipped (opencode is silent about both; skillshelf
  reports them);
- a symlink loop is followed until the kernel refuses the path (``ELOOP`` after 40 links), so
  one loop yields every ``SKILL.md`` below it again under each repeated spelling (41 copies).
  Two loops that reach each other multiply the paths exponentially: the real client runs out of
  memory. skillshelf stops after :data:`MAX_FOLDERS` folders and says so.

skillshelf's safety limits (:mod:`skillshelf.core.walklimits`; opencode has none): a symlinked
folder pointing at an ancestor of the root (``/``) is not followed (``symlink-ancestor``), and at
most :data:`~skillshelf.core.walklimits.MAX_WALK_ENTRIES` entries are listed per root
(``walk-limit``). Depth is not capped here: the kernel's 40-link limit ends opencode's loops.

What opencode passes over in silence is also said (skillshelf's warnings,
:mod:`skillshelf.core.unseen`): a near-miss file name (``skill.md`` …) in a folder without a
``SKILL.md``, and each dot folder a ``dot=False`` root skips that holds ``SKILL.md`` files.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
from dataclasses import dataclass, field

from skillshelf.core.hosts.client import Found
from skillshelf.core.model import CatalogWarning, Root
from skillshelf.core.scan import SKILL_FILENAME
from skillshelf.core.unseen import NOT_COUNTED, count_skill_files, dot_folder_warning, is_near_miss, near_miss_warning
from skillshelf.core.walklimits import MAX_WALK_ENTRIES, ancestor_warning, entries_warning, is_ancestor

__all__ = ["MAX_FOLDERS", "WalkBudget", "walk"]

#: Folders visited in one build before skillshelf stops walking (opencode would go on).
MAX_FOLDERS = 100_000


@dataclass
class WalkBudget:
    """Folders visited so far in one build, the loop links met (by identity) and whether the
    budget ran out (``exhausted``: the folder where it did)."""

    visited: int = 0
    loops: dict[str, str] = field(default_factory=dict)
    exhausted: str | None = None


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def _include(root: Root, folder: str) -> str:
    """What would make opencode read a skipped dot folder, in its terms."""
    return f'add "{folder}" to skills.paths in an opencode config file to include them'


def walk(root: Root, budget: WalkBudget) -> tuple[list[Found], list[CatalogWarning]]:
    """Every match under ``root.scan_dir`` in visiting order (siblings by name), plus warnings
    for what opencode skips silently. Never raises; stops when ``budget`` runs out."""
    found: list[Found] = []
    warnings: list[CatalogWarning] = []
    if root.unread:
        return found, warnings
    top = root.scan_dir
    try:
        if not stat_mod.S_ISDIR(os.stat(top).st_mode):
            return found, warnings
    except (OSError, ValueError):
        return found, warnings
    # (spelled folder, its canonical path, levels, canonical folders on the way)
    top_canon = _real(top)
    stack: list[tuple[str, str, int, frozenset[str]]] = [(top, top_canon, 0, frozenset({top_canon}))]
    listed = 0
    while stack:
        spelled, here, levels, chain = stack.pop()
        if budget.exhausted is not None:
            break
        budget.visited += 1
        if budget.visited > MAX_FOLDERS:
            budget.exhausted = spelled
            break
        try:
            with os.scandir(spelled) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENAMETOOLONG):
                continue  # the kernel ends a symlink loop here, exactly where it ends opencode's
            warnings.append(CatalogWarning("unreadable", spelled,
                                           f"cannot read {spelled}: {exc.strerror or exc}; opencode skips it silently"))
            continue
        listed += len(entries)
        if listed > MAX_WALK_ENTRIES:
            warnings.append(entries_warning(top, spelled, note="opencode would go on"))
            break
        subdirs: list[tuple[str, str, int, frozenset[str]]] = []
        if not any(e.name == SKILL_FILENAME for e in entries):
            warnings.extend(near_miss_warning(e.path, "opencode") for e in entries if is_near_miss(e.name))
        for entry in entries:
            name, path = entry.name, entry.path
            try:
                is_link = entry.is_symlink()
                if is_link:
                    try:
                        target_is_dir = stat_mod.S_ISDIR(os.stat(path).st_mode)
                    except OSError as exc:
                        if name == SKILL_FILENAME:
                            found.append(Found(path, _real(path), levels, root))
                        elif exc.errno == errno.ELOOP:
                            pass
                        elif not name.startswith(".") or root.dot:
                            warnings.append(CatalogWarning("broken-symlink", path,
                                                           f"broken symlink: {path}; opencode skips it silently"))
                        continue
                else:
                    target_is_dir = entry.is_dir(follow_symlinks=False)
                if name == SKILL_FILENAME and not target_is_dir:
                    found.append(Found(path, _real(path) if is_link else here.rstrip("/") + "/" + name, levels, root))
                    continue
                if not target_is_dir:
                    continue
                if name.startswith(".") and not root.dot:
                    if name not in NOT_COUNTED:
                        count, complete = count_skill_files(path)
                        if count:
                            warnings.append(dot_folder_warning(path, count, complete, "opencode", _include(root, path)))
                    continue
                canon = _real(path) if is_link else here.rstrip("/") + "/" + name
                if is_link and canon not in chain and is_ancestor(canon, top_canon):
                    warnings.append(ancestor_warning(path, canon, top, "opencode would walk it"))
                    continue
                if is_link and canon in chain:
                    ident = here.rstrip("/") + "/" + name
                    if ident not in budget.loops:
                        budget.loops[ident] = canon
                        warnings.append(CatalogWarning(
                            "symlink-loop", path,
                            f"symlink loop: {path} leads back to {canon}; opencode follows it until the kernel "
                            "refuses the path (40 links), finding every SKILL.md below it again under each "
                            "longer spelling"))
                subdirs.append((path, canon, levels + 1, chain | {canon}))
            except OSError as exc:
                warnings.append(CatalogWarning("unreadable", path,
                                               f"cannot read {path}: {exc.strerror or exc}; opencode skips it silently"))
        stack.extend(reversed(subdirs))
    return found, warnings
