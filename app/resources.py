"""The files of a skill folder besides ``SKILL.md`` (scripts, references, assets; SPEC L5)."""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["RESOURCE_CAP", "RESOURCE_DEPTH", "ResourceFile", "list_resources"]

#: Deepest folder level listed under a skill folder (the folder itself is level 0).
RESOURCE_DEPTH = 3
#: Most resource files listed per skill.
RESOURCE_CAP = 200


@dataclass(frozen=True)
class ResourceFile:
    """One file under a skill folder: ``path`` relative to it (``/``-separated, the spelling a
    host's resource reader takes) and ``size`` in bytes (-1 when it cannot be stat-ed)."""

    path: str
    size: int


def list_resources(skill_dir: str, *, depth: int = RESOURCE_DEPTH, cap: int = RESOURCE_CAP) -> tuple[list[ResourceFile], bool]:
    """Files under ``skill_dir`` (its canonical folder walked), sorted by depth then path, at
    most ``cap``; the bool says the list was cut. Skips the top-level ``SKILL.md`` and
    ``agents/`` (sidecars), dot entries, and anything deeper than ``depth`` levels. Does not
    follow folder symlinks out of the tree; unreadable folders are skipped. Never raises."""
    if not skill_dir:
        return [], False
    root = os.path.realpath(skill_dir)
    found: list[ResourceFile] = []
    cut = False
    for current, dirs, files in os.walk(root, onerror=lambda _e: None):
        rel_dir = os.path.relpath(current, root)
        level = 0 if rel_dir == "." else rel_dir.count(os.sep) + 1
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (level == 0 and d == "agents"))
        if level >= depth:
            dirs[:] = []
        for name in sorted(files):
            if name.startswith(".") or (level == 0 and name == "SKILL.md"):
                continue
            if len(found) >= cap:
                cut = True
                break
            full = os.path.join(current, name)
            rel = name if level == 0 else os.path.join(rel_dir, name)
            try:
                size = os.stat(full).st_size
            except OSError:
                size = -1
            found.append(ResourceFile(rel.replace(os.sep, "/"), size))
        if cut:
            break
    found.sort(key=lambda r: (r.path.count("/"), r.path))
    return found, cut
