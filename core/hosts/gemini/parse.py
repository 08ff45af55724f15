"""Gemini CLI's ``SKILL.md`` parser (``loadSkillFromFile``), with the findings skillshelf adds.

The rules, in the client's order:

1. The file is read as UTF-8; invalid bytes become U+FFFD, a byte-order mark is kept.
2. ``/^---\\r?\\n([\\s\\S]*?)\\r?\\n---(?:\\r?\\n([\\s\\S]*))?/`` must match at offset 0: the first
   line is exactly ``---`` (a BOM, a leading blank line or ``--- `` drops the file silently);
   the block ends at the **first** ``\\n---`` anywhere (``----``, ``--- x`` too); the body is
   what follows the next line break, trimmed (JS white space), else ``""``.
3. js-yaml loads the block; when the result is a mapping whose ``name`` and ``description``
   are both strings, those are used. Otherwise (an error, a number, a list …) the line parser
   runs: ``^\\s*name:\\s*(.*)$`` (last match wins, indented keys count), ``^\\s*description:``
   plus the following lines that start with a space or tab, joined with spaces; values raw
   (quotes, comments and block indicators kept). Both keys must be present (empty is fine),
   else the file is dropped silently.
4. The name has ``: \\ / < > * ? " |`` replaced by ``-``; that is the skill's key and the name
   listed, shown to the model and accepted by ``activate_skill``. Nothing else is checked.

Line numbers in findings are 1-based and count from the file's first line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from skillshelf.core.hosts.gemini.jsyaml import JsValue, JsYamlError, js_string, load
from skillshelf.core.model import Diagnostic, Severity

__all__ = [
    "JS_WHITESPACE",
    "Parsed",
    "js_trim",
    "parse_skill",
    "sanitize_name",
]

#: JavaScript's ``\\s`` and ``String.prototype.trim`` set.
JS_WHITESPACE = ("\t\n\u000b\u000c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                 "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_WS = re.escape(JS_WHITESPACE)
_DOT = r"[^\n\r\u2028\u2029]"
_FRONTMATTER_RE = re.compile(r"---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?")
_NAME_LINE = re.compile(rf"[{_WS}]*name:[{_WS}]*({_DOT}*)")
_DESC_LINE = re.compile(rf"[{_WS}]*description:[{_WS}]*({_DOT}*)")
_CONT_LINE = re.compile(rf"[ \t]+[^{_WS}]")
_SANITIZE_RE = re.compile(r'[:\\/<>*?"|]')
_TOP_KEY = {key: re.compile(rf"^(?:{key}|\"{key}\"|'{key}')[ \t]*:") for key in ("name", "description")}


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def sanitize_name(name: str) -> str:
    """``name.replace(/[:\\\\/<>*?"|]/g, "-")``."""
    return _SANITIZE_RE.sub("-", name)


@dataclass(frozen=True)
class Parsed:
    """One file as Gemini CLI reads it. ``name`` is ``None`` when the client drops the file
    (``reason`` says why); else ``name`` (sanitised), ``raw_name``, ``description`` and ``body``
    as the client holds them. ``parser`` is ``yaml`` or ``fallback``. ``diagnostics`` name the
    field and line of every silent drop and fallback. ``frontmatter`` is for display."""

    name: str | None
    raw_name: str | None = None
    description: str | None = None
    body: str = ""
    parser: str = ""
    reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    frontmatter: Mapping[str, Any] = field(default_factory=dict)


def _diag(severity: Severity, code: str, message: str, field: str | None = None, line: int | None = None,
          hint: str | None = None) -> Diagnostic:
    return Diagnostic(severity, f"gemini-{code}", message, field=field, line=line, hint=hint)


def _drop(code: str, reason: str, diags: list[Diagnostic], line: int | None = 1, field: str | None = None,
          hint: str | None = None) -> Parsed:
    diags.append(_diag(Severity.ERROR, code, f"Gemini CLI skips this file silently: {reason}", field, line, hint))
    return Parsed(None, reason=reason, diagnostics=tuple(diags))


def _first_line_problem(text: str, diags: list[Diagnostic]) -> Parsed:
    """Why the frontmatter pattern does not match at offset 0."""
    first, _, rest = text.partition("\n")
    first = first.removesuffix("\r")
    if text.startswith("\ufeff"):
        return _drop("bom", "the file starts with a byte-order mark (U+FEFF), so its first line is not `---`",
                     diags, hint="save the file as UTF-8 without a BOM")
    if first.rstrip(" \t") == "---" and first != "---":
        return _drop("open-trailing-space", "the opening `---` line has trailing white space", diags,
                     hint="make the first line exactly `---`")
    if first == "---":
        if rest.startswith("---"):
            return _drop("empty-frontmatter", "the closing `---` directly follows the opening one (Gemini CLI "
                         "needs at least one line between them)", diags, line=2)
        return _drop("unclosed", "the frontmatter is never closed: no later line starts with `---`", diags,
                     hint="end the frontmatter with a line `---`")
    if js_trim(first) == "":
        return _drop("leading-blank", "the file starts with a blank line, so its first line is not `---`", diags,
                     hint="remove the lines before `---`")
    return _drop("no-frontmatter", "the first line is not `---` (no frontmatter)", diags,
                 hint="start the file with `---`, then name: and description:, then `---`")


def _key_line(fm_lines: list[str], key: str) -> int | None:
    """The file line (1-based) of the top-level ``key:`` in the frontmatter, if any."""
    pattern = _TOP_KEY[key]
    for i, line in enumerate(fm_lines):
        if pattern.match(line):
            return i + 2
    return None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, JsValue):
        return {"int": "a number", "float": "a number", "bool": "a boolean", "timestamp": "a date"}.get(
            value.kind, value.kind)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _display(value: object) -> object:
    """A js-yaml value as plain data for display."""
    if isinstance(value, JsValue):
        return value.js_string()
    if isinstance(value, dict):
        return {str(k if not isinstance(k, JsValue) else k.js_string()): _display(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_display(v) for v in value]
    if isinstance(value, str):
        return js_string(value)
    return value


def _yaml_error(exc: Exception) -> tuple[str, int | None]:
    """(message, file line) of a js-yaml error."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        text = str(exc.problem or exc.context or "invalid YAML")
        return text, (mark.line + 2) if mark is not None else None
    return str(exc) or "invalid YAML", None


def _fallback(fm: str, diags: list[Diagnostic]) -> tuple[str | None, str | None, int | None, int | None]:
    """``parseSimpleFrontmatter``: (name, description, name line, description line)."""
    lines = re.split(r"\r?\n", fm)
    name: str | None = None
    desc: str | None = None
    name_line = desc_line = None
    i = 0
    while i < len(lines):
        m = _NAME_LINE.fullmatch(lines[i])
        if m:
            name, name_line = js_trim(m.group(1)), i + 2
            i += 1
            continue
        m = _DESC_LINE.fullmatch(lines[i])
        if m:
            desc_line = i + 2
            parts = [js_trim(m.group(1))]
            while i + 1 < len(lines) and _CONT_LINE.match(lines[i + 1]):
                parts.append(js_trim(lines[i + 1]))
                i += 1
            desc = " ".join(p for p in parts if p)
        i += 1
    return name, desc, name_line, desc_line


_QUOTED = re.compile(r"""^(["']).*\1$""")


@functools.lru_cache(maxsize=8192)
def parse_skill(data: bytes) -> Parsed:
    """Gemini CLI's reading of one ``SKILL.md`` (module docstring). Never raises. The result
    depends only on the bytes and is immutable, so the last 8,192 are kept for rebuilds."""
    text = data.decode("utf-8", "replace")
    diags: list[Diagnostic] = []
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        diags.append(_diag(Severity.WARNING, "invalid-utf8",
                           "bytes that are not UTF-8 are read as U+FFFD (the replacement character)", line=line,
                           hint="save the file as UTF-8"))
    m = _FRONTMATTER_RE.match(text)
    if not m:
        return _first_line_problem(text, diags)
    fm = m.group(1)
    fm_lines = re.split(r"\r?\n", fm)
    close_line = len(fm_lines) + 2
    close_text = text[m.end(1):].lstrip("\r\n").split("\n", 1)[0].rstrip("\r")
    if close_text != "---":
        diags.append(_diag(Severity.WARNING, "close-not-exact",
                           f"the frontmatter ends at line {close_line} (`{close_text[:40]}`): Gemini CLI closes it at "
                           "the first line that starts with `---`", line=close_line,
                           hint="start no frontmatter line with `---` except the closing one"))
    if m.group(2) is None and text[m.end():] != "":
        diags.append(_diag(Severity.WARNING, "body-dropped",
                           "no line break follows the closing `---`: Gemini CLI reads an empty body",
                           line=close_line))
    body = js_trim(m.group(2)) if m.group(2) is not None else ""

    parser = "yaml"
    frontmatter: Mapping[str, Any] = {}
    raw_name: str | None = None
    desc: str | None = None
    name_line = desc_line = None
    why_fallback: str | None = None
    fallback_line: int | None = None
    fallback_field: str | None = None
    try:
        value = load(fm)
    except (yaml.YAMLError, JsYamlError, RecursionError, ValueError, TypeError, OverflowError) as exc:
        msg, fallback_line = _yaml_error(exc)
        why_fallback = f"js-yaml rejects the frontmatter ({msg})"
    else:
        if isinstance(value, dict):
            shown = _display(value)
            frontmatter = shown if isinstance(shown, dict) else {}
            n, d = value.get("name"), value.get("description")
            if isinstance(n, str) and isinstance(d, str):
                raw_name, desc = js_string(n), js_string(d)
                name_line, desc_line = _key_line(fm_lines, "name"), _key_line(fm_lines, "description")
            else:
                bad = "name" if not isinstance(n, str) else "description"
                got = value.get(bad)
                fallback_field = bad
                fallback_line = _key_line(fm_lines, bad)
                why_fallback = (f"`{bad}` is missing in the YAML" if bad not in value
                                else f"`{bad}` is {_kind(got)} in the YAML, not a string")
        else:
            why_fallback = f"the frontmatter is {_kind(value)}, not a mapping"
    if why_fallback is not None:
        parser = "fallback"
        raw_name, desc, name_line, desc_line = _fallback(fm, diags)
        if raw_name is None or desc is None:
            missing = "name" if raw_name is None else "description"
            return _drop(f"missing-{missing}",
                         f"{why_fallback}, and its line parser finds no `{missing}:` line",
                         diags, line=fallback_line or 2, field=missing,
                         hint=f"add a line `{missing}: …` to the frontmatter")
        diags.append(_diag(Severity.WARNING, "fallback-parser",
                           f"{why_fallback}; Gemini CLI falls back to its line parser, which takes the raw text "
                           f"of `name:` (line {name_line}) and `description:` (line {desc_line})",
                           field=fallback_field, line=fallback_line or name_line))
        for key, val, line in (("name", raw_name, name_line), ("description", desc, desc_line)):  # type: ignore[assignment]
            if _QUOTED.match(val):
                diags.append(_diag(Severity.WARNING, "fallback-quotes",
                                   f"the line parser keeps the quotes: {key} is {val[:60]}", field=key, line=line))
        frontmatter = {"name": raw_name, "description": desc}
    assert raw_name is not None and desc is not None
    name = sanitize_name(raw_name)
    if name != raw_name:
        diags.append(_diag(Severity.WARNING, "name-sanitised",
                           f"Gemini CLI lists the name {raw_name[:80]!r} as {name[:80]!r} (it replaces "
                           ': \\ / < > * ? " | with -)', field="name", line=name_line))
    if name == "":
        diags.append(_diag(Severity.WARNING, "empty-name", "the name is empty; Gemini CLI lists the skill under an empty name",
                           field="name", line=name_line))
    if js_trim(name) != name or "\n" in name:
        diags.append(_diag(Severity.WARNING, "name-whitespace",
                           "the name has leading, trailing or inner line-break white space, which Gemini CLI keeps",
                           field="name", line=name_line))
    return Parsed(name, raw_name=raw_name, description=desc, body=body, parser=parser,
                  diagnostics=tuple(diags), frontmatter=frontmatter)
