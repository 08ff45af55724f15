"""JavaScript's ``String.prototype.localeCompare`` (ICU root / en-US) as sort keys, for the
client hosts that order skills by it (Claude Code, opencode, Gemini CLI).

For printable ASCII an exact table gives the order without loading a collator (ICU: punctuation
not ignorable, digits before letters, case second — lower case first); anything else goes to the
Unicode Collation Algorithm (``pyuca``, loaded once per process, ~0.2 s). Keys of the two kinds
never meet: :func:`keyer` picks one kind for a whole list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

__all__ = ["ASCII_ORDER", "ascii_key", "keyer", "printable_ascii", "uca_collator"]

#: ``localeCompare`` order of the printable ASCII characters (upper case ties after lower case).
ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {c: i for i, c in enumerate(ASCII_ORDER)}


def printable_ascii(text: str) -> bool:
    """Only characters U+0020–U+007E."""
    return all(" " <= c <= "~" for c in text)


def ascii_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``localeCompare`` key of a printable-ASCII ``text``: primary weights, then case."""
    return (tuple(_PRIMARY[c.lower()] for c in text), tuple(1 if c.isupper() else 0 for c in text))


@lru_cache(maxsize=1)
def uca_collator() -> Any:
    """The default ``pyuca`` collator (one per process)."""
    import pyuca  # type: ignore[import-untyped]  # loaded on first non-ASCII name only

    return pyuca.Collator()


def keyer(names: Iterable[str], uca_key: Callable[[str], Any]) -> Callable[[str], Any]:
    """The sort key for a list whose names are ``names``: :func:`ascii_key` when every name is
    printable ASCII, else ``uca_key`` (the host's own UCA key) for all of them."""
    return ascii_key if all(printable_ascii(n) for n in names) else uca_key
