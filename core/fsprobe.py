"""File-system questions an output depended on, recorded so that they can be asked again.

Some findings look at files other than the one they are about (the lint's ``missing-reference``,
``reference-outside`` and ``nested-skill``: does this path exist, what does this folder hold, is
there a ``.git`` or a ``SKILL.md`` further up). They ask through these functions; inside
:func:`recording`, each question and its answer is kept, and :func:`hold` asks them all again
later: equal answers mean those findings would be the same now. A file whose *content* a
finding used is recorded by its identity key (:func:`file_key`, taken before it is read).
Outside :func:`recording` the functions are the plain :mod:`os` calls.
"""

from __future__ import annotations

import contextlib
import os
import stat as stat_mod
import time
from collections.abc import Collection, Iterator, Sequence
from typing import Any

__all__ = ["exists", "file_key", "hold", "isdir", "isfile", "listing", "recording", "same_file"]

#: The questions asked so far while recording: ``(question, path) → (answer, kind)``; ``None``:
#: not recording. ``kind``: what the entry at ``path`` itself was (``lstat``) — see :func:`hold`.
_asked: dict[tuple[str, str], Any] | None = None
#: A question whose answer changed while recording (the output then proves nothing).
_UNSTABLE = ("unstable",)

#: Entry kinds of :func:`_kind`: no entry, a folder, a file, something else (FIFO …) — each
#: fixed while its folder's listing is (the same name keeps the same inode) — and a symlink or
#: an unknown entry, whose answers must be asked again.
_ABSENT, _DIR, _FILE, _OTHER, _LINK, _UNKNOWN = range(6)
_QUESTIONS = ("exists", "isdir", "isfile")


def _kind(path: str) -> int:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return _ABSENT
    except (OSError, ValueError):
        return _UNKNOWN
    if stat_mod.S_ISLNK(mode):
        return _LINK
    return _DIR if stat_mod.S_ISDIR(mode) else _FILE if stat_mod.S_ISREG(mode) else _OTHER


def _note(question: str, path: str, answer: Any) -> Any:
    asked = _asked
    if asked is not None:
        key = (question, path)
        entry = (answer, _kind(path) if question in _QUESTIONS else _UNKNOWN)
        if asked.setdefault(key, entry) != entry:
            asked[key] = (_UNSTABLE, _UNKNOWN)
    return answer
def exists(path: str) -> bool:
    """:func:`os.path.exists` (symlinks followed)."""
    return bool(_note("exists", path, os.path.exists(path)))


def isfile(path: str) -> bool:
    """:func:`os.path.isfile`."""
    return bool(_note("isfile", path, os.path.isfile(path)))


def isdir(path: str) -> bool:
    """:func:`os.path.isdir`."""
    return bool(_note("isdir", path, os.path.isdir(path)))


def _listing(directory: str) -> tuple[tuple[str, bool], ...] | None:
    try:
        with os.scandir(directory) as it:
            return tuple(sorted((e.name, e.is_dir()) for e in it))
    except OSError:
        return None


def listing(directory: str) -> dict[str, bool] | None:
    """``directory``'s entries, name → whether it is a folder (symlinks followed); ``None`` when
    it cannot be listed."""
    found = _note("list", directory, _listing(directory))
    return None if found is None else dict(found)


def _same(a: str, b: str) -> bool | None:
    try:
        return os.path.samestat(os.stat(a), os.stat(b))
    except OSError:
        return None


def same_file(a: str, b: str) -> bool | None:
    """Whether ``a`` and ``b`` are the same file (:func:`os.path.samestat`); ``None`` when either
    cannot be ``stat``-ed."""
    found = _note("same", f"{a}\0{b}", _same(a, b))
    return None if found is None else bool(found)


def _key(path: str) -> tuple[int, ...] | str:
    from skillshelf.core import parsecache

    try:
        st = os.stat(path)
    except OSError as exc:
        return f"errno {exc.errno}"
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < parsecache.RACY_NS:
        return "racy"  # changed too recently to be told apart from a change in the same tick
    return (stat_mod.S_IFMT(st.st_mode), *parsecache.stat_key(st))


def file_key(path: str) -> None:
    """Record the identity key of the file at ``path`` (size, times, inode, device), to be taken
    *before* its content is read by whatever depends on it."""
    if _asked is not None:
        _note("key", path, _key(path))


@contextlib.contextmanager
def recording() -> Iterator[dict[tuple[str, str], Any]]:
    """Record every question asked through this module (in this process) while the block runs;
    yields the record (question, path → answer and entry kind). Not nested."""
    global _asked
    asked: dict[tuple[str, str], Any] = {}
    _asked = asked
    try:
        yield asked
    finally:
        _asked = None


def provable(asked: dict[tuple[str, str], Any]) -> bool:
    """Whether a record can ever hold (no answer changed while recording, no racy file)."""
    return all(answer != _UNSTABLE and answer != "racy" for answer, _ in asked.values())


#: A recorded question that an unchanged listing answers: question, answer and kind in one code.
def _code(question: str, answer: bool, kind: int) -> int:
    return _QUESTIONS.index(question) * 16 + int(answer) * 8 + kind


def flat(asked: dict[tuple[str, str], Any]) -> tuple[Any, ...]:
    """A record as plain values (for :mod:`marshal`, quick to load): the questions about one
    entry that an unchanged listing answers as ``(paths joined by NUL, one code byte each)``,
    the others as ``(question, path, answer)``."""
    paths: list[str] = []
    codes = bytearray()
    others: list[tuple[str, str, Any]] = []
    for (question, path), (answer, kind) in asked.items():
        if question in _QUESTIONS and kind in (_ABSENT, _DIR, _FILE, _OTHER) and "\0" not in path:
            paths.append(path)
            codes.append(_code(question, bool(answer), kind))
        else:
            others.append((question, path, answer))
    return ("\0".join(paths), bytes(codes), tuple(others))


def _answer(question: str, path: str) -> Any:
    if question == "exists":
        return os.path.exists(path)
    if question == "isfile":
        return os.path.isfile(path)
    if question == "isdir":
        return os.path.isdir(path)
    if question == "list":
        return _listing(path)
    if question == "same":
        a, _, b = path.partition("\0")
        return _same(a, b)
    if question == "key":
        return _key(path)
    raise ValueError(question)


def hold(record: Sequence[Any], listed: Collection[str] = frozenset()) -> bool:
    """True when every recorded question (:func:`flat`'s shape; empty: none) gets the recorded
    answer now. ``listed``: folders whose listing is proved unchanged since before the record
    was made (same entries, so the same inodes): a question about an entry of one of them that
    was no symlink then (absent, a folder, a file) is answered by that proof, not asked again.
    Never raises."""
    if not record:
        return True
    try:
        joined, codes, others = record
        paths = joined.split("\0") if joined else []
        if len(paths) != len(codes):
            return False
        for path, code in zip(paths, codes, strict=True):
            if path.rpartition("/")[0] in listed:
                continue
            if _answer(_QUESTIONS[code // 16], path) != bool(code & 8):
                return False
        for question, path, answer in others:
            now = _answer(question, path)
            if now == "racy" or now != answer:
                return False
    except Exception:  # a damaged record proves nothing
        return False
    return True
