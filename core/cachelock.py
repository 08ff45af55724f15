"""The writer lock of skillshelf's cache directory (SPEC-neutral; POSIX ``flock``).

A one-shot command writes its parse cache in a child it forks once its output is made
(:func:`skillshelf.core.forked.spawn`), and the ``skillshelf`` console script ends without
waiting for it
(:func:`skillshelf.app.cli.console`). A run started meanwhile waits for those writers before
it reads its first cache file (:func:`await_writers`, :data:`WAIT_S` at most, once per cache
directory), so a command typed right after another still finds the cache the other was
writing. (A script that deletes the cache directory right after a command may race with its
writers, which can make the directory again: it is a cache, read only when its stamps match.)

The lock is ``flock(2)`` on ``<cache directory>/.writing``. A command takes it exclusively
(:func:`hold`) when it plans its first write and lets go of its own descriptor when it ends
(:func:`release`; the console script just ends). The lock belongs to the open file, which the
writer forked meanwhile shares, so it lasts until the writer has exited. Readers take it shared for an instant.
Where ``flock`` is missing (not POSIX) or fails, or a writer outlasts :data:`WAIT_S`, nothing
waits: every cache write is an atomic rename, so a reader sees the old file or the new one,
never part of one — at worst the next run reads the skill files again.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time

from skillshelf.core.paths import private_dirs

try:
    import fcntl
except ImportError:  # (not POSIX: no lock, nothing waits)
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_NAME", "WAIT_S", "await_writers", "hold", "release"]

#: The lock file's name in the cache directory.
LOCK_NAME = ".writing"
#: Longest wait (seconds) of a reader for another command's writers.
WAIT_S = 2.0
_POLL_S = 0.005

_held: dict[str, int] = {}  # cache directory → this process's descriptor holding the lock
_awaited: set[str] = set()  # cache directories whose writers this process has waited for once
_lock = threading.Lock()


def _open(path: str, flags: int) -> int | None:
    """A descriptor of the regular file ``path`` (made 0600 with ``O_CREAT``; never blocks: a
    FIFO in its place is refused)."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, 0o600)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _try(fd: int, op: int, timeout: float) -> bool:
    assert fcntl is not None
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, op | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)
        except OSError:  # (a file system without flock)
            return False


def hold(directory: str) -> bool:
    """Take the writer lock of cache ``directory`` for this process and the writers it forks
    from now on; True when held. Never waits: while another command's writers hold it, this
    process writes without it (a later run then may not wait for them). Never raises."""
    if fcntl is None:
        return False
    with _lock:
        if directory in _held:
            return True
        try:
            private_dirs(directory)
        except OSError:
            return False
        fd = _open(os.path.join(directory, LOCK_NAME), os.O_RDWR | os.O_CREAT)
        if fd is None:
            return False
        if not _try(fd, fcntl.LOCK_EX, 0.0):
            os.close(fd)
            return False
        _held[directory] = fd
        return True


def release() -> None:
    """Close this process's lock descriptors: the lock ends when the writers forked while it
    was held have exited too."""
    with _lock:
        fds = list(_held.values())
        _held.clear()
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def await_writers(directory: str, timeout: float = WAIT_S, *, again: bool = False) -> bool:
    """Wait until no other command's writers hold the lock of cache ``directory`` (``timeout``
    seconds at most); True when none does (or there is no lock to look at). A process waits so
    once per directory — its later reads find the writes it waited for, and a writer that
    outlasted the wait is not waited for again — unless ``again``. Never raises."""
    if fcntl is None or directory in _held or (directory in _awaited and not again):
        return True
    _awaited.add(directory)
    fd = _open(os.path.join(directory, LOCK_NAME), os.O_RDONLY)
    if fd is None:
        return True  # (no writer has ever locked this directory)
    try:
        return _try(fd, fcntl.LOCK_SH, timeout)
    finally:
        os.close(fd)  # (closing lets go of the shared lock)
