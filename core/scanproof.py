"""Whether a kept :func:`~skillshelf.core.scan.scan` result still holds, without walking again.

A scan's result is a function of what it looked at (:class:`~skillshelf.core.scan.ScanSeen`):
the listing of every directory it listed, how each symlink entry it met resolves, and the
canonical scan directory. A listing changes only when an entry is created, removed or renamed
(or replaced) in that directory, and each of those changes the directory's ``mtime`` and
``ctime``; so a :class:`ScanProof` keeps each listed directory's identity key (times, inode,
device, type — symlinks followed, as the walk follows them) and each symlink entry's
:func:`~skillshelf.core.scan.link_key`, and :meth:`ScanProof.holds` re-``stat``-s them: one
``stat`` per directory instead of one listing per directory and the Python work per entry.

Like the parse cache (:data:`skillshelf.core.parsecache.RACY_NS`), a directory whose times are
younger than the racy window *before the scan started* is never trusted (a change in the same
timestamp tick as the kept time would keep the key), so no proof is made for that scan. A scan
that depended on anything else (an unreadable folder, dot folders it counted or dot symlinks, a scan directory
that is not a directory: ``ScanSeen.exact`` False) gets no proof and is walked again every time.
A scan directory that does not exist at all (no entry, not even a dangling symlink: an empty
result) is proved by its absence (:attr:`ScanProof.absent`).
"""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass

from skillshelf.core import parsecache
from skillshelf.core.paths import canonical
from skillshelf.core.scan import ScanSeen, link_key

__all__ = ["ScanProof", "prove"]

#: ``(mtime_ns, ctime_ns, inode, device, file type bits)`` of a listed directory.
DirKey = tuple[int, int, int, int, int]


def _dir_key(path: str) -> DirKey | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, stat_mod.S_IFMT(st.st_mode))


@dataclass(frozen=True)
class ScanProof:
    """What one scan of ``scan_dir`` looked at, with the keys it had (module docstring):
    ``dirs`` and ``dir_keys`` in parallel, ``links`` as ``(path, name, kind, canonical)``;
    ``absent``: the scan directory did not exist (the other fields are empty)."""

    scan_dir: str
    canon: str
    dirs: tuple[str, ...]
    dir_keys: tuple[DirKey, ...]
    links: tuple[tuple[str, str, int, str], ...]
    absent: bool = False

    def holds(self) -> bool:
        """True when a scan of :attr:`scan_dir` now would look at exactly what it looked at
        (so return the same result): every listed directory has its key, every symlink entry
        resolves as it did, the scan directory has the same canonical path; for an absent scan
        directory, that there is still no entry of that name."""
        if self.absent:
            return _absent(self.scan_dir)
        if canonical(self.scan_dir) != self.canon:
            return False
        stat = os.stat
        ifmt = stat_mod.S_IFMT
        try:
            for path, key in zip(self.dirs, self.dir_keys, strict=True):
                st = stat(path)
                if (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, ifmt(st.st_mode)) != key:
                    return False
        except (OSError, ValueError):
            return False
        return all(link_key(path, name) == (kind, target) for path, name, kind, target in self.links)


def _absent(path: str) -> bool:
    """True when ``path`` names no entry at all (a dangling symlink is an entry)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    return False


def prove(scan_dir: str, seen: ScanSeen, since_ns: int) -> ScanProof | None:
    """The proof of a scan of ``scan_dir`` that filled ``seen`` and started at ``since_ns``
    (:func:`time.time_ns`), or ``None`` when it cannot be trusted: not exact, or a listed
    directory changed within the racy window before the scan started (or since)."""
    if seen.absent:  # still absent now, so absent at every moment since the scan looked
        return ScanProof(scan_dir, "", (), (), (), absent=True) if _absent(scan_dir) else None
    if not seen.exact or not seen.listed:  # an exact walk lists the scan directory at least
        return None
    newest = since_ns - parsecache.RACY_NS
    keys: list[DirKey] = []
    for path in seen.listed:
        key = _dir_key(path)
        if key is None or max(key[0], key[1]) >= newest:
            return None
        keys.append(key)
    return ScanProof(scan_dir, seen.canon, tuple(seen.listed), tuple(keys), tuple(seen.links))
