"""What a new generation added, changed and removed (SPEC H2: the header's ``changed: +2 ~1 −1``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from skillshelf.core.model import Generation, Rejected, Source

__all__ = ["GenerationDiff", "generation_diff"]


@dataclass(frozen=True)
class GenerationDiff:
    """Files ``added``, ``changed`` (content SHA-256, metadata, verdict — anything but the mtime)
    and ``removed`` from one generation to the next, counted by locator. Sources and rejected
    files both count; a file that moved between the two counts as changed."""

    added: int = 0
    changed: int = 0
    removed: int = 0

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    @property
    def text(self) -> str:
        """``changed: +2 ~1 −1`` (U+2212 minus sign), ``""`` when nothing changed."""
        if not self:
            return ""
        return f"changed: +{self.added:,} ~{self.changed:,} \u2212{self.removed:,}"


def _same_file(a: Source | Rejected, b: Source | Rejected) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or a.content_sha256 != b.content_sha256:
        return False
    if a == b:
        return True
    return replace(a, mtime=0.0) == replace(b, mtime=0.0)  # a touch alone is no change


def generation_diff(old: Generation | None, new: Generation) -> GenerationDiff:
    """The :class:`GenerationDiff` from ``old`` to ``new`` (``old`` None: nothing to compare, an
    empty diff). Linear in the number of files (1,000 files ≈ 1 ms)."""
    if old is None or old is new:
        return GenerationDiff()
    before: dict[str, Source | Rejected] = {s.location: s for s in old.sources}
    before.update((r.location, r) for r in old.rejected)
    added = changed = seen = 0
    items: tuple[Source | Rejected, ...] = (*new.sources, *new.rejected)
    for item in items:
        prev = before.get(item.location)
        if prev is None:
            added += 1
            continue
        seen += 1
        if not _same_file(prev, item):
            changed += 1
    return GenerationDiff(added, changed, len(before) - seen)
