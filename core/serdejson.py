"""JSON text decoded against a Rust type the way Zuno's ``serde_json::from_str::<T>`` does, with
serde_json's error text, word for word and position for position (SPEC R1, conformance §5
``IndexMalformed``).

The Rust type is described by a small schema: :class:`Struct` (``#[derive(Deserialize)]``, no
``deny_unknown_fields``) of :class:`Field`\\ s, :class:`Vec`, :class:`Str` (``String``) and
:class:`Opt` (``Option<T>``). :func:`from_str` returns plain Python values (a struct is a
``dict`` of field name → value) or raises :class:`SerdeJsonError` whose ``str()`` is
``serde_json::Error``'s Display: ``<reason> at line L column C``.

Behaviour reproduced from serde_json 1.0.150 (``src/de.rs``, ``src/read.rs``, ``src/error.rs``,
default features: no ``float_roundtrip``, no ``arbitrary_precision``; Zuno locks 1.0.151),
serde_core's ``Unexpected`` Display and serde_derive's generated ``visit_seq`` / ``visit_map``,
and checked against serde_json built from that source:

- Positions: ``line`` is 1 + the number of ``\\n`` before the line start; ``column`` is the
  number of *bytes* (UTF-8) between the line start and the index (``position_of_index``).
  ``error`` uses the reader's index, ``peek_error`` the index + 1 (capped at the input length).
  Errors made by serde itself (invalid type, missing / duplicate field, invalid length) carry
  no position and get the reader's index where serde_json first sees them (``fix_position``),
  which for ``missing field`` / ``invalid length`` is after the closing ``}`` / ``]`` and for
  ``duplicate field`` is after the key (and any whitespace after it).
- A struct also accepts a JSON array of its fields in order (serde_derive's ``visit_seq``);
  a field with ``#[serde(default)]`` may be left out at the end.
- Unknown object keys are skipped with ``IgnoredAny``: serde_json's ``ignore_value`` checks
  the syntax (string escapes without surrogate pairing, numbers without range) but has no depth
  limit; typed containers count against the recursion limit of 128.
- Numbers are computed like serde_json's ``f64_from_parts`` (``significand × 10^exp`` in
  doubles, not always the nearest double) and floats printed like zmij (serde_json's
  ``JsonUnexpected``); strings in ``Unexpected`` use Rust's ``{:?}`` escaping.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass
from typing import Any

import regex

__all__ = [
    "Field",
    "Opt",
    "Schema",
    "SerdeJsonError",
    "Str",
    "Struct",
    "Vec",
    "decode_exact",
    "format_f64",
    "from_str",
    "rust_debug_str",
    "unexpected",
]


# --------------------------------------------------------------------------------------------
# The schema
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Str:
    """``String``: a JSON string (``expected a string``)."""


@dataclass(frozen=True)
class Vec:
    """``Vec<item>``: a JSON array (``expected a sequence``)."""

    item: Schema


@dataclass(frozen=True)
class Opt:
    """``Option<inner>``: ``null`` is ``None``, anything else is read as ``inner``."""

    inner: Schema


@dataclass(frozen=True)
class Field:
    """One struct field; ``default`` is ``#[serde(default)]`` (a missing field is ``None`` for
    :class:`Opt`, ``[]`` for :class:`Vec`, ``""`` for :class:`Str`)."""

    name: str
    schema: Schema
    default: bool = False


@dataclass(frozen=True)
class Struct:
    """``#[derive(Deserialize)] struct <name> { fields… }`` (``expected struct <name>``)."""

    name: str
    fields: tuple[Field, ...]


Schema = Str | Vec | Opt | Struct


class SerdeJsonError(ValueError):
    """A serde_json error: ``reason`` (the error code's or serde's text), ``line`` and ``column``
    (both 0 when unknown); ``str()`` is serde_json's Display."""

    def __init__(self, reason: str, line: int = 0, column: int = 0) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        super().__init__(reason if line == 0 else f"{reason} at line {line} column {column}")


# --------------------------------------------------------------------------------------------
# serde's words (serde_core ``Unexpected`` Display through serde_json's ``JsonUnexpected``)
# --------------------------------------------------------------------------------------------

# Rust's ``is_printable`` (core/src/unicode/printable.py): not printable are the general
# categories Cc Cf Cs Co Cn Zl Zp Zs, except the space itself.
_NOT_PRINTABLE = regex.compile(r"[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}--\x20]", regex.V1)
_GRAPHEME_EXTEND = regex.compile(r"\p{Grapheme_Extend}")
# Characters the regex module's Unicode data assigns that Rust's (Unicode 17.0, rustc 1.95)
# does not, so Rust escapes them as unassigned: found by printing every code point with Rust's
# {:?} (serde_json's own error text) and comparing.
_UNASSIGNED_IN_RUST = (
    (0x00558, 0x00558), (0x0058B, 0x0058C), (0x0208F, 0x0208F), (0x0209D, 0x0209F), (0x020C2, 0x020C4),
    (0x02E60, 0x02E63), (0x0A7DD, 0x0A7DD), (0x0A7E2, 0x0A7E2), (0x0AB6C, 0x0AB6D), (0x107BB, 0x107BF),
    (0x10EC9, 0x10ECA), (0x10ED9, 0x10EEE), (0x11B0A, 0x11B0A), (0x11DF1, 0x11DF1), (0x1246F, 0x1246F),
    (0x12475, 0x1247F), (0x12550, 0x12686), (0x18CD6, 0x18CDA), (0x18D1F, 0x18D20), (0x18E00, 0x19191),
    (0x191A0, 0x191D2), (0x1B123, 0x1B128), (0x1B168, 0x1B168), (0x1CED2, 0x1CED4), (0x1CEDD, 0x1CEDF),
    (0x1CEF1, 0x1CEFD), (0x1D1EB, 0x1D1FF), (0x1D253, 0x1D25A), (0x1D25D, 0x1D25E), (0x1D260, 0x1D27F),
    (0x1D6A6, 0x1D6A6), (0x1DB00, 0x1DB1C), (0x1DF1F, 0x1DF24), (0x1DF2B, 0x1DF81), (0x1DF90, 0x1DF96),
    (0x1DFCD, 0x1DFFF), (0x1F1AE, 0x1F1AE), (0x1F6D9, 0x1F6D9), (0x1F7DA, 0x1F7DB), (0x1F7F1, 0x1F7FF),
    (0x1FA8B, 0x1FA8D), (0x1FACC, 0x1FACC), (0x1FADD, 0x1FADD), (0x1FAEB, 0x1FAEB), (0x1FAF9, 0x1FAFA),
    (0x2B81E, 0x2B81E), (0x3D000, 0x3FC3F),
)
_UNASSIGNED_STARTS = tuple(a for a, _ in _UNASSIGNED_IN_RUST)


def _unassigned_in_rust(ch: str) -> bool:
    at = bisect.bisect_right(_UNASSIGNED_STARTS, ord(ch)) - 1
    return at >= 0 and ord(ch) <= _UNASSIGNED_IN_RUST[at][1]
_DEBUG_BACKSLASH = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"'}


def rust_debug_str(text: str) -> str:
    """``text`` as Rust's ``{:?}`` prints a ``str``: double-quoted; ``\\0 \\t \\r \\n \\\\ \\"``
    backslashed; grapheme extenders and non-printable characters as ``\\u{hex}``; ``'`` as is."""
    out = ['"']
    for ch in text:
        esc = _DEBUG_BACKSLASH.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < "\x7f" and ch >= " ":
            out.append(ch)
        elif _GRAPHEME_EXTEND.match(ch) or _NOT_PRINTABLE.match(ch) or _unassigned_in_rust(ch):
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def format_f64(value: float) -> str:
    """``value`` as zmij formats an ``f64`` (serde_json's float text): the shortest digits that
    read back as ``value``; plain notation with at least one decimal for decimal exponents
    -5…15 (``100.0``, ``0.00001``), otherwise ``d.ddde±N`` (``1e+16``, ``1.5e-7``)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0.0"
    digits, exp = _shortest(repr(abs(value)))  # repr: the shortest digits that read back
    if -5 <= exp <= 15:
        if len(digits) - 1 <= exp:
            return sign + digits + "0" * (exp + 1 - len(digits)) + ".0"
        if exp >= 0:
            return sign + digits[: exp + 1] + "." + digits[exp + 1 :]
        return sign + "0." + "0" * (-exp - 1) + digits
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{'+' if exp >= 0 else '-'}{abs(exp)}"


def _shortest(text: str) -> tuple[str, int]:
    """Digits (no leading/trailing zeros) and decimal exponent of the first digit, from repr."""
    mant, _, exp_part = text.partition("e")
    exp = int(exp_part) if exp_part else 0
    whole, _, frac = mant.partition(".")
    all_digits = whole + frac
    point = len(whole)  # value = 0.<all_digits> × 10^point
    stripped = all_digits.lstrip("0")
    point -= len(all_digits) - len(stripped)
    stripped = stripped.rstrip("0") or "0"
    return stripped, point - 1 + exp


def unexpected(value: Any) -> str:
    """serde's ``Unexpected`` wording for a decoded JSON value, as serde_json prints it:
    ``null``, ``boolean `true```, ``integer `5```, ``floating point `2.5``` (:func:`format_f64`),
    ``string "x"`` (:func:`rust_debug_str`), ``sequence``, ``map``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{format_f64(value)}`"
    if isinstance(value, str):
        return f"string {rust_debug_str(value)}"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return "map"


def _expecting(schema: Schema) -> str:
    """A visitor's ``expecting`` text (serde's ``Vec``/``String`` visitors, derived structs)."""
    if isinstance(schema, Struct):
        return f"struct {schema.name}"
    if isinstance(schema, Vec):
        return "a sequence"
    if isinstance(schema, Opt):
        return "option"
    return "a string"


# --------------------------------------------------------------------------------------------
# The reader (serde_json's ``Deserializer<StrRead>``)
# --------------------------------------------------------------------------------------------

# serde_json ErrorCode Display (error.rs)
EOF_LIST = "EOF while parsing a list"
EOF_OBJECT = "EOF while parsing an object"
EOF_STRING = "EOF while parsing a string"
EOF_VALUE = "EOF while parsing a value"
EXPECTED_COLON = "expected `:`"
EXPECTED_LIST_COMMA_OR_END = "expected `,` or `]`"
EXPECTED_OBJECT_COMMA_OR_END = "expected `,` or `}`"
EXPECTED_IDENT = "expected ident"
EXPECTED_VALUE = "expected value"
INVALID_ESCAPE = "invalid escape"
INVALID_NUMBER = "invalid number"
NUMBER_OUT_OF_RANGE = "number out of range"
CONTROL_CHARACTER = "control character (\\u0000-\\u001F) found while parsing a string"
KEY_MUST_BE_A_STRING = "key must be a string"
LONE_LEADING_SURROGATE = "lone leading surrogate in hex escape"
TRAILING_COMMA = "trailing comma"
TRAILING_CHARACTERS = "trailing characters"
UNEXPECTED_END_OF_HEX_ESCAPE = "unexpected end of hex escape"
RECURSION_LIMIT = "recursion limit exceeded"

#: serde_json's ``remaining_depth`` at the start: the 128th nested typed container fails.
RECURSION_LIMIT_DEPTH = 128

_U64_MAX = 2**64 - 1
_I32_MAX = 2**31 - 1
_I32_MIN = -(2**31)
_POW10 = tuple(float(f"1e{i}") for i in range(309))
_STRING_STOP = re.compile(rb'[\x00-\x1f"\\]')
_WS = b" \n\t\r"
_ESCAPES = {ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b", ord("f"): "\f",
            ord("n"): "\n", ord("r"): "\r", ord("t"): "\t"}
_HEX = frozenset(b"0123456789abcdefABCDEF")


def _overflows(acc: int, digit: int, limit: int) -> bool:
    """serde_json's ``overflow!(acc * 10 + digit, limit)``."""
    return acc >= limit // 10 and (acc > limit // 10 or digit > limit % 10)


def _sat_i32(n: int) -> int:
    return max(_I32_MIN, min(_I32_MAX, n))


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.b = data
        self.n = len(data)
        self.i = 0
        self.depth = RECURSION_LIMIT_DEPTH

    # ---- positions and errors ---------------------------------------------------------------

    def _position(self, index: int) -> tuple[int, int]:
        start = self.b.rfind(b"\n", 0, index) + 1
        return 1 + self.b.count(b"\n", 0, start), index - start

    def error(self, reason: str) -> SerdeJsonError:
        return SerdeJsonError(reason, *self._position(self.i))

    def peek_error(self, reason: str) -> SerdeJsonError:
        return SerdeJsonError(reason, *self._position(min(self.n, self.i + 1)))

    def fix(self, err: SerdeJsonError) -> SerdeJsonError:
        return self.error(err.reason) if err.line == 0 else err

    # ---- bytes ---------------------------------------------------------------------------------

    def peek(self) -> int | None:
        return self.b[self.i] if self.i < self.n else None

    def peek_or_null(self) -> int:
        return self.b[self.i] if self.i < self.n else 0

    def next(self) -> int | None:
        if self.i < self.n:
            self.i += 1
            return self.b[self.i - 1]
        return None

    def whitespace(self) -> int | None:
        while self.i < self.n and self.b[self.i] in _WS:
            self.i += 1
        return self.peek()

    def parse_ident(self, ident: bytes) -> None:
        for expected in ident:
            got = self.next()
            if got is None:
                raise self.error(EOF_VALUE)
            if got != expected:
                raise self.error(EXPECTED_IDENT)

    # ---- strings (read.rs) ---------------------------------------------------------------------

    def _hex4(self) -> int:
        if self.n - self.i < 4:
            self.i = self.n
            raise self.error(EOF_STRING)
        quad = self.b[self.i : self.i + 4]
        self.i += 4
        if not all(c in _HEX for c in quad):
            raise self.error(INVALID_ESCAPE)
        return int(quad, 16)

    def _next_or_eof(self) -> int:
        c = self.next()
        if c is None:
            raise self.error(EOF_STRING)
        return c

    def _peek_or_eof(self) -> int:
        c = self.peek()
        if c is None:
            raise self.error(EOF_STRING)
        return c

    def parse_str(self) -> str:
        """The string after an opening quote (already eaten), escapes validated (``parse_str``)."""
        parts: list[str] = []
        start = self.i
        while True:
            m = _STRING_STOP.search(self.b, self.i)
            if m is None:
                self.i = self.n
                raise self.error(EOF_STRING)
            self.i = m.start()
            c = self.b[self.i]
            if c == 0x22:
                parts.append(self.b[start : self.i].decode("utf-8", "surrogatepass"))
                self.i += 1
                return "".join(parts)
            if c == 0x5C:
                parts.append(self.b[start : self.i].decode("utf-8", "surrogatepass"))
                self.i += 1
                parts.append(self._escape())
                start = self.i
                continue
            self.i += 1
            raise self.error(CONTROL_CHARACTER)

    def _escape(self) -> str:
        ch = self._next_or_eof()
        simple = _ESCAPES.get(ch)
        if simple is not None:
            return simple
        if ch != ord("u"):
            raise self.error(INVALID_ESCAPE)
        n = self._hex4()
        if 0xDC00 <= n <= 0xDFFF:
            raise self.error(LONE_LEADING_SURROGATE)  # serde_json's wording for a trailing one
        if not 0xD800 <= n <= 0xDBFF:
            return chr(n)
        if self._peek_or_eof() != 0x5C:
            self.i += 1
            raise self.error(UNEXPECTED_END_OF_HEX_ESCAPE)
        self.i += 1
        if self._peek_or_eof() != ord("u"):
            self.i += 1
            raise self.error(UNEXPECTED_END_OF_HEX_ESCAPE)
        self.i += 1
        n2 = self._hex4()
        if not 0xDC00 <= n2 <= 0xDFFF:
            raise self.error(LONE_LEADING_SURROGATE)
        return chr((((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000)

    def ignore_str(self) -> None:
        """Skip a string after its opening quote (``ignore_str``: escapes checked, ``\\u`` not
        paired; a control character is reported at its own index)."""
        while True:
            m = _STRING_STOP.search(self.b, self.i)
            if m is None:
                self.i = self.n
                raise self.error(EOF_STRING)
            self.i = m.start()
            c = self.b[self.i]
            if c == 0x22:
                self.i += 1
                return
            if c == 0x5C:
                self.i += 1
                ch = self._next_or_eof()
                if ch == ord("u"):
                    self._hex4()
                elif ch not in _ESCAPES:
                    raise self.error(INVALID_ESCAPE)
                continue
            raise self.error(CONTROL_CHARACTER)

    # ---- numbers (de.rs, without float_roundtrip) ----------------------------------------------

    def parse_integer(self, positive: bool) -> int | float:
        c = self.next()
        if c is None:
            raise self.error(EOF_VALUE)
        if c == ord("0"):
            if 0x30 <= self.peek_or_null() <= 0x39:
                raise self.peek_error(INVALID_NUMBER)
            return self._parse_number(positive, 0)
        if not 0x31 <= c <= 0x39:
            raise self.error(INVALID_NUMBER)
        significand = c - 0x30
        while True:
            c = self.peek_or_null()
            if not 0x30 <= c <= 0x39:
                return self._parse_number(positive, significand)
            digit = c - 0x30
            if _overflows(significand, digit, _U64_MAX):
                return self._parse_long_integer(positive, significand)
            self.i += 1
            significand = significand * 10 + digit

    def _parse_number(self, positive: bool, significand: int) -> int | float:
        c = self.peek_or_null()
        if c == ord("."):
            return self._parse_decimal(positive, significand, 0)
        if c in b"eE":
            return self._parse_exponent(positive, significand, 0)
        if positive:
            return significand
        neg = -significand if significand <= 2**63 else None  # wrapping_neg of `as i64`
        if neg is None or neg >= 0:
            return -float(significand)  # underflows i64, or `-0`: a float
        return neg

    def _parse_decimal(self, positive: bool, significand: int, exp_before: int) -> float:
        self.i += 1
        exp_after = 0
        while 0x30 <= (c := self.peek_or_null()) <= 0x39:
            digit = c - 0x30
            if _overflows(significand, digit, _U64_MAX):
                return self._parse_decimal_overflow(positive, significand, exp_before + exp_after)
            self.i += 1
            significand = significand * 10 + digit
            exp_after -= 1
        if exp_after == 0:
            if self.peek() is not None:
                raise self.peek_error(INVALID_NUMBER)
            raise self.peek_error(EOF_VALUE)
        exponent = exp_before + exp_after
        if self.peek_or_null() in b"eE":
            return self._parse_exponent(positive, significand, exponent)
        return self._f64_from_parts(positive, significand, exponent)

    def _parse_exponent(self, positive: bool, significand: int, starting_exp: int) -> float:
        self.i += 1
        positive_exp = True
        c = self.peek_or_null()
        if c == ord("+"):
            self.i += 1
        elif c == ord("-"):
            self.i += 1
            positive_exp = False
        nxt = self.next()
        if nxt is None:
            raise self.error(EOF_VALUE)
        if not 0x30 <= nxt <= 0x39:
            raise self.error(INVALID_NUMBER)
        exp = nxt - 0x30
        while 0x30 <= (c := self.peek_or_null()) <= 0x39:
            self.i += 1
            digit = c - 0x30
            if _overflows(exp, digit, _I32_MAX):
                return self._parse_exponent_overflow(positive, significand == 0, positive_exp)
            exp = exp * 10 + digit
        final = _sat_i32(starting_exp + exp) if positive_exp else _sat_i32(starting_exp - exp)
        return self._f64_from_parts(positive, significand, final)

    def _f64_from_parts(self, positive: bool, significand: int, exponent: int) -> float:
        f = float(significand)
        while True:
            index = abs(exponent) if exponent != _I32_MIN else -1  # wrapping_abs(i32::MIN) < 0
            if 0 <= index < len(_POW10):
                pow10 = _POW10[index]
                if exponent >= 0:
                    f *= pow10
                    if f == float("inf"):
                        raise self.error(NUMBER_OUT_OF_RANGE)
                else:
                    f /= pow10
                break
            if f == 0.0:
                break
            if exponent >= 0:
                raise self.error(NUMBER_OUT_OF_RANGE)
            f /= 1e308
            exponent += 308
        return f if positive else -f

    def _parse_long_integer(self, positive: bool, significand: int) -> float:
        exponent = 0
        while True:
            c = self.peek_or_null()
            if 0x30 <= c <= 0x39:
                self.i += 1
                exponent += 1
            elif c == ord("."):
                return self._parse_decimal(positive, significand, exponent)
            elif c in b"eE":
                return self._parse_exponent(positive, significand, exponent)
            else:
                return self._f64_from_parts(positive, significand, exponent)

    def _parse_decimal_overflow(self, positive: bool, significand: int, exponent: int) -> float:
        while 0x30 <= self.peek_or_null() <= 0x39:
            self.i += 1
        if self.peek_or_null() in b"eE":
            return self._parse_exponent(positive, significand, exponent)
        return self._f64_from_parts(positive, significand, exponent)

    def _parse_exponent_overflow(self, positive: bool, zero_significand: bool, positive_exp: bool) -> float:
        if not zero_significand and positive_exp:
            raise self.error(NUMBER_OUT_OF_RANGE)
        while 0x30 <= self.peek_or_null() <= 0x39:
            self.i += 1
        return 0.0 if positive else -0.0

    # ---- ignored values (``ignore_value``: iterative, no depth limit) --------------------------

    def ignore_value(self) -> None:
        stack: list[int] = []
        enclosing: int | None = None
        while True:
            peek = self.whitespace()
            if peek is None:
                raise self.peek_error(EOF_VALUE)
            frame: int | None = None
            if peek == ord("n"):
                self.i += 1
                self.parse_ident(b"ull")
            elif peek == ord("t"):
                self.i += 1
                self.parse_ident(b"rue")
            elif peek == ord("f"):
                self.i += 1
                self.parse_ident(b"alse")
            elif peek == ord("-"):
                self.i += 1
                self._ignore_integer()
            elif 0x30 <= peek <= 0x39:
                self._ignore_integer()
            elif peek == 0x22:
                self.i += 1
                self.ignore_str()
            elif peek in b"[{":
                if enclosing is not None:
                    stack.append(enclosing)
                    enclosing = None
                self.i += 1
                frame = peek
            else:
                raise self.peek_error(EXPECTED_VALUE)

            if frame is not None:
                accept_comma, current = False, frame
            elif enclosing is not None:
                accept_comma, current, enclosing = True, enclosing, None
            elif stack:
                accept_comma, current = True, stack.pop()
            else:
                return

            while True:
                c = self.whitespace()
                if c == ord(",") and accept_comma:
                    self.i += 1
                    break
                if (c == ord("]") and current == ord("[")) or (c == ord("}") and current == ord("{")):
                    self.i += 1
                    if not stack:
                        return
                    current = stack.pop()
                    accept_comma = True
                    continue
                if c is not None:
                    if accept_comma:
                        raise self.peek_error(
                            EXPECTED_LIST_COMMA_OR_END if current == ord("[") else EXPECTED_OBJECT_COMMA_OR_END
                        )
                    break
                raise self.peek_error(EOF_LIST if current == ord("[") else EOF_OBJECT)

            if current == ord("{"):
                c = self.whitespace()
                if c == 0x22:
                    self.i += 1
                elif c is not None:
                    raise self.peek_error(KEY_MUST_BE_A_STRING)
                else:
                    raise self.peek_error(EOF_OBJECT)
                self.ignore_str()
                c = self.whitespace()
                if c == ord(":"):
                    self.i += 1
                elif c is not None:
                    raise self.peek_error(EXPECTED_COLON)
                else:
                    raise self.peek_error(EOF_OBJECT)
            enclosing = current

    def _ignore_integer(self) -> None:
        c = self.next() or 0
        if c == ord("0"):
            if 0x30 <= self.peek_or_null() <= 0x39:
                raise self.peek_error(INVALID_NUMBER)
        elif 0x31 <= c <= 0x39:
            while 0x30 <= self.peek_or_null() <= 0x39:
                self.i += 1
        else:
            raise self.error(INVALID_NUMBER)
        c = self.peek_or_null()
        if c == ord("."):
            self.i += 1
            digits = False
            while 0x30 <= self.peek_or_null() <= 0x39:
                self.i += 1
                digits = True
            if not digits:
                raise self.peek_error(INVALID_NUMBER)
            c = self.peek_or_null()
        if c in b"eE":
            self.i += 1
            if self.peek_or_null() in b"+-":
                self.i += 1
            if not 0x30 <= (self.next() or 0) <= 0x39:
                raise self.error(INVALID_NUMBER)
            while 0x30 <= self.peek_or_null() <= 0x39:
                self.i += 1

    # ---- typed values (``Deserializer`` methods and serde's visitors) --------------------------

    def invalid_type(self, unexp: str, schema: Schema) -> SerdeJsonError:
        return SerdeJsonError(f"invalid type: {unexp}, expected {_expecting(schema)}")

    def peek_invalid_type(self, schema: Schema) -> SerdeJsonError:
        c = self.peek_or_null()
        if c == ord("n"):
            self.i += 1
            self.parse_ident(b"ull")
            err = self.invalid_type("null", schema)
        elif c == ord("t"):
            self.i += 1
            self.parse_ident(b"rue")
            err = self.invalid_type("boolean `true`", schema)
        elif c == ord("f"):
            self.i += 1
            self.parse_ident(b"alse")
            err = self.invalid_type("boolean `false`", schema)
        elif c == ord("-"):
            self.i += 1
            err = self.invalid_type(unexpected(self.parse_integer(False)), schema)
        elif 0x30 <= c <= 0x39:
            err = self.invalid_type(unexpected(self.parse_integer(True)), schema)
        elif c == 0x22:
            self.i += 1
            err = self.invalid_type(f"string {rust_debug_str(self.parse_str())}", schema)
        elif c == ord("["):
            err = self.invalid_type("sequence", schema)
        elif c == ord("{"):
            err = self.invalid_type("map", schema)
        else:
            err = self.peek_error(EXPECTED_VALUE)
        return self.fix(err)

    def value(self, schema: Schema) -> Any:
        if isinstance(schema, Struct):
            return self._struct(schema)
        if isinstance(schema, Vec):
            return self._seq(schema)
        if isinstance(schema, Opt):
            if self.whitespace() == ord("n"):
                self.i += 1
                self.parse_ident(b"ull")
                return None
            return self.value(schema.inner)
        return self._string(schema)

    def _string(self, schema: Schema) -> str:
        peek = self.whitespace()
        if peek is None:
            raise self.peek_error(EOF_VALUE)
        if peek != 0x22:
            raise self.fix(self.peek_invalid_type(schema))
        self.i += 1
        return self.parse_str()

    def _container(self, visit: Any, closing: Any) -> Any:
        """``check_recursion! { eat; visit }`` then ``(ret, end_seq/end_map)``: the visitor's
        error wins, but the end is read first (its whitespace moves ``fix_position``)."""
        self.depth -= 1
        if self.depth == 0:
            raise self.peek_error(RECURSION_LIMIT)
        self.i += 1
        ret_err: SerdeJsonError | None = None
        result = None
        try:
            result = visit()
        except SerdeJsonError as exc:
            ret_err = exc
        self.depth += 1
        end_err: SerdeJsonError | None = None
        try:
            closing()
        except SerdeJsonError as exc:
            end_err = exc
        err = ret_err or end_err
        if err is not None:
            raise self.fix(err)
        return result

    def _seq(self, schema: Vec) -> list[Any]:
        peek = self.whitespace()
        if peek is None:
            raise self.peek_error(EOF_VALUE)
        if peek != ord("["):
            raise self.fix(self.peek_invalid_type(schema))

        def visit() -> list[Any]:
            access = _SeqAccess(self)
            items: list[Any] = []
            while access.has_next():
                items.append(self.value(schema.item))
            return items

        result: list[Any] = self._container(visit, self.end_seq)
        return result

    def _struct(self, schema: Struct) -> dict[str, Any]:
        peek = self.whitespace()
        if peek is None:
            raise self.peek_error(EOF_VALUE)
        if peek == ord("["):
            result: dict[str, Any] = self._container(lambda: self._struct_seq(schema), self.end_seq)
        elif peek == ord("{"):
            result = self._container(lambda: self._struct_map(schema), self.end_map)
        else:
            raise self.fix(self.peek_invalid_type(schema))
        return result

    def _struct_seq(self, schema: Struct) -> dict[str, Any]:
        # serde_derive ``visit_seq``: fields in order; a missing one is its default or
        # ``invalid length <index>, expected struct <name> with <n> element(s)``
        access = _SeqAccess(self)
        count = len(schema.fields)
        out: dict[str, Any] = {}
        for index, field in enumerate(schema.fields):
            if access.has_next():
                out[field.name] = self.value(field.schema)
            elif field.default:
                out[field.name] = _default(field.schema)
            else:
                plural = "element" if count == 1 else "elements"
                raise SerdeJsonError(f"invalid length {index}, expected struct {schema.name} with {count} {plural}")
        return out

    def _struct_map(self, schema: Struct) -> dict[str, Any]:
        # serde_derive ``visit_map``: a repeated known key fails before its value is read;
        # unknown keys are skipped (IgnoredAny); missing fields are checked in field order
        fields = {f.name: f for f in schema.fields}
        out: dict[str, Any] = {}
        first = True
        while True:
            peek = self.whitespace()
            if peek is None:
                raise self.peek_error(EOF_OBJECT)
            if peek == ord("}"):
                break
            if first:
                first = False
                if peek != 0x22:
                    raise self.peek_error(KEY_MUST_BE_A_STRING)
            elif peek == ord(","):
                self.i += 1
                c = self.whitespace()
                if c == ord("}"):
                    raise self.peek_error(TRAILING_COMMA)
                if c is None:
                    raise self.peek_error(EOF_VALUE)
                if c != 0x22:
                    raise self.peek_error(KEY_MUST_BE_A_STRING)
            else:
                raise self.peek_error(EXPECTED_OBJECT_COMMA_OR_END)
            self.i += 1
            key = self.parse_str()
            field = fields.get(key)
            if field is not None and field.name in out:
                raise SerdeJsonError(f"duplicate field `{field.name}`")
            self.parse_object_colon()
            if field is None:
                self.ignore_value()
            else:
                out[field.name] = self.value(field.schema)
        for field in schema.fields:
            if field.name not in out:
                if field.default or isinstance(field.schema, Opt):
                    out[field.name] = _default(field.schema)
                else:
                    raise SerdeJsonError(f"missing field `{field.name}`")
        return out

    def parse_object_colon(self) -> None:
        c = self.whitespace()
        if c == ord(":"):
            self.i += 1
            return
        raise self.peek_error(EXPECTED_COLON if c is not None else EOF_OBJECT)

    def end_seq(self) -> None:
        c = self.whitespace()
        if c == ord("]"):
            self.i += 1
            return
        if c == ord(","):
            self.i += 1
            raise self.peek_error(TRAILING_COMMA if self.whitespace() == ord("]") else TRAILING_CHARACTERS)
        raise self.peek_error(TRAILING_CHARACTERS if c is not None else EOF_LIST)

    def end_map(self) -> None:
        c = self.whitespace()
        if c == ord("}"):
            self.i += 1
            return
        if c == ord(","):
            raise self.peek_error(TRAILING_COMMA)
        raise self.peek_error(TRAILING_CHARACTERS if c is not None else EOF_OBJECT)

    def end(self) -> None:
        if self.whitespace() is not None:
            raise self.peek_error(TRAILING_CHARACTERS)


class _SeqAccess:
    """serde_json's ``SeqAccess::has_next_element``."""

    def __init__(self, reader: _Reader) -> None:
        self.r = reader
        self.first = True

    def has_next(self) -> bool:
        r = self.r
        peek = r.whitespace()
        if peek is None:
            raise r.peek_error(EOF_LIST)
        if peek == ord("]"):
            return False
        if self.first:
            self.first = False
            return True
        if peek != ord(","):
            raise r.peek_error(EXPECTED_LIST_COMMA_OR_END)
        r.i += 1
        c = r.whitespace()
        if c == ord("]"):
            raise r.peek_error(TRAILING_COMMA)
        if c is None:
            raise r.peek_error(EOF_VALUE)
        return True


def _default(schema: Schema) -> Any:
    if isinstance(schema, Vec):
        return []
    if isinstance(schema, Str):
        return ""
    if isinstance(schema, Struct):
        return {f.name: _default(f.schema) for f in schema.fields}
    return None


def decode_exact(text: str, schema: Schema) -> Any:
    """:func:`from_str` without the fast path: serde_json's reading, byte by byte."""
    reader = _Reader(text.encode("utf-8", "surrogatepass"))
    value = reader.value(schema)
    reader.end()
    return value


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as Python's ``json`` read it, keys in order, repeats kept."""


class _NotPlain(Exception):
    """The fast path cannot vouch for this document; serde_json's reading decides."""


def _refuse_constant(token: str) -> Any:
    raise _NotPlain(token)


def _plain(value: Any, schema: Schema) -> Any:
    """``value`` (from ``json.loads``) as ``schema`` when serde_json certainly reads it the same
    way and without error; raises :class:`_NotPlain` otherwise."""
    if isinstance(schema, Opt):
        return None if value is None else _plain(value, schema.inner)
    if isinstance(schema, Str):
        if isinstance(value, str) and _encodable(value):
            return value
        raise _NotPlain
    if isinstance(schema, Vec):
        if isinstance(value, list) and not isinstance(value, _Pairs):
            return [_plain(v, schema.item) for v in value]
        raise _NotPlain
    if not isinstance(value, _Pairs):
        raise _NotPlain  # not an object, or a struct given as an array
    fields = {f.name: f for f in schema.fields}
    out: dict[str, Any] = {}
    for key, item in value:
        if not _encodable(key):
            raise _NotPlain  # every key of a struct is read as a checked string, unknown ones too
        field = fields.get(key)
        if field is None:
            continue  # ignored: Python's json checked the same syntax serde_json's ignore_value does
        if key in out:
            raise _NotPlain
        out[key] = _plain(item, field.schema)
    for field in schema.fields:
        if field.name not in out:
            if not (field.default or isinstance(field.schema, Opt)):
                raise _NotPlain
            out[field.name] = _default(field.schema)
    return out


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False  # a lone surrogate: serde_json refuses the \u escape it came from
    return True


def from_str(text: str, schema: Schema) -> Any:
    """Decode ``text`` as ``schema`` exactly like ``serde_json::from_str`` (the whole text must
    be one value, surrounded by JSON whitespace only). Returns ``dict`` / ``list`` / ``str`` /
    ``None`` per the schema. Raises :class:`SerdeJsonError` with serde_json's message; never
    anything else, whatever the text (positions count UTF-8 bytes).

    A well-formed document is read with Python's ``json`` (about 10x faster) when that reading
    is certainly serde_json's: standard JSON, typed strings free of lone surrogates, no repeated
    field, no struct given as an array. Anything else, and every error, is
    :func:`decode_exact`'s.
    """
    try:
        return _plain(json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_Pairs), schema)
    except (_NotPlain, ValueError, RecursionError):
        return decode_exact(text, schema)
