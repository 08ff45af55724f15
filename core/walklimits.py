"""skillshelf's own bounds on a folder walk (SPEC D4): a symlink to ``/`` in a skill root must
not make skillshelf read the whole machine.

No host bounds its walk this way (Codex has caps of its own, which its host keeps exactly);
these are skillshelf's safety limits and every warning they produce says so:

- a symlinked folder whose target is the scan folder itself's *ancestor* (``/``, the home or
  project folder holding the root) is not entered: everything below it — the scan folder
  included — would be walked again. Warning ``symlink-ancestor``. A symlinked folder pointing
  anywhere else (the usual install: ``skills/pdf -> ~/src/pdf``) is followed, as the hosts do,
  under the two caps below;
- depth: folders more than :data:`MAX_WALK_DEPTH` levels below the scan folder are not entered;
- entries: at most :data:`MAX_WALK_ENTRIES` directory entries are listed per scan folder; the
  walk stops there.

Reaching a cap gives one warning ``walk-limit`` per scan folder naming the cap, where it was hit
and, when the walk got there through a symlinked folder, that link.
"""

from __future__ import annotations

import os

from skillshelf.core.model import CatalogWarning

__all__ = [
    "MAX_WALK_DEPTH",
    "MAX_WALK_ENTRIES",
    "ancestor_warning",
    "depth_warning",
    "entries_warning",
    "is_ancestor",
]

#: Deepest folder level entered below a scan folder (the scan folder is level 0). Skills sit 1–5
#: levels deep in practice; Codex stops at 6.
MAX_WALK_DEPTH = 16
#: Most directory entries (files and folders) listed under one scan folder: 5 times a
#: 10,000-skill tree with a resource per skill.
MAX_WALK_ENTRIES = 100_000


def is_ancestor(target: str, scan_canon: str) -> bool:
    """True when the canonical folder ``target`` is a proper ancestor of the canonical scan
    folder ``scan_canon`` (``/`` is the ancestor of every other folder)."""
    if target == scan_canon:
        return False
    prefix = target if target.endswith(os.sep) else target + os.sep
    return scan_canon.startswith(prefix)


def ancestor_warning(link: str, target: str, scan_dir: str, note: str = "") -> CatalogWarning:
    """``symlink-ancestor``: ``link`` points at ``target``, an ancestor of ``scan_dir``; ``note``
    says what the host itself would do (appended in parentheses when given)."""
    extra = f" ({note})" if note else ""
    return CatalogWarning(
        "symlink-ancestor", link,
        f"{link} -> {target} points at a folder holding the scan folder {scan_dir}; skillshelf does not "
        f"follow it (its safety limit: it would walk everything under {target} again){extra}")


def _through(link: str | None) -> str:
    return f", reached through the symlinked folder {link}" if link else ""


def depth_warning(scan_dir: str, folder: str, link: str | None = None, note: str = "") -> CatalogWarning:
    """``walk-limit`` for the depth cap, first hit at ``folder``."""
    extra = f" ({note})" if note else ""
    return CatalogWarning(
        "walk-limit", scan_dir,
        f"{scan_dir}: skillshelf enters folders at most {MAX_WALK_DEPTH} levels deep (its safety limit); "
        f"{folder}{_through(link)} and folders as deep are not read{extra}")


def entries_warning(scan_dir: str, folder: str, link: str | None = None, note: str = "") -> CatalogWarning:
    """``walk-limit`` for the entry cap, reached while listing ``folder``."""
    extra = f" ({note})" if note else ""
    return CatalogWarning(
        "walk-limit", scan_dir,
        f"{scan_dir}: skillshelf lists at most {MAX_WALK_ENTRIES:,} entries per scan folder (its safety "
        f"limit); the walk stopped in {folder}{_through(link)}, so nothing after it is read{extra}")
