"""Invisible characters: text that reaches the model but not the reader (SPEC X1, F4 lint).

Found here, for the terminal views (:mod:`skillshelf.core.textsafe`) and the lint
(``invisible-character``):

- zero-width characters U+200B ZERO WIDTH SPACE, U+200C ZERO WIDTH NON-JOINER and U+200D ZERO
  WIDTH JOINER — except a joiner inside an emoji ZWJ sequence (``🧑‍💻``: an emoji, optionally with
  its presentation selector or skin tone, joined to another emoji);
- U+2060–U+2064 (word joiner, invisible operators) and U+FEFF inside the text (a BOM at the
  very start of a file is the F1 ``bom`` rule, not this one);
- bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 ("Trojan
  Source");
- the tag block U+E0000–U+E007F, which can spell hidden ASCII text (U+E0020–U+E007E mirror
  printable ASCII) — except an emoji tag sequence (a flag such as England's: an emoji, tag
  characters, U+E007F CANCEL TAG).

Emoji presentation selectors (U+FE0E, U+FE0F) are never findings. Offsets are in characters
(Unicode scalar values). Pure, no I/O.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

__all__ = ["CANDIDATES", "Invisible", "decode_tags", "describe", "find_invisible", "is_emoji_part"]

#: Every character that may be a finding (a joiner or tag run may still be part of an emoji).
CANDIDATES = re.compile("[\u200b-\u200d\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]|[\U000e0000-\U000e007f]+")

_ZWJ = "\u200d"
_CANCEL_TAG = 0xE007F
#: What may sit between an emoji and a following joiner or tag run: presentation selectors,
#: skin-tone modifiers, the combining keycap.
_EMOJI_TRAILERS = frozenset({"\ufe0e", "\ufe0f", "\u20e3", *map(chr, range(0x1F3FB, 0x1F400))})


@functools.cache
def _pictographic() -> regex.Pattern[str]:
    """``\\p{Extended_Pictographic}`` (the ``regex`` module is imported when a joiner or tag run
    is first looked at: most text has none)."""
    import regex

    return regex.compile(r"\p{Extended_Pictographic}")


@dataclass(frozen=True)
class Invisible:
    """One finding: ``text[start:end]`` (character offsets) is the invisible run ``chars`` — one
    character, or a run of tag characters."""

    start: int
    end: int
    chars: str

    @property
    def is_tags(self) -> bool:
        """True for a run of tag characters (U+E0000–U+E007F)."""
        return ord(self.chars[0]) >= 0xE0000


def _emoji_before(text: str, i: int) -> bool:
    """Whether the element ending just before ``text[i]`` is an emoji (trailers skipped)."""
    j = i - 1
    while j >= 0 and (text[j] in _EMOJI_TRAILERS or 0xE0020 <= ord(text[j]) <= _CANCEL_TAG):
        j -= 1
    return j >= 0 and _pictographic().match(text[j]) is not None


def is_emoji_part(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a joiner or a run of tag characters found by
    :data:`CANDIDATES`) belongs to an emoji sequence: a joiner between two emoji, or a tag run
    ending in U+E007F CANCEL TAG right after an emoji."""
    first = text[start]
    if first == _ZWJ:
        return (_emoji_before(text, start) and end < len(text)
                and _pictographic().match(text[end]) is not None)
    if ord(first) >= 0xE0000:
        return (ord(text[end - 1]) == _CANCEL_TAG and end - start >= 2
                and all(0xE0020 <= ord(c) <= 0xE007E for c in text[start:end - 1])
                and _emoji_before(text, start))
    return False


def find_invisible(text: str, *, skip_leading_bom: bool = False) -> list[Invisible]:
    """Every invisible character or tag run in ``text`` that is not part of an emoji sequence,
    in text order. ``skip_leading_bom``: a U+FEFF at offset 0 is not a finding (a file's BOM)."""
    out: list[Invisible] = []
    if text.isascii():  # (every candidate is outside ASCII: most text is done here at once)
        return out
    for m in CANDIDATES.finditer(text):
        start, end = m.span()
        if start == 0 and skip_leading_bom and text[0] == "\ufeff":
            continue
        if is_emoji_part(text, start, end):
            continue
        out.append(Invisible(start, end, m.group(0)))
    return out


def decode_tags(chars: str) -> str:
    """The text a run of tag characters spells: U+E0020–U+E007E as the ASCII characters they
    mirror, any other tag character as a ``\\U000e007f``-style escape."""
    return "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else f"\\U{ord(c):08x}" for c in chars)


def describe(chars: str) -> str:
    """Code points and names: ``U+200B ZERO WIDTH SPACE``; a tag run as
    ``tag characters U+E0049…U+E0073 spelling "Ignore all"``."""
    if ord(chars[0]) >= 0xE0000:
        span = f"U+{ord(chars[0]):04X}" + (f"…U+{ord(chars[-1]):04X}" if len(chars) > 1 else "")
        return f"{len(chars)} tag character{'s' if len(chars) != 1 else ''} {span} spelling \"{decode_tags(chars)}\""
    return f"U+{ord(chars):04X} {unicodedata.name(chars, 'UNNAMED')}"
