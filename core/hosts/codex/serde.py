"""serde_yaml 0.9 as Codex CLI 0.171.0 uses it, over libyaml events (PyYAML's ``CParser``).

serde_yaml is libyaml underneath, so libyaml's scanner and parser messages and marks are the
client's; what serde adds is reproduced here: the typed read goes event by event (a type error
before a syntax error wins, and the other way round), the ``invalid type: …, expected …`` texts
with the path of the value (``metadata.short-description: …``), ``duplicate field``, unknown
anchors and the one-document rule. Also the Rust string helpers Codex's parser uses
(``char::is_whitespace``, ``str::lines``, ``str::trim``).

Marks are 0-based (line, column) inside the text given; messages print them 1-based
(``at line 3 column 6``) and leave them out at 1:1, as serde_yaml does. Columns count characters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import yaml

__all__ = [
    "RUST_WHITESPACE",
    "Event",
    "Reader",
    "YamlError",
    "collapse",
    "from_str",
    "load_events",
    "rust_lines",
    "trim",
    "trim_end",
    "trim_start",
    "value_ok",
]

T = TypeVar("T")

#: Rust ``char::is_whitespace`` (Unicode White_Space).
RUST_WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B))


def collapse(text: str) -> str:
    """Codex's ``sanitize_single_line``: split on Rust whitespace, join with single spaces."""
    out: list[str] = []
    cur: list[str] = []
    for ch in text:
        if ch in RUST_WHITESPACE:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return " ".join(out)


def trim(text: str) -> str:
    """Rust ``str::trim`` (Unicode whitespace both ends)."""
    return trim_end(trim_start(text))


def trim_start(text: str) -> str:
    """Rust ``str::trim_start``."""
    i = 0
    while i < len(text) and text[i] in RUST_WHITESPACE:
        i += 1
    return text[i:]


def trim_end(text: str) -> str:
    """Rust ``str::trim_end``."""
    j = len(text)
    while j > 0 and text[j - 1] in RUST_WHITESPACE:
        j -= 1
    return text[:j]


def rust_lines(text: str) -> list[str]:
    """Rust ``str::lines``: split on ``\\n``; a ``\\r`` goes only when it comes right before it;
    a final empty piece is not a line."""
    if text == "":
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
        return [p[:-1] if p.endswith("\r") else p for p in parts]
    last = parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts] + [last]


# ---------------------------------------------------------------------------- errors and events
Mark = tuple[int, int]


class YamlError(Exception):
    """A serde_yaml error: ``message`` exactly as Codex prints it (without ``invalid YAML: ``);
    ``mark`` the 0-based (line, column) it names, or ``None``; ``offset`` the byte offset a
    libyaml reader error names, or ``None``."""

    def __init__(self, message: str, mark: Mark | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark
        self.offset = offset


@dataclass(frozen=True)
class Event:
    """One libyaml event of the first document: ``kind`` is ``scalar``, ``mstart``, ``mend``,
    ``sstart``, ``send``, ``alias`` (``target`` = index of the anchored event) or ``void`` (an
    empty document); ``style`` is ``""`` for a plain scalar, else the quote or block indicator."""

    kind: str
    mark: Mark
    value: str = ""
    style: str = ""
    tag: str | None = None
    target: int = -1


def _mark_text(mark: Mark) -> str:
    return f"line {mark[0] + 1} column {mark[1] + 1}"


def _libyaml_error(exc: yaml.YAMLError) -> YamlError:
    """A PyYAML (libyaml) error worded as serde_yaml's ``libyaml::Error`` Display."""
    if isinstance(exc, yaml.reader.ReaderError):
        msg = str(exc.reason)
        if exc.position:
            msg += f" at position {exc.position}"
        return YamlError(msg, None, int(exc.position))
    if not isinstance(exc, yaml.MarkedYAMLError):
        return YamlError(str(exc))
    problem = exc.problem or str(exc)
    pm = exc.problem_mark
    msg = problem
    mark: Mark | None = None
    if pm is not None:
        mark = (pm.line, pm.column)
        if pm.line or pm.column:
            msg += " at " + _mark_text(mark)
    if exc.context:
        msg += ", " + exc.context
        cm = exc.context_mark
        if cm is not None and (cm.line or cm.column) and (pm is None or (cm.line, cm.column) != (pm.line, pm.column)):
            msg += " at " + _mark_text((cm.line, cm.column))
    return YamlError(msg, mark)


@dataclass
class Loaded:
    """The events of the first document, the error that stopped the parse (``None`` when it
    finished) and whether another document follows."""

    events: list[Event] = field(default_factory=list)
    error: YamlError | None = None
    more: bool = False


def _next(it: Iterator[yaml.Event]) -> yaml.Event | YamlError | None:
    try:
        return next(it)
    except StopIteration:
        return None
    except yaml.YAMLError as exc:
        return _libyaml_error(exc)
    except Exception as exc:  # libyaml on untrusted text (a lone surrogate …): the text's fault
        return YamlError(str(exc).split("\n")[0] or type(exc).__name__)


def load_events(text: str) -> Loaded:
    """serde_yaml's loader over ``text``: the first document's events (aliases resolved to the
    index of their anchor), the error that ended the parse, and whether more documents follow.
    Never raises."""
    out = Loaded()
    anchors: dict[str, int] = {}
    it = iter(yaml.parse(text, Loader=yaml.CSafeLoader))
    while True:
        ev = _next(it)
        if ev is None:
            return out
        if isinstance(ev, YamlError):
            out.error = ev
            return out
        start = ev.start_mark
        mark = (start.line, start.column) if start is not None else (0, 0)
        if isinstance(ev, (yaml.StreamStartEvent, yaml.DocumentStartEvent)):
            continue
        if isinstance(ev, yaml.StreamEndEvent):
            if not out.events:
                out.events.append(Event("void", mark))
            return out
        if isinstance(ev, yaml.DocumentEndEvent):
            while True:
                nxt = _next(it)
                if nxt is None or isinstance(nxt, yaml.StreamEndEvent):
                    return out
                if isinstance(nxt, yaml.StreamStartEvent):
                    continue
                out.more = True  # another document, or an error after the first one
                return out
        if isinstance(ev, yaml.AliasEvent):
            target = anchors.get(str(ev.anchor))
            if target is None:
                where = _mark_text(mark) if mark != (0, 0) else f"position {start.index if start is not None else 0}"
                out.error = YamlError(f"unknown anchor at {where}", mark)
                return out
            out.events.append(Event("alias", mark, target=target))
            continue
        event: Event
        if isinstance(ev, yaml.ScalarEvent):
            event = Event("scalar", mark, ev.value, ev.style or "", ev.tag)
        elif isinstance(ev, yaml.MappingStartEvent):
            event = Event("mstart", mark, tag=ev.tag)
        elif isinstance(ev, yaml.MappingEndEvent):
            event = Event("mend", mark)
        elif isinstance(ev, yaml.SequenceStartEvent):
            event = Event("sstart", mark, tag=ev.tag)
        elif isinstance(ev, yaml.SequenceEndEvent):
            event = Event("send", mark)
        else:  # pragma: no cover - no other event kinds exist
            continue
        anchor = ev.anchor if isinstance(ev, yaml.NodeEvent) else None
        if anchor is not None:
            anchors[str(anchor)] = len(out.events)
        out.events.append(event)


# ---------------------------------------------------------------------------- serde's words
NULLS = frozenset({"~", "null", "Null", "NULL"})
BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
NULL_TAG = "tag:yaml.org,2002:null"


def _debug_str(text: str) -> str:
    """Rust ``{:?}`` of a ``str``."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\0":
            out.append("\\0")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _parse_int(text: str) -> int | None:
    s, neg = text, False
    if s[:1] in ("+", "-"):
        neg, s = s[0] == "-", s[1:]
    try:
        if s.startswith("0x"):
            n = int(s[2:], 16)
        elif s.startswith("0o"):
            n = int(s[2:], 8)
        elif s.startswith("0b"):
            n = int(s[2:], 2)
        elif re.fullmatch(r"[0-9]+", s):
            n = int(s, 10)
        else:
            return None
    except ValueError:
        return None
    return -n if neg else n


def _parse_float(text: str) -> float | None:
    if text in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
        return math.inf
    if text in ("-.inf", "-.Inf", "-.INF"):
        return -math.inf
    if text in (".nan", ".NaN", ".NAN"):
        return math.nan
    if re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", text):
        try:
            return float(text)
        except ValueError:  # pragma: no cover - the pattern only admits floats
            return None
    return None


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        return mantissa + "e" + str(int(exp))
    return text if "." in text else text + ".0"


def unexpected(ev: Event) -> str:
    """serde's ``Unexpected`` for an event: ``sequence``, ``map``, ``unit value``,
    ``boolean `true```, ``integer `5```, ``floating point `1.5```, ``string "…"``."""
    if ev.kind == "sstart":
        return "sequence"
    if ev.kind == "mstart":
        return "map"
    if ev.kind != "scalar":
        return "unit value"
    if ev.style == "" and ev.tag is None:
        if ev.value in NULLS or ev.value == "":
            return "unit value"
        if ev.value in BOOLS:
            return "boolean `%s`" % ("true" if BOOLS[ev.value] else "false")
        n = _parse_int(ev.value)
        if n is not None:
            return f"integer `{n}`"
        f = _parse_float(ev.value)
        if f is not None:
            return f"floating point `{_float_text(f)}`"
    return "string " + _debug_str(ev.value)


def _plain_null(ev: Event) -> bool:
    return ev.kind == "scalar" and ev.style == "" and ev.tag is None and (ev.value in NULLS or ev.value == "")


# ---------------------------------------------------------------------------- typed reading
Field = Callable[[str], object]


class Reader:
    """serde_yaml's deserializer over the events of one document; each method reads one value
    at the current position or raises :class:`YamlError` (the path of the value first)."""

    def __init__(self, loaded: Loaded) -> None:
        self.events = loaded.events
        self.error = loaded.error
        self.pos = 0

    def peek(self) -> Event:
        """The current event; the parse error (or end of input) when there is none."""
        if self.pos < len(self.events):
            return self.events[self.pos]
        if self.error is not None:
            raise self.error
        raise YamlError("EOF while parsing a value")

    def take(self) -> Event:
        """The current event, consumed."""
        ev = self.peek()
        self.pos += 1
        return ev

    @staticmethod
    def fail(message: str, mark: Mark, path: str) -> YamlError:
        """The error serde prints for ``message`` about the value at ``path`` starting at ``mark``."""
        text = (path + ": " if path else "") + message
        if mark != (0, 0):
            text += " at " + _mark_text(mark)
        return YamlError(text, mark if mark != (0, 0) else None)

    def through_alias(self, read: Callable[[str], T], path: str) -> T:
        """``read`` at the current event, or at its anchor when it is an alias."""
        ev = self.peek()
        if ev.kind == "alias":
            self.pos += 1
            back = self.pos
            self.pos = ev.target
            try:
                return read(path)
            finally:
                self.pos = back
        return read(path)

    def skip(self) -> None:
        """Consume one value of any shape (an unknown key's value)."""
        ev = self.take()
        if ev.kind in ("mstart", "sstart"):
            end = "mend" if ev.kind == "mstart" else "send"
            while self.peek().kind != end:
                self.skip()
            self.take()

    def opt_string(self, path: str) -> str | None:
        """``Option<String>``: a plain null or empty value is ``None``; any scalar is its text;
        a plain scalar tagged ``!!null`` that is not null text is an error without a position
        (``invalid value: string "z", expected null``, as serde_yaml words it)."""
        def read(path: str) -> str | None:
            ev = self.peek()
            if ev.kind == "scalar" and ev.style == "" and ev.tag == NULL_TAG and not (
                    ev.value in NULLS or ev.value == ""):
                raise YamlError(f"invalid value: string {_debug_str(ev.value)}, expected null")
            if ev.kind == "void" or (ev.kind == "scalar" and ev.style == "" and (
                    (ev.tag is None and (ev.value in NULLS or ev.value == "")) or ev.tag == NULL_TAG)):
                self.pos += 1
                return None
            return self.string(path)
        return self.through_alias(read, path)

    def string(self, path: str) -> str:
        """``String``: any scalar's text; a sequence or map is a type error."""
        def read(path: str) -> str:
            ev = self.take()
            if ev.kind == "scalar":
                return ev.value
            raise self.fail(f"invalid type: {unexpected(ev)}, expected a string", ev.mark, path)
        return self.through_alias(read, path)

    def opt_bool(self, path: str) -> bool | None:
        """``Option<bool>``: a plain null is ``None``; only plain ``true``/``false`` spellings."""
        def read(path: str) -> bool | None:
            ev = self.peek()
            if _plain_null(ev):
                self.pos += 1
                return None
            ev = self.take()
            if ev.kind == "scalar" and ev.style == "" and ev.value in BOOLS:
                return BOOLS[ev.value]
            raise self.fail(f"invalid type: {unexpected(ev)}, expected a boolean", ev.mark, path)
        return self.through_alias(read, path)

    def optional(self, read: Field) -> Field:
        """``Option<T>``: a plain null is ``None``, else ``read``."""
        def opt(path: str) -> object:
            if _plain_null(self.peek()):
                self.pos += 1
                return None
            return read(path)
        return opt

    def struct(self, name: str, fields: dict[str, Field], path: str) -> dict[str, object]:
        """A struct ``name`` with ``fields`` (key → reader); unknown keys are skipped, a repeated
        known key is ``duplicate field`` at the mapping's start. An empty value is an empty
        struct. Returns the fields present."""
        def read(path: str) -> dict[str, object]:
            ev = self.take()
            if ev.kind == "void" or (ev.kind == "scalar" and ev.value == "" and ev.style == "" and ev.tag is None):
                return {}
            if ev.kind != "mstart":
                raise self.fail(f"invalid type: {unexpected(ev)}, expected struct {name}", ev.mark, path)
            start = ev.mark
            out: dict[str, object] = {}
            while True:
                key = self.peek()
                if key.kind == "mend":
                    self.pos += 1
                    return out
                self.pos += 1
                if key.kind == "alias":
                    key = self.events[key.target]
                if key.kind != "scalar":
                    raise self.fail(f"invalid type: {unexpected(key)}, expected field identifier", key.mark, "")
                if key.value in fields:
                    if key.value in out:
                        raise self.fail(f"duplicate field `{key.value}`", start, path)
                    out[key.value] = fields[key.value](f"{path}.{key.value}" if path else key.value)
                else:
                    self.skip()
        return self.through_alias(read, path)

    def seq(self, item: Field, path: str) -> list[object]:
        """A sequence of ``item``; an empty value is an empty sequence."""
        def read(path: str) -> list[object]:
            ev = self.take()
            if ev.kind == "scalar" and ev.value == "" and ev.style == "" and ev.tag is None:
                return []
            if ev.kind != "sstart":
                raise self.fail(f"invalid type: {unexpected(ev)}, expected a sequence", ev.mark, path)
            out: list[object] = []
            while self.peek().kind != "send":
                out.append(item(f"{path}[{len(out)}]" if path else f"[{len(out)}]"))
            self.take()
            return out
        return self.through_alias(read, path)


def from_str(text: str, read: Callable[[Reader], T]) -> T:
    """``serde_yaml::from_str``: ``read`` over the first document of ``text``; raises
    :class:`YamlError` for a type error met first, then the parse error, then a second document."""
    loaded = load_events(text)
    value = read(Reader(loaded))
    if loaded.error is not None:
        raise loaded.error
    if loaded.more:
        raise YamlError("deserializing from YAML containing more than one document is not supported")
    return value


def value_ok(text: str) -> bool:
    """Whether ``serde_yaml::from_str::<Value>(text)`` succeeds: it parses, holds one document
    and no mapping repeats a scalar key (an approximation of serde_yaml's ``Value``)."""
    loaded = load_events(text)
    if loaded.error is not None or loaded.more:
        return False
    keys: list[set[str] | None] = []
    expect_key: list[bool] = []
    for ev in loaded.events:
        if ev.kind in ("mstart", "sstart"):
            keys.append(set() if ev.kind == "mstart" else None)
            expect_key.append(ev.kind == "mstart")
            continue
        if ev.kind in ("mend", "send"):
            keys.pop()
            expect_key.pop()
            if expect_key and keys[-1] is not None:
                expect_key[-1] = True
            continue
        current = keys[-1] if keys else None
        if current is not None:
            if expect_key[-1]:
                if ev.kind == "scalar":
                    if ev.value in current:
                        return False
                    current.add(ev.value)
                expect_key[-1] = False
            else:
                expect_key[-1] = True
    return True
