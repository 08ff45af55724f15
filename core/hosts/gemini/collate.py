"""``String.prototype.localeCompare`` as Gemini CLI's node (ICU, root/en collation) sorts names.

ICU's default collation is the Unicode Collation Algorithm at tertiary strength, variable
characters non-ignorable, over the CLDR root table: punctuation < digits < letters; lowercase
before uppercase at the third level; accents at the second. CLDR root also makes the curly
quotes secondary variants of ``'`` and ``"``. This module uses ``pyuca``'s own DUCET (Unicode
10) with that tailoring added; symbols, punctuation and numbers newer than Unicode 10 are placed
just after the nearest older one of their kind (ICU orders those blocks by code point); other
newer characters get implicit weights (after the known scripts), which is where it can differ
from ICU. Loading the table takes
about 0.1 s, so it is loaded on first use.
"""

from __future__ import annotations

import threading
import unicodedata
from typing import Any

__all__ = ["collation_key"]

_LOCK = threading.Lock()
_COLLATOR: Any = None

#: CLDR root: these are secondary variants of the base character, in this order.
_TAILORING = (("'", "\u2018\u2019\u201a\u201b"), ('"', "\u201c\u201d\u201e\u201f\u301d\u301e\u301f"))


def _anchored(collator: Any, cp: int) -> list[list[int]] | None:
    """Weights for a symbol, punctuation or number character newer than the table: just after
    the nearest older character of the same kind below it (ICU orders those blocks by code
    point), or ``None`` for other characters (implicit weights)."""
    kind = unicodedata.category(chr(cp))[0]
    if kind not in "SPN":
        return None
    for below in range(cp - 1, max(cp - 0x800, 0x20), -1):
        if unicodedata.category(chr(below))[0] != kind:
            continue
        _, value, _ = collator.table.find_prefix([below])
        if value and value[0][0]:
            # a second element with a primary below every real one: after `below`, before `below` + anything
            return [list(value[0][:3]), [1 + min(cp - below, 0x1FE), 0, 0]]
    return None


def _collator() -> Any:
    global _COLLATOR
    with _LOCK:
        if _COLLATOR is None:
            from pyuca.collator import Collator_10_0_0  # type: ignore[import-untyped]

            class Collator(Collator_10_0_0):  # type: ignore[misc]
                def implicit_weight(self, cp: int) -> Any:
                    return _anchored(self, cp) or super().implicit_weight(cp)

            collator = Collator()
            for base, variants in _TAILORING:
                _, value, _ = collator.table.find_prefix([ord(base)])
                primary, secondary, tertiary = value[0][:3]
                for k, variant in enumerate(variants):
                    collator.table.add([ord(variant)], [[primary, secondary + 1 + k, tertiary]])
            _COLLATOR = collator
        return _COLLATOR


def collation_key(text: str) -> tuple[int, ...]:
    """A sort key: ``a < b`` exactly when ``a.localeCompare(b) < 0`` (equal keys: equal
    names for ICU, which keeps their order in a stable sort)."""
    return tuple(_collator().sort_key(text))
