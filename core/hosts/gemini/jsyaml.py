"""js-yaml 4 ``load`` (DEFAULT_SCHEMA) emulated on PyYAML, as Gemini CLI parses frontmatter.

Where js-yaml differs from PyYAML, this follows js-yaml: YAML 1.2 core typing of plain scalars
(``yes`` is a string, ``1e3`` a float), duplicate mapping keys throw (keys compared after
``String()``), a final line break is added to the input, non-printable characters are refused
only inside scalars (comments may hold anything; quoted scalars refuse only C0 controls),
U+0085/U+2028/U+2029 are ordinary characters, tabs are separation space except in block
indentation, white space before a line break inside a quoted scalar is kept, a property on the
first key of a block mapping throws, and surrogate-pair escapes form one character.

:func:`load` returns plain Python values; numbers, booleans and dates come back as
:class:`JsValue` (what matters to Gemini is only whether ``name`` and ``description`` are JS
strings). It raises :class:`JsYamlError` or :class:`yaml.YAMLError` where js-yaml throws.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.scanner import ScannerError

__all__ = ["JsValue", "JsYamlError", "js_string", "load", "plain_tag"]


class JsYamlError(Exception):
    """A js-yaml error PyYAML would not raise (duplicate key, property on a first key,
    non-printable character)."""


class JsValue:
    """A js-yaml value that is not a string: ``kind`` ``int``, ``float``, ``bool`` or
    ``timestamp``; ``text`` the scalar as written."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text

    def js_string(self) -> str:
        """``String(value)`` as JavaScript prints it (dates: the text as written)."""
        if self.kind == "int":
            return _int_string(self.text)
        if self.kind == "float":
            return _float_string(self.text)
        if self.kind == "bool":
            return "true" if self.text in ("true", "True", "TRUE") else "false"
        return self.text

    def __repr__(self) -> str:
        return f"JsValue({self.kind!r}, {self.text!r})"


def _int_string(text: str) -> str:
    t = text.replace("_", "")
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    try:
        v = int(t, 0) if t[:2] in ("0b", "0x", "0o") else int(t, 10)
    except ValueError:
        return t
    return str(sign * v)


def _float_string(text: str) -> str:
    v = text.replace("_", "").lower()
    if v.lstrip("+-") == ".inf":
        return "-Infinity" if v.startswith("-") else "Infinity"
    if v == ".nan":
        return "NaN"
    try:
        f = float(v)
    except ValueError:
        return text
    if f == int(f) and abs(f) < 1e21:
        return str(int(f))
    return repr(f)


_FLOAT_RE = re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_DATE_RE = re.compile(r"^([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$")
_TIMESTAMP_RE = re.compile(r"^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):"
                           r"([0-9][0-9])(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?$")


def _is_int(data: str) -> bool:
    """js-yaml 4 ``resolveYamlInteger``, transcribed."""
    if not data:
        return False
    i, n = 0, len(data)
    ch: str | None = data[i]
    last: str | None
    if ch in ("-", "+"):
        i += 1
        ch = data[i] if i < n else None
    if ch == "0":
        if i + 1 == n:
            return True
        i += 1
        ch = data[i]
        for prefix, digits in (("b", "01"), ("x", "0123456789ABCDEFabcdef"), ("o", "01234567")):
            if ch == prefix:
                i += 1
                has = False
                last = ch
                while i < n:
                    last = data[i]
                    if last == "_":
                        i += 1
                        continue
                    if last not in digits:
                        return False
                    has = True
                    i += 1
                return has and last != "_"
    if ch == "_":
        return False
    has = False
    last = ch
    while i < n:
        last = data[i]
        if last == "_":
            i += 1
            continue
        if not ("0" <= last <= "9"):
            return False
        has = True
        i += 1
    return has and last != "_"


def plain_tag(value: str) -> str:
    """The tag js-yaml's DEFAULT_SCHEMA gives a plain scalar (its implicit types, in its order)."""
    if value in ("", "~", "null", "Null", "NULL"):
        return "tag:yaml.org,2002:null"
    if value in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return "tag:yaml.org,2002:bool"
    if _is_int(value):
        return "tag:yaml.org,2002:int"
    if _FLOAT_RE.match(value) and not value.endswith("_"):
        return "tag:yaml.org,2002:float"
    if _DATE_RE.match(value) or _TIMESTAMP_RE.match(value):
        return "tag:yaml.org,2002:timestamp"
    if value == "<<":
        return "tag:yaml.org,2002:merge"
    return "tag:yaml.org,2002:str"


# Characters js-yaml treats differently from PyYAML are hidden behind private-use placeholders
# (plane 16) while PyYAML reads the text, and put back (or refused) inside scalars.
_ORDINARY = "\x85\u2028\u2029"
_PLACEHOLDER_BASE = 0x10F000


def _placeholder(c: str) -> str:
    o = ord(c)
    return chr(_PLACEHOLDER_BASE + (o if o < 0x1000 else (0xE00 + (o & 0xFF)) if o >= 0xFF00 else (0xD00 + (o & 0xFF))))


_BACK: dict[str, str] = {}
for _c in [chr(x) for x in list(range(0x20)) + list(range(0x7F, 0xA0))] + ["\ufffe", "\uffff", "\u2028", "\u2029"]:
    _BACK[_placeholder(_c)] = _c
_BACK_RE = re.compile("[" + "".join(re.escape(k) for k in _BACK) + "]")
_PROTECT_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff\u2028\u2029]")


def _protect(text: str) -> str:
    return _PROTECT_RE.sub(lambda m: _placeholder(m.group(0)), text)


def _key_string(key: object) -> str:
    """``String(key)`` as js-yaml compares mapping keys."""
    if isinstance(key, str):
        return key
    if isinstance(key, JsValue):
        return key.js_string()
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, (list, tuple)):
        return ",".join(_key_string(x) for x in key)
    if isinstance(key, dict):
        return "[object Object]"
    return str(key)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, patched where js-yaml 4 behaves differently (module docstring)."""

    @property
    def _me(self) -> Any:
        """``self`` for PyYAML methods its stubs leave untyped."""
        return self

    def resolve(self, kind: type[Node], value: Any, implicit: Any) -> str:
        if kind is ScalarNode and implicit[0]:
            return plain_tag(str(value))
        resolve: Any = yaml.SafeLoader.resolve
        return str(resolve(self, kind, value, implicit))

    def construct_scalar(self, node: Any) -> Any:
        value = super().construct_scalar(node)
        if isinstance(value, str) and _BACK_RE.search(value):
            quoted = node.style in ('"', "'")

            def back(m: re.Match[str]) -> str:
                c = _BACK[m.group(0)]
                if c not in _ORDINARY and (not quoted or ord(c) < 0x20):
                    raise JsYamlError("the stream contains non-printable characters")
                return c

            value = _BACK_RE.sub(back, value)
        return value

    def scan_flow_scalar_spaces(self, double: Any, start_mark: Any) -> list[str]:
        """js-yaml keeps the white space that ends a line inside a quoted scalar."""
        chunks: list[str] = []
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        ch = self.peek()
        if ch == "\0":
            raise ScannerError("while scanning a quoted scalar", start_mark,
                               "found unexpected end of stream", self.get_mark())
        if ch in "\r\n\x85\u2028\u2029":
            chunks.append(whitespaces)
            line_break = self._me.scan_line_break()
            breaks = self.scan_flow_scalar_breaks(double, start_mark)
            if line_break != "\n":
                chunks.append(line_break)
            elif not breaks:
                chunks.append(" ")
            chunks.extend(breaks)
        else:
            chunks.append(whitespaces)
        return chunks

    def _tab_in_indent(self) -> bool:
        start = self.pointer - self.column
        lead = self.buffer[start:self.pointer]
        return "\t" in lead and lead.strip(" \t") == ""

    def scan_to_next_token(self) -> None:
        """Tabs are separation space; only tabs in the indentation of block content throw."""
        if self.index == 0 and self.peek() == "\uFEFF":
            self.forward()
        found = False
        while not found:
            while self.peek() in " \t":
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if self._me.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                found = True
        if not self.flow_level and self.peek() != "\0" and self._tab_in_indent():
            raise ScannerError(None, None, "tab characters must not be used in indentation", self.get_mark())

    def scan_plain_spaces(self, indent: Any, start_mark: Any) -> list[str] | None:
        chunks: list[str] = []
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        ch = self.peek()
        if ch in "\r\n":
            line_break = self._me.scan_line_break()
            self.allow_simple_key = True
            prefix = self.prefix(3)
            if (prefix == "---" or prefix == "...") and self.peek(3) in "\0 \t\r\n":
                return None
            breaks: list[str] = []
            while True:
                spaces = 0
                while self.peek() == " ":
                    self.forward()
                    spaces += 1
                if self.peek() == "\t":
                    if not self.flow_level and spaces < indent:
                        j = 0
                        while self.peek(j) in " \t":
                            j += 1
                        if self.peek(j) not in "\0\r\n#":
                            raise ScannerError(None, None, "tab characters must not be used in indentation",
                                               self.get_mark())
                    while self.peek() in " \t":
                        self.forward()
                if self.peek() in "\r\n":
                    breaks.append(self._me.scan_line_break())
                    prefix = self.prefix(3)
                    if (prefix == "---" or prefix == "...") and self.peek(3) in "\0 \t\r\n":
                        return None
                else:
                    break
            if line_break != "\n":
                chunks.append(line_break)
            elif not breaks:
                chunks.append(" ")
            chunks.extend(breaks)
        elif whitespaces:
            chunks.append(whitespaces)
        return chunks

    def compose_mapping_node(self, anchor: Any) -> MappingNode:
        """A property (``&a``, ``!tag``) on the first key of a block mapping throws."""
        event = self._me.peek_event()
        if not event.flow_style:
            start = self._me.get_event()
            nxt = self._me.peek_event()
            if isinstance(nxt, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)) and \
                    (nxt.anchor is not None or nxt.tag is not None):
                raise JsYamlError("property on the first key of a block mapping")
            tag = start.tag
            if tag is None or tag == "!":
                tag = self.resolve(MappingNode, None, start.implicit)
            node = MappingNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
            if anchor is not None:
                self.anchors[anchor] = node
            while not self.check_event(yaml.MappingEndEvent):
                key = self._me.compose_node(node, None)
                value = self._me.compose_node(node, key)
                node.value.append((key, value))
            end = self._me.get_event()
            node.end_mark = end.end_mark
            return node
        return Composer.compose_mapping_node(self, anchor)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            seen: set[str] = set()
            for k, _v in node.value:
                if k.tag == "tag:yaml.org,2002:merge":
                    continue
                ks = _key_string(self.construct_object(k, deep=True))
                if ks in seen:
                    raise JsYamlError("duplicated mapping key")
                seen.add(ks)
        return SafeConstructor.construct_mapping(self, node, deep=deep)

    def construct_yaml_map(self, node: Any) -> Iterator[dict[Any, Any]]:  # type: ignore[override]
        data: dict[Any, Any] = {}
        yield data
        data.update(self.construct_mapping(node))


def _typed(kind: str) -> Any:
    def construct(loader: _Loader, node: Any) -> JsValue:
        return JsValue(kind, str(loader.construct_scalar(node)))
    return construct


for _kind in ("int", "float", "bool", "timestamp"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_kind}", _typed(_kind))
_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_yaml_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", SafeConstructor.construct_yaml_seq)  # type: ignore[type-var]


# --------------------------------------------------------------------------- the fast path
# libyaml composes the text when nothing in it is where js-yaml and PyYAML differ (tabs,
# special characters, properties, aliases, merges, quoted scalars over several lines); the
# nodes are then typed the js-yaml way. Anything else takes the patched pure-Python loader.
_CLOADER: Any = getattr(yaml, "CSafeLoader", None)
_SLOW_CHARS = re.compile("[\t\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\ufffe\uffff\u2028\u2029]")
_PROPERTY = re.compile(r"(?:^|[\s\[\]{},:?-])[&*!]|<<|[|>][-+0-9]*#|(?:^|[\s:,\[{-])[\[{]")


class _Slow(Exception):
    """The fast path cannot decide this text."""


def _construct(node: Node) -> Any:
    if isinstance(node, ScalarNode):
        if node.style in ('"', "'"):
            if node.start_mark.line != node.end_mark.line:
                raise _Slow
            return node.value
        if node.style:  # a literal or folded block (libyaml marks plain scalars with '')
            return node.value
        kind = plain_tag(node.value).rsplit(":", 1)[1]
        if kind == "str":
            return node.value
        if kind == "null":
            return None
        if kind == "merge":
            raise _Slow
        return JsValue(kind, node.value)
    if isinstance(node, MappingNode):
        out: dict[Any, Any] = {}
        seen: set[str] = set()
        for k, v in node.value:
            key = _construct(k)
            if isinstance(key, (list, dict)):
                raise _Slow
            ks = _key_string(key)
            if ks in seen:
                raise JsYamlError("duplicated mapping key")
            seen.add(ks)
            out[key] = _construct(v)
        return out
    return [_construct(item) for item in node.value]


def _fast(text: str) -> Any:
    if _CLOADER is None or _SLOW_CHARS.search(text) or _PROPERTY.search(text):
        raise _Slow
    try:
        node = yaml.compose(text, Loader=_CLOADER)
    except Exception:  # libyaml refuses it (or cannot encode it): the slow path words the error
        raise _Slow from None
    return None if node is None else _construct(node)


def _ended(text: str) -> str:
    return text + "\n" if text and text[-1] not in "\n\r" else text


def load(text: str) -> Any:
    """js-yaml ``load(text)``. Raises :class:`JsYamlError` or :class:`yaml.YAMLError` where
    js-yaml throws. A final line break is added when the text lacks one, as js-yaml does."""
    text = _ended(text)
    try:
        return _fast(text)
    except _Slow:
        pass
    return _slow(_protect(text))


def load_slow(text: str) -> Any:
    """:func:`load` without the libyaml fast path (what the fast path is checked against)."""
    return _slow(_protect(_ended(text)))


def _slow(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)
    except (yaml.YAMLError, JsYamlError, RecursionError):
        raise
    except Exception as exc:  # whatever PyYAML throws for untrusted text is the text's fault
        raise JsYamlError(str(exc).split("\n")[0] or type(exc).__name__) from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def js_string(value: str) -> str:
    """A JS (UTF-16) string as Python text: surrogate pairs from escapes become one character;
    a lone surrogate becomes U+FFFD (what Gemini CLI prints for it)."""
    if not _SURROGATE.search(value):
        return value
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
