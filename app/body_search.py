"""The optional body search behind the filter (``ctrl+f``): the first line of each skill's body
that holds the query, read off the event loop.

Bodies are read from the files (the text after the frontmatter, numbered as in the file,
:func:`skillshelf.core.frontmatter.split_document`) and kept by path while the file's size and
modification time stay the same, so a search after the first one reads nothing new. A rejected
file is searched whole. Matching is :func:`skillshelf.core.filter.body_line` (case-insensitive,
the whole query on one line, else every word of it on one line).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import Rejected, Source

__all__ = ["BODY_READ_MAX", "BodyCache", "BodyText", "search_bodies"]

#: Most bytes of a file read for the body search (a longer file is searched up to there).
BODY_READ_MAX = 1024 * 1024


@dataclass(frozen=True)
class BodyText:
    """The searchable text of one file, casefolded too, and the file's line number of its first line."""

    text: str
    first_line: int
    folded: str


class BodyCache:
    """Bodies by path, re-read when the file's size or modification time changed. Safe to use
    from one worker thread at a time while the event loop replaces it (a lock guards the map)."""

    def __init__(self) -> None:
        self._bodies: dict[str, tuple[tuple[int, int], BodyText]] = {}
        self._lock = threading.Lock()

    def body(self, item: Source | Rejected) -> BodyText | None:
        """The body of ``item``'s file (the whole file for a rejected one), ``None`` when it is not
        a readable file (a built-in, a vanished file)."""
        path = item.location
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        key = (st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._bodies.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        try:
            data = read_regular(path, BODY_READ_MAX)
        except OSError:
            return None
        text = data[:BODY_READ_MAX].decode("utf-8", errors="replace")
        if isinstance(item, Rejected):
            found = BodyText(text, 1, text.casefold())
        else:
            from skillshelf.core.frontmatter import split_document  # (YAML only once bodies are searched)

            split = split_document(text)
            found = BodyText(split.body, split.body_line or 1, split.body.casefold())
        with self._lock:
            self._bodies[path] = (key, found)
        return found


def search_bodies(items: Sequence[Source | Rejected], query: str, cache: BodyCache,
                  cancelled: Callable[[], bool] = lambda: False,
                  progress: Callable[[int, int], None] = lambda done, total: None) -> dict[int, tuple[int, str]]:
    """Index into ``items`` → ``(line number, line)`` of the first body line holding ``query``.
    Stops early (returning what it found so far) when ``cancelled()``; ``progress(done, total)``
    is called after each file. Worker thread."""
    from skillshelf.core.filter import body_line  # (rapidfuzz and regex: not before the first frame)

    found: dict[int, tuple[int, str]] = {}
    total = len(items)
    for i, item in enumerate(items):
        if cancelled():
            break
        body = cache.body(item)
        if body is not None:
            hit = body_line(body.text, query, body.first_line, folded=body.folded)
            if hit is not None:
                found[i] = hit
        progress(i + 1, total)
    return found
