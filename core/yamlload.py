"""The one YAML loader: YAML 1.2 core schema, bounded aliases, a duplicate-key policy (SPEC F3).

Every YAML text skillshelf reads (``SKILL.md`` frontmatter for every host, sidecars, the lint's
key positions, packaged built-ins) goes through this module. Typing is the YAML 1.2 core schema
at libyaml speed (``yamlcore.CCoreLoader``): ``yes``/``on`` stay strings, ``true`` is a bool,
``123`` an int, ``~`` null, no timestamps; only core tags construct (safe).

Guards, applied before anything is constructed:

- alias expansion: a document whose node count after expanding aliases exceeds ``max_nodes``
  (default :data:`MAX_EXPANDED_NODES`), or holds a recursive alias, raises
  :class:`YamlAliasLimit` (billion laughs);
- duplicate keys: :attr:`Duplicates.REJECT` (the default) raises :class:`YamlDuplicateKey` for
  a key repeated in one mapping (yaml-rust2, serde_yaml and js-yaml refuse them);
  :attr:`Duplicates.LAST_WINS` keeps PyYAML's rule (the last one wins). Merge keys (``<<``) are
  not counted. The verdict never depends on which other lines the document holds;
- explicit core tags: a scalar tagged ``!!bool``, ``!!null``, ``!!int`` or ``!!float`` whose text
  is not that type in the 1.2 core schema (``!!bool z``, ``!!int ""``) raises
  :class:`YamlSyntaxError` at the scalar, as yaml-rust2 refuses it (a "bad value").

Every failure is a :class:`YamlError` (syntax, construction, limits) with the problem text
and, where known, a 1-based line and column relative to the text given.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from typing import Any

import yaml
from yamlcore import CCoreLoader

__all__ = [
    "MAX_EXPANDED_NODES",
    "Duplicates",
    "YamlAliasLimit",
    "YamlDuplicateKey",
    "YamlError",
    "YamlSyntaxError",
    "compose",
    "compose_all",
    "load",
    "load_all",
]

#: Largest number of YAML nodes after alias expansion (SPEC F3, billion-laughs guard).
MAX_EXPANDED_NODES = 10_000

_MERGE_TAG = "tag:yaml.org,2002:merge"


class Duplicates(enum.Enum):
    """What a mapping with a repeated key means."""

    #: the last occurrence wins (PyYAML's safe loader)
    LAST_WINS = "last-wins"
    #: the document is refused (:class:`YamlDuplicateKey`): yaml-rust2, serde_yaml, js-yaml
    REJECT = "reject"


class YamlError(ValueError):
    """A YAML text that cannot be loaded. ``problem``: the reason, without the position;
    ``line`` / ``column``: 1-based, relative to the text given, ``None`` when unknown."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column


class YamlSyntaxError(YamlError):
    """The text is not YAML, or a value cannot be constructed (PyYAML's problem text)."""


class YamlDuplicateKey(YamlError):
    """A key appears twice in one mapping under :attr:`Duplicates.REJECT`; ``key`` is its text."""

    def __init__(self, key: str, line: int, column: int) -> None:
        super().__init__(f"duplicated mapping key `{key}`", line, column)
        self.key = key


class YamlAliasLimit(YamlError):
    """Alias expansion goes past the node limit; ``reason`` is ``"too many nodes"`` or
    ``"recursive alias"``; ``limit`` the node limit."""

    def __init__(self, reason: str, limit: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.limit = limit


#: PyYAML's context for an unclosed flow collection → the bracket that opened it.
_FLOW_OPENERS = {"while parsing a flow sequence": "[", "while parsing a flow mapping": "{"}


def _syntax_error(exc: BaseException, text: str = "") -> YamlSyntaxError:
    """PyYAML's error as a :class:`YamlSyntaxError`: the problem (else the context, else the
    first line of the message) at the problem mark (else the context mark; for a character
    the reader refuses, its position in ``text``); an unclosed ``[`` or ``{`` at the mark
    where it was opened."""
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.position, int) and text:
        # libyaml counts the position in bytes of UTF-8
        at = len(text.encode("utf-8", "surrogatepass")[: exc.position].decode("utf-8", "ignore"))
        what = f"character #x{ord(text[at]):04x}" if at < len(text) else "character"
        return _at(f"unacceptable {what}: {exc.reason}", text, at)
    if isinstance(exc, UnicodeEncodeError) and text:  # a lone surrogate: libyaml takes UTF-8 only
        return _at(f"lone surrogate #x{ord(text[exc.start]):04x} is not a character", text, exc.start)
    mark, problem = None, None
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context
        opened = _FLOW_OPENERS.get(exc.context or "")
        if opened and exc.context_mark is not None and problem and problem.startswith("did not find expected"):
            # an unclosed bracket: report it where it was opened, not where the parser gave up
            problem = f"`{opened}` is never closed ({problem})"
            mark = exc.context_mark
    if not problem:
        problem = str(exc).split("\n", 1)[0] or type(exc).__name__
    if mark is None:
        return YamlSyntaxError(str(problem))
    return YamlSyntaxError(str(problem), mark.line + 1, mark.column + 1)


def _at(problem: str, text: str, at: int) -> YamlSyntaxError:
    """``problem`` at character index ``at`` of ``text`` (1-based line and column)."""
    return YamlSyntaxError(problem, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at))


#: What composing or constructing may raise: the library's own errors, deep nesting, and
#: whatever its constructors throw for an explicitly tagged odd scalar (``!!bool z`` is a
#: ``KeyError``, ``!!int ""`` an ``IndexError`` in the 1.2 constructors; a lone surrogate a
#: ``UnicodeEncodeError`` in libyaml). The text is untrusted and the library is not ours, so
#: every ``Exception`` from it is the document's fault: a :class:`YamlSyntaxError`, never a crash.
_CONSTRUCT_ERRORS = (Exception,)


#: The 1.2 core schema's text of each scalar type (YAML 1.2.2 §10.3.2), for explicit tags.
_CORE_SCALARS = {
    "tag:yaml.org,2002:null": re.compile(r"(?:~|null|Null|NULL|)"),
    "tag:yaml.org,2002:bool": re.compile(r"(?:true|True|TRUE|false|False|FALSE)"),
    "tag:yaml.org,2002:int": re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)"),
    "tag:yaml.org,2002:float": re.compile(
        r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))"),
}


def _bad_scalar(n: yaml.ScalarNode) -> YamlSyntaxError:
    kind = n.tag.rsplit(":", 1)[-1]
    mark = n.start_mark
    return YamlSyntaxError(f"{n.value!r} is not a valid !!{kind} value", mark.line + 1, mark.column + 1)


def _check(node: yaml.Node, duplicates: Duplicates, max_nodes: int) -> None:
    """Raise :class:`YamlAliasLimit` when ``node`` expands past ``max_nodes`` nodes (or holds a
    recursive alias), :class:`YamlSyntaxError` for an explicitly tagged core scalar that is not
    of its type, and, under :attr:`Duplicates.REJECT`, :class:`YamlDuplicateKey` for the first
    repeated key in document order. Shared subtrees are counted once per reference, computed
    once (memoised)."""
    memo: dict[int, int] = {}
    active: set[int] = set()
    reject = duplicates is Duplicates.REJECT
    core = _CORE_SCALARS

    def size(n: yaml.Node) -> int:
        key = id(n)
        got = memo.get(key)
        if got is not None:
            return got
        if key in active:
            raise YamlAliasLimit("recursive alias", max_nodes)
        total = 1
        if isinstance(n, yaml.ScalarNode):
            # implicitly resolved scalars always match; only an explicit tag can disagree
            pattern = core.get(n.tag)
            if pattern is not None and pattern.fullmatch(n.value) is None:
                raise _bad_scalar(n)
        elif isinstance(n, yaml.SequenceNode):
            active.add(key)
            for child in n.value:
                total += size(child)
                if total > max_nodes:
                    raise YamlAliasLimit("too many nodes", max_nodes)
            active.discard(key)
        elif isinstance(n, yaml.MappingNode):
            active.add(key)
            seen: set[str] = set()
            for k, v in n.value:
                if reject and isinstance(k, yaml.ScalarNode) and k.tag != _MERGE_TAG:
                    if k.value in seen:
                        raise YamlDuplicateKey(k.value, k.start_mark.line + 1, k.start_mark.column + 1)
                    seen.add(k.value)
                total += size(k) + size(v)
                if total > max_nodes:
                    raise YamlAliasLimit("too many nodes", max_nodes)
            active.discard(key)
        memo[key] = total
        return total

    size(node)


def _needs_check(text: str, duplicates: Duplicates) -> bool:
    # without both an anchor and an alias nothing can expand, without "!" nothing is tagged:
    # skip the walk (10,000 parses)
    return duplicates is Duplicates.REJECT or ("*" in text and "&" in text) or "!" in text


class _LastWinsLoader(CCoreLoader):  # type: ignore[misc]
    """The core-schema loader with PyYAML's duplicate rule (yamlcore's refuses duplicates)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found unhashable key",
                    key_node.start_mark) from None
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _loader(text: str, duplicates: Duplicates = Duplicates.REJECT) -> Any:
    """A libyaml loader over ``text``; libyaml refusing the text itself (a lone surrogate cannot
    be encoded for it) is a :class:`YamlSyntaxError`."""
    try:
        return (_LastWinsLoader if duplicates is Duplicates.LAST_WINS else CCoreLoader)(text)
    except _CONSTRUCT_ERRORS as exc:
        raise _syntax_error(exc, text) from None


def _documents(text: str, duplicates: Duplicates, max_nodes: int, *, single: bool) -> Iterator[Any]:
    loader = _loader(text, duplicates)
    try:
        check = _needs_check(text, duplicates)
        if single:
            node = loader.get_single_node()
            if node is None:
                yield None
                return
            if check:
                _check(node, duplicates, max_nodes)
            yield loader.construct_document(node)
            return
        while loader.check_node():
            node = loader.get_node()
            if check:
                _check(node, duplicates, max_nodes)
            yield loader.construct_document(node)
    except YamlError:
        raise
    except _CONSTRUCT_ERRORS as exc:
        raise _syntax_error(exc, text) from None
    finally:
        loader.dispose()


def load(text: str, *, duplicates: Duplicates = Duplicates.REJECT,
         max_nodes: int = MAX_EXPANDED_NODES) -> Any:
    """The single YAML document in ``text`` as Python values (``None`` for an empty one).
    Raises :class:`YamlError`; a second document is a :class:`YamlSyntaxError`."""
    return next(_documents(text, duplicates, max_nodes, single=True))


def load_all(text: str, *, duplicates: Duplicates = Duplicates.REJECT,
             max_nodes: int = MAX_EXPANDED_NODES) -> list[Any]:
    """Every document of the stream ``text``, in order (``[]`` for an empty stream); each is
    checked against the limits. Raises :class:`YamlError` for the first bad one."""
    return list(_documents(text, duplicates, max_nodes, single=False))


def compose(text: str) -> yaml.Node | None:
    """The node tree of the single document in ``text`` (aliases shared, not expanded;
    ``None`` for an empty document), for key and value positions (``start_mark``, 0-based).
    Raises :class:`YamlError`."""
    loader = _loader(text)
    try:
        node: yaml.Node | None = loader.get_single_node()
        return node
    except _CONSTRUCT_ERRORS as exc:
        raise _syntax_error(exc, text) from None
    finally:
        loader.dispose()


def compose_all(text: str) -> list[yaml.Node]:
    """The node trees of every document in ``text`` (see :func:`compose`). Raises :class:`YamlError`."""
    loader = _loader(text)
    try:
        nodes: list[yaml.Node] = []
        while loader.check_node():
            nodes.append(loader.get_node())
        return nodes
    except _CONSTRUCT_ERRORS as exc:
        raise _syntax_error(exc, text) from None
    finally:
        loader.dispose()
