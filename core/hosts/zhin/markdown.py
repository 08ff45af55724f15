"""Zhin's reading of a ``SKILL.md``: JavaScript whitespace, the frontmatter split and the YAML
loader (SPEC Z1–Z2). Shared by the parser (:mod:`.skills`), the loader (:mod:`.load`) and the
dependency check (:mod:`.deps`)."""

from __future__ import annotations

import re
from typing import Any

from skillshelf.core import yamlload
from skillshelf.core.yamlload import Duplicates

__all__ = ["JS_WHITESPACE", "js_trim", "load_zhin_yaml", "split_zhin_markdown"]

#: JavaScript's ``\s`` / ``String.prototype.trim`` set (WhiteSpace + LineTerminator).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_FRONTMATTER = re.compile(r"\A---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|\Z)")


def js_trim(text: str) -> str:
    """``text`` without leading/trailing JavaScript whitespace (:data:`JS_WHITESPACE`)."""
    return text.strip(JS_WHITESPACE)


def load_zhin_yaml(raw: str) -> Any:
    """Parse a frontmatter block the way Zhin's loader sees it (YAML 1.2 core schema, duplicate
    keys refused as js-yaml does, bounded aliases). Returns ``None`` for an empty document.
    Raises :class:`skillshelf.core.yamlload.YamlError`."""
    return yamlload.load(raw, duplicates=Duplicates.REJECT)


def split_zhin_markdown(markdown: str) -> tuple[str | None, str, int]:
    """``(frontmatter_block or None, instructions, block_first_line)`` per Zhin's pattern (module
    docstring). Instructions are trimmed after a frontmatter block and verbatim without one."""
    m = _FRONTMATTER.match(markdown)
    if not m:
        return None, markdown, 0
    return m.group(1), js_trim(markdown[m.end():]), 2
