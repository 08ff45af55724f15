"""Zuno's locale order for skill names (SPEC P1, conformance §0.3 "Locale order").

Primary key: each character's position in a fixed table after ASCII lower-casing (space and
punctuation before digits, digits before letters); characters not in the table sort after it by
code point. Ties are broken by a case key: lowercase before uppercase, position by position.
Render ties are then broken by the locator's byte order (callers add that).
"""

from __future__ import annotations

#: The collation table; its first character is a space.
TABLE = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"

_POSITION = {ch: i for i, ch in enumerate(TABLE)}
_BASE = len(TABLE)


def _primary(ch: str) -> int:
    low = ch.lower() if "A" <= ch <= "Z" else ch
    pos = _POSITION.get(low)
    if pos is not None:
        return pos
    return _BASE + ord(ch)


def _case(ch: str) -> int:
    return 1 if "A" <= ch <= "Z" else 0


def locale_key(name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sort key for ``name`` in Zuno's locale order (SPEC P1).

    Returns ``(primary weights, case weights)``; compare keys with ``<``. A shorter name that is
    a prefix of a longer one sorts first.
    """
    return tuple(_primary(c) for c in name), tuple(_case(c) for c in name)


def sort_key_with_location(name: str, location: str) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], bytes]:
    """Locale key of ``name`` then the UTF-8 bytes of ``location`` (SPEC P1 render order)."""
    return locale_key(name), location.encode("utf-8", "surrogatepass")
