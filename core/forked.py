"""Work a one-shot command hands to a forked second process (SPEC-neutral; POSIX ``fork``).

A cold ``skillshelf index`` reads and parses every file and then writes the parse cache; both
are pure Python, so a thread cannot run them beside the main thread. On a machine with a second
core a forked child can: :func:`chunk_map` and :func:`claim_map` share a list's items with a
child, and :func:`spawn` has a write made in a child forked once the command has made its
output (:func:`start_pending`; the parent waits for it, :func:`wait`, unless it ends as the
console script does: :func:`skillshelf.app.cli.console`). :func:`ahead` computes a value in a
child for the parent to take later, with parts sent before it (:func:`ahead_part`): the TUI's
first build checks its kept build that way while the TUI imports Textual, or with none kept
takes the files the child reads (:mod:`skillshelf.app.ahead`).

Forking is only safe where nothing else runs: :data:`ENABLED` is set by the one-shot CLI (a
process that ends with its command, like ``parsecache.FREEZE_LOADED``; :func:`ahead` is for a
process that has started no thread yet), and every helper falls
back to doing the work in the calling process when it is off, when the process has another
thread (a lock held by it at the fork would stay held in the child), on one CPU or a busy
machine, and on systems other than Linux (macOS system libraries are not safe to use after a
fork). A child that fails in any way changes nothing: the parent then does
that part itself, so the results are the same whichever way they were made.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import pickle
import select
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

__all__ = ["ENABLED", "MIN_ITEMS", "Ahead", "ahead", "ahead_flush", "ahead_part", "available", "chunk_map",
           "claim_map", "may_fork", "spawn", "start_pending", "wait"]

T = TypeVar("T")
R = TypeVar("R")

#: Forking allowed (set by the one-shot CLI for the length of its command; off by default).
ENABLED = False
#: Fewest items :func:`chunk_map` hands part of to a child (below that the fork costs more).
MIN_ITEMS = 1500
#: Least time (seconds) :func:`chunk_map` waits for its child's next chunk once its own are
#: made (else four times its slowest chunk) before making the rest itself.
PATIENCE_S = 5.0
#: How often a wait for a child reading ahead looks whether it was cancelled (seconds).
CANCEL_POLL_S = 0.05
#: Fewest items in a chunk of :func:`chunk_map` (each costs a claim, a pickle and a frame).
CHUNK = 200
#: The pipe buffer (bytes) asked for the frames of :func:`chunk_map`: room for a few chunks
#: written ahead while the reader makes its own (Linux allows up to 1 MiB unprivileged).
PIPE_BYTES = 1 << 20

_children: set[int] = set()
_children_lock = threading.Lock()
_pending: list[Callable[[], object]] = []  # works spawn() holds until start_pending()
_handed: list[Callable[[], object]] = []  # works handed to a child still running (never freed meanwhile)


def available() -> bool:
    """Whether a fork may be used now by the one-shot CLI's helpers (:data:`ENABLED`, and
    :func:`may_fork`)."""
    return ENABLED and may_fork()


def may_fork() -> bool:
    """Whether a fork is safe now and pays (module docstring): Linux, no thread but this one,
    and a core likely free (the one-minute load average is below the CPU count less a quarter;
    on a busy machine the child would only queue behind others, and pickling its work back
    costs more than it saves)."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1):
        return False
    cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    return cpus >= 2 and load < cpus - 0.25


def _child_exit(code: int) -> NoReturn:
    os._exit(code)  # no exit handlers, no flush of buffers the parent also holds


def _read_all(fd: int, deadline: float | None) -> bytes | None:
    """Everything written to ``fd`` until its end, or ``None`` once ``deadline`` (monotonic;
    ``None``: none) passes first."""
    parts: list[bytes] = []
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and (left <= 0 or not select.select([fd], [], [], left)[0]):
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


def _write_all(fd: int, data: bytes | bytearray | memoryview) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _answer(r: int, w: int, make: Callable[[], object]) -> NoReturn:
    """In a forked child: send ``make()`` pickled through the pipe ``(r, w)`` and end (exit 0;
    1 when anything failed) without running the parent's exit code."""
    code = 1
    try:
        os.close(r)
        _write_all(w, pickle.dumps(make(), protocol=pickle.HIGHEST_PROTOCOL))
        os.close(w)
        code = 0
    finally:
        _child_exit(code)


def _reap(pid: int) -> int | None:
    """Wait for child ``pid``; its exit status (``None`` when it could not be waited for)."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return None
        except InterruptedError:  # pragma: no cover - PEP 475 retries already
            continue
        return status


def _reap_within(pid: int, seconds: float) -> bool:
    """Wait for child ``pid`` to exit, ``seconds`` at most; True when it was reaped (else it is
    still there: a stopped child)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if done:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.001)


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    _reap(pid)


def chunk_map(fn: Callable[[T], R], items: Sequence[T], each: Callable[[int, R], object], *,
              extra: Callable[[], Any] | None = None, adopt: Callable[[Any], object] | None = None) -> None:
    """``each(i, fn(items[i]))`` in this process for every ``i`` (in no set order), with this
    process and a forked child taking chunks of :data:`CHUNK` items or more in turn, each the
    next one not yet taken (as :func:`claim_map` takes items), when :func:`available` and there
    are at least :data:`MIN_ITEMS` items. The child sends each chunk's results as soon as they
    are made and this process hands them to ``each`` between its own chunks, so what ``each``
    does (an entry made from a read) runs beside the child's work, and the share each process
    takes follows what its items cost it. ``fn`` must be a pure function of its item and the
    files it reads (results are pickled back); ``extra()`` runs in the child after each of its
    chunks (state ``fn`` kept since the last call, picklable) and its value is given to
    ``adopt`` here before that chunk's results. What a child that failed did not send is made
    here; a child that sends nothing for :data:`PATIENCE_S` seconds (or four times this
    process's slowest chunk, if longer) once this process has made its own chunks, or sends a
    frame that does not unpickle, is killed.
    An exception from ``fn`` or ``each`` here propagates (the child is killed)."""
    n = len(items)
    if n < MIN_ITEMS or not available():
        for i, x in enumerate(items):
            each(i, fn(x))
        return
    size = max(CHUNK, -(-n // 255))  # (at most 255 chunks: one byte a claim)
    chunks = -(-n // size)
    try:
        claims_r, claims_w = os.pipe()
    except OSError:
        claims_r = claims_w = -1
    try:
        if claims_r < 0:
            raise OSError
        os.write(claims_w, bytes(range(chunks)))  # (≤ 255 bytes: within the pipe's buffer)
        os.close(claims_w)
        r, w = os.pipe()
    except OSError:
        if claims_r >= 0:
            os.close(claims_r)
        for i, x in enumerate(items):
            each(i, fn(x))
        return
    with contextlib.suppress(OSError, AttributeError):  # (room for the frames the child writes ahead)
        import fcntl

        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    def part(c: int) -> list[R]:
        return [fn(x) for x in items[c * size:(c + 1) * size]]

    def send() -> None:
        os.close(r)
        while claim := os.read(claims_r, 1):  # (one read of a pipe is atomic: no chunk is taken twice)
            data = pickle.dumps((claim[0], part(claim[0]), extra() if extra is not None else None),
                                protocol=pickle.HIGHEST_PROTOCOL)
            _write_all(w, len(data).to_bytes(8, "little"))
            _write_all(w, data)
        os.close(w)

    try:
        pid = os.fork()
    except OSError:
        os.close(claims_r)
        os.close(r)
        os.close(w)
        for i, x in enumerate(items):
            each(i, fn(x))
        return
    if pid == 0:  # the child: take chunks until none is left, send each as it is made, end
        code = 1
        try:
            send()
            code = 0
        finally:
            _child_exit(code)
    os.close(w)
    made: set[int] = set()
    frames = _Frames(r)
    reaped = False

    def take(c: int, results: list[R], state: Any) -> None:
        if adopt is not None:
            adopt(state)
        for i, value in enumerate(results, c * size):
            each(i, value)
        made.add(c)

    try:
        slowest = 0.0
        while claim := os.read(claims_r, 1):
            start = time.monotonic()
            c = claim[0]
            for i, value in enumerate(part(c), c * size):
                each(i, value)
            made.add(c)
            slowest = max(slowest, time.monotonic() - start)
            for frame in frames.ready(chunks, size, n, made):
                take(*frame)
        patience = max(PATIENCE_S, 4 * slowest)
        while not frames.ended:
            got = frames.wait(time.monotonic() + patience, chunks, size, n, made)
            if got is None:  # (nothing for that long: the rest is made here)
                break
            for frame in got:
                take(*frame)
        if frames.ended and not frames.refused:  # (the child's end: it has exited, or is about to)
            reaped = _reap_within(pid, patience)
        for c in range(chunks):
            if c not in made:
                for i, value in enumerate(part(c), c * size):
                    each(i, value)
    finally:
        os.close(claims_r)
        os.close(r)
        if not reaped:
            _kill(pid)


class _Frames:
    """The frames a :func:`chunk_map` child writes (8 bytes of length, then ``(chunk, results,
    state)`` pickled), read as they come. A frame that is cut short, does not unpickle or is not
    one the reader expects, or a failed read, ends them (:attr:`refused`: the child is then
    stopped, and its chunks not taken are made by the reader)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buf = bytearray()
        self.ended = False
        self.refused = False

    def _read(self, timeout: float) -> bool:
        """Read what the pipe holds, after waiting ``timeout`` seconds at most for it; False when
        nothing came."""
        if not select.select([self._fd], [], [], max(timeout, 0.0))[0]:
            return False
        try:
            data = os.read(self._fd, 1 << 20)
        except OSError:
            data = b""
            self.refused = True
        if not data:
            self.ended = True
        self._buf += data
        return True

    def _complete(self, chunks: int, size: int, n: int, made: set[int]) -> list[tuple[int, list[Any], Any]]:
        out = []
        buf = self._buf
        while len(buf) >= 8:
            length = int.from_bytes(buf[:8], "little")
            if len(buf) < 8 + length:
                break
            data = bytes(buf[8:8 + length])
            del buf[:8 + length]
            try:
                c, results, state = pickle.loads(data)
                ok = (isinstance(c, int) and 0 <= c < chunks and c not in made and isinstance(results, list)
                      and len(results) == min(size, n - c * size))
            except Exception:  # (anything the child sent that does not unpickle here)
                ok = False
            if not ok:
                self.ended = self.refused = True
                buf.clear()
                break
            out.append((c, results, state))
        return out

    def ready(self, chunks: int, size: int, n: int, made: set[int]) -> list[tuple[int, list[Any], Any]]:
        """The whole frames the pipe holds now (no wait)."""
        while not self.ended and self._read(0.0):
            pass
        return self._complete(chunks, size, n, made)

    def wait(self, deadline: float, chunks: int, size: int, n: int,
             made: set[int]) -> list[tuple[int, list[Any], Any]] | None:
        """The next whole frames (waiting until ``deadline``, monotonic), ``[]`` at the end of
        the frames; ``None`` when none came in time."""
        while not self.ended:
            if not self._read(deadline - time.monotonic()):
                return None
            got = self._complete(chunks, size, n, made)
            if got:
                return got
        return self._complete(chunks, size, n, made)


def claim_map(fn: Callable[[T], R], items: Sequence[T], *, meanwhile: Callable[[], object] | None = None) -> list[R]:
    """``[fn(x) for x in items]`` with this process and a forked child taking the items one at
    a time, each the next one not yet taken (a shared pipe of item numbers), so items of very
    different sizes — the roots of a walk — still share the work evenly; when
    :func:`available` and there are 2 to 255 items. ``fn`` must be a pure function of its item
    and the files it reads (results are pickled back). What a child that failed did not answer
    is computed here; a child still at work is waited for as long as it lives (one item may be
    most of the work: a root of 100,000 skills). ``meanwhile()`` runs in this process before it
    takes items — once the child is at work when there is one (it then takes more of them) —
    and before ``fn`` when there is none."""
    n = len(items)
    if not 2 <= n <= 255 or not available():
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    def alone() -> list[R]:
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]

    try:
        claims_r, claims_w = os.pipe()
    except OSError:
        return alone()
    try:
        os.write(claims_w, bytes(range(n)))  # (n < 256 bytes: within the pipe's buffer)
        os.close(claims_w)
        r, w = os.pipe()
    except OSError:
        os.close(claims_r)
        return alone()

    def take() -> dict[int, R]:
        done: dict[int, R] = {}
        while claim := os.read(claims_r, 1):  # (one read of a pipe is atomic: no item is taken twice)
            done[claim[0]] = fn(items[claim[0]])
        return done

    try:
        pid = os.fork()
    except OSError:
        os.close(claims_r)
        os.close(r)
        os.close(w)
        return alone()
    if pid == 0:  # the child: take items until none is left, send them, end
        _answer(r, w, take)
    os.close(w)
    done = False
    try:
        if meanwhile is not None:
            meanwhile()
        mine = take()
        try:
            answer = _read_all(r, None)
        except OSError:
            answer = b""
        theirs: dict[int, R] = {}
        if answer is not None:
            status = _reap(pid)
            done = True
            if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and answer:
                with contextlib.suppress(Exception):
                    got = pickle.loads(answer)
                    if isinstance(got, dict):
                        theirs = got
        both = {**theirs, **mine}
        return [both[i] if i in both else fn(items[i]) for i in range(n)]
    finally:
        os.close(claims_r)
        os.close(r)
        if not done:
            _kill(pid)


def _detach_streams() -> None:
    """In a :func:`spawn` child: a session of its own (Ctrl-C in the terminal, or the terminal
    closing, signals the command's process group, which it leaves: it outlives the command), its
    standard input, output and a piped standard error → the null device, and every other pipe
    or socket it inherited closed (a caller reading one to its end never waits for it; the
    cache's lock, a regular file, stays open)."""
    with contextlib.suppress(OSError):
        os.setsid()
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        with contextlib.suppress(OSError):
            if stat.S_ISFIFO(mode := os.fstat(2).st_mode) or stat.S_ISSOCK(mode):
                os.dup2(null, 2)
        os.close(null)
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        fds = []
    for fd in fds:
        if fd > 2:
            with contextlib.suppress(OSError):
                if stat.S_ISFIFO(mode := os.fstat(fd).st_mode) or stat.S_ISSOCK(mode):
                    os.close(fd)


def spawn(work: Callable[[], object]) -> bool:
    """Have ``work()`` run in a forked child, once this process has made everything else it
    was asked for (:func:`start_pending`, or the next :func:`wait`); True when it will be, False
    when :func:`available` says no (nothing will run: the caller does the work its own way).
    ``work`` must not need anything back (a file write), and what it reads must not change
    meanwhile. Forked at once, the child would share every page of this process copy-on-write
    while this process goes on: each page it then writes to (reference counts are writes) is
    copied, and letting go of the work's objects here costs as much (~70 ms in all at 10,000
    skills, half of what a cold ``index`` does after its reads). The child's standard input
    and output are the null device, and so is its standard error when that is a pipe or a
    socket (a terminal or a file keeps its messages): a child outliving this process never
    holds a pipe the caller's caller reads to its end (``$(skillshelf index 2>&1)``)."""
    if not available():
        return False
    with _children_lock:
        _pending.append(work)
    return True


def start_pending() -> bool:
    """Fork one child that runs every work :func:`spawn` holds, in the order given, and hand
    them over (they stay referenced here: this process is about to end or to wait for the
    child); True when none is left here. Where no fork is safe (another thread runs: a lock
    it holds would stay held in the child) or the fork fails, the works run here instead."""
    with _children_lock:
        works = list(_pending)
        _pending.clear()
    if not works:
        return True
    safe = sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1
    pid = -1
    if safe:
        try:
            pid = os.fork()
        except OSError:
            pid = -1
    if pid == 0:
        code = 1
        try:
            _detach_streams()
            for work in works:
                work()
            code = 0
        finally:
            _child_exit(code)
    if pid < 0:
        for work in works:
            work()
        return True
    with _children_lock:
        _children.add(pid)
        _handed.extend(works)
    return True


def wait(timeout: float | None = None) -> bool:
    """Start the works :func:`spawn` holds (:func:`start_pending`), then wait for the children
    running them (``timeout`` seconds at most in all; ``None``: until they end); True when
    none is left."""
    start_pending()
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        with _children_lock:
            pid = next(iter(_children), None)
            if pid is None:
                _handed.clear()
                return True
        if deadline is None:
            _reap(pid)
        else:
            while True:
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done:
                    break
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.005)
        with _children_lock:
            _children.discard(pid)


class Ahead:
    """A value a forked child computes while this process goes on (:func:`ahead`), and the parts
    it sends before it (:func:`ahead_part`, taken with :meth:`part`)."""

    def __init__(self, pid: int, fd: int) -> None:
        self._pid: int | None = pid
        self._fd: int | None = fd
        self._lock = threading.Lock()
        self._buf = bytearray()
        self._answer: tuple[object] | None = None  # (the child's value, once its last frame came)

    def _frame(self, deadline: float, cancel: threading.Event | None = None) -> tuple[bool, object] | None:
        """The next frame, ``(last, value)``, waiting until ``deadline`` (monotonic) at most;
        ``None`` when none came in time, ``cancel`` was set (looked at every
        :data:`CANCEL_POLL_S`), or the child ended or sent something that is not one (the lock
        held)."""
        fd = self._fd
        assert fd is not None
        buf = self._buf
        while len(buf) < 8 or len(buf) < 8 + int.from_bytes(buf[:8], "little"):
            left = deadline - time.monotonic()
            if left <= 0 or (cancel is not None and cancel.is_set()):
                return None
            if not select.select([fd], [], [], left if cancel is None else min(left, CANCEL_POLL_S))[0]:
                continue
            try:
                data = os.read(fd, 1 << 20)
            except OSError:
                data = b""
            if not data:
                return None
            buf += data
        length = int.from_bytes(buf[:8], "little")
        data = bytes(buf[8:8 + length])
        del buf[:8 + length]
        try:
            last, value = pickle.loads(data)
        except Exception:  # (anything the child sent that does not unpickle here)
            return None
        return (last, value) if isinstance(last, bool) else None

    def _stop(self, *, answered: bool) -> None:
        """Close the pipe and reap the child: waited for when it has sent its last frame (its
        value is dropped unless it exited 0), else killed (the lock held)."""
        pid, fd = self._pid, self._fd
        self._pid = self._fd = None
        if fd is not None:
            os.close(fd)
        if pid is None:
            return
        if not answered:  # (the child and what it forked: its process group)
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            _kill(pid)
            return
        status = _reap(pid)
        if status is None or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            self._answer = None

    def part(self, timeout: float, cancel: threading.Event | None = None) -> tuple[bool, object]:
        """``(True, value)`` for the next part the child sent (:func:`ahead_part`), waiting
        ``timeout`` seconds at most; ``(False, None)`` when no more will come — the child has
        answered (its value is kept for :meth:`take`), failed, sent nothing in time, or
        ``cancel`` was set meanwhile (the child is then killed)."""
        with self._lock:
            if self._fd is None:
                return False, None
            frame = self._frame(time.monotonic() + max(timeout, 0.0), cancel)
            if frame is None:
                self._stop(answered=False)
                return False, None
            last, value = frame
            if not last:
                return True, value
            self._answer = (value,)
            self._stop(answered=True)
            return False, None

    def take(self, timeout: float) -> object | None:
        """The child's value, waiting ``timeout`` seconds at most (parts not taken yet are
        dropped); ``None`` when the child failed, sent something that does not unpickle, or has
        not answered by then (it is then killed). Once only: every later call returns ``None``
        (a value is of its moment)."""
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._lock:
            while self._fd is not None:
                frame = self._frame(deadline)
                if frame is None:
                    self._stop(answered=False)
                elif frame[0]:
                    self._answer = (frame[1],)
                    self._stop(answered=True)
            answer, self._answer = self._answer, None
        return answer[0] if answer is not None else None

    def handed(self) -> Ahead:
        """The same child, taken over by a new :class:`Ahead` (its parts read so far included):
        this one no longer stops it (:meth:`cancel` is then a no-op), the new one does, at the
        latest at this process's normal exit."""
        with self._lock:
            other = Ahead(self._pid, self._fd)  # type: ignore[arg-type]
            other._buf, other._answer = self._buf, self._answer
            self._pid = self._fd = None
            self._buf, self._answer = bytearray(), None
        if other._fd is not None:
            atexit.register(other.cancel)
        return other

    def cancel(self) -> None:
        """Stop the child (if still running) and forget its value."""
        with self._lock:
            self._stop(answered=False)
            self._answer = None


class _Sender:
    """In a child of :func:`ahead`: its frames to the parent (8 bytes of length, then ``(last,
    value)`` pickled). Parts never wait for the parent to read: what the pipe cannot take now
    is held (each frame whole, written from where the pipe stopped taking it) and sent as soon
    as it takes more (:meth:`flush`); the last frame waits for all of it."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._held: collections.deque[memoryview] = collections.deque()
        os.set_blocking(fd, False)

    def send(self, value: object, *, last: bool = False) -> None:
        data = pickle.dumps((last, value), protocol=pickle.HIGHEST_PROTOCOL)
        self._held.append(memoryview(len(data).to_bytes(8, "little") + data))
        if last:
            os.set_blocking(self._fd, True)
            while self._held:
                _write_all(self._fd, self._held.popleft())
            return
        self.flush()

    def flush(self) -> None:
        """Write what is held, as much as the pipe takes now (each byte written once)."""
        held = self._held
        while held:
            try:
                n = os.write(self._fd, held[0])
            except BlockingIOError:
                return
            if n < len(held[0]):
                held[0] = held[0][n:]
            else:
                held.popleft()


_sender: _Sender | None = None  # (in a child of ahead(): where its parts go)


def ahead_flush() -> None:
    """In a child of :func:`ahead`: send what the pipe could not take of the parts so far, as
    much as it takes now (never waits). Nothing anywhere else."""
    if _sender is not None:
        _sender.flush()


def ahead_part(value: object) -> bool:
    """In a child of :func:`ahead`: send ``value`` (picklable) to the parent now, before the
    child's own value (the parent takes it with :meth:`Ahead.part`); False anywhere else
    (nothing sent). Never waits for the parent."""
    if _sender is None:
        return False
    _sender.send(value)
    return True


def ahead(work: Callable[[], object]) -> Ahead | None:
    """Start ``work()`` in a forked child now, its (picklable) value to be taken later with
    :meth:`Ahead.take`; ``None`` when :func:`may_fork` says no (nothing ran). For a process
    that has started no thread yet (the TUI before it imports Textual): unlike :func:`spawn`
    and :func:`chunk_map`, it does not need :data:`ENABLED`. The child's standard streams are
    the null device (the terminal stays this process's); it ends without running this
    process's exit code, and is killed at this process's normal exit if it is still running."""
    if not may_fork():
        return None
    try:
        r, w = os.pipe()
    except OSError:
        return None
    with contextlib.suppress(OSError, AttributeError):  # (room for the parts sent before the parent reads)
        import fcntl

        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    # the child leads a process group of its own (with the readers it forks: stopped together,
    # Ahead.cancel), so a Ctrl-C in the terminal reaches this process alone, whose exit stops
    # it; SIGINT is held back over the fork so that a child signalled at once never runs this
    # process's handler, and dies of it silently
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        os.close(r)
        os.close(w)
        return None
    if pid == 0:
        code = 1
        try:
            with contextlib.suppress(OSError):
                os.setpgid(0, 0)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            os.close(r)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115  (whatever they were bound to; never closed)
            global _sender
            _sender = _Sender(w)
            _sender.send(work(), last=True)
            os.close(w)
            code = 0
        finally:
            _child_exit(code)
    with contextlib.suppress(OSError):  # (the child's own call may come later: whichever is first)
        os.setpgid(pid, pid)
    signal.pthread_sigmask(signal.SIG_SETMASK, held)
    os.close(w)
    pending = Ahead(pid, r)
    atexit.register(pending.cancel)
    return pending
