"""How opencode 1.18.33 reads one ``SKILL.md``: ``ConfigMarkdown.parse`` (gray-matter 4.0.3 and
js-yaml 3, with opencode's sanitize retry), then the skill check.

The steps (each is the client's, in its order):

1. the bytes are decoded as UTF-8, invalid sequences becoming U+FFFD; a BOM is kept;
2. gray-matter strips one BOM, and its *cache key* is the text after that strip;
3. no ``---`` at the very start, or ``----``: no front matter (``data = {}``);
4. the rest of the opening line is a language: ``yaml``/``yml`` (any case of ``yaml``),
   ``json``, ``js``/``javascript`` (the front matter is *run* as JavaScript); anything else
   throws ``gray-matter engine "x" is not registered``;
5. the front matter ends at the first ``"\\n---"`` anywhere (``---suffix`` and ``----`` close it,
   an indented ``  ---`` does not); with none, the whole rest is front matter and the body is empty;
6. when the parse throws, :func:`sanitize` rewrites ``key: value`` lines whose plain value holds
   a colon into ``|-`` blocks and the text is parsed again. When that rewrite changes nothing,
   gray-matter's cache hands back the half-built entry of the first attempt — ``data = {}``,
   no exception — so the file is dropped **silently**; when the retry throws too, the file is
   dropped with ``ERROR failed to load skill``;
7. kept iff ``data`` is an object, ``typeof name === "string"`` and ``description`` is absent or
   a string. Nothing else is checked (no name rules, no length limits).

:func:`parse` returns an :class:`Outcome` with every fact needed for the verdict and its
diagnostics (lines are 1-based, in the whole file).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from skillshelf.core.hosts.opencode import jsyaml

__all__ = ["JS_WHITESPACE", "Matter", "Outcome", "ParseError", "js_trim", "parse", "sanitize", "strip_bom"]

#: The characters JavaScript's ``trim`` and ``\\s`` treat as white space.
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                 "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_WS = "[" + re.escape(JS_WHITESPACE) + "]"


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def strip_bom(text: str) -> str:
    """``text`` without one leading U+FEFF (gray-matter's first step and its cache key)."""
    return text.removeprefix("\ufeff")


@dataclass(frozen=True)
class ParseError:
    """Why one parse attempt threw: ``message`` (the engine's words), ``line``/``column``
    1-based in the file (``None`` when unknown)."""

    message: str
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True)
class Matter:
    """One successful gray-matter result: ``data`` as the engine built it, ``content`` the body,
    ``language`` the engine (``""`` without front matter), ``closed`` whether a ``\\n---``
    ended the front matter, ``first_line`` the file line of the front matter's first line."""

    data: Any
    content: str
    language: str
    closed: bool
    first_line: int = 2


class _Throw(Exception):
    def __init__(self, error: ParseError) -> None:
        super().__init__(error.message)
        self.error = error


def _engine(language: str) -> str:
    if language.lower() in ("yaml", "yml"):
        return "yaml"
    if language == "json":
        return "json"
    if language.lower() in ("js", "javascript"):
        return "javascript"
    raise _Throw(ParseError(f'gray-matter engine "{language}" is not registered', 1, 4))


_JS_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'')
_JS_VALUE = re.compile(r'\s*(?:"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\')'
                       r'(?:\s*\+\s*\(\s*(\d+)\s*\+\s*(\d+)\s*\))?\s*$')
_JS_KEY = re.compile(r"\s*(?:([A-Za-z_$][\w$]*)|\"([^\"\\\n]*)\"|'([^'\\\n]*)')\s*:(.*)$", re.DOTALL)


def _unescape_js(text: str) -> str:
    try:
        value = json.loads('"' + text.replace("\\'", "'").replace('"', '\\"').replace('\\\\"', '\\"') + '"')
    except ValueError:
        return text
    return str(value)


def _split_top(text: str) -> list[str]:
    """Split an object literal's inside at top-level commas (strings respected)."""
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            m = _JS_STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


class JsUnsupported(Exception):
    """The ``---js`` front matter is JavaScript skillshelf does not evaluate."""


def _eval_js(source: str) -> dict[str, Any]:
    """gray-matter's ``javascript`` engine runs the front matter. Only object literals whose
    values are string literals (optionally ``+ (a + b)`` of integers) are understood; anything
    else raises :class:`JsUnsupported`."""
    s = source.strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1].strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise JsUnsupported("not an object literal")
    out: dict[str, Any] = {}
    for part in _split_top(s[1:-1]):
        if not part.strip():
            continue
        km = _JS_KEY.match(part)
        if km is None:
            raise JsUnsupported(f"cannot read {part.strip()[:40]!r}")
        key = km.group(1) or km.group(2) or km.group(3) or ""
        vm = _JS_VALUE.match(km.group(4))
        if vm is None:
            raise JsUnsupported(f"the value of {key!r} is not a string literal")
        text = _unescape_js(vm.group(1) if vm.group(1) is not None else vm.group(2) or "")
        if vm.group(3) is not None:
            text += str(int(vm.group(3)) + int(vm.group(4)))
        out[key] = text
    return out


_COMMENT_LINE = re.compile(r"^" + _WS + r"*#[^\n]+", re.MULTILINE)
_NEWLINE = re.compile(r"\r?\n")


def gray_matter(text: str) -> Matter:
    """gray-matter 4.0.3 on ``text`` (already BOM-stripped). Raises :class:`_Throw` where the
    engine throws, :class:`JsUnsupported` for JavaScript skillshelf cannot run."""
    if text == "" or not text.startswith("---") or text[3:4] == "-":
        return Matter({}, text, "", False)
    rest = text[3:]
    whole = len(rest)
    m = _NEWLINE.search(rest)
    tag = rest[:m.start()] if m else rest[:-1]
    language = "yaml"
    if js_trim(tag):
        language = js_trim(tag)
        rest = rest[len(tag):]
    close = rest.find("\n---")
    if close == -1:
        close = whole
    block = rest[:close]
    if js_trim(_COMMENT_LINE.sub("", block)) == "":
        data: Any = {}
    else:
        engine = _engine(language)
        if engine == "yaml":
            try:
                data = jsyaml.load(block)
            except jsyaml.YamlFailure as exc:
                line = 1 + exc.line if exc.line is not None else None
                column = exc.column + 1 if exc.column is not None else None
                raise _Throw(ParseError(exc.problem, line, column)) from None
        elif engine == "json":
            try:
                data = json.loads(block)
            except json.JSONDecodeError as exc:
                raise _Throw(ParseError(exc.msg, exc.lineno, exc.colno)) from None
            except ValueError as exc:  # e.g. a number too long to convert
                raise _Throw(ParseError(str(exc), None, None)) from None
            except RecursionError:  # JSON.parse has no depth limit; Python's reader has one
                raise _Throw(ParseError("nested deeper than skillshelf's JSON reader follows (skillshelf's "
                                        "limit: opencode itself would parse it)", None, None)) from None
        else:
            data = _eval_js(block)
    if close == whole:
        return Matter(data, "", language, False)
    body = rest[close + 4:]
    if body[:1] == "\r":
        body = body[1:]
    if body[:1] == "\n":
        body = body[1:]
    return Matter(data, body, language, True)


_SANITIZE_BLOCK = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---")
_SANITIZE_KEY = re.compile(r"^([a-zA-Z_][a-zA-Z0-9_]*)" + _WS + r"*:" + _WS + r"*([^\n\r\u2028\u2029]*)$")
_LEADING_WS = re.compile("^" + _WS + "+")


def sanitize(raw: str) -> tuple[str, tuple[tuple[int, str], ...]]:
    """opencode's ``ConfigMarkdown.sanitize`` on the raw text (BOM kept, so a BOM'd file is
    never changed): every unindented ``key: value`` line whose trimmed plain value holds a
    ``:`` becomes ``key: |-`` plus the value indented by two spaces. Keys with ``-`` never match.
    Returns the new text and the rewritten (file line, key) pairs."""
    m = _SANITIZE_BLOCK.match(raw)
    if not m:
        return raw, ()
    block = m.group(1)
    out: list[str] = []
    changed: list[tuple[int, str]] = []
    for i, line in enumerate(_NEWLINE.split(block)):
        trimmed = js_trim(line)
        if trimmed.startswith("#") or trimmed == "" or _LEADING_WS.match(line):
            out.append(line)
            continue
        km = _SANITIZE_KEY.match(line)
        if not km:
            out.append(line)
            continue
        value = js_trim(km.group(2))
        if value in ("", ">", "|") or value.startswith(('"', "'")) or ":" not in value:
            out.append(line)
            continue
        out += [f"{km.group(1)}: |-", f"  {value}"]
        changed.append((2 + i, km.group(1)))
    return raw.replace(block, "\n".join(out), 1), tuple(changed)


#: What became of one file: ``ok`` parsed at once; ``rescued`` by the sanitize retry;
#: ``silent`` the first attempt threw and the retry changed nothing (empty data, no log);
#: ``error`` the retry threw too (``ERROR failed to load skill``); ``unsupported`` JavaScript
#: front matter skillshelf cannot run.
Kind = Literal["ok", "rescued", "silent", "error", "unsupported"]


@dataclass(frozen=True)
class Outcome:
    """The result of ``ConfigMarkdown.parse`` on one text with a cold cache.

    ``matter`` is set for ``ok`` and ``rescued``; ``first_error`` is the first attempt's
    failure, ``retry_error`` the retry's; ``rewritten`` the (line, key) pairs the retry changed;
    ``bom`` whether the text starts with U+FEFF; ``cache_key`` the text after the BOM strip
    (byte-identical copies share gray-matter's cache entry).
    """

    kind: Kind
    matter: Matter | None
    first_error: ParseError | None = None
    retry_error: ParseError | None = None
    rewritten: tuple[tuple[int, str], ...] = ()
    bom: bool = False
    unsupported: str = ""
    cache_key: str = ""


@lru_cache(maxsize=8192)
def parse(raw: str) -> Outcome:
    """``ConfigMarkdown.parse`` on the decoded text ``raw`` as a fresh process sees it (cold
    cache). Never raises. Memoised: equal texts always give the same outcome."""
    bom = raw.startswith("\ufeff")
    key = strip_bom(raw)
    try:
        return Outcome("ok", gray_matter(key), bom=bom, cache_key=key)
    except JsUnsupported as exc:
        return Outcome("unsupported", None, bom=bom, unsupported=str(exc), cache_key=key)
    except _Throw as first:
        again, rewritten = sanitize(raw)
        if strip_bom(again) == key:
            return Outcome("silent", None, first.error, bom=bom, cache_key=key)
        try:
            return Outcome("rescued", gray_matter(strip_bom(again)), first.error, None, rewritten, bom, cache_key=key)
        except JsUnsupported as exc:
            return Outcome("unsupported", None, first.error, bom=bom, unsupported=str(exc), cache_key=key)
        except _Throw as retry:
            error = retry.error
            if error.line is not None and rewritten:
                error = ParseError(error.message, _original_line(error.line, rewritten), error.column)
            return Outcome("error", None, first.error, error, rewritten, bom, cache_key=key)


def _original_line(line: int, rewritten: tuple[tuple[int, str], ...]) -> int:
    """A line of the sanitized text mapped back to the file (each rewrite added one line)."""
    shift = 0
    for at, _ in rewritten:
        if at + shift < line:
            shift += 1
    return line - shift
