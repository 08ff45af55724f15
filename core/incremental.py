"""Incremental rescans: patch a root's previous scan after a watcher reports changed paths (SPEC H2).

The contract is exactness: a patched scan equals a fresh :func:`skillshelf.core.scan.scan` of the
root. So every changed path is first mapped to each spelling the catalog can know it by
(:func:`spellings`, through recorded symlinked directories), each changed entry's block of
matches is replaced by a fresh scan of that entry (:func:`patch_root`), and anything that needs
the whole root's context (a symlink loop, a warning near a changed path, a dangling link) makes
the caller rescan the root instead. Hosts use this machinery; it knows nothing of hosts.
"""

from __future__ import annotations

import bisect
import os
import stat as stat_mod
from collections.abc import Callable, Iterable, Mapping, Sequence

from skillshelf.core.model import Root
from skillshelf.core.paths import canonical
from skillshelf.core.scan import EMPTY_SCAN, SKILL_FILENAME, ScanResult, path_sort_key, scan

__all__ = [
    "edited_locations",
    "minimal_paths",
    "patch_root",
    "plan_patch",
    "scan_entry",
    "spellings",
    "toucher",
    "within",
]


def scan_entry(path: str, dot: bool) -> ScanResult | None:
    """What the walk of a root reports for the single entry ``path`` (a changed file or
    directory inside the root) and everything below it. ``None`` when the answer needs the
    whole root's context (a dangling or looping link, a ``SKILL.md`` that is not a regular file,
    an unreadable entry): the caller then rescans the root."""
    name = path.rsplit("/", 1)[-1]
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return EMPTY_SCAN
    except OSError:
        return None
    mode = lst.st_mode
    if stat_mod.S_ISLNK(mode):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return None
    if stat_mod.S_ISDIR(mode):
        if name == SKILL_FILENAME:
            return None
        return scan(path, dot=dot)
    if name == SKILL_FILENAME:
        if stat_mod.S_ISREG(mode):
            return ScanResult((path,), (), (canonical(path),), (path_sort_key(path),))
        return None
    return EMPTY_SCAN


def within(path: str, directory: str) -> bool:
    """``path`` is ``directory`` or lies below it (component-wise)."""
    return path == directory or path.startswith(directory + "/") or directory == "/"


def spellings(changed: Iterable[str], scans: Sequence[ScanResult]) -> set[str] | None:
    """Every spelling of the changed paths the catalog can know them by: each path, its
    canonical form, and its image through every recorded symlinked directory (root links and
    dangling links too), both ways, to a fixed point; a link whose target lies below a changed
    path is changed itself. ``None`` when that exceeds 512 paths."""
    links: list[tuple[str, str]] = []
    for rs in scans:
        links.extend(rs.links)
        for w in rs.warnings:
            if w.kind == "broken-symlink":
                links.append((w.source, canonical(w.source)))
    out: set[str] = set()
    frontier: list[str] = []
    for p in changed:
        for q in (p, canonical(p)):
            if q not in out:
                out.add(q)
                frontier.append(q)
    while frontier:
        x = frontier.pop()
        for spelled, target in links:
            if within(x, target):
                y = spelled + x[len(target):] if target != "/" else spelled + x
            elif within(x, spelled):
                y = target + x[len(spelled):]
            elif within(target, x):
                y = spelled  # a folder above the link's target changed (moved, deleted): the link did too
            else:
                continue
            y = os.path.normpath(y)
            if y not in out:
                out.add(y)
                frontier.append(y)
                if len(out) > 512:
                    return None
    return out


def minimal_paths(paths: Iterable[str]) -> list[str]:
    """``paths`` without those lying below another one (sorted)."""
    kept: list[str] = []
    for p in sorted(set(paths), key=path_sort_key):
        if kept and within(p, kept[-1]):
            continue
        kept.append(p)
    return kept


def patch_root(old: ScanResult, dot: bool, changed: Sequence[str]) -> ScanResult | None:
    """``old`` with the block of each changed path (the path itself and everything below it)
    replaced by a fresh scan of that entry. ``None`` when the exact answer needs a whole-root
    rescan (see :func:`scan_entry`; also any symlink loop in the root, any old warning at, below
    or above a changed path, and any warning in the fresh subtree)."""
    if any(w.kind == "ScanFailed" for w in old.warnings):  # a loop (or an unreadable folder)
        return None
    matches = list(old.matches)
    canonicals = list(old.canonicals)
    keys = list(old.keys)
    links = list(old.links)
    for c in changed:
        if any(within(w.source, c) or within(c, w.source) for w in old.warnings):
            return None
        sub = scan_entry(c, dot)
        if sub is None or sub.warnings:
            return None
        k = path_sort_key(c)
        lo = bisect.bisect_left(keys, k)
        hi = bisect.bisect_left(keys, k + b"\x01", lo)
        matches[lo:hi] = sub.matches
        canonicals[lo:hi] = sub.canonicals
        keys[lo:hi] = sub.keys
        links = [link for link in links if not within(link[0], c)] + list(sub.links)
    return ScanResult(tuple(matches), old.warnings, tuple(canonicals), tuple(keys), tuple(links))


def plan_patch(
    old_roots: Sequence[Root], old_scans: Sequence[ScanResult], roots: Sequence[Root], changed: Iterable[str]
) -> tuple[tuple[ScanResult, ...], Callable[[str], bool], frozenset[str]] | None:
    """Per-root scans for an incremental refresh from the previous ``old_roots`` /
    ``old_scans`` (parallel), the predicate "this locator's skill directory must be re-read",
    and the set of paths that predicate is built from. ``None`` → do a full rebuild instead."""
    spelled = spellings(changed, old_scans)
    if spelled is None:
        return None
    old = dict(zip(old_roots, old_scans, strict=True))
    scans: list[ScanResult] = []
    touched = set(spelled)
    for root in roots:
        sd = root.scan_dir
        rs = old.get(root)
        if rs is None or any(within(sd, c) for c in spelled):
            scans.append(scan(sd, dot=root.dot))
            touched.add(sd)
            continue
        inside: list[str] = []
        prefix = sd + "/"
        recount = False
        for c in spelled:
            if c.startswith(prefix):
                parts = c[len(prefix):].split("/")
                if not root.dot and any(part[:1] == "." for part in parts):
                    # not scanned, but counted (``dot-folder-skipped``): a SKILL.md or a dot
                    # folder itself appearing or going changes the count
                    recount = recount or parts[-1] == SKILL_FILENAME or parts[-1][:1] == "."
                    continue
                inside.append(c)
        if recount:  # the matches cannot change (the dot folder is pruned): nothing to re-read
            scans.append(scan(sd, dot=root.dot))
            continue
        if not inside:
            scans.append(rs)
            continue
        patched = patch_root(rs, root.dot, minimal_paths(inside))
        scans.append(patched if patched is not None else scan(sd, dot=root.dot))
    return tuple(scans), toucher(touched), frozenset(touched)


def edited_locations(old_roots: Sequence[Root], old_scans: Sequence[ScanResult], by_dir: Mapping[str, str],
                     roots: Sequence[Root], scans: Sequence[ScanResult], paths: frozenset[str]) -> set[str] | None:
    """The fast path of an incremental refresh for edits inside existing skills: when the
    roots and every root scan are unchanged (no skill added, removed or moved) and no changed
    path is a directory or a root, the locators :func:`toucher` would select are exactly those
    whose skill directory is a changed path or one of its ancestors — found by walking up from
    each path instead of testing all matches (``by_dir``: skill directory → locator of the
    previous matches). ``None`` → use the general path."""
    if len(roots) != len(old_roots) or any(a is not b for a, b in zip(roots, old_roots, strict=True)):
        return None
    if any(a is not b and a != b for a, b in zip(scans, old_scans, strict=True)):
        return None
    scan_dirs = {r.scan_dir for r in roots}
    out: set[str] = set()
    for p in paths:
        if p in scan_dirs or os.path.isdir(p):
            return None
        x = p
        while x:
            loc = by_dir.get(x)
            if loc is not None:
                out.add(loc)
            x = x.rpartition("/")[0]
    return out


def toucher(paths: set[str]) -> Callable[[str], bool]:
    """Predicate on a locator: its skill directory is at, above or below a changed path."""
    ancestors: set[str] = set()
    for p in paths:
        x = p
        while x and x not in ancestors:
            ancestors.add(x)
            x = x.rpartition("/")[0]
    prefixes = tuple(p.rstrip("/") + "/" for p in paths)

    def touched(location: str) -> bool:
        d = location.rpartition("/")[0]
        return d in ancestors or d.startswith(prefixes)

    return touched
