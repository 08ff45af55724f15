"""Lint checks on a ``SKILL.md`` text as written, for every target (SPEC F4–F5, X1).

- ``invisible-character``: characters that reach the model but not the reader
  (:mod:`skillshelf.core.invisible`), one finding per line, with code points, columns and the
  text a tag run spells.
- ``comment-in-value``: an unquoted (plain) YAML value followed by `` #``: YAML reads the rest
  of the line as a comment, so ``description: Post to the #deploys channel`` is ``Post to the``.
  YAML's meaning is kept (every host reads it so); the finding names the field, the line, the
  lost text and the quoted line that keeps it. ``C#`` (no blank before ``#``) and quoted values
  are not comments. A comment whose ``#`` is followed by a blank (``# why``) reads as a
  deliberate comment and is not reported (skillshelf decision).

Each check calls ``add(code, message, field=…, line=…, column=…, hint=…)`` (the lint's grader);
lines and columns are 1-based in the file, columns in characters. Pure, no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import yaml

from skillshelf.core import yamlload
from skillshelf.core.invisible import describe, find_invisible

__all__ = ["Add", "comment_cut_checks", "invisible_checks"]


class Add(Protocol):
    """The lint's ``add``: one finding, graded by the caller for its target."""

    def __call__(self, code: str, message: str, *, field: str | None = None, line: int | None = None,
                 column: int | None = None, hint: str | None = None) -> None: ...


def invisible_checks(text: str, add: Add, *, key_at: Callable[[int], str | None] | None = None) -> None:
    """``invisible-character`` per line of ``text`` (the decoded file, a leading BOM removed);
    ``key_at(line)`` names the frontmatter key owning a line (``None`` in the body)."""
    found = find_invisible(text)
    if not found:
        return
    by_line: dict[int, list[tuple[int, str]]] = {}
    for f in found:
        line_start = text.rfind("\n", 0, f.start) + 1
        line = text.count("\n", 0, f.start) + 1
        by_line.setdefault(line, []).append((f.start - line_start + 1, f.chars))
    for line, hits in by_line.items():
        groups: dict[str, list[int]] = {}
        for col, chars in hits:
            groups.setdefault(describe(chars), []).append(col)
        parts = []
        for what, cols in groups.items():
            where = ", ".join(str(c) for c in cols[:8]) + (" …" if len(cols) > 8 else "")
            times = f" ×{len(cols)}" if len(cols) > 1 else ""
            parts.append(f"{what}{times} (column{'s' if len(cols) > 1 else ''} {where})")
        tags = any(ord(chars[0]) >= 0xE0000 for _, chars in hits)
        add("invisible-character",
            "invisible to the reader but read by the model: " + "; ".join(parts),
            field=key_at(line) if key_at else None, line=line, column=hits[0][0],
            hint="remove them" + (": tag characters can hide instructions" if tags else ""))


#: Top-level fields whose value the Agent Skills format wants as text: a plain ``null``,
#: number or boolean cut by a comment there is reported too (quoting it is the fix).
_TEXT_FIELDS = frozenset({"name", "description", "license", "compatibility"})


def _plain_scalars(node: yaml.Node, key: str | None, owner: str | None) -> Iterator[tuple[yaml.ScalarNode, str | None, str | None]]:
    """``(scalar, key, top-level key)`` for every plain (unquoted, not block) string value, and
    any plain value of a top-level text field (elsewhere a number, boolean or null cut by a
    comment would change type if quoted: not reported)."""
    if isinstance(node, yaml.ScalarNode):
        if node.style in (None, "") and (node.tag == _STR or (key == owner and key in _TEXT_FIELDS)):
            yield node, key, owner
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            name = k.value if isinstance(k, yaml.ScalarNode) else None
            yield from _plain_scalars(v, name, owner if owner is not None else name)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            yield from _plain_scalars(v, None, owner)


_STR = "tag:yaml.org,2002:str"
_SAME_LINE = re.compile(r"([ \t]+)#(\S.*?)\s*$")
_COMMENT_LINE = re.compile(r"([ \t]*)#(\S.*?)\s*$")


def comment_cut_checks(raw: str, first_line: int, add: Add, root: Any = None) -> None:
    """``comment-in-value`` for the frontmatter block ``raw`` whose first line is file line
    ``first_line``. ``root``: its composed node tree when the caller has it (else composed here;
    a block that is not YAML has no findings)."""
    if root is None:
        try:
            root = yamlload.compose(raw)
        except yamlload.YamlError:
            return
    if root is None:
        return
    lines = raw.split("\n")
    for node, key, owner in _plain_scalars(root, None, None):
        end_line, end_col = node.end_mark.line, node.end_mark.column
        if end_line >= len(lines):
            continue
        text = lines[end_line].rstrip("\r")
        m = _SAME_LINE.fullmatch(text[end_col:])
        lost_line = end_line
        if m is None and key is not None and not text[end_col:].strip():
            # a comment on a later line, indented into the value: the value stopped before it
            nxt = end_line + 1
            while nxt < len(lines) and not lines[nxt].strip():
                nxt += 1
            if nxt < len(lines):
                cm = _COMMENT_LINE.fullmatch(lines[nxt].rstrip("\r"))
                if cm is not None and len(cm.group(1)) > _key_indent(lines, node.start_mark.line):
                    m, lost_line = cm, nxt
        if m is None:
            continue
        lost = "#" + m.group(2)
        same = lost_line == end_line
        kept = node.value + (m.group(1) if same else " ") + lost
        quoted = json.dumps(kept, ensure_ascii=False)
        label = f"`{key}`" if key else "a list item"
        add("comment-in-value",
            f"{label} is cut by a YAML comment: in an unquoted value ` #` starts a comment, so the value "
            f"is {json.dumps(node.value, ensure_ascii=False)} and {json.dumps(lost, ensure_ascii=False)} is lost",
            field=owner, line=first_line + lost_line,
            column=(end_col + len(m.group(1)) + 1) if same else len(m.group(1)) + 1,
            hint=f"{key}: {quoted}" if key else f"- {quoted}")


def _key_indent(lines: list[str], line: int) -> int:
    """Indentation of the line holding a value's key (the value's own line for ``key: value``)."""
    text = lines[line]
    return len(text) - len(text.lstrip(" "))

