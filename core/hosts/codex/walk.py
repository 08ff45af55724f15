"""How Codex CLI 0.171.0 walks one skill root, and its plugin namespaces.

The walk (:func:`walk`) starts at the root's canonical path and goes breadth-first; each
folder's entry names are sorted (byte order). Entries: regular files, folders and symlinks to
folders (followed, except in the system root); symlinks to files and broken links are left
out; a folder whose name starts with ``.`` is listed but never entered; a folder is entered
once (by canonical path) and only while its depth is below 6. At most 2,000 folders are
entered per root (counting the root) and 20,000 entries listed (reaching it ends the walk).
A skill file is a regular file named exactly ``SKILL.md``.

What Codex passes over in silence is reported as skillshelf's warnings
(:mod:`skillshelf.core.unseen`): a near-miss file name (``skill.md`` …) in a folder without a
``SKILL.md``, and each dot folder the walk lists but never enters that holds ``SKILL.md`` files.

Namespaces (:func:`namespace_resolver`): a ``.codex-plugin``, ``.claude-plugin`` or
``.cursor-plugin`` ``plugin.json`` (first regular file wins) in the root or any ancestor of it
prefixes every skill's name with the manifest's ``name`` (blank: the folder name); plugin
folders found by the walk apply below them (deepest wins); a skill reached through a symlink
takes the nearest manifest above its canonical folder.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import CatalogWarning
from skillshelf.core.unseen import NOT_COUNTED, count_skill_files, dot_folder_warning, is_near_miss, near_miss_warning

__all__ = ["MAX_DIRS", "MAX_ENTRIES", "PLUGIN_MANIFESTS", "Walked", "namespace_resolver", "walk"]

MAX_DIRS = 2000
MAX_ENTRIES = 20000
MAX_DEPTH = 6
SKILL_FILE = "SKILL.md"
PLUGIN_MANIFESTS = (".codex-plugin/plugin.json", ".claude-plugin/plugin.json", ".cursor-plugin/plugin.json")
_PLUGIN_DIRS = frozenset(m.split("/")[0] for m in PLUGIN_MANIFESTS)


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, RuntimeError, ValueError):
        return None


@dataclass
class Walked:
    """One root's walk: ``root`` its canonical path, ``files`` every ``SKILL.md`` as
    (discovery path, canonical path) in walk order, ``plugin_dirs`` folders holding a plugin
    manifest folder, ``warnings`` what skillshelf noticed (Codex only logs these)."""

    root: str
    files: list[tuple[str, str]] = field(default_factory=list)
    plugin_dirs: set[str] = field(default_factory=set)
    warnings: list[CatalogWarning] = field(default_factory=list)


def walk(root: str, *, follow: bool, label: str = "") -> Walked:
    """Walk the canonical folder ``root`` as Codex does (``follow``: folder symlinks are
    followed). A missing root gives nothing. Never raises for file-system problems."""
    out = Walked(root)
    where = label or root
    try:
        if not stat.S_ISDIR(os.stat(root).st_mode):
            return out
    except (OSError, ValueError):
        return out
    visited = {root}
    queue: list[tuple[str, int]] = [(root, 0)]
    dirs, entries = 1, 0
    capped = False
    qi = 0
    while qi < len(queue):
        folder, depth = queue[qi]
        qi += 1
        try:
            names: list[str] = []
            with os.scandir(folder) as it:
                for e in it:
                    if e.is_symlink() and not _exists(e.path):
                        out.warnings.append(CatalogWarning("broken-symlink", e.path,
                                                           f"broken symlink: {e.path} (Codex skips it)"))
                        continue
                    names.append(e.name)
        except OSError as exc:
            out.warnings.append(CatalogWarning("unreadable", folder, f"cannot read {folder}: {exc.strerror or exc}"))
            continue
        names.sort()
        if SKILL_FILE not in names:
            out.warnings.extend(near_miss_warning(folder.rstrip("/") + "/" + n, "Codex")
                                for n in names if is_near_miss(n))
        for name in names:
            path = folder.rstrip("/") + "/" + name
            if entries == MAX_ENTRIES:
                out.warnings.append(CatalogWarning(
                    "codex-walk-limit", root,
                    f"{where}: Codex 0.171.0 lists at most {MAX_ENTRIES:,} entries per root; its walk stops "
                    f"before {path}, so nothing after it is read"))
                return out
            entries += 1
            try:
                lst = os.lstat(path)
                link = stat.S_ISLNK(lst.st_mode)
                st = os.stat(path) if link else lst
            except OSError as exc:
                out.warnings.append(CatalogWarning("unreadable", path, f"cannot read {path}: {exc.strerror or exc}"))
                continue
            is_dir = stat.S_ISDIR(st.st_mode)
            if link and (not follow or not is_dir):
                if name == SKILL_FILE and stat.S_ISREG(st.st_mode):
                    out.warnings.append(CatalogWarning(
                        "codex-file-symlink", path,
                        f"{path} is a symlink to a file: Codex 0.171.0 ignores symlinked SKILL.md files"))
                continue
            if is_dir:
                if name in _PLUGIN_DIRS:
                    out.plugin_dirs.add(folder)
                if depth >= MAX_DEPTH:
                    continue
                if name.startswith("."):
                    if name not in NOT_COUNTED and name not in _PLUGIN_DIRS:
                        count, complete = count_skill_files(path)
                        if count:
                            out.warnings.append(dot_folder_warning(
                                path, count, complete, "Codex",
                                "move them to a folder whose name does not start with `.`, or link one there "
                                "(Codex follows folder symlinks)"))
                    continue
                ident = _real(path) if follow else path
                if ident is None or ident in visited:
                    continue
                visited.add(ident)
                if dirs == MAX_DIRS:
                    if not capped:
                        capped = True
                        out.warnings.append(CatalogWarning(
                            "codex-walk-limit", root,
                            f"{where}: Codex 0.171.0 enters at most {MAX_DIRS:,} folders per root; {path} and "
                            "later folders are not read"))
                    continue
                dirs += 1
                queue.append((path, depth + 1))
            elif stat.S_ISREG(st.st_mode) and name == SKILL_FILE:
                out.files.append((path, _real(path) or path))
    return out


# ---------------------------------------------------------------------------- namespaces
def _ancestors(path: str) -> list[str]:
    out = [path]
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return out
        out.append(parent)
        path = parent


#: A plugin manifest Codex could not use: (manifest path, why).
Problem = tuple[str, str]


def plugin_namespace(folder: str, problems: list[Problem] | None = None) -> str | None:
    """The namespace a plugin manifest in ``folder`` gives, ``None`` when there is none (or it
    is not valid JSON, not an object, or its ``name`` is not a string: then the manifest and
    why go to ``problems``)."""
    for rel in PLUGIN_MANIFESTS:
        path = os.path.join(folder, rel)
        if not os.path.isfile(path):
            continue
        why = ""
        try:
            value = json.loads(read_regular(path).decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            value, why = None, f"not readable JSON ({exc})"
        if not why and not isinstance(value, dict):
            why = "not a JSON object"
        name = value.get("name", "") if isinstance(value, dict) else None
        if not why and not isinstance(name, str):
            why = "its name is not a string"
        if why or not isinstance(name, str):
            if problems is not None:
                problems.append((path, why))
            return None
        if name.strip() == "":
            return os.path.basename(folder) or None
        return name
    return None


def _nearest(start: str, problems: list[Problem] | None = None) -> str | None:
    for folder in _ancestors(start):
        ns = plugin_namespace(folder, problems)
        if ns is not None:
            return ns
    return None


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def namespace_resolver(root: str, files: Iterable[tuple[str, str]], plugin_dirs: set[str],
                       problems: list[Problem] | None = None) -> Callable[[str], str | None]:
    """A function from a skill's canonical path to its plugin namespace (``None`` = none), for
    the skills ``files`` (discovery, canonical) of the root walked at canonical ``root``;
    manifests Codex could not use go to ``problems``."""
    files = list(files)
    above: set[str] = set()
    for _, canon in files:
        above.update(_ancestors(os.path.dirname(canon)))
    linked = {os.path.dirname(c) for d, c in files if c != d} - {root}
    nested: list[tuple[str, str | None]] = [(r, _nearest(r, problems)) for r in linked]
    for folder in plugin_dirs:
        if folder in above and folder != root and folder not in linked:
            ns = plugin_namespace(folder, problems)
            if ns is not None:
                nested.append((folder, ns))
    inherited = _nearest(root, problems)

    def resolve(canon: str) -> str | None:
        under_root = _within(canon, root)
        best: tuple[int, str | None] | None = None
        for folder, ns in nested:
            if _within(canon, folder) and (not under_root or not _within(root, folder)):
                depth = len(_ancestors(folder))
                if best is None or depth > best[0]:
                    best = (depth, ns)
        return best[1] if best is not None else inherited
    return resolve
