"""Words for undoing a configuration write made from the ambiguity picker (SPEC K5)."""

from __future__ import annotations

from skillshelf.core.configwrite import WriteResult

__all__ = ["undo_words"]


def undo_words(result: WriteResult) -> str:
    """What an undo of ``result`` did: ``/p/zuno.json removed (it did not exist before)`` for a
    file the write created, else ``/p/zuno.json restored``."""
    if result.created:
        return f"{result.target} removed (it did not exist before)"
    return f"{result.target} restored"
