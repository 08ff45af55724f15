"""Zhin's reading of a ``SKILL.md``: JavaScript whitespace, the frontmatter split and the YAML
loader (SPEC Z1–Z2). Shared by the parser (:mod:`.skills`), the loader (:mod:`.load`) and the
dependency check (:mod:`.deps`)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from yamlcore import CCoreLoader

__all__ = ["JS_WHITESPACE", "js_trim", "load_zhin_yaml", "split_zhin_markdown"]

#: JavaScript's ``\s`` / ``String.prototype.trim`` set (WhiteSpace + LineTerminator).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_FRONTMATTER = re.compile(r"\A---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|\Z)")
_MAX_NODES = 10_000


def js_trim(text: str) -> str:
    """``text`` without leading/trailing JavaScript whitespace (:data:`JS_WHITESPACE`)."""
    return text.strip(JS_WHITESPACE)


class _DuplicateKey(yaml.YAMLError):
    pass


def _check_nodes(node: yaml.Node) -> None:
    """Raise on duplicate mapping keys (js-yaml does) and on alias expansion past the limit."""
    memo: dict[int, int] = {}
    active: set[int] = set()

    def walk(n: yaml.Node) -> int:
        key = id(n)
        if key in memo:
            return memo[key]
        if key in active:
            raise yaml.YAMLError("recursive alias")
        total = 1
        active.add(key)
        if isinstance(n, yaml.SequenceNode):
            for c in n.value:
                total += walk(c)
        elif isinstance(n, yaml.MappingNode):
            seen: set[Any] = set()
            for k, v in n.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    if k.value in seen:
                        raise _DuplicateKey(
                            f"duplicated mapping key `{k.value}` at line {k.start_mark.line + 1}"
                        )
                    seen.add(k.value)
                total += walk(k) + walk(v)
        active.discard(key)
        if total > _MAX_NODES:
            raise yaml.YAMLError(f"alias expansion exceeds {_MAX_NODES} nodes")
        memo[key] = total
        return total

    walk(node)


def load_zhin_yaml(raw: str) -> Any:
    """Parse a frontmatter block the way Zhin's loader sees it (YAML 1.2 core schema, duplicate
    keys refused, bounded aliases). Returns ``None`` for an empty document. Raises
    ``yaml.YAMLError`` (or ``RecursionError``) on bad YAML."""
    loader = CCoreLoader(raw)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def split_zhin_markdown(markdown: str) -> tuple[str | None, str, int]:
    """``(frontmatter_block or None, instructions, block_first_line)`` per Zhin's pattern (module
    docstring). Instructions are trimmed after a frontmatter block and verbatim without one."""
    m = _FRONTMATTER.match(markdown)
    if not m:
        return None, markdown, 0
    return m.group(1), js_trim(markdown[m.end():]), 2
