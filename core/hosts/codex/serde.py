"""What Codex's ``serde_yaml`` 0.9 makes of a YAML text, error messages included.

serde_yaml reads libyaml events one by one into typed structs; PyYAML built with libyaml
(``yaml.CSafeLoader``) produces the same events and the same scanner/parser messages and marks,
so the typed reading is emulated over those events: a type error before a syntax error wins,
and the reverse. Messages follow serde_yaml's ``Display``: ``<path>: <msg> at line L column C``
(marks 1-based, left out at 1:1).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import yaml

__all__ = ["Decoder", "Event", "YamlError", "from_str", "value_ok"]

T = TypeVar("T")


class YamlError(Exception):
    """serde_yaml refused the text; ``str(exc)`` is its message."""


class Event(NamedTuple):
    """One libyaml event: ``kind`` is ``scalar``, ``mstart``, ``mend``, ``sstart``, ``send``,
    ``alias`` (``value`` = the index of the anchored event) or ``void`` (an empty document)."""

    kind: str
    value: str | int | None
    style: str
    tag: str | None
    anchor: str | None
    mark: tuple[int, int]


def _mark(line: int, col: int) -> str:
    return f"line {line + 1} column {col + 1}"


def _libyaml_message(exc: yaml.YAMLError) -> str:
    """A PyYAML (libyaml) error as serde_yaml's ``libyaml::Error`` prints it."""
    if isinstance(exc, yaml.reader.ReaderError):
        return str(exc.reason) + (f" at position {exc.position}" if exc.position else "")
    if not isinstance(exc, yaml.MarkedYAMLError):
        return str(exc)
    msg = exc.problem or str(exc)
    pm = exc.problem_mark
    if pm is not None and (pm.line or pm.column):
        msg += " at " + _mark(pm.line, pm.column)
    if exc.context:
        msg += ", " + exc.context
        cm = exc.context_mark
        if cm is not None and (cm.line or cm.column) and (pm is None or (cm.line, cm.column) != (pm.line, pm.column)):
            msg += " at " + _mark(cm.line, cm.column)
    return msg


def load_events(text: str) -> tuple[list[Event], str | None, bool]:
    """The events of the first document, the error that stopped the reader (or ``None``), and
    whether more documents follow."""
    events: list[Event] = []
    anchors: dict[str, int] = {}
    it = iter(yaml.parse(text, Loader=yaml.CSafeLoader))

    def pull() -> yaml.Event | yaml.YAMLError | None:
        try:
            return next(it)
        except StopIteration:
            return None
        except yaml.YAMLError as exc:
            return exc

    while True:
        ev = pull()
        if ev is None:
            return events, None, False
        if isinstance(ev, yaml.YAMLError):
            return events, _libyaml_message(ev), False
        start = ev.start_mark
        m = (start.line, start.column) if start is not None else (0, 0)
        if isinstance(ev, (yaml.StreamStartEvent, yaml.DocumentStartEvent)):
            continue
        if isinstance(ev, yaml.StreamEndEvent):
            if not events:
                events.append(Event("void", None, "", None, None, m))
            return events, None, False
        if isinstance(ev, yaml.DocumentEndEvent):
            while True:
                nxt = pull()
                if nxt is None or isinstance(nxt, yaml.StreamEndEvent):
                    return events, None, False
                if isinstance(nxt, yaml.StreamStartEvent):
                    continue
                return events, None, True
        if isinstance(ev, yaml.AliasEvent):
            if ev.anchor not in anchors:
                where = _mark(*m) if m != (0, 0) else f"position {start.index if start is not None else 0}"
                return events, f"unknown anchor at {where}", False
            events.append(Event("alias", anchors[ev.anchor], "", None, None, m))
            continue
        anchor: str | None = getattr(ev, "anchor", None)
        if isinstance(ev, yaml.ScalarEvent):
            e = Event("scalar", ev.value, ev.style or "", ev.tag, anchor, m)
        elif isinstance(ev, yaml.MappingStartEvent):
            e = Event("mstart", None, "", ev.tag, anchor, m)
        elif isinstance(ev, yaml.MappingEndEvent):
            e = Event("mend", None, "", None, None, m)
        elif isinstance(ev, yaml.SequenceStartEvent):
            e = Event("sstart", None, "", ev.tag, anchor, m)
        elif isinstance(ev, yaml.SequenceEndEvent):
            e = Event("send", None, "", None, None, m)
        else:
            continue
        if anchor is not None:
            anchors[anchor] = len(events)
        events.append(e)


NULLS = frozenset({"~", "null", "Null", "NULL"})
BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


def _debug_str(s: str) -> str:
    """Rust ``{:?}`` of a string."""
    out = ['"']
    for ch in s:
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


def _parse_int(v: str) -> int | None:
    s, neg = v, False
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


def _fmt_float(f: float) -> str:
    if f != f:
        return "NaN"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    r = repr(f)
    if "e" in r:
        mantissa, exp = r.split("e")
        return mantissa + "e" + str(int(exp))
    return r if "." in r else r + ".0"


def _parse_float(v: str) -> float | None:
    if v in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
        return float("inf")
    if v in ("-.inf", "-.Inf", "-.INF"):
        return float("-inf")
    if v in (".nan", ".NaN", ".NAN"):
        return float("nan")
    if re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", v):
        return float(v)
    return None


def unexpected(ev: Event) -> str:
    """serde's ``Unexpected`` wording for an event (``sequence``, ``integer `5```, …)."""
    if ev.kind == "sstart":
        return "sequence"
    if ev.kind == "mstart":
        return "map"
    if ev.kind == "scalar" and isinstance(ev.value, str):
        v = ev.value
        if ev.style == "" and ev.tag is None:
            if v in NULLS or v == "":
                return "unit value"
            if v in BOOLS:
                return "boolean `%s`" % ("true" if BOOLS[v] else "false")
            n = _parse_int(v)
            if n is not None:
                return f"integer `{n}`"
            f = _parse_float(v)
            if f is not None:
                return f"floating point `{_fmt_float(f)}`"
        return "string " + _debug_str(v)
    return "unit value"


Reader = Callable[[str], object]


class Decoder:
    """Typed reading over one document's events (serde_yaml 0.9 semantics). Every reader takes
    the value's path (``metadata.short-description``) for error messages; raises YamlError."""

    def __init__(self, events: list[Event], error: str | None) -> None:
        self.events = events
        self.error = error
        self.pos = 0

    def peek(self) -> Event:
        if self.pos < len(self.events):
            return self.events[self.pos]
        raise YamlError(self.error or "EOF while parsing a value")

    def next(self) -> Event:
        e = self.peek()
        self.pos += 1
        return e

    @staticmethod
    def fail(msg: str, mark: tuple[int, int], path: str) -> YamlError:
        text = (path + ": " if path else "") + msg
        if mark != (0, 0):
            text += " at " + _mark(*mark)
        return YamlError(text)

    def _aliased(self, fn: Callable[[str], T], path: str) -> T:
        e = self.peek()
        if e.kind == "alias" and isinstance(e.value, int):
            self.pos += 1
            save = self.pos
            self.pos = e.value
            try:
                return fn(path)
            finally:
                self.pos = save
        return fn(path)

    def ignore(self) -> None:
        """Skip one value."""
        e = self.next()
        if e.kind in ("mstart", "sstart"):
            end = "mend" if e.kind == "mstart" else "send"
            while self.peek().kind != end:
                self.ignore()
            self.next()

    @staticmethod
    def _is_null(e: Event) -> bool:
        return e.kind == "void" or (e.kind == "scalar" and e.style == "" and (
            (e.tag is None and (e.value in NULLS or e.value == "")) or e.tag == "tag:yaml.org,2002:null"))

    def opt_string(self, path: str) -> str | None:
        """``Option<String>``."""
        def f(p: str) -> str | None:
            if self._is_null(self.peek()):
                self.pos += 1
                return None
            return self.string(p)
        return self._aliased(f, path)

    def string(self, path: str) -> str:
        """``String``: any scalar's text."""
        def f(p: str) -> str:
            e = self.next()
            if e.kind == "scalar" and isinstance(e.value, str):
                return e.value
            raise self.fail(f"invalid type: {unexpected(e)}, expected a string", e.mark, p)
        return self._aliased(f, path)

    def opt_bool(self, path: str) -> bool | None:
        """``Option<bool>``: plain ``true``/``false`` spellings only."""
        def f(p: str) -> bool | None:
            e = self.peek()
            if e.kind == "scalar" and e.style == "" and e.tag is None and (e.value in NULLS or e.value == ""):
                self.pos += 1
                return None
            e = self.next()
            if e.kind == "scalar" and e.style == "" and isinstance(e.value, str) and e.value in BOOLS:
                return BOOLS[e.value]
            raise self.fail(f"invalid type: {unexpected(e)}, expected a boolean", e.mark, p)
        return self._aliased(f, path)

    def struct(self, name: str, fields: dict[str, Reader], path: str) -> dict[str, object]:
        """A struct: known keys read by their readers (duplicates refused), others skipped."""
        def f(p: str) -> dict[str, object]:
            e = self.next()
            if e.kind == "void" or (e.kind == "scalar" and e.value == "" and e.style == "" and e.tag is None):
                return {}
            if e.kind != "mstart":
                raise self.fail(f"invalid type: {unexpected(e)}, expected struct {name}", e.mark, p)
            mark = e.mark
            out: dict[str, object] = {}
            while True:
                k = self.peek()
                self.pos += 1
                if k.kind == "mend":
                    return out
                if k.kind == "alias" and isinstance(k.value, int):
                    k = self.events[k.value]
                if k.kind != "scalar" or not isinstance(k.value, str):
                    raise self.fail(f"invalid type: {unexpected(k)}, expected field identifier", k.mark, "")
                key = k.value
                if key in fields:
                    if key in out:
                        raise self.fail(f"duplicate field `{key}`", mark, p)
                    out[key] = fields[key](f"{p}.{key}" if p else key)
                else:
                    self.ignore()
        return self._aliased(f, path)

    def seq(self, item: Reader, path: str, expected: str) -> list[object]:
        """A sequence of ``item`` values."""
        def f(p: str) -> list[object]:
            e = self.next()
            if e.kind == "scalar" and e.value == "" and e.style == "" and e.tag is None:
                return []
            if e.kind != "sstart":
                raise self.fail(f"invalid type: {unexpected(e)}, expected {expected}", e.mark, p)
            out: list[object] = []
            while self.peek().kind != "send":
                out.append(item(f"{p}[{len(out)}]" if p else f"[{len(out)}]"))
            self.next()
            return out
        return self._aliased(f, path)


def from_str(text: str, reader: Callable[[Decoder], T]) -> T:
    """``serde_yaml::from_str``: ``reader`` over the first document. Raises YamlError (the
    reader's type error when it comes first, else the syntax error, else "more than one document")."""
    events, error, more = load_events(text)
    value = reader(Decoder(events, error))
    if error:
        raise YamlError(error)
    if more:
        raise YamlError("deserializing from YAML containing more than one document is not supported")
    return value


def value_ok(text: str) -> bool:
    """``serde_yaml::from_str::<Value>(text).is_ok()``, approximated: one document, no syntax
    error, no duplicate scalar key in a mapping."""
    events, error, more = load_events(text)
    if error or more:
        return False
    keys: list[set[str] | None] = []
    expect_key: list[bool] = []
    for e in events:
        if e.kind in ("mstart", "sstart"):
            keys.append(set() if e.kind == "mstart" else None)
            expect_key.append(e.kind == "mstart")
            continue
        if e.kind in ("mend", "send"):
            keys.pop()
            expect_key.pop()
            if expect_key and keys[-1] is not None:
                expect_key[-1] = True
            continue
        top = keys[-1] if keys else None
        if top is not None:
            if expect_key[-1]:
                if e.kind == "scalar" and isinstance(e.value, str):
                    if e.value in top:
                        return False
                    top.add(e.value)
                expect_key[-1] = False
            else:
                expect_key[-1] = True
    return True
