"""JavaScript string semantics Claude Code's skill loader relies on (it runs on Bun).

Units: ``u16len`` / ``u16slice`` count UTF-16 code units (JavaScript ``length`` / ``slice``);
:func:`width` counts terminal columns (``Bun.stringWidth``); everything else is plain text.

- :func:`js_trim`, :func:`js_string` — ``String.prototype.trim`` and ``String(value)`` for
  the values a YAML parse can produce.
- :func:`sanitize` — the client's folding of a description or ``when_to_use``: lone
  surrogates, ANSI sequences, control / format / invisible runs → one space, ``<``/``>`` →
  ``&lt;``/``&gt;``.
- :func:`locale_key` — ``String.prototype.localeCompare`` (ICU, en-US) as a sort key: an exact
  table for ASCII names, the Unicode Collation Algorithm (``pyuca``) otherwise.
- :func:`width` — ``Bun.stringWidth`` through ``wcwidth`` (control characters count 0).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import wcwidth

from skillshelf.core.hosts.jsorder import ascii_key, printable_ascii, uca_collator

__all__ = [
    "JS_WHITESPACE",
    "collapse_controls",
    "is_invisible",
    "js_number",
    "js_round",
    "js_string",
    "js_trim",
    "locale_key",
    "locale_sorted",
    "sanitize",
    "strip_ansi",
    "u16len",
    "u16slice",
    "width",
]

#: The characters JavaScript's ``trim`` removes (WhiteSpace and LineTerminator, U+FEFF included).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(JS_WHITESPACE)


def u16len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def u16slice(text: str, n: int) -> str:
    """``text.slice(0, n)`` in UTF-16 units; a cut through a surrogate pair leaves its lone
    first half, as JavaScript does."""
    if u16len(text) <= n:
        return text
    return text.encode("utf-16-le", "surrogatepass")[: 2 * n].decode("utf-16-le", "surrogatepass")


def js_round(x: float) -> int:
    """``Math.round``: halves round up."""
    return math.floor(x + 0.5)


_NUMBER = re.compile(r"^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$")


def js_number(value: float) -> str:
    """``String(number)`` as JavaScript prints it (shortest round-trip digits, its exponent rules)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 2**53:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    m = _NUMBER.match(repr(value))
    if m is None:  # pragma: no cover - repr() of a finite float always matches
        return repr(value)
    sign, ip, fp, exp = m.group(1), m.group(2), m.group(3) or "", int(m.group(4) or 0)
    raw = ip + fp
    digits = raw.lstrip("0")
    point = len(ip) + exp - (len(raw) - len(digits))
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def js_string(value: Any) -> str:
    """``String(value)`` for a YAML value: ``null``, numbers as JavaScript prints them, a list
    joined by commas (``null`` items empty), a mapping ``[object Object]``."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if x is None else js_string(x) for x in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


# ------------------------------------------------------------------------------------- sanitising

#: Default-ignorable ranges the client folds on top of the general categories (inclusive).
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x1107F, 0x1107F),
    (0x13430, 0x1343F), (0x16FE4, 0x16FE4), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def is_invisible(ch: str) -> bool:
    """Whether the client folds ``ch``: ``\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}``, U+2028, U+2029,
    U+2800 and the default-ignorable list."""
    o = ord(ch)
    if o in (0x2028, 0x2029, 0x2800):
        return True
    if o < 0x20 or 0x7F <= o <= 0x9F:
        return True
    if o < 0xAD:
        return False
    for lo, hi in _IGNORABLE:
        if lo <= o <= hi:
            return True
    return unicodedata.category(ch) in _INVISIBLE_CATEGORIES


def strip_ansi(text: str) -> str:
    """``Bun.stripANSI``: CSI (``ESC[`` … final byte), OSC (``ESC]`` … BEL or ST), DCS / SOS /
    PM / APC strings (… ST) and two-character ``ESC x`` sequences are removed."""
    if "\x1b" not in text and not any(0x90 <= ord(c) <= 0x9F for c in text):
        return text
    out: list[str] = []
    state = "text"
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        o = ord(c)
        if state == "text":
            if c == "\x1b":
                state = "esc"
            elif o == 0x9B:
                state = "csi"
            elif o == 0x9D:
                state = "osc"
            elif o in (0x90, 0x98, 0x9E, 0x9F):
                state = "string"
            else:
                out.append(c)
        elif state == "esc":
            if c == "[":
                state = "csi"
            elif c == "]":
                state = "osc"
            elif c in "PX^_":
                state = "string"
            elif c == "\x1b":
                state = "esc"
            elif 0x20 <= o <= 0x2F:
                state = "intermediate"
            elif 0x30 <= o <= 0x7E:
                state = "text"
            else:
                state = "text"
                out.append(c)
        elif state == "intermediate":
            if c == "\x1b":
                state = "esc"
            elif not 0x20 <= o <= 0x2F:
                state = "text"
        elif state == "csi":
            if c == "\x1b":
                state = "esc"
            elif 0x40 <= o <= 0x7E:
                state = "text"
        elif state == "osc":
            if c == "\x07" or o == 0x9C:
                state = "text"
            elif c == "\x1b":
                if i + 1 < n and text[i + 1] == "\\":
                    i += 1
                    state = "text"
                else:
                    state = "esc"
        else:  # string
            if o == 0x9C:
                state = "text"
            elif c == "\x1b" and i + 1 < n and text[i + 1] == "\\":
                i += 1
                state = "text"
        i += 1
    return "".join(out)


_JOINERS = "\u200c\u200d\ufe0f\U000e007f"


def _is_emoji(ch: str) -> bool:
    o = ord(ch)
    return 0x1F000 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF or 0xE0020 <= o <= 0xE007F


def collapse_controls(text: str) -> str:
    """Each maximal run of :func:`is_invisible` characters becomes one space; joiners and
    variation selectors next to an emoji are kept (emoji sequences stay intact)."""
    if not any(is_invisible(c) for c in text):
        return text
    keep: set[int] = set()
    if u16len(text) <= 4096 and any(j in text for j in _JOINERS):
        for k, ch in enumerate(text):
            if ch in _JOINERS and ((k > 0 and _is_emoji(text[k - 1])) or (k + 1 < len(text) and _is_emoji(text[k + 1]))):
                keep.add(k)
    out: list[str] = []
    k = 0
    while k < len(text):
        if is_invisible(text[k]):
            run = ""
            while k < len(text) and is_invisible(text[k]):
                if k in keep:
                    run += text[k]
                elif not run.endswith(" "):
                    run += " "
                k += 1
            out.append(run)
        else:
            out.append(text[k])
            k += 1
    return "".join(out)


def sanitize(text: str) -> str:
    """The client's folding of a description or ``when_to_use`` at load time: lone surrogates
    → U+200B, ANSI sequences removed, invisible runs (newlines and tabs included) → one
    space, then ``<`` → ``&lt;`` and ``>`` → ``&gt;``. Ordinary spaces are kept as they are."""
    text = "".join("\u200b" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    text = collapse_controls(strip_ansi(text))
    return text.replace("<", "&lt;").replace(">", "&gt;")


# ------------------------------------------------------------------------------------- order

def _collator() -> Any:
    return uca_collator()


def _printable_ascii(name: str) -> bool:
    return printable_ascii(name)


def _ascii_key(name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return ascii_key(name)


def locale_key(name: str, *, uca: bool | None = None) -> tuple[Any, ...]:
    """A sort key ordering names as ``a.localeCompare(b)`` does. ``uca`` None: the ASCII table
    for printable ASCII, the Unicode Collation Algorithm otherwise; keys of one kind only compare
    with keys of the same kind — use :func:`locale_sorted` for a mixed list."""
    if uca is None:
        uca = not _printable_ascii(name)
    if not uca:
        return (0, _ascii_key(name))
    return (1, tuple(_collator().sort_key(name)))


def locale_sorted(items: Iterable[Any], name: Any = None) -> list[Any]:
    """``items`` stably sorted by ``localeCompare`` of ``name(item)`` (the item itself when
    ``name`` is None); one collation for the whole list."""
    seq: Sequence[Any] = list(items)
    get = name if name is not None else (lambda x: x)
    uca = not all(_printable_ascii(get(x)) for x in seq)
    return sorted(seq, key=lambda x: locale_key(get(x), uca=uca))


# ------------------------------------------------------------------------------------- width

def _regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def width(text: str) -> int:
    """``Bun.stringWidth(text)`` in terminal columns: East Asian wide characters and emoji 2,
    combining marks and control characters 0; a regional indicator without its pair 1."""
    w = int(wcwidth.width(text, control_codes="ignore"))
    if any(_regional(c) for c in text):
        run = 0
        for c in text + "\0":
            if _regional(c):
                run += 1
            else:
                if run % 2:
                    w -= 1
                run = 0
    return w
