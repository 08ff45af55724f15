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


def _build_primary_map() -> dict[int, str]:
    # ASCII → one character whose code point order equals the locale table's primary order:
    # table characters (upper case folded) first, then the remaining ASCII (controls) by code
    # point; every result is in U+0001..U+007F, so non-ASCII characters, which sort after the
    # table by code point, map to themselves, and U+0000 is free to act as a separator.
    out: dict[int, str] = {}
    for o in range(128):
        ch = chr(o)
        low = ch.lower() if "A" <= ch <= "Z" else ch
        pos = TABLE.find(low)
        if pos >= 0:
            out[o] = chr(1 + pos)
    others = [o for o in range(128) if o not in out]
    for rank, o in enumerate(others):
        out[o] = chr(1 + len(TABLE) + rank)
    return out


#: ASCII code point → its primary weight as one character (:func:`name_key`).
PRIMARY_MAP = _build_primary_map()


def name_key(name: str) -> str:
    """A string key ordering names exactly as :func:`locale_key` does
    (SPEC P1), built with C-level string operations instead of per-character tuples (a test
    checks the two orders agree).

    ``PRIMARY + "\\0" + CASE``. PRIMARY is the name translated so code-point order equals the
    table order (never holding U+0000, so a prefix sorts first). CASE is only reached when the
    primaries are equal, i.e. the names differ only in ASCII letter case at aligned positions:
    ``swapcase`` puts lowercase before uppercase, position by position.
    """
    return name.translate(PRIMARY_MAP) + "\0" + name.swapcase()
