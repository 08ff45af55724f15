"""The one JSONC reader: configuration text as Zuno reads it (SPEC K1, K5).

Zuno accepts JSON plus ``//`` and ``/* */`` comments and trailing commas (JSONC), in ``.json``
and ``.jsonc`` files alike. Which files it accepts decides which skills it sees and whether it
starts at all, so this reader must accept exactly what Zuno's does. Zuno's reader is not a
JSONC library: it blanks comments and trailing commas with its own stripper (``strip_jsonc`` in
zuno-config's discovery, byte-stable) and hands the result to ``serde_json``. :func:`strip`
reproduces that stripper rule for rule (strings across lines, ``//`` ended by ``\r`` too, an
unterminated ``/*`` blanking the rest, ``[,]`` keeping its comma) and :func:`json.loads` plays
``serde_json``; a JSONC library would disagree on exactly those edges. Not reproduced (they only
matter for files no one writes): ``serde_json`` also refuses lone-surrogate escapes, numbers out
of ``f64`` range and nesting deeper than 128, which the standard library reads.

:func:`loads` reads such a text into Python values and says whether it needed anything beyond
that: a text that is only valid JSON5 (unquoted keys, single quotes, hexadecimal numbers,
``NaN`` …) still loads, with a :class:`Nonstandard` note naming the first construct Zuno refuses
and where it is. Anything else raises :class:`JsoncError`. Only such a text (JSON5 constructs,
or broken) goes to json-five's round-trip model, which is exact but slow (minutes for a few
megabytes); its positions come from the model's public node attributes (``lineno``,
``col_offset``, ``end_lineno``, ``end_col_offset``). :func:`container_at` locates an object's
or array's children by offset with the standard library's decoder, and :class:`Document` turns
model positions into text offsets, for the config writer, which splices entries into the
original text.

Lines and columns are 1-based; columns count characters. A leading BOM is the caller's
business (strip it first).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import json5
    from json5.dumper import ModelDumper
    from json5.loader import ModelLoader
    from json5.model import (
        BooleanLiteral,
        DoubleQuotedString,
        Float,
        Identifier,
        Infinity,
        Integer,
        JSONArray,
        JSONObject,
        JSONText,
        NaN,
        Node,
        NullLiteral,
        SingleQuotedString,
        String,
        UnaryOp,
        Value,
    )
    from json5.utils import JSON5DecodeError


def _import_json5() -> None:
    """Import json-five (a tenth of a second) the first time a text is not plain JSON: its
    names below are bound in this module's globals then, so the common case never pays."""
    if "json5" in globals():
        return
    import json5
    from json5 import model as m
    from json5.dumper import ModelDumper
    from json5.loader import ModelLoader
    from json5.utils import JSON5DecodeError

    names = ("BooleanLiteral", "DoubleQuotedString", "Float", "Identifier", "Infinity", "Integer", "JSONArray",
             "JSONObject", "JSONText", "NaN", "Node", "NullLiteral", "SingleQuotedString", "String", "UnaryOp",
             "Value")
    globals().update({n: getattr(m, n) for n in names}, ModelDumper=ModelDumper, ModelLoader=ModelLoader,
                     JSON5DecodeError=JSON5DecodeError, json5=json5)

__all__ = ["DEPTH_EXCEEDED", "MAX_DEPTH", "Container", "Document", "JsoncError", "Nonstandard", "Parsed", "container_at", "key_name",
           "loads", "member", "parse_document", "skip_trivia", "strip"]


class JsoncError(ValueError):
    """A text that is not JSONC (nor JSON5). ``message`` is the reason without the position;
    ``line`` / ``column`` are 1-based. ``str(exc)`` is ``"<line>:<column>: <message>"``."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Nonstandard:
    """The first construct of a JSON5 text that JSONC does not allow (``message`` names it:
    ``the unquoted key `skills```), and where it starts."""

    message: str
    line: int
    column: int


@dataclass(frozen=True)
class Parsed:
    """A loaded text: ``value`` (any JSON value, objects as dicts, arrays as lists; a repeated
    key keeps its last value) and ``nonstandard`` (``None`` for JSONC)."""

    value: Any
    nonstandard: Nonstandard | None = None


class _RejectConstant(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _RejectConstant(name)


@functools.lru_cache(maxsize=64)
def loads(text: str) -> Parsed:
    """Read one JSONC text (see the module docstring). Raises :class:`JsoncError`.

    Results are cached by text: a configuration layer re-read on every refresh costs nothing
    while it is unchanged. Treat the returned value as read-only.
    """
    deep = _too_deep(text)
    if deep is not None:
        raise JsoncError(DEPTH_EXCEEDED, *deep)
    try:
        return Parsed(json.loads(text, parse_constant=_reject_constant))
    except (ValueError, RecursionError):
        pass  # not plain JSON: comments, trailing commas, JSON5 or broken
    stripped = strip(text)
    if stripped != text:
        try:
            return Parsed(json.loads(stripped, parse_constant=_reject_constant))
        except (ValueError, RecursionError):
            pass  # JSON5 or broken: json-five decides, and says where
    doc = parse_document(text)
    try:
        return Parsed(doc.value(doc.root), _first_nonstandard(doc))
    except RecursionError:  # a guard: _too_deep refuses such a text first
        raise JsoncError(DEPTH_EXCEEDED, 1, 1) from None


#: serde_json's nesting limit: Zuno's reader refuses a document nested deeper (its error
#: ``recursion limit exceeded``); skillshelf refuses it too rather than recurse into it.
MAX_DEPTH = 128
#: serde_json's message for it.
DEPTH_EXCEEDED = "recursion limit exceeded"
#: What nesting is made of, with the strings and comments whose brackets do not count.
_NESTING = re.compile(r'"(?:[^"\\]++|\\.)*+"|//[^\n\r]*+|/\*.*?(?:\*/|\Z)|[\[\]{}]', re.DOTALL)


def _too_deep(text: str) -> tuple[int, int] | None:
    """1-based (line, column in UTF-8 bytes) of the first ``[`` / ``{`` opened deeper than
    :data:`MAX_DEPTH`, or ``None``. Texts with at most that many brackets are not scanned. The
    position is that bracket's (serde_json stops on it); not checked against Zuno byte for byte."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth = 0
    for match in _NESTING.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                start = match.start()
                line_start = text.rfind("\n", 0, start) + 1
                column = len(text[line_start:start].encode("utf-8", "surrogatepass")) + 1
                return text.count("\n", 0, start) + 1, column
        elif token in ("]", "}"):
            depth -= 1
    return None


# --------------------------------------------------------------------------------------------
# JSONC through the standard library

_ZUNO_SPACE = r"[ \t\n\f\r]"  # Rust's u8::is_ascii_whitespace
_ZUNO_SPACES = " \t\n\f\r"
#: Where Zuno's stripper may act, unless inside a string: a comment, or a comma followed by
#: nothing but whitespace and (terminated) comments before a ``]`` / ``}``.
_CANDIDATE = re.compile(rf"//|/\*|,(?=(?:{_ZUNO_SPACE}++|//[^\n\r]*+|/\*.*?\*/)*+[\]}}])", re.DOTALL)
#: A string as Zuno's stripper sees one: to the next unescaped quote, across lines.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_LINE_END = re.compile(r"[\n\r]")
_NOT_LINE_END = re.compile(r"[^\n\r]")


def strip(text: str) -> str:
    """``text`` with its ``//`` / ``/* */`` comments and trailing commas blanked, exactly as Zuno's
    own stripper (``strip_jsonc`` in zuno-config's discovery) does before ``serde_json`` reads
    the result: every blanked character becomes a space and line breaks stay, so offsets, lines
    and columns are those of ``text``. Strings run to their closing quote, across lines (an
    unterminated one ends the work). A ``//`` comment ends at ``\n`` or ``\r``; an unterminated
    ``/*`` blanks the rest of the text. A trailing comma is one followed, past whitespace and
    comments, by ``]`` or ``}`` whose previous significant character is not ``:``, ``,``, ``[``
    or ``{`` — so ``[,]`` keeps its comma and stays invalid. Linear in the text's size: strings
    are skipped by quote parity unless a backslash may escape a quote."""
    parts: list[str] = []
    comments: list[tuple[int, int]] = []
    kept = 0  # text[kept:] is not copied yet
    outside = 0  # an offset known to be outside any string
    search = 0
    while True:
        m = _CANDIDATE.search(text, search)
        if m is None:
            break
        at = m.start()
        # inside a string? quote parity from a known outside point
        if text.find("\\", outside, at) < 0:
            inside = text.count('"', outside, at) % 2 == 1
            quote = text.rfind('"', outside, at) if inside else -1
        else:
            inside, quote, pos = False, -1, outside
            while True:
                q = text.find('"', pos, at)
                if q < 0:
                    break
                closed = _STRING.match(text, q)
                if closed is None or closed.end() > at:
                    inside, quote = True, q
                    break
                pos = closed.end()
        if inside:
            closed = _STRING.match(text, quote)
            if closed is None:
                break  # an unterminated string: the rest is inside it
            outside = search = closed.end()
            continue
        token = m.group()
        if token == ",":
            if _previous_significant(text, at, comments) in (":", ",", "[", "{"):
                outside = search = at + 1
                continue
            blank, end = " ", at + 1
        else:
            if token == "//":
                eol = _LINE_END.search(text, at)
                end = len(text) if eol is None else eol.start()
            else:
                end = text.find("*/", at + 2)
                end = len(text) if end < 0 else end + 2
            comments.append((at, end))
            body = text[at:end]
            blank = _NOT_LINE_END.sub(" ", body) if token == "/*" else " " * len(body)
        parts.append(text[kept:at])
        parts.append(blank)
        kept = outside = search = end
    if not parts:
        return text
    parts.append(text[kept:])
    return "".join(parts)


def _previous_significant(text: str, offset: int, comments: list[tuple[int, int]]) -> str | None:
    """The last character before ``offset`` that is neither whitespace nor inside one of the
    ``comments`` (spans in text order, all before ``offset``); ``None`` at the start."""
    pos = offset - 1
    index = len(comments) - 1
    while pos >= 0:
        if text[pos] in _ZUNO_SPACES:
            pos -= 1
        elif index >= 0 and comments[index][1] == pos + 1:
            pos = comments[index][0] - 1
            index -= 1
        else:
            return text[pos]
    return None


_TRIVIA = re.compile(r"(?:[ \t\n\r]++|//[^\n\r]*+|/\*.*?\*/)*+", re.DOTALL)


@dataclass(frozen=True)
class Container:
    """One object or array of a JSONC text, by offsets into that text.

    ``open`` / ``close``: offsets of the brackets. ``starts``: where each child starts (a
    member's key, an item's value); ``values``: where each child's value starts; ``ends``: just
    after each child's value; ``keys``: the members' names (empty for an array); ``comma``: the
    offset of a trailing comma, or ``None``.
    """

    open: int
    close: int
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    values: tuple[int, ...]
    keys: tuple[str, ...] = ()
    comma: int | None = None

    def member(self, key: str) -> int | None:
        """Index of the last member named ``key`` (the one that wins), or ``None``."""
        for i in range(len(self.keys) - 1, -1, -1):
            if self.keys[i] == key:
                return i
        return None


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def skip_trivia(text: str, offset: int) -> int:
    """The offset of the first character at or after ``offset`` that is not JSON whitespace or a
    comment."""
    return _TRIVIA.match(text, offset).end()  # type: ignore[union-attr]


def _value_end(text: str, offset: int) -> int:
    try:
        return int(_DECODER.raw_decode(text, offset)[1])
    except ValueError:
        if text[offset:offset + 1] in ("{", "["):  # comments or a trailing comma inside
            return container_at(text, offset).close + 1
        raise


def container_at(text: str, offset: int) -> Container:
    """The object or array starting at ``offset`` of a JSONC text: its children located with
    the standard library's decoder (a child without comments is decoded in one call; one with
    comments is walked the same way), so linear in the text's size for any real nesting.
    Raises :class:`ValueError` when the text there is not a JSONC object or array."""
    opener = text[offset:offset + 1]
    if opener not in ("{", "["):
        raise ValueError(f"no object or array at offset {offset}")
    closer = "}" if opener == "{" else "]"
    starts: list[int] = []
    ends: list[int] = []
    values: list[int] = []
    keys: list[str] = []
    comma: int | None = None
    pos = skip_trivia(text, offset + 1)
    while not text.startswith(closer, pos):
        starts.append(pos)
        if opener == "{":
            key, pos = _DECODER.raw_decode(text, pos)
            if not isinstance(key, str):
                raise ValueError(f"a key must be a string at offset {starts[-1]}")
            keys.append(key)
            pos = skip_trivia(text, pos)
            if not text.startswith(":", pos):
                raise ValueError(f"expected ':' at offset {pos}")
            pos = skip_trivia(text, pos + 1)
        values.append(pos)
        pos = _value_end(text, pos)
        ends.append(pos)
        pos = skip_trivia(text, pos)
        if text.startswith(",", pos):
            comma = pos
            pos = skip_trivia(text, pos + 1)
            continue
        comma = None
        if not text.startswith(closer, pos):
            raise ValueError(f"expected ',' or {closer!r} at offset {pos}")
        break
    if comma is not None and not starts:  # pragma: no cover - "[," is not JSONC
        raise ValueError(f"a comma without an item at offset {comma}")
    return Container(offset, pos, tuple(starts), tuple(ends), tuple(values), tuple(keys), comma)


# --------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class Document:
    """json-five's model of one text, with text offsets for its nodes.

    ``text``: the text parsed; ``root``: the top-level value node; ``model``: the whole
    document (with the whitespace and comments around ``root``).
    """

    text: str
    root: Value
    model: JSONText

    @functools.cached_property
    def _line_starts(self) -> list[int]:
        starts = [0]
        starts.extend(m.end() for m in re.finditer("\n", self.text))
        return starts

    def _offset(self, line: int | None, column: int | None) -> int:
        if line is None or column is None:
            raise ValueError("node without a position")
        return self._line_starts[line - 1] + column

    def start(self, node: Node) -> int:
        """Offset of the first character of ``node``."""
        return self._offset(node.lineno, node.col_offset)

    def end(self, node: Node) -> int:
        """Offset just after the last character of ``node`` (comments after it excluded)."""
        while isinstance(node, UnaryOp):
            node = node.value
        if isinstance(node, String | Integer | Float):
            # a string may span lines (line continuation): its raw text gives its length
            return self.start(node) + len(node.raw_value)
        return self._offset(node.end_lineno, node.end_col_offset)

    def inner_start(self, container: JSONObject | JSONArray) -> int:
        """Offset just after the opening ``{`` / ``[``."""
        return self.start(container) + 1

    def inner_end(self, container: JSONObject | JSONArray) -> int:
        """Offset of the closing ``}`` / ``]``."""
        return self._offset(container.end_lineno, container.end_col_offset) - 1

    def round_trips(self) -> bool:
        """Whether json-five writes the model back as exactly :attr:`text` (comments, commas,
        spacing), the condition for splicing into the text safely."""
        dumper = ModelDumper()  # json5.dumps(model, dumper=ModelDumper()), without its too-narrow annotation
        dumper.dump(self.model)
        dumper.env.outfile.seek(0)
        return bool(dumper.env.outfile.read() == self.text)

    def position(self, node: Node) -> tuple[int, int] | None:
        """1-based (line, column) where ``node`` starts, ``None`` when the model has none."""
        if node.lineno is None or node.col_offset is None:
            return None
        return node.lineno, node.col_offset + 1

    def find(self, steps: Sequence[str | int]) -> Value | None:
        """The node at ``steps`` (object keys and array indexes) from the root, ``None`` when
        the path does not exist. A repeated key resolves to its last occurrence."""
        node: Value = self.root
        for step in steps:
            if isinstance(step, int):
                if not isinstance(node, JSONArray) or not 0 <= step < len(node.values):
                    return None
                node = node.values[step]
            else:
                if not isinstance(node, JSONObject):
                    return None
                found = member(node, step)
                if found is None:
                    return None
                node = found
        return node

    def value(self, node: Value) -> Any:
        """``node`` as Python values (what :func:`json.loads` would give for the same JSON)."""
        if isinstance(node, JSONObject):
            return {key_name(k): self.value(v) for k, v in zip(node.keys, node.values, strict=True)}
        if isinstance(node, JSONArray):
            return [self.value(v) for v in node.values]
        if isinstance(node, String):
            return _join_surrogates(node.characters)
        if isinstance(node, UnaryOp):
            number = self.value(node.value)
            return -number if node.op == "-" else number
        if isinstance(node, Integer | Float | BooleanLiteral | Infinity | NaN):
            return node.value
        if isinstance(node, NullLiteral):
            return None
        raise TypeError(f"unexpected json-five node {type(node).__name__}")


def member(obj: JSONObject, key: str) -> Value | None:
    """The value of ``key`` in ``obj`` (the last one when repeated), or ``None``."""
    found: Value | None = None
    for k, v in zip(obj.keys, obj.values, strict=True):
        if key_name(k) == key:
            found = v
    return found


def key_name(key: Node) -> str:
    """The text of an object key (a string's characters or an identifier's name)."""
    if isinstance(key, String):
        return _join_surrogates(key.characters)
    if isinstance(key, Identifier):
        return key.name
    raise TypeError(f"unexpected json-five key {type(key).__name__}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _join_surrogates(text: str) -> str:
    """json-five decodes ``\\ud83d\\ude00`` as two lone surrogates; JSON means one character."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def parse_document(text: str) -> Document:
    """json-five's model of ``text`` (JSONC or JSON5). Raises :class:`JsoncError`."""
    _import_json5()
    try:
        model = json5.loads(text, loader=ModelLoader())
    except JSON5DecodeError as exc:
        raise _decode_error(exc, text) from None
    except RecursionError:
        raise JsoncError("nesting too deep", 1, 1) from None
    assert isinstance(model, JSONText)
    return Document(text, model.value, model)


# --------------------------------------------------------------------------------------------
# Errors

_TOKEN_WORDS = {
    "COMMA": "','", "COLON": "':'", "LBRACE": "'{'", "RBRACE": "'}'", "LBRACKET": "'['",
    "RBRACKET": "']'", "key": "a key", "value": "a value", "$end": "the end of the text",
}
_EXPECTING = re.compile(r"Was expecting ((?:\S+)(?: or \S+)*?)(?: in or near token|\.|$)", re.MULTILINE)
_ILLEGAL = re.compile(r"Illegal character (.+) at index (\d+)")
_TERMINATOR = re.compile(r"Illegal line terminator \(line (\d+) column (\d+)")


def _where(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _decode_error(exc: JSON5DecodeError, text: str) -> JsoncError:
    """json-five's (first) error as a short message at a line and column."""
    detail = str(exc.args[0]) if exc.args else str(exc)
    illegal = _ILLEGAL.search(detail)
    if illegal is not None:
        index = int(illegal.group(2))
        line, column = _where(text, index)
        if text.startswith("/*", index):
            return JsoncError("unterminated /* comment", line, column)
        return JsoncError(f"unexpected character {illegal.group(1)}", line, column)
    terminator = _TERMINATOR.search(detail)
    if terminator is not None:
        return JsoncError("a line break inside a string", int(terminator.group(1)), int(terminator.group(2)))
    expecting = _EXPECTING.search(detail)
    wanted = None
    if expecting is not None:
        wanted = " or ".join(_TOKEN_WORDS.get(w, w) for w in expecting.group(1).split(" or "))
    token = exc.token
    if token is not None and token.index is not None and token.value is not None:
        line, column = _where(text, token.index)
        found = f"`{token.value}`" if len(token.value) <= 40 else f"`{token.value[:40]}…`"
        if wanted:
            return JsoncError(f"expected {wanted}, found {found}", line, column)
        first = detail.split(" in or near token", 1)[0].split("\n", 1)[0]
        first = first.removeprefix("Syntax Error").lstrip(":. ").rstrip(".")
        if not first:
            return JsoncError(f"unexpected {found}", line, column)
        return JsoncError(f"{first[0].lower()}{first[1:]} at {found}", line, column)
    line, column = _where(text, len(text))
    if wanted:
        return JsoncError(f"expected {wanted}, found the end of the text", line, column)
    return JsoncError("unexpected end of the text", line, column)


# --------------------------------------------------------------------------------------------
# JSON5 constructs JSONC refuses

_JSON_ESCAPES = frozenset('"\\/bfnrtu')
_JSON_SPACE = frozenset(" \t\n\r")


def _walk(node: Node) -> Iterator[Node]:
    """Every node under ``node`` in text order (keys before their values)."""
    yield node
    if isinstance(node, JSONObject):
        for k, v in zip(node.keys, node.values, strict=True):
            yield from _walk(k)
            yield from _walk(v)
    elif isinstance(node, JSONArray):
        for v in node.values:
            yield from _walk(v)
    elif isinstance(node, UnaryOp):
        yield from _walk(node.value)


def _string_problem(raw: str) -> str | None:
    body = raw[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1] if i + 1 < len(body) else ""
            if nxt not in _JSON_ESCAPES:
                return "an escape JSON does not have" if nxt not in "\r\n\u2028\u2029" else "a line continuation"
            i += 2
            continue
        if ch < " ":
            return "a control character inside a string"
        i += 1
    return None


def _problem(node: Node) -> str | None:
    if isinstance(node, Identifier):
        return f"the unquoted key `{node.name}`"
    if isinstance(node, SingleQuotedString):
        return "a single-quoted string"
    if isinstance(node, DoubleQuotedString):
        return _string_problem(node.raw_value)
    if isinstance(node, Integer) and node.is_hex:
        return "a hexadecimal number"
    if isinstance(node, Float) and (node.raw_value.startswith(".") or ("." in node.raw_value
                                    and not node.raw_value.split(".", 1)[1][:1].isdigit())):
        return "a number with a bare decimal point"
    if isinstance(node, UnaryOp) and node.op == "+":
        return "a leading `+`"
    if isinstance(node, Infinity | NaN):
        return f"`{'Infinity' if isinstance(node, Infinity) else 'NaN'}`, which is not a JSON number"
    return None


def _odd_space(node: Node) -> bool:
    leading = node.leading_wsc if isinstance(node, JSONObject | JSONArray) else ()
    for part in (*node.wsc_before, *node.wsc_after, *leading):
        if isinstance(part, str) and not set(part) <= _JSON_SPACE:
            return True
    return False


def _first_nonstandard(doc: Document) -> Nonstandard | None:
    if _odd_space(doc.model):
        return Nonstandard("whitespace JSON does not allow", 1, 1)
    for node in _walk(doc.root):
        problem = _problem(node)
        if problem is None and _odd_space(node):
            problem = "whitespace JSON does not allow"
        if problem is not None:
            line, column = doc.position(node) or (1, 1)
            return Nonstandard(problem, line, column)
    return None
