"""One scan directory → its ``SKILL.md`` files, sorted (SPEC D4; conformance Z032–Z038).

The walk is an iterative depth-first search over :func:`os.scandir` (one system call per
directory; file types come from ``d_type`` so plain files and directories cost no ``stat``).

Rules (host ``zuno``, ``scan.rs``):

- A match is an entry named exactly ``SKILL.md`` (case-sensitive) that is a regular file,
  following a symlinked file. ``**`` matches zero segments, so ``scan_dir/SKILL.md`` counts.
- ``dot=False`` prunes every entry whose name starts with ``.`` *below* ``scan_dir``
  (``scan_dir`` itself may be hidden, e.g. ``~/.agents/skills``). Only directories matter:
  a hidden name can never be ``SKILL.md``.
- Symlinked directories are followed and matches below them are reported by the spelling the
  walk reached them through (``skills/linked/SKILL.md``, Z037).
- Loops: every directory is identified by its canonical path (tracked incrementally; only
  symlinks cost a ``realpath``). A symlink whose target directory is on the current descent
  chain is a loop → Zuno's warning ``ScanFailed`` (``failed to scan skills in <link>: other
  error``, conformance Z-T), not entered. A directory whose walk already
  *finished* (reached earlier through another spelling) is not walked again: its matches are
  replayed under the new spelling, so each directory is read once (no exponential blow-up on
  symlink DAGs) yet every spelling of a file is still reported, exactly as a plain
  link-following walk would report it, for discovery to fold into aliases (SPEC D5).
- skillshelf's safety limits (:mod:`skillshelf.core.walklimits`; Zuno has none): a symlinked
  folder pointing at an ancestor of ``scan_dir`` (``/``) is not entered (``symlink-ancestor``);
  folders deeper than 16 levels are not entered and at most 100,000 entries are listed
  (``walk-limit``, once each, naming the symlinked folder the walk came through).
- A dangling symlink is silent in Zuno; skillshelf adds its own warning ``broken-symlink``
  (labelled ``skillshelf:``) naming the link and its target. A symlink that cannot be resolved
  because it points at itself (``ELOOP``) → ``ScanFailed`` … ``other error``, followed by
  skillshelf's own ``symlink-loop`` line saying it is a loop (and where it leads).
- Permission and I/O errors → ``ScanFailed``: ``failed to scan skills in <path>: <kind>`` with
  the Rust ``ErrorKind`` text Zuno prints (``permission denied``); the rest of the tree is still
  scanned.
- An entry named ``SKILL.md`` that is not a regular file (a directory, FIFO, socket …) is not a
  match → warning ``not-a-file`` (a skillshelf kind; the host silently ignores it, but a user
  wondering why the skill is missing deserves the reason). A *directory* named ``SKILL.md``
  is still descended into like any directory.
- What the host passes over silently is reported (skillshelf's warnings, :mod:`skillshelf.core.unseen`):
  a file named almost ``SKILL.md`` (``skill.md``, ``SKILL.MD``, ``SKILLS.md`` …) in a folder
  without a ``SKILL.md`` → ``wrong-file-name``; with ``dot=False``, each pruned dot folder that
  holds ``SKILL.md`` files → ``dot-folder-skipped`` with their count and the ``skills.paths``
  entry that would include them (version-control folders are not counted).
- A missing ``scan_dir`` (or one below a non-directory) is silent: no matches, no warnings
  (Z036). A ``scan_dir`` that is a dangling symlink gives ``broken-symlink``.
- Matches are sorted the way the host's ``BTreeSet<PathBuf>`` sorts them: component by
  component, each component compared by its bytes. (So ``a/b/SKILL.md`` sorts before
  ``a-b/SKILL.md`` although ``-`` < ``/`` in a flat byte comparison.) Warnings are sorted the
  same way by the path they name; sibling directories are walked in name order, so which
  spelling of a symlink cycle is cut does not depend on ``readdir`` order.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
from dataclasses import dataclass

from skillshelf.core.fileread import error_kind_text
from skillshelf.core.model import CatalogWarning
from skillshelf.core.paths import canonical
from skillshelf.core.unseen import NOT_COUNTED, count_skill_files, dot_folder_warning, is_near_miss, near_miss_warning
from skillshelf.core.walklimits import (
    MAX_WALK_DEPTH,
    MAX_WALK_ENTRIES,
    ancestor_warning,
    depth_warning,
    entries_warning,
    is_ancestor,
)

__all__ = ["EMPTY_SCAN", "SKILL_FILENAME", "ScanResult", "ScanSeen", "link_key", "path_sort_key", "scan"]

SKILL_FILENAME = "SKILL.md"


@dataclass(frozen=True)
class ScanResult:
    """What one :func:`scan` found.

    ``matches``: absolute paths of every matching ``SKILL.md`` as reached (link spelling),
    sorted by :func:`path_sort_key`. ``canonicals``: the symlink-resolved path of each match,
    parallel to ``matches`` (same length and order) — discovery's identity key (SPEC D5),
    computed during the walk so discovery need not ``realpath`` every file again.
    ``warnings``: ``CatalogWarning`` kinds ``ScanFailed`` (Zuno's), ``broken-symlink``,
    ``not-a-file`` (skillshelf's), sorted by :func:`path_sort_key` of their ``source``.
    ``keys``: :func:`path_sort_key` of each match (parallel to ``matches``), so an incremental
    rescan can bisect a subtree's block out; ``links``: every symlinked directory the walk
    followed as ``(spelled, canonical target)``, ``scan_dir`` itself included when it is spelled
    through a symlink (:mod:`skillshelf.core.incremental` maps changed paths through them).
    """

    matches: tuple[str, ...]
    warnings: tuple[CatalogWarning, ...]
    canonicals: tuple[str, ...] = ()
    keys: tuple[bytes, ...] = ()
    links: tuple[tuple[str, str], ...] = ()


def path_sort_key(path: str) -> bytes:
    """Sort key matching Rust's ``Path`` order (component by component, bytes within).

    The path's bytes with every ``/`` replaced by NUL: since NUL sorts below every byte that
    can occur in a file name, a flat comparison of these keys is a component-wise comparison
    (``a/b`` < ``a-b``). Expects clean absolute paths (no doubled ``/``, no trailing ``/``).
    """
    return os.fsencode(path).replace(b"/", b"\0")


class ScanSeen:
    """What one :func:`scan` looked at, for :mod:`skillshelf.core.scanproof` (pass one to
    :func:`scan` to have it filled): ``canon`` the canonical scan directory, ``listed`` every
    directory listed (as spelled), ``links`` every symlink entry met with :func:`link_key` as the
    walk saw it; ``exact`` is False when the result also depends on something not recorded here
    (an unreadable folder, a pruned dot folder that was counted, a scan directory that is not a
    directory); ``absent``: the scan directory did not exist (no entry of that name, so the
    result is empty and has no warning)."""

    def __init__(self) -> None:
        self.canon = ""
        self.listed: list[str] = []
        self.links: list[tuple[str, str, int, str]] = []
        self.exact = False
        self.absent = False


def link_key(path: str, name: str) -> tuple[int, str]:
    """How the walk sees the symlink entry ``path`` named ``name``: (file type bits of its
    target, or ``-errno`` when ``stat`` fails; its canonical path when the walk uses it — a
    folder, or a regular file named ``SKILL.md`` — else ``""``)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return -(exc.errno or errno.EIO), ""
    kind = stat_mod.S_IFMT(st.st_mode)
    if stat_mod.S_ISDIR(kind) or (name == SKILL_FILENAME and stat_mod.S_ISREG(kind)):
        return kind, canonical(path)
    return kind, ""


def _join(directory: str, name: str) -> str:
    return directory + name if directory.endswith("/") else directory + "/" + name


class _Walk:
    """State of one scan (kept in one object so the hot loop uses local lookups only)."""

    def __init__(self, dot: bool, scan_dir: str, scan_canon: str, seen: ScanSeen | None = None) -> None:
        self.seen = seen
        self.dot = dot
        self.scan_dir = scan_dir
        self.scan_canon = scan_canon
        self.entries = 0  # directory entries listed so far (MAX_WALK_ENTRIES)
        self.too_deep = False
        self.matches: list[str] = []
        self.canonicals: list[str] = []
        self.warnings: list[CatalogWarning] = []
        self.chain: set[str] = set()
        # canonical dir -> (first match index, end index, spelling walked)
        self.done: dict[str, tuple[int, int, str]] = {}
        self.links: list[tuple[str, str]] = []
        #: dot folders pruned (``dot=False``), counted after the walk
        self.hidden: list[str] = []

    # ---- warnings -------------------------------------------------------------------------
    def unreadable(self, path: str, exc: OSError) -> None:
        if self.seen is not None:
            self.seen.exact = False
        self.warnings.append(
            CatalogWarning("ScanFailed", path, f"failed to scan skills in {path}: {error_kind_text(exc)}")
        )

    def broken(self, path: str) -> None:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        self.warnings.append(CatalogWarning(
            "broken-symlink", path, f"skillshelf: broken symlink {path} -> {target} (Zuno skips it silently)"))

    def loop(self, path: str, target: str | None) -> None:
        self.warnings.append(CatalogWarning("ScanFailed", path, f"failed to scan skills in {path}: other error"))
        # Zuno's words stop at "other error"; a user needs to hear it is a loop (skillshelf's own line)
        self.warnings.append(CatalogWarning(
            "symlink-loop", path, f"skillshelf: {path} is a symlink loop"
            + (f" (-> {target})" if target else "") + ": Zuno reports it as `other error` and skips it"))

    def not_a_file(self, path: str) -> None:
        self.warnings.append(
            CatalogWarning("not-a-file", path, f"{path} is named SKILL.md but is not a regular file")
        )

    # ---- walk -----------------------------------------------------------------------------
    def symlink(self, path: str, name: str, subdirs: list[tuple[str, str, bool]]) -> None:
        """Classify a symlink entry: a matching file, a directory to walk, or a warning."""
        kind, target = link_key(path, name)
        if self.seen is not None:
            self.seen.links.append((path, name, kind, target))
        if kind < 0:
            if kind == -errno.ENOENT:
                self.broken(path)
            elif kind == -errno.ELOOP:
                self.loop(path, None)
            else:
                self.unreadable(path, OSError(-kind, os.strerror(-kind)))
            return
        if stat_mod.S_ISDIR(kind):
            if name == SKILL_FILENAME:
                self.not_a_file(path)
            if is_ancestor(target, self.scan_canon):
                self.warnings.append(ancestor_warning(path, target, self.scan_dir))
                return
            self.links.append((path, target))
            subdirs.append((path, target, True))
        elif name == SKILL_FILENAME:
            if stat_mod.S_ISREG(kind):
                self.matches.append(path)
                self.canonicals.append(target)
            else:
                self.not_a_file(path)

    def replay(self, spelled: str, canon: str) -> None:
        """Report the matches of an already walked directory under a new spelling."""
        start, end, old = self.done[canon]
        cut = len(old)
        for i in range(start, end):
            self.matches.append(spelled + self.matches[i][cut:])
            self.canonicals.append(self.canonicals[i])

    def run(self, root: str, root_canon: str) -> None:
        # Stack items: (spelled, canonical, -1, level, link) to enter a directory, or
        # (spelled, canonical, first match index, …) to leave it once its subtree is done;
        # ``link`` is the symlinked folder the walk came through (None: none).
        stack: list[tuple[str, str, int, int, str | None]] = [(root, root_canon, -1, 0, None)]
        dot = self.dot
        chain = self.chain
        done = self.done
        matches = self.matches
        canonicals = self.canonicals
        listed = self.seen.listed if self.seen is not None else None
        while stack:
            spelled, canon, start, level, via = stack.pop()
            if start >= 0:
                chain.discard(canon)
                done[canon] = (start, len(matches), spelled)
                continue
            if canon in chain:
                self.loop(spelled, canon)
                continue
            if canon in done:
                self.replay(spelled, canon)
                continue
            if level > MAX_WALK_DEPTH:
                if not self.too_deep:
                    self.too_deep = True
                    self.warnings.append(depth_warning(self.scan_dir, spelled, via))
                continue
            try:
                it = os.scandir(spelled)
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR) and spelled is root:
                    return
                self.unreadable(spelled, exc)
                done[canon] = (len(matches), len(matches), spelled)
                continue
            if listed is not None:
                listed.append(spelled)
            chain.add(canon)
            stack.append((spelled, canon, len(matches), level, via))
            subdirs: list[tuple[str, str, bool]] = []
            cprefix = canon if canon.endswith("/") else canon + "/"
            near: list[str] | None = None
            skill_here = False
            room = MAX_WALK_ENTRIES - self.entries
            try:
                with it:
                    for entry in it:
                        room -= 1
                        if room < 0:
                            self.warnings.append(entries_warning(self.scan_dir, spelled, via))
                            return
                        name = entry.name
                        if not dot and name[0] == ".":
                            if name not in NOT_COUNTED:
                                self.hidden.append(entry.path)
                            continue
                        try:
                            if not entry.is_symlink():
                                if entry.is_dir(follow_symlinks=False):
                                    if name == SKILL_FILENAME:
                                        self.not_a_file(entry.path)
                                    subdirs.append((entry.path, cprefix + name, False))
                                elif name == SKILL_FILENAME:
                                    skill_here = True
                                    if entry.is_file(follow_symlinks=False):
                                        matches.append(entry.path)
                                        canonicals.append(cprefix + name)
                                    else:
                                        self.not_a_file(entry.path)
                                elif is_near_miss(name):
                                    near = (near or []) + [entry.path]
                                continue
                            skill_here = skill_here or name == SKILL_FILENAME
                            self.symlink(entry.path, name, subdirs)
                        except OSError as exc:
                            self.unreadable(entry.path, exc)
            except OSError as exc:  # readdir failed part-way
                self.unreadable(spelled, exc)
            if near and not skill_here:
                self.warnings.extend(near_miss_warning(p, "Zuno") for p in near)
            self.entries = MAX_WALK_ENTRIES - room
            if len(subdirs) > 1:
                # Walk siblings in name order so loop cuts and replays are reproducible.
                subdirs.sort(reverse=True)
            deeper = level + 1
            stack.extend((s, c, -1, deeper, s if link else via) for s, c, link in subdirs)


EMPTY_SCAN = ScanResult((), ())


def scan(scan_dir: str, *, dot: bool, seen: ScanSeen | None = None) -> ScanResult:
    """Every ``SKILL.md`` under ``scan_dir`` (SPEC D4; rules in the module docstring).

    ``scan_dir`` should be absolute; matches are spelled below it exactly as given (no
    symlink resolution of ``scan_dir`` itself). ``dot``: whether dot-directories below
    ``scan_dir`` are walked. Never raises for file-system problems — they become warnings.
    ``seen`` is filled with what the walk looked at (:class:`ScanSeen`).
    """
    walk = _Walk(dot, scan_dir, "", seen)
    try:
        st = os.stat(scan_dir)
    except FileNotFoundError:
        if os.path.islink(scan_dir):
            walk.broken(scan_dir)
        elif seen is not None:
            seen.absent = True
        return ScanResult((), tuple(walk.warnings))
    except NotADirectoryError:
        return EMPTY_SCAN
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            walk.loop(scan_dir, None)
        else:
            walk.unreadable(scan_dir, exc)
        return ScanResult((), tuple(walk.warnings))
    if not stat_mod.S_ISDIR(st.st_mode):
        return EMPTY_SCAN
    top = canonical(scan_dir)
    walk.scan_canon = top
    if seen is not None:
        seen.canon = top
        seen.exact = True
    walk.run(scan_dir, top)
    if seen is not None and any(os.path.isdir(p) or os.path.islink(p) for p in walk.hidden):
        # the counts below read folders the record does not cover (a symlink may come to name
        # one without the listing changing); a plain dot file is never read: as any entry, it
        # can only become a folder through the listing the record keeps
        seen.exact = False
    for folder in walk.hidden:
        if os.path.isdir(folder):
            count, complete = count_skill_files(folder)
            if count:
                walk.warnings.append(dot_folder_warning(
                    folder, count, complete, "Zuno",
                    f'add "{folder}" to skills.paths to include them'))
    pairs = dict(zip(walk.matches, walk.canonicals, strict=True))
    keyed = sorted((path_sort_key(m), m) for m in pairs)
    warnings = sorted(walk.warnings, key=lambda w: path_sort_key(w.source))
    links = list(walk.links)
    if top != scan_dir:
        links.append((scan_dir, top))
    return ScanResult(
        tuple(m for _, m in keyed),
        tuple(warnings),
        # a match reached by its real path (most are) is its own canonical path: one string kept
        tuple(m if (c := pairs[m]) == m else c for _, m in keyed),
        tuple(k for k, _ in keyed),
        tuple(links),
    )
