"""``Bun.YAML.parse`` as Claude Code's frontmatter parser sees it, on top of PyYAML.

Differences from PyYAML's YAML 1.1 safe loader that matter for frontmatter:

- core-schema scalars: only ``true/True/TRUE/false/False/FALSE`` are booleans (``yes``, ``on``
  stay strings); ``null/Null/NULL/~``/empty are null; ``[-+]?[0-9]+`` is a **decimal** integer
  even with leading zeros (``012`` → 12), ``0o17`` octal, ``0x1F`` hexadecimal; floats include
  ``1.``, ``.5``, ``1e3``, ``.inf``, ``.nan``; dates stay strings; integers beyond 2**53 become
  floats (JavaScript numbers);
- unknown tags (``!x y``) are ignored (the value is kept untagged); so is a core scalar tag on
  a collection (``!!str [a]`` is the list) and on text that is not of its type (``!!bool z`` is
  the string ``z``, ``!!int ""`` the empty string); ``!!binary`` text stays a string
  (observed with Claude Code 2.1.332);
- a tab after a token is separation whitespace (not an error), as indentation it is an error;
- stricter: a continuation line of a quoted scalar, and a new line inside a flow collection
  (except its closing bracket), must be indented more than the enclosing block.

:func:`parse` raises :class:`YamlError` (message and 0-based line inside the block) for
anything Bun refuses, including NUL characters.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.error import Mark
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.scanner import ScannerError

__all__ = ["YamlError", "parse"]


class YamlError(Exception):
    """Bun would refuse this YAML. ``message`` is one line; ``line`` is 0-based within the
    parsed text (``None`` when unknown)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class _BunLoader(yaml.SafeLoader):
    """PyYAML's safe loader with Bun's scalar resolution and scanner rules."""

    _flow_start_line = 0

    def scan_to_next_token(self) -> None:
        """As PyYAML, plus a tab as separation whitespace after a token (column > 0) or in a flow."""
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        found = False
        while not found:
            while self.peek() == " " or (self.peek() == "\t" and (self.column > 0 or self.flow_level)):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if self.scan_line_break():  # type: ignore[no-untyped-call]
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                found = True

    def scan_flow_scalar_breaks(self, double: bool, start_mark: Mark) -> list[str]:
        """As PyYAML, plus: a continuation line of a quoted scalar must be indented more than its block."""
        chunks: list[str] = []
        while True:
            prefix = self.prefix(3)
            if prefix in ("---", "...") and self.peek(3) in "\0 \t\r\n\x85\u2028\u2029":
                raise ScannerError("while scanning a quoted scalar", start_mark,
                                   "found unexpected document separator", self.get_mark())
            while self.peek() in " \t":
                self.forward()
            if self.peek() in "\r\n\x85\u2028\u2029":
                chunks.append(self.scan_line_break())  # type: ignore[no-untyped-call]
            else:
                if self.column <= self.indent and not self.flow_level:
                    raise ScannerError("while scanning a quoted scalar", start_mark,
                                       "continuation line is not indented", self.get_mark())
                return chunks

    def fetch_more_tokens(self) -> None:
        """Inside a flow collection, a token on a new line must be indented more than the block."""
        if self.flow_level:
            self.scan_to_next_token()
            if self.peek() not in "\0]}" and self.column <= self.indent and self.line > self._flow_start_line:
                raise ScannerError(None, None, "flow collection line is not indented", self.get_mark())
        super().fetch_more_tokens()

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        """Remember the line a top-level flow collection starts on."""
        if not self.flow_level:
            self._flow_start_line = self.line
        super().fetch_flow_collection_start(TokenClass)


_BunLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     list("-+0123456789.")),
):
    _BunLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


_CORE = {
    "bool": re.compile(r"true|True|TRUE|false|False|FALSE"),
    "null": re.compile(r"~|null|Null|NULL|"),
    "int": re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"),
    "float": re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"),
}


def _text(loader: yaml.SafeLoader, node: Node, kind: str) -> str | None:
    """The scalar's text when it is of ``kind`` in the core schema, else ``None`` (the tag is
    then ignored)."""
    if not isinstance(node, ScalarNode):
        return None
    v = str(loader.construct_scalar(node))
    return v if _CORE[kind].fullmatch(v) else None


def _bool(loader: yaml.SafeLoader, node: Node) -> Any:
    v = _text(loader, node, "bool")
    return _untagged(loader, "", node) if v is None else v in ("true", "True", "TRUE")


def _null(loader: yaml.SafeLoader, node: Node) -> Any:
    return _untagged(loader, "", node) if _text(loader, node, "null") is None else None


def _int(loader: yaml.SafeLoader, node: Node) -> Any:
    v = _text(loader, node, "int")
    if v is None:
        return _untagged(loader, "", node)
    r = int(v, 0) if v.startswith(("0o", "0x")) else int(v, 10)
    return r if abs(r) < 2**53 else float(r)


def _float(loader: yaml.SafeLoader, node: Node) -> Any:
    v = _text(loader, node, "float")
    if v is None:
        return _untagged(loader, "", node)
    low = v.lower()
    if low.endswith(".inf"):
        return float("-inf") if v.startswith("-") else float("inf")
    if low == ".nan":
        return float("nan")
    return float(v)


def _untagged(loader: yaml.SafeLoader, suffix: str, node: Node) -> Any:
    if isinstance(node, ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, SequenceNode):
        return loader.construct_sequence(node, deep=True)
    assert isinstance(node, MappingNode)
    return loader.construct_mapping(node, deep=True)


def _as_string(loader: yaml.SafeLoader, node: Node) -> Any:
    return _untagged(loader, "", node)


_BunLoader.add_constructor("tag:yaml.org,2002:bool", _bool)
_BunLoader.add_constructor("tag:yaml.org,2002:null", _null)
_BunLoader.add_constructor("tag:yaml.org,2002:int", _int)
_BunLoader.add_constructor("tag:yaml.org,2002:float", _float)
for _plain_tag in ("str", "timestamp", "binary", "set", "omap", "pairs"):
    _BunLoader.add_constructor(f"tag:yaml.org,2002:{_plain_tag}", _as_string)
_BunLoader.add_multi_constructor("!", _untagged)
_BunLoader.add_multi_constructor("tag:", _untagged)


def parse(text: str) -> Any:
    """The value ``Bun.YAML.parse(text)`` returns (``None`` for an empty document). Raises
    :class:`YamlError`; never anything else."""
    if "\0" in text:
        return _fail("NUL character", text.count("\n", 0, text.index("\0")))
    try:
        return yaml.load(text, Loader=_BunLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(p for p in (exc.context, exc.problem) if p) or "parse error"
        return _fail(message, mark.line if mark is not None else None)
    except Exception as exc:  # whatever PyYAML throws for untrusted text is the text's fault
        return _fail(str(exc).split("\n")[0] or type(exc).__name__, None)


def _fail(message: str, line: int | None) -> Any:
    raise YamlError(message, line)
