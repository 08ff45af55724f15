"""Read a file the user (or a skill) named without ever blocking on it (SPEC D4, F1, K1, L6).

Every file skillshelf reads — a ``SKILL.md``, a sidecar, a config layer — is chosen by someone
else and may be a FIFO, a socket or a device (``SKILL.md -> /dev/zero``). A plain ``open()``
then blocks forever (a FIFO with no writer) or never reaches end of file (``/dev/zero``).
:func:`read_regular` opens without blocking, checks the file type on the open descriptor (no
race between the check and the read) and refuses anything that is not a regular file.

It also never reads a file whole when it is huge (a 200 MB ``SKILL.md``, a sparse 10 GB file):
the size is checked on the open descriptor first (``fstat``) and a file over
:data:`MAX_READ_BYTES` — skillshelf's own safety limit, not a rule of any host — is refused
with :class:`FileTooLargeError` giving its size; a caller that wants only a prefix passes
``max_bytes`` and never gets more than that plus one byte.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import stat
import threading
from collections.abc import Callable, Iterator

__all__ = ["MAX_READ_BYTES", "FileTooLargeError", "NotRegularFileError", "error_kind_text", "mapped", "read_regular",
           "tap_reads"]

_taps = threading.local()


class tap_reads:
    """While active in this thread, every successful :func:`read_regular` also hands
    ``(path, bytes)`` to ``sink`` (the parse cache derives other products from the same read,
    :mod:`skillshelf.core.parsecache`). Nests: the innermost sink receives the reads."""

    def __init__(self, sink: Callable[[str, bytes], None]) -> None:
        self._sink = sink
        self._outer: Callable[[str, bytes], None] | None = None

    def __enter__(self) -> None:
        self._outer = getattr(_taps, "sink", None)
        _taps.sink = self._sink

    def __exit__(self, *exc: object) -> None:
        _taps.sink = self._outer

#: skillshelf's safety limit on a file read whole (bytes): 16 MiB, 100 times the largest
#: ``SKILL.md`` in a 1,117-skill corpus (160 KB). No host has this limit; it keeps one hostile
#: file from taking seconds and gigabytes.
MAX_READ_BYTES = 16 * 1024 * 1024

#: Bytes per read after the first one (which asks for the whole file).
_CHUNK = 1 << 20

#: ``os.open`` flags of a read: never blocks on a FIFO, not inherited, binary on Windows.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


#: errno → the Display text of the Rust ``io::ErrorKind`` the standard library maps it to
#: (``std::sys::pal::unix::decode_error_kind``); anything else is ``uncategorized error``.
_ERROR_KINDS = {
    errno.ENOENT: "entity not found",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "not a directory",
    errno.ELOOP: "filesystem loop or indirection limit (e.g. symlink loop)",
    errno.EINVAL: "invalid input parameter",
    errno.ENAMETOOLONG: "invalid filename",
    errno.ENOMEM: "out of memory",
    errno.ENOSPC: "no storage space",
    errno.EROFS: "read-only filesystem or storage medium",
    errno.EBUSY: "resource busy",
    errno.ETXTBSY: "executable file busy",
    errno.EFBIG: "file too large",
    errno.EINTR: "operation interrupted",
    errno.EAGAIN: "operation would block",
    errno.ETIMEDOUT: "timed out",
    errno.ESTALE: "stale network file handle",
    errno.ENOSYS: "unsupported",
    errno.EEXIST: "entity already exists",
    errno.ENOTEMPTY: "directory not empty",
    errno.EMLINK: "too many links",
    errno.EXDEV: "cross-device link or rename",
    errno.EDEADLK: "deadlock",
    errno.EPIPE: "broken pipe",
    errno.ESPIPE: "seek on unseekable file",
}


def error_kind_text(exc: OSError) -> str:
    """How a Rust program names this I/O error's kind (``permission denied``, ``is a
    directory`` …): what Zuno's warnings print (conformance Z-T). A refusal that is no OS
    error (a FIFO, :class:`NotRegularFileError`: skillshelf's own, Zuno never reads one) keeps
    its own words."""
    if exc.errno is None:
        return str(exc) or "other error"
    return _ERROR_KINDS.get(exc.errno, "uncategorized error")


class NotRegularFileError(OSError):
    """The path names a FIFO, socket or device. ``str(exc)`` is ``not a regular file (a FIFO)``;
    ``errno`` is ``None`` (no OS error happened: skillshelf refused to read)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"not a regular file ({kind})")
        self.path = path
        self.kind = kind


class FileTooLargeError(OSError):
    """The file is over the size limit and was not read. ``str(exc)`` is ``file is 209,715,200
    bytes, above skillshelf's safety limit of 16,777,216 bytes``; ``size`` (bytes; for a file that
    grew while read, the bytes read so far, ``at_least`` True) and ``limit``; ``errno`` is
    ``None`` (skillshelf refused to read)."""

    def __init__(self, path: str, size: int, limit: int, *, at_least: bool = False) -> None:
        more = "more than " if at_least else ""
        super().__init__(f"file is {more}{size:,} bytes, above skillshelf's safety limit of {limit:,} bytes")
        self.path = path
        self.size = size
        self.limit = limit
        self.at_least = at_least


def read_regular(path: str, max_bytes: int | None = None, *, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed).

    ``max_bytes``: read at most that many bytes plus one (so a caller can tell "too large"
    from "exactly at the limit"), however large the file. ``None`` reads the whole file when
    it is at most ``limit`` bytes (default :data:`MAX_READ_BYTES`) and raises
    :class:`FileTooLargeError` otherwise — checked with ``fstat`` before reading and again
    while reading (a file that grows, a size the kernel does not report). Raises
    ``FileNotFoundError`` and other ``OSError`` as ``open`` does, ``IsADirectoryError`` (errno
    EISDIR) for a directory, and :class:`NotRegularFileError` for a FIFO, socket or device.
    Never blocks on a FIFO.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            kind = next((label for test, label in _KINDS if test(mode)), "not a file")
            raise NotRegularFileError(path, kind)
        whole = max_bytes is None
        if whole and st.st_size > limit:
            raise FileTooLargeError(path, st.st_size, limit)
        # Plain os.read on the descriptor: no buffered file object per file (half the cost of
        # reading 10,000 skills). The first read asks for the whole file plus one byte; the loop
        # continues until end of file in case the file grew or the OS returned less, and never
        # past the cap plus one byte. A read shorter than asked that ends exactly at the size
        # fstat gave is the end of the file (no further read to learn it).
        cap = (limit if max_bytes is None else max_bytes) + 1
        size = st.st_size
        parts: list[bytes] = []
        total = 0
        while True:
            want = min(_CHUNK if total else max(size + 1, 1), cap - total)
            if want <= 0:
                break
            chunk = os.read(fd, want)
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            if total == size and len(chunk) < want:
                break
        if whole and total > limit:
            raise FileTooLargeError(path, limit, limit, at_least=True)
    finally:
        os.close(fd)
    data = parts[0] if len(parts) == 1 else b"".join(parts)
    sink = getattr(_taps, "sink", None)
    if sink is not None:
        sink(path, data)
    return data


@contextlib.contextmanager
def mapped(path: str) -> Iterator[mmap.mmap]:
    """The regular file at ``path`` mapped read-only (for large files searched in place: an
    installed client's binary). Raises as :func:`read_regular` does (``OSError``,
    :class:`NotRegularFileError`); ``ValueError`` for an empty file (nothing to map)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, next((label for test, label in _KINDS if test(mode)), "not a file"))
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            yield data
    finally:
        os.close(fd)
