"""The first page of the catalog list as the last run showed it, kept for the next start.

A start over 10,000 skills needs ~0.5 s after its first frame before the list has rows (the main
screen's modules, the last run's build loaded from the parse cache, the rows made). Meanwhile
the start screen and then the catalog pane show the page kept here — the list's first
:data:`PAGE_LINES` lines as plain text, under the title it had, marked as the last run's and
dimmed — until the list has rows of its own: the checked generation, or the last run's whole
build when checking the files against it outlasts ``Timings.partial_after``. Nothing in it can be
selected or filtered.

The page is written by the main screen once a checked generation is listed in the default order
with no filter (so it is what the next start lists first; an empty list removes it), into
skillshelf's cache directory, one JSON file per workspace and host (:func:`page_file`: the parse
cache's workspace identity). Reading never raises: a missing, damaged or foreign file is no page.
Writing is atomic (a temporary file renamed over the old one, as the parse cache writes; no
``fsync``: a page lost in a crash only means none is shown next time) and never raises.
``--no-cache`` keeps no page.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from skillshelf.core.parsecache import workspace_key
from skillshelf.core.paths import private_dirs
from skillshelf.core.textsafe import visible

__all__ = ["PAGE_LINES", "KeptPage", "forget_page", "page_file", "read_page", "write_page"]

#: Lines kept: more than a tall terminal shows in the list.
PAGE_LINES = 80
#: Format of the file (another one is no page).
_FORMAT = 1
#: Largest file read, in bytes (a page is a few kilobytes).
_MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class KeptPage:
    """``title``: the list's border title then (``Catalog (10,000) · sort catalog``);
    ``lines``: its first lines, plain text, at most :data:`PAGE_LINES`."""

    title: str
    lines: tuple[str, ...]


def page_file(cache_dir: str, workspace: Sequence[str], host: str) -> str:
    """Where the page of ``host`` over ``workspace`` (the parts
    :func:`~skillshelf.core.catalog.workspace_cache` names the parse cache by) is kept."""
    safe = "".join(c if c.isalnum() else "_" for c in host)
    return os.path.join(cache_dir, "tui", f"page-{safe}-{workspace_key(workspace)}.json")


def read_page(file: str | None) -> KeptPage | None:
    """The page kept in ``file`` (its text made visible again: the file is not trusted), or
    ``None`` (no file, damaged, another format, empty)."""
    if not file:
        return None
    try:
        # never blocks: a FIFO or a device at that path is no page (it would hang the first frame)
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            raw = fh.read(_MAX_BYTES + 1)
        if len(raw) > _MAX_BYTES:
            return None
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return None
        title, lines = data.get("title"), data.get("lines")
        if not isinstance(title, str) or not isinstance(lines, list) or not lines \
                or not all(isinstance(x, str) for x in lines):
            return None
    except (OSError, ValueError, RecursionError):
        return None
    return KeptPage(visible(title), tuple(visible(x) for x in lines[:PAGE_LINES]))


def write_page(file: str, page: KeptPage) -> bool:
    """Keep ``page`` in ``file`` (atomically, private: 0600 in folders made 0700); True when written.
    Never raises: a read-only or full disk keeps no page."""
    tmp = f"{file}.{os.getpid()}.tmp"
    try:
        private_dirs(os.path.dirname(file))
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
            json.dump({"format": _FORMAT, "title": page.title, "lines": list(page.lines[:PAGE_LINES])}, fh,
                      ensure_ascii=False)
        os.replace(tmp, file)
    except (OSError, ValueError):  # (ValueError: text that cannot be encoded, a lone surrogate)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def forget_page(file: str) -> None:
    """No page is kept in ``file`` any more (the list is empty). Never raises."""
    with contextlib.suppress(OSError):
        os.unlink(file)
