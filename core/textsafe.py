"""Make untrusted skill text safe to show in a terminal (SPEC X1).

Skill names, descriptions, bodies, paths and diagnostics come from files anyone can write. The
TUI shows them as plain text (no Rich/Textual markup is ever parsed from them; that is the
widgets' job) and, before that, every character that could drive the terminal is replaced by a
visible stand-in here:

* C0 controls U+0000–U+001F (ESC included) become their Unicode control pictures
  U+2400–U+241F (``"\\x1b"`` → ``"␛"``, ``"\\x07"`` → ``"␇"``); DEL U+007F becomes ``"␡"``.
  In ``multiline`` mode, line feed and tab are kept as they are (a body preview keeps its
  lines); carriage return is always made visible (it can overwrite a line in a terminal).
* C1 controls U+0080–U+009F (CSI U+009B, OSC U+009D …) have no pictures; they become the
  literal escape text ``"\\x9b"`` (four characters).
* Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069, the "Trojan Source"
  characters), U+2028/U+2029 line and paragraph separators, U+FEFF, zero-width characters
  (U+200B–U+200D, except a joiner inside an emoji sequence), U+2060–U+2064, and lone
  surrogates (undecodable bytes kept by ``surrogateescape``) become ``"\\u202e"``-style escape
  text.
* A run of Unicode tag characters (U+E0000–U+E007F), which can spell hidden ASCII text, becomes
  ``⟦tags "the text"⟧`` (:func:`skillshelf.core.invisible.decode_tags`) — except an emoji tag
  sequence (a subdivision flag), which stays as it is; so do emoji presentation selectors.

Pure, no I/O; core never imports Rich or Textual.
"""

from __future__ import annotations

import re

from skillshelf.core.invisible import decode_tags, is_emoji_part

__all__ = ["UNSAFE", "encodable", "visible", "visible_line"]

#: Every character :func:`visible` replaces (the ``multiline`` exceptions are ``\n`` and ``\t``).
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200d\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
    "|[\U000e0000-\U000e007f]+"
)
_UNSAFE_MULTILINE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200d\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
    "\ud800-\udfff]|[\U000e0000-\U000e007f]+"
)


def _picture(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch[0])
    if code == 0x200D or code >= 0xE0000:
        if is_emoji_part(match.string, match.start(), match.end()):
            return ch
        if code >= 0xE0000:
            return f'⟦tags "{decode_tags(ch)}"⟧'

    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """Return ``text`` with every terminal-controlling character replaced by a visible stand-in.

    ``text`` is any ``str`` (characters, not bytes). With ``multiline=False`` (names, paths,
    one-line fields) newlines and tabs are replaced too (``"␊"``, ``"␉"``); with
    ``multiline=True`` (bodies, multi-line messages) they are kept. The result never contains a
    C0/C1 control other than those two, so it cannot start an escape sequence. Never raises.
    SPEC X1.
    """
    pattern = _UNSAFE_MULTILINE if multiline else UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_picture, text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with every lone surrogate (an undecodable byte kept by ``surrogateescape``, a
    ``\\ud800`` JSON escape) replaced by its escape text ``"\\udcff"`` and nothing else changed,
    so it can always be encoded as UTF-8 — for text leaving skillshelf exactly (a saved file,
    the clipboard). Never raises."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def visible_line(value: object) -> str:
    """``visible(str(value))`` for one-line display of any value (``None`` → ``""``). SPEC X1."""
    if value is None:
        return ""
    return visible(value if isinstance(value, str) else str(value))
