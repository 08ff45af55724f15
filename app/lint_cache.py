"""Lint per file for the host's lint target, cached by content (SPEC F4–F5).

The browser lints every listed file beside the host's verdict (lint never changes what the host
loads). Runs in worker threads; thread-safe.
"""

from __future__ import annotations

import os
import threading

from skillshelf.core.model import Diagnostic, Rejected, Severity, Source, Status
from skillshelf.core.parsecache import ParseCache

__all__ = ["LintCache", "disk_stamp"]


def disk_stamp(path: str) -> str:
    """``disk:<mtime_ns>:<size>`` of the file at ``path`` now (``disk:missing`` when it cannot be
    stat-ed): the cache key part of a kept-last-valid source (SPEC H3)."""
    try:
        st = os.stat(path)
    except OSError:
        return "disk:missing"
    return f"disk:{st.st_mtime_ns}:{st.st_size}"


class LintCache:
    """Lint findings per file (SPEC F4–F5) for one lint ``target`` (``Host.lint_target``: one of
    the rule sets of :class:`~skillshelf.core.lint.Target` — ``"spec"``, ``"zhin"`` … — or a
    client host's own verdict, ``"gemini"``, SPEC N6).

    Key: ``(locator, content_sha256)`` — lint depends on the bytes *and* on the folder (name
    mismatch, missing references), so a file moved or edited is linted again. A kept-last-valid
    source (SPEC H3) carries the hash of the *old* version the host keeps, while lint reads the
    file on disk; its key is ``(locator, disk_stamp)`` instead, so the lint always describes the
    file on disk. Built-ins have no file and are never linted. Files linted clean (most) are
    kept as ``locator → second key part`` alone, without a key tuple each.
    """

    def __init__(self, target: str = "spec") -> None:
        self.target = target  # a rule set or a host's name (Host.lint_target)
        self._lock = threading.Lock()
        self._reports: dict[tuple[str, str], tuple[Diagnostic, ...]] = {}
        self._clean: dict[str, str] = {}
        #: The catalog's parse cache (set when one is open): lint from the host's own read, and
        #: kept between runs (:func:`~skillshelf.core.hostlint.cached_lint`).
        self.parse_cache: ParseCache | None = None

    @staticmethod
    def key(item: Source | Rejected) -> tuple[str, str] | None:
        """The cache key of ``item``, ``None`` for a built-in."""
        if item.location.startswith("builtin://"):
            return None
        if isinstance(item, Source) and item.status is Status.KEPT_LAST_VALID:
            return (item.location, disk_stamp(item.location))
        return (item.location, item.content_sha256)

    def get(self, item: Source | Rejected) -> tuple[Diagnostic, ...] | None:
        """Cached findings of ``item``, ``None`` when not linted yet (or a built-in)."""
        key = self.key(item)
        if key is None:
            return None
        with self._lock:
            return self._found(key)

    def _found(self, key: tuple[str, str]) -> tuple[Diagnostic, ...] | None:
        found = self._reports.get(key)
        if found is None and self._clean.get(key[0]) == key[1]:
            return ()
        return found

    def lint(self, item: Source | Rejected, memo: dict[str, str | None] | None = None) -> tuple[Diagnostic, ...]:
        """Findings of ``item`` under :attr:`target` (cached); ``()`` for built-ins. ``memo``:
        the enclosing-skill answers per ancestor folder, shared by the files of one pass
        (:func:`~skillshelf.core.lint.finish_lint`)."""
        key = self.key(item)
        if key is None:
            return ()
        with self._lock:
            found = self._found(key)
        if found is not None:
            return found
        from skillshelf.core.hostlint import cached_lint

        diags = tuple(cached_lint(item.location, item.canonical, self.target, self.parse_cache, memo).diagnostics)
        with self._lock:
            if diags:
                self._reports[key] = diags
            else:
                self._clean[key[0]] = key[1]
        return diags

    def has_errors(self, item: Source | Rejected) -> bool:
        """True when the cached lint of ``item`` holds an error-severity finding."""
        return any(d.severity is Severity.ERROR for d in (self.get(item) or ()))
