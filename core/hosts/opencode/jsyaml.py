"""js-yaml 3 ``safeLoad`` (the YAML reader inside opencode's gray-matter) on top of PyYAML.

opencode 1.18.33 parses front matter with js-yaml 3.x and its ``DEFAULT_SAFE_SCHEMA``; PyYAML is
a YAML 1.1 reader. :class:`JsYamlLoader` makes PyYAML answer the way js-yaml does where it
changes a skill's fate:

- implicit types of js-yaml 3 (YAML 1.2 core plus its extras): only ``true``/``false`` in three
  spellings are booleans (``yes``, ``on``, ``y`` are strings); integers in binary, lowercase hex,
  ``0``-octal, decimal with ``_`` and base 60 (``1:20``); floats (``1e3``, ``.5``, ``.inf``);
  timestamps (never an error, even ``2024-13-45``); ``0o17``, ``0x1G`` and ``=`` are strings;
- a duplicated key is an error, keys compared as JavaScript strings (``1`` and ``"1"`` collide);
- merge keys (``<<``) never override explicit keys, wherever they stand;
- a tab is separation white space between tokens and never indentation, except before the
  first key of the document (an error there, as in js-yaml);
- NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR are ordinary characters, not line breaks;
- quoted scalars keep the white space before a line fold.

Values that are not strings come back as :class:`NonStr` (the tag and the source text), so a
caller can say *what* a name was instead of guessing a Python type.

Known divergences (js-yaml 3 leniencies PyYAML refuses): text after a closing quote on the same
line (``description: 'a' b: c``) is read by js-yaml as a further key; a flow mapping followed by
``: extra``. Error messages are PyYAML's. Alias expansion is capped (a billion-laughs block is
an error here, js-yaml would expand it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
import yaml.constructor
import yaml.reader
import yaml.scanner

__all__ = ["MAX_EXPANDED_NODES", "NonStr", "YamlFailure", "js_key", "load", "load_slow"]

#: Largest number of YAML nodes after alias expansion (billion-laughs guard).
MAX_EXPANDED_NODES = 10_000

_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
_STR = "tag:yaml.org,2002:str"


@dataclass(frozen=True)
class NonStr:
    """A js-yaml value that is not a string: ``kind`` (``number``, ``boolean``, ``date``,
    ``binary``) and the scalar's source ``text``."""

    kind: str
    text: str

    def __str__(self) -> str:
        return self.text


class YamlFailure(Exception):
    """js-yaml would throw: ``problem`` in words, ``line``/``column`` 0-based in the parsed text
    (``None`` when unknown)."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column


_FLOAT = re.compile(
    r"^(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_DATE = re.compile(r"^([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$")
_TS = re.compile(
    r"^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])"
    r"(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?$")
_SEXAGESIMAL_TAIL = re.compile(r"(:[0-5]?[0-9])+")


def _digits(q: str, i: int, allowed: str) -> bool:
    """Digits of ``allowed`` (and ``_`` separators) from ``i`` to the end; at least one digit,
    not ending in ``_``."""
    has = False
    ch = ""
    while i < len(q):
        ch = q[i]
        if ch != "_":
            if ch not in allowed:
                return False
            has = True
        i += 1
    return has and ch != "_"


def _is_int(q: str) -> bool:
    """js-yaml 3 ``resolveYamlInteger``."""
    n = len(q)
    if not n:
        return False
    i = 0
    ch = q[0]
    if ch in "-+":
        i = 1
        if i >= n:
            return False
        ch = q[i]
    if ch == "0":
        if i + 1 == n:
            return True
        i += 1
        ch = q[i]
        if ch == "b":
            return _digits(q, i + 1, "01")
        if ch == "x":
            return _digits(q, i + 1, "0123456789abcdefABCDEF")
        return _digits(q, i, "01234567")
    if ch == "_":
        return False
    has = False
    while i < n:
        ch = q[i]
        if ch == "_":
            i += 1
            continue
        if ch == ":":
            break
        if ch not in "0123456789":
            return False
        has = True
        i += 1
    if not has or ch == "_":
        return False
    if ch != ":":
        return True
    return _SEXAGESIMAL_TAIL.fullmatch(q[i:]) is not None


def resolve_plain(value: str) -> str:
    """The tag js-yaml 3's safe schema gives a plain scalar."""
    if value in ("", "~", "null", "Null", "NULL"):
        return _NULL
    if value in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return _BOOL
    if _is_int(value):
        return _INT
    if _FLOAT.match(value) and value[-1] != "_":
        return _FLOAT_TAG
    if _DATE.match(value) or _TS.match(value):
        return _TIMESTAMP
    if value == "<<":
        return _MERGE
    return _STR


def js_key(key: Any) -> str:
    """A mapping key as JavaScript's ``String(key)``."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, NonStr):
        return key.text
    if isinstance(key, (list, dict)):
        return "[object Object]"
    return str(key)


_KIND = {_BOOL: "boolean", _INT: "number", _FLOAT_TAG: "number", _TIMESTAMP: "date",
         "tag:yaml.org,2002:binary": "binary"}


class JsYamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader adjusted to js-yaml 3 (see the module docstring)."""

    def forward(self, length: int = 1) -> None:
        # a tab never advances the indentation column; NEL/LS/PS are hidden before parsing
        while length:
            ch = self.buffer[self.pointer]
            self.pointer += 1
            self.index += 1
            if ch in "\n\x85\u2028\u2029" or (ch == "\r" and self.buffer[self.pointer] != "\n"):
                self.line += 1
                self.column = 0
            elif ch != "\ufeff" and ch != "\t":
                self.column += 1
            length -= 1

    def scan_flow_scalar_spaces(self, double: bool, start_mark: Any) -> list[str]:
        # js-yaml keeps the white space before a line fold inside quoted scalars
        chunks: list[str] = []
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        ch = self.peek()
        if ch == "\0":
            raise yaml.scanner.ScannerError("while scanning a quoted scalar", start_mark,
                                            "found unexpected end of stream", self.get_mark())
        if ch in "\r\n":
            chunks.append(whitespaces)
            line_break = self.scan_line_break()  # type: ignore[no-untyped-call]
            breaks = self.scan_flow_scalar_breaks(double, start_mark)
            if line_break != "\n":
                chunks.append(line_break)
            elif not breaks:
                chunks.append(" ")
            chunks.extend(breaks)
        else:
            chunks.append(whitespaces)
        return chunks

    def scan_to_next_token(self) -> None:
        # tabs separate tokens anywhere
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        found = False
        while not found:
            while self.peek() in " \t":
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if self.scan_line_break():  # type: ignore[no-untyped-call]
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                found = True

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return resolve_plain(value)
        return str(super().resolve(kind, value, implicit))  # type: ignore[no-untyped-call]

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
        out: dict[str, Any] = {}
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = js_key(self.construct_object(key_node, deep=True))
            value = self.construct_object(value_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, "duplicated mapping key", key_node.start_mark)
            seen.add(key)
            out[key] = value
        return out

    def flatten_mapping(self, node: Any) -> None:
        # merged keys never override explicit ones; explicit keys may repeat a merged one
        merge: list[list[tuple[Any, Any]]] = []
        rest: list[tuple[Any, Any]] = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE:
                rest.append((key_node, value_node))
                continue
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for sub in sources:
                if not isinstance(sub, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError(
                        None, None, "cannot merge mappings; the provided source object is unacceptable",
                        sub.start_mark)
                self.flatten_mapping(sub)
                merge.append(sub.value)
        if not merge:
            node.value = rest
            return
        have: set[object] = {k.value for k, _ in rest if isinstance(k, yaml.ScalarNode)}
        pre: list[tuple[Any, Any]] = []
        for pairs in merge:
            for key_node, value_node in pairs:
                ident: object = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if ident in have:
                    continue
                have.add(ident)
                pre.append((key_node, value_node))
        node.value = pre + rest


def _non_string(loader: JsYamlLoader, node: Any) -> NonStr:
    return NonStr(_KIND.get(node.tag, "value"), str(node.value))


def _merge_marker(loader: JsYamlLoader, node: Any) -> str:
    return "<<"


def _null(loader: JsYamlLoader, node: Any) -> None:
    return None


def _mapping(loader: JsYamlLoader, node: Any) -> dict[Any, Any]:
    return loader.construct_mapping(node, deep=True)


def _string(loader: JsYamlLoader, node: Any) -> str:
    return str(loader.construct_scalar(node))


JsYamlLoader.add_constructor(_NULL, _null)
for _tag in (_BOOL, _INT, _FLOAT_TAG, _TIMESTAMP, "tag:yaml.org,2002:binary"):
    JsYamlLoader.add_constructor(_tag, _non_string)
JsYamlLoader.add_constructor(_MERGE, _merge_marker)
JsYamlLoader.add_constructor("tag:yaml.org,2002:map", _mapping)
JsYamlLoader.add_constructor(_STR, _string)

_HIDE = {"\x85": "\ue085", "\u2028": "\ue028", "\u2029": "\ue029"}
_HIDE_TABLE = str.maketrans(_HIDE)
_SHOW_TABLE = str.maketrans({v: k for k, v in _HIDE.items()})


def _show(value: Any) -> Any:
    if isinstance(value, str):
        return value.translate(_SHOW_TABLE)
    if isinstance(value, dict):
        return {_show(k): _show(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_show(v) for v in value]
    return value


def _expanded_size(node: Any, limit: int) -> None:
    """Raise :class:`YamlFailure` when ``node`` expands to more than ``limit`` nodes or holds a
    recursive alias."""
    memo: dict[int, int] = {}
    active: set[int] = set()

    def size(n: Any) -> int:
        key = id(n)
        if key in memo:
            return memo[key]
        if key in active:
            raise YamlFailure("recursive alias")
        total = 1
        if isinstance(n, (yaml.SequenceNode, yaml.MappingNode)):
            active.add(key)
            children = n.value if isinstance(n, yaml.SequenceNode) else [c for pair in n.value for c in pair]
            for child in children:
                total += size(child)
                if total > limit:
                    raise YamlFailure(f"aliases expand to more than {limit:,} nodes")
            active.discard(key)
        memo[key] = total
        return total

    size(node)


_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
_KIND_NAME = {yaml.ScalarNode: "scalar", yaml.SequenceNode: "sequence", yaml.MappingNode: "mapping"}
_T = "tag:yaml.org,2002:"


def _binary_ok(data: str) -> bool:
    """js-yaml 3 ``resolveYamlBinary``: base64 characters (line breaks skipped), whole bytes."""
    bits = 0
    for ch in data:
        if ch in "\n\r":
            continue
        if ch not in _BASE64:
            return False
        bits += 6
    return bits % 8 == 0


def _null_like(node: Any) -> bool:
    return isinstance(node, yaml.ScalarNode) and (
        (node.value == "" and not node.style) or node.value in ("~", "null", "Null", "NULL"))


def _single_pairs(node: Any, unique: bool) -> bool:
    """js-yaml 3 ``resolveYamlOmap`` / ``resolveYamlPairs``: every item a one-key mapping
    (keys distinct for an omap)."""
    seen: set[str] = set()
    for item in node.value:
        if not isinstance(item, yaml.MappingNode) or len(item.value) != 1:
            return False
        key = item.value[0][0]
        ident = key.value if isinstance(key, yaml.ScalarNode) else str(id(key))
        if unique and ident in seen:
            return False
        seen.add(ident)
    return True


#: js-yaml 3 ``DEFAULT_SAFE_SCHEMA``: tag → (node kind, ``resolve`` of the scalar text or node;
#: ``None`` is the text of an empty plain scalar, which js-yaml hands over as ``null``).
_SCHEMA: dict[str, tuple[type, Any]] = {
    _T + "str": (yaml.ScalarNode, lambda d: True),
    _T + "seq": (yaml.SequenceNode, lambda n: True),
    _T + "map": (yaml.MappingNode, lambda n: True),
    _NULL: (yaml.ScalarNode, lambda d: d is None or d in ("~", "null", "Null", "NULL")),
    _BOOL: (yaml.ScalarNode, lambda d: d in ("true", "True", "TRUE", "false", "False", "FALSE")),
    _INT: (yaml.ScalarNode, lambda d: d is not None and _is_int(d)),
    _FLOAT_TAG: (yaml.ScalarNode, lambda d: d is not None and bool(_FLOAT.match(d)) and d[-1] != "_"),
    _TIMESTAMP: (yaml.ScalarNode, lambda d: d is not None and bool(_DATE.match(d) or _TS.match(d))),
    _MERGE: (yaml.ScalarNode, lambda d: d is None or d == "<<"),
    _T + "binary": (yaml.ScalarNode, lambda d: d is not None and _binary_ok(d)),
    _T + "omap": (yaml.SequenceNode, lambda n: _single_pairs(n, True)),
    _T + "pairs": (yaml.SequenceNode, lambda n: _single_pairs(n, False)),
    _T + "set": (yaml.MappingNode, lambda n: all(_null_like(v) for _, v in n.value)),
}


def _check_tags(node: Any) -> None:
    """Raise ``ConstructorError`` with js-yaml 3's words where it refuses a tag: one outside its
    safe schema, a tag on the wrong kind of node, or a scalar its type does not resolve
    (``!!bool z``, ``!!int ""``). Implicitly typed nodes always pass."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        rule = _SCHEMA.get(n.tag)
        shown = f"!<{n.tag}>"
        if rule is None:
            raise yaml.constructor.ConstructorError(None, None, f"unknown tag {shown}", n.start_mark)
        kind, resolve = rule
        empty = isinstance(n, yaml.ScalarNode) and n.value == "" and not n.style
        if not isinstance(n, kind) and not empty:
            raise yaml.constructor.ConstructorError(
                None, None, f'unacceptable node kind for {shown} tag; it should be "{_KIND_NAME[kind]}", '
                f'not "{_KIND_NAME[type(n)]}"', n.start_mark)
        data = (None if empty else n.value) if isinstance(n, yaml.ScalarNode) else n
        if not (resolve(data) if isinstance(n, kind) else kind is yaml.ScalarNode and resolve(None)):
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot resolve a node with {shown} explicit tag", n.start_mark)
        if isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)
        elif isinstance(n, yaml.MappingNode):
            stack.extend(c for pair in n.value for c in pair)


def load(text: str) -> Any:
    """``safeLoad(text)`` as js-yaml 3 answers it. Raises :class:`YamlFailure` where js-yaml
    throws (positions are in ``text``)."""
    return load_fast_or_slow(text)


def load_slow(text: str) -> Any:
    """:func:`load` through the patched pure-Python loader only (what the fast path is checked
    against)."""
    if any(c in text for c in _HIDE):
        text = text.translate(_HIDE_TABLE)
    # js-yaml counts a tab as a column for the first key of the document but skips tabs in the
    # indentation of later lines: the first content line's leading tabs become spaces
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip(" \t\r") == "" or line.lstrip(" \t").startswith("#"):
            continue
        lead = len(line) - len(line.lstrip(" \t"))
        if "\t" in line[:lead]:
            lines[i] = " " * lead + line[lead:]
            text = "\n".join(lines)
        break
    if not text.endswith("\n"):
        text += "\n"
    try:
        loader = JsYamlLoader(text)
    except yaml.reader.ReaderError as exc:
        at = int(exc.position)
        raise YamlFailure(f"unacceptable character #x{int(exc.character):04x}: special characters are not allowed",
                          text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "*" in text:
            _expanded_size(node, MAX_EXPANDED_NODES)
        if "!" in text:
            _check_tags(node)
        return _show(loader.construct_document(node))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        raise YamlFailure(problem, mark.line if mark else None, mark.column if mark else None) from None
    except yaml.YAMLError as exc:
        raise YamlFailure(str(exc).split("\n")[0] or "invalid YAML") from None
    except Exception as exc:  # whatever PyYAML throws for untrusted text is the text's fault
        raise YamlFailure(str(exc).split("\n")[0] or type(exc).__name__) from None
    finally:
        loader.dispose()


# --------------------------------------------------------------------------- the fast path
# libyaml composes the text when nothing in it is where js-yaml 3 and PyYAML differ (tabs,
# special and line-separator characters, properties, aliases, merges, quoted scalars over several
# lines, duplicated keys); the nodes are then typed the js-yaml way. Anything else — and every
# text libyaml refuses — takes :func:`load_slow`, the patched pure-Python loader, which also
# words every error. ``tests/core/hosts/test_opencode.py`` checks both paths agree.
_CLOADER: Any = getattr(yaml, "CSafeLoader", None)
_SLOW_CHARS = re.compile("[\t\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\ufffe\uffff\u2028\u2029]")
_PROPERTY = re.compile(r"(?:^|[\s\[\]{},:?-])[&*!]|<<|[|>][-+0-9]*#|(?:^|[\s:,\[{-])[\[{]")


class _Slow(Exception):
    """The fast path cannot decide this text."""


def _construct(node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        if node.style in ('"', "'"):
            if node.start_mark.line != node.end_mark.line:
                raise _Slow
            return node.value
        if node.style:  # a literal or folded block
            return node.value
        tag = resolve_plain(node.value)
        if tag == _STR:
            return node.value
        if tag == _NULL:
            return None
        if tag == _MERGE:
            raise _Slow
        return NonStr(_KIND.get(tag, "value"), node.value)
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for k, v in node.value:
            key = _construct(k)
            if isinstance(key, (list, dict)):
                raise _Slow
            name = js_key(key)
            if name in out:
                raise _Slow  # the slow path words the duplicate
            out[name] = _construct(v)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item) for item in node.value]
    raise _Slow


def _fast(text: str) -> Any:
    if _CLOADER is None or _SLOW_CHARS.search(text) or _PROPERTY.search(text):
        raise _Slow
    try:
        node = yaml.compose(text if text.endswith("\n") else text + "\n", Loader=_CLOADER)
    except Exception:  # libyaml refuses it (or cannot encode it): the slow path words the error
        raise _Slow from None
    return None if node is None else _construct(node)


def load_fast_or_slow(text: str) -> Any:
    """:func:`load_slow` (js-yaml 3's ``safeLoad``), through libyaml when the text allows."""
    try:
        return _fast(text)
    except _Slow:
        return load_slow(text)
