"""The ``SKILL.md`` parser with Zuno's host semantics (SPEC F1–F3).

This module answers one question exactly the way the host does: *does the agent accept this
file, and with which name, description and body?* Everything about the Agent Skills standard
and portability lives in :mod:`skillshelf.core.lint` (SPEC F4–F5); lint never changes what is
decided here.

Rules implemented (conformance ids in brackets):

- F1 decoding: UTF-8; one leading BOM skipped (info ``bom``); invalid UTF-8 makes the source
  unreadable (warning ``Unreadable``, error ``not-utf8`` with the byte offset of the first bad
  byte; a UTF-16/UTF-32 byte-order mark is named as such). Never a guessed re-decoding.
- F2 splitting [Z039–Z043, Z048, Z050–Z052]: the first line is ``---`` plus an optional engine
  tag (``yaml``/``yml``/``json``, lower-cased; anything else is ``frontmatter engine "x" is not
  registered``); ``----`` opens nothing; the frontmatter closes at the next *line* that is
  exactly ``---`` (trailing spaces/tabs ignored); the closing line's own line break (``\\n`` or
  ``\\r\\n``) is stripped from the body; without a closing line the rest of the file is
  frontmatter and the body is empty; without frontmatter there are no keys [Z010].
- F3 typing [Z044, Z046, Z049, Z053–Z059]: YAML 1.2 core schema (:mod:`skillshelf.core.yamlload`;
  safe: only core tags construct; a duplicate key rejects the file, as yaml-rust2 does, Z-F). ``name`` must be a string (else ``MissingName``);
  ``description`` may be absent but, when present, must be a string (else
  ``InvalidDescription``). A block that is blank or comment-only has no keys. When the first
  YAML parse fails, one sanitize retry rewrites unquoted ``key: a: b`` lines into ``|-`` blocks
  (:func:`sanitize`, Z054 notes). Frontmatter over 64 KiB (``frontmatter-too-large``) and alias
  expansion beyond 10,000 nodes (``yaml-bomb``) are refused before any mapping is built.

Lines and columns in diagnostics are 1-based and relative to the whole file.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skillshelf.core import yamlload
from skillshelf.core.fileread import error_kind_text, read_regular
from skillshelf.core.model import CatalogWarning, Diagnostic, Severity, fast_init
from skillshelf.core.yamlload import Duplicates, YamlAliasLimit, YamlDuplicateKey, YamlError

#: Largest frontmatter block accepted, in bytes of UTF-8 (SPEC F3).
MAX_FRONTMATTER_BYTES = 64 * 1024
#: Engine tags accepted on the opening line, after lower-casing (Z050, Z051).
YAML_ENGINES = frozenset({"yaml", "yml"})
JSON_ENGINE = "json"

_BOM = "\ufeff"
_EMPTY: Mapping[str, Any] = {}


# --------------------------------------------------------------------------------------------
# Splitting (SPEC F2)
# --------------------------------------------------------------------------------------------


@fast_init
@dataclass(frozen=True)
class Split:
    """How a decoded ``SKILL.md`` text divides into frontmatter and body (SPEC F2).

    ``text`` is the decoded file without a leading BOM. ``has_frontmatter`` is False when the
    first line does not open a block (then ``raw`` is ``""`` and ``body`` is the whole text).
    ``engine`` is the lower-cased tag of the opening line or ``None`` for plain ``---``.
    ``raw`` is the block between the delimiter lines (line breaks kept, CRs included).
    ``open_line`` is 1 when a block exists (else ``None``); ``close_line`` is the 1-based line of
    the closing ``---`` (``None`` when ``unclosed``). ``body_line`` is the 1-based line where
    the body starts (``None`` when the body is empty because the block is unclosed).
    ``opening`` is the exact opening line (without its line break) — used by the sanitize rule.
    """

    text: str
    has_frontmatter: bool
    engine: str | None
    raw: str
    body: str
    open_line: int | None
    close_line: int | None
    unclosed: bool
    body_line: int | None
    opening: str = ""

    @property
    def raw_first_line(self) -> int:
        """1-based file line of the first line of ``raw`` (2 when a block exists)."""
        return 2


def split_document(text: str) -> Split:
    """Split decoded text (a leading BOM is skipped) into frontmatter and body per SPEC F2.

    Never raises. Examples: ``"---\\nname: a\\n---\\n\\nB"`` → raw ``"name: a\\n"``, body
    ``"\\nB"``; ``"----\\nx\\n"`` → no frontmatter, body the whole text [Z041];
    ``"---\\nname: a\\n"`` → unclosed, body ``""`` [Z042].
    """
    if text.startswith(_BOM):
        text = text[1:]
    if not text.startswith("---") or text.startswith("----"):
        return Split(text, False, None, "", text, None, None, False, 1)
    nl = text.find("\n")
    if nl < 0:
        opening = text
        tag = text[3:].strip(" \t\r\n\f\v")
        return Split(text, True, tag.lower() or None, "", "", 1, None, True, None, opening)
    opening = text[:nl]
    tag = text[3:nl].strip(" \t\r\n\f\v")
    engine = tag.lower() or None
    pos = nl
    find = text.find
    while True:
        i = find("\n---", pos)
        if i < 0:
            return Split(text, True, engine, text[nl + 1 :], "", 1, None, True, None, opening)
        j = find("\n", i + 4)
        rest = text[i + 4 : j] if j >= 0 else text[i + 4 :]
        if not rest or not rest.strip(" \t\r"):
            close_line = text.count("\n", 0, i + 1) + 1
            raw = text[nl + 1 : i + 1]
            if j >= 0:
                return Split(text, True, engine, raw, text[j + 1 :], 1, close_line, False, close_line + 1, opening)
            return Split(text, True, engine, raw, "", 1, close_line, False, None, opening)
        pos = i + 1


_RUST_WS = " \t\n\x0b\x0c\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def zuno_split(text: str) -> Split:
    """Split decoded text the way Zuno does (conformance Z-F; ``skill/frontmatter.rs``).

    Unlike :func:`split_document` (the line rule, kept for the lint): a leading BOM means *no
    frontmatter* (the file does not start with ``---``); the block closes at the first ``\n---``
    **substring**, so a line ``----`` or ``---# Title`` ends it and the rest of that line begins
    the body; after the closing ``---`` one ``\r`` and then one ``\n`` are removed, nothing
    else (``---  `` leaves ``"  \n…"``). ``raw`` is the block from line 2 on (the rest of the
    opening line is dropped: it is blank, or it was the engine tag).
    """
    if not text.startswith("---") or text.startswith("----"):
        return Split(text, False, None, "", text, None, None, False, 1)
    rest = text[3:]
    line_end = rest.find("\n")
    if line_end < 0:
        line_end = len(rest)
    tag = rest[:line_end].strip(_RUST_WS)
    opening = text[:3 + line_end]
    engine = tag.lower() or None
    start = 3 if not tag else 3 + line_end  # where Zuno's block begins in `text`
    close = text.find("\n---", start)
    first_nl = text.find("\n", 3)
    raw_start = first_nl + 1 if first_nl >= 0 else len(text)
    if close < 0:
        return Split(text, True, engine, text[raw_start:], "", 1, None, True, None, opening)
    raw = text[raw_start:close + 1] if raw_start <= close else ""
    close_line = text.count("\n", 0, close) + 2
    body = text[close + 4:]
    same_line = not body.startswith(("\n", "\r\n"))
    if body.startswith("\r"):
        body = body[1:]
    if body.startswith("\n"):
        body = body[1:]
    body_line = close_line if same_line and body else close_line + 1
    return Split(text, True, engine, raw, body, 1, close_line, False, body_line if body else None, opening)


def body_of(text: str) -> str:
    """The body of a decoded ``SKILL.md`` per SPEC F2 (what ``load`` returns) [Z010, Z039, Z040].

    ``text`` may start with a BOM (skipped). Only the line break right after the closing line
    is removed; CRs, tabs and leading blank lines survive.
    """
    return split_document(text).body


def first_delimiter_line(text: str) -> int | None:
    """1-based number of the first line (after line 1) that is exactly ``---`` (trailing blanks
    ignored), or ``None``. Used for ``frontmatter-not-first`` (SPEC F2)."""
    n = 1
    for line in text.split("\n"):
        if n > 1 and line.rstrip(" \t\r") == "---":
            return n
        n += 1
    return None


# --------------------------------------------------------------------------------------------
# Sanitize retry (SPEC F3, Z054–Z055)
# --------------------------------------------------------------------------------------------


def _simple_entry(line: str) -> tuple[str, str] | None:
    """Match ``^[A-Za-z_][A-Za-z0-9_]*\\s*:\\s*(.*)$``; return (key, value) or None."""
    if not line:
        return None
    c = line[0]
    if not (("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_"):
        return None
    end = len(line)
    for idx in range(1, len(line)):
        ch = line[idx]
        if not (("a" <= ch <= "z") or ("A" <= ch <= "Z") or ("0" <= ch <= "9") or ch == "_"):
            end = idx
            break
    rest = line[end:].lstrip(" \t")
    if not rest.startswith(":"):
        return None
    return line[:end], rest[1:].lstrip(" \t")


def sanitize_line(line: str) -> tuple[str, str] | None:
    """If the sanitize rule rewrites ``line``, return ``(key, value)`` (value stripped), else None.

    The rule (Z054 notes): a top-level line (not indented, not a comment) matching
    ``^[A-Za-z_][A-Za-z0-9_]*\\s*:\\s*(.*)$`` whose value is non-empty, is not ``>`` or ``|``, is
    not quoted, and contains ``:``. Hyphenated keys (``allowed-tools``) never match.
    """
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or line[:1] in (" ", "\t"):
        return None
    entry = _simple_entry(line)
    if entry is None:
        return None
    key, value = entry
    value = value.strip()
    if not value or value in (">", "|") or value[0] in ("\"", "'") or ":" not in value:
        return None
    return key, value


def sanitize_block(raw: str) -> str:
    """Apply the sanitize rewrite to a frontmatter block: each matching line becomes
    ``key: |-`` plus ``  value`` (SPEC F3). Lines are split on ``\\n``; others are unchanged."""
    out: list[str] = []
    changed = False
    for line in raw.split("\n"):
        hit = sanitize_line(line)
        if hit is None:
            out.append(line)
        else:
            changed = True
            out.append(f"{hit[0]}: |-")
            out.append(f"  {hit[1]}")
    return "\n".join(out) if changed else raw


def sanitized_rows(raw: str) -> list[int]:
    """For each line of :func:`sanitize_block` of ``raw``, the 0-based line of ``raw`` it comes
    from (a quoted value becomes two lines, both from its own)."""
    rows: list[int] = []
    for i, line in enumerate(raw.split("\n")):
        rows.extend((i, i) if sanitize_line(line) is not None else (i,))
    return rows


def sanitize(source: str) -> str:
    """Zuno's whole-file sanitize (Z054): rewrite the first plain ``---`` block, keep the rest.

    Applies only when the file opens with exactly ``---\\n`` or ``---\\r\\n`` (no engine tag) and
    a closing ``---`` exists. With nothing to rewrite, the result equals ``source`` exactly.
    """
    if source.startswith("---\r\n"):
        start = 5
    elif source.startswith("---\n"):
        start = 4
    else:
        return source
    tail = source[start:]
    idx = tail.find("\n---")
    if idx < 0:
        return source
    if idx > 0 and tail[idx - 1] == "\r":
        idx -= 1
    block = tail[:idx]
    new = sanitize_block(block)
    if new == block:
        return source
    return source[:start] + new + tail[idx:]


# --------------------------------------------------------------------------------------------
# Parse result
# --------------------------------------------------------------------------------------------


@fast_init
@dataclass(frozen=True)
class SkillParse:
    """What the host (Zuno) makes of one ``SKILL.md`` (SPEC F1–F3, F6).

    ``location`` is the locator as given. ``name`` is the accepted string name (``None`` when
    rejected); ``description`` the string description or ``None`` when absent (or rejected).
    ``warning`` is the host's rejection (kinds ``Unreadable``, ``Frontmatter``, ``MissingName``,
    ``InvalidDescription``) with Zuno's display text (conformance §0.3) or ``None`` when
    accepted. ``frontmatter`` is the parsed mapping (``{}`` when none / not a mapping / failed).
    ``body`` per F2 (``""`` when unreadable). ``diagnostics`` are host-level findings with
    file-relative 1-based line/column: the rejection cause as an error plus infos (``bom``,
    ``crlf``, ``sanitized-retry``). ``content_sha256`` is the hex SHA-256 of the raw bytes;
    ``size`` their count in bytes. ``split`` keeps the line-rule split for the lint layer
    (``None`` when unreadable); ``host_split`` the split Zuno makes (:func:`zuno_split`), which
    decided name, description and body; ``sanitized`` says the YAML parsed only after the
    sanitize retry.
    """

    location: str
    name: str | None
    description: str | None
    warning: CatalogWarning | None
    frontmatter: Mapping[str, Any]
    body: str
    diagnostics: tuple[Diagnostic, ...]
    content_sha256: str
    size: int
    split: Split | None = field(default=None, compare=False, repr=False)
    sanitized: bool = False
    host_split: Split | None = field(default=None, compare=False, repr=False)

    @property
    def accepted(self) -> bool:
        """True when the host loads this source (no rejection warning)."""
        return self.warning is None


def _err(code: str, message: str, *, field_: str | None = None, line: int | None = None,
         column: int | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, field_, line, column, hint)


def _info(code: str, message: str, *, field_: str | None = None, line: int | None = None,
          column: int | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.INFO, code, message, field_, line, column, hint)


def unreadable_warning(location: str, reason: str) -> CatalogWarning:
    """``Unreadable`` warning: ``failed to read skill {src}: {reason}`` (conformance §0.3)."""
    return CatalogWarning("Unreadable", location, f"failed to read skill {location}: {reason}")


def frontmatter_warning(location: str, detail: str) -> CatalogWarning:
    """``Frontmatter`` warning: ``failed to load skill {src}: {detail}`` (conformance §0.3)."""
    return CatalogWarning("Frontmatter", location, f"failed to load skill {location}: {detail}")


def missing_name_warning(location: str) -> CatalogWarning:
    """``MissingName`` warning text (Z002, Z060)."""
    return CatalogWarning("MissingName", location, f"skill {location} has no string `name` in its frontmatter")


def invalid_description_warning(location: str) -> CatalogWarning:
    """``InvalidDescription`` warning text (Z059)."""
    return CatalogWarning(
        "InvalidDescription", location, f"skill {location} has a `description` that is not a string"
    )


def os_error_reason(exc: OSError) -> str:
    """An I/O error in Rust's display form (``No such file or directory (os error 2)``)."""
    if exc.errno is not None and exc.strerror:
        return f"{exc.strerror} (os error {exc.errno})"
    return str(exc) or type(exc).__name__


_UTF_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
)


def _undecodable(data: bytes, location: str, sha: str, exc: UnicodeDecodeError) -> SkillParse:
    offset = exc.start
    detail = None
    for bom, label in _UTF_BOMS:
        if data.startswith(bom):
            detail = f"file is {label} (byte-order mark {bom.hex(' ').upper()}); save it as UTF-8"
            break
    prefix = data[:offset]
    line = prefix.count(b"\n") + 1
    col_bytes = prefix[prefix.rfind(b"\n") + 1 :]
    column = len(col_bytes.decode("utf-8", "replace")) + 1
    if detail is None:
        detail = f"file is not UTF-8: byte 0x{data[offset]:02X} at offset {offset} is invalid"
    diag = _err("not-utf8", detail, line=line, column=column)
    return SkillParse(
        location=location,
        name=None,
        description=None,
        warning=unreadable_warning(location, "invalid data"),  # Rust's ErrorKind::InvalidData
        frontmatter=_EMPTY,
        body="",
        diagnostics=(diag,),
        content_sha256=sha,
        size=len(data),
    )


_RESOLVED_WORDS = frozenset({"true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"})
_KEY_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: First characters that make a plain value an indicator or a possible non-string scalar.
_VALUE_BAD_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`+0123456789.~")


def _fast_mapping(raw: str) -> dict[str, str] | None:
    """Parse the common shape ``key: plain text`` per line without the YAML machinery.

    Returns ``None`` whenever a line is anything else (indentation, quotes, flow or block
    indicators, comments after values, tabs, possible non-string scalars …); the caller then
    uses the YAML loader. For the lines it accepts the result is identical to the YAML 1.2 core
    schema loader (every value a string); a repeated key is left to the loader too, so a
    duplicate gets one verdict whichever path runs. This keeps 10,000 parses cheap (SPEC F3
    performance).
    """
    out: dict[str, str] = {}
    for line in raw.split("\n"):
        if line.endswith("\r"):
            line = line[:-1]
        if not line:
            continue
        first = line[0]
        if first == "#":
            continue
        if first not in _KEY_FIRST or "\t" in line:
            return None
        colon = line.find(": ")
        if colon <= 0:
            return None
        key = line[:colon]
        if key in out:  # a repeated key: the YAML loader decides (Zuno refuses it)
            return None
        value = line[colon + 2 :].strip(" ")
        q = value[:1]
        if q == '"' or q == "'":
            inner = value[1:-1]
            if (
                len(value) < 2
                or value[-1] != q
                or q in inner
                or "\\" in inner
                or not inner.isprintable()
                or key in _RESOLVED_WORDS
                or not set(key) <= _KEY_CHARS
                or key in out
            ):
                return None
            out[key] = inner
            continue
        if (
            not value
            or value[0] in _VALUE_BAD_FIRST
            or value[-1] == ":"
            or ": " in value
            or " #" in value
            or value in _RESOLVED_WORDS
            or key in _RESOLVED_WORDS
            or not set(key) <= _KEY_CHARS
            or not value.isprintable()
            or key in out
        ):
            return None
        out[key] = value
    return out or None


def _is_blank_block(raw: str) -> bool:
    """True when every line of the block is blank or a full-line comment (no keys)."""
    for line in raw.split("\n"):
        s = line.strip()
        if s and not s.startswith("#"):
            return False
    return True


def yaml_error_position(exc: YamlError, split: Split) -> tuple[int | None, int | None, str]:
    """(file line, column, problem text) of a YAML error in ``split.raw`` (1-based)."""
    if exc.line is None:
        return None, None, exc.problem
    return split.raw_first_line + exc.line - 1, exc.column, exc.problem


def _key_line(split: Split, key: str) -> int | None:
    """Line of a top-level ``key:`` in the block (cheap scan; used for rejection positions)."""
    n = split.raw_first_line
    for line in split.raw.split("\n"):
        if line.startswith(key):
            rest = line[len(key) :].lstrip(" \t")
            if rest.startswith(":"):
                return n
        if line.startswith((f'"{key}"', f"'{key}'")):
            return n
        n += 1
    return None


#: First characters YAML reserves for its own syntax: an unquoted value cannot start with them.
RESERVED_FIRST = frozenset("*&!%@`")


def _strip_comment(value: str) -> str:
    """``value`` without a trailing `` # comment`` (plain-scalar rules: ``#`` after a blank)."""
    m = re.search(r"[ \t]#", value)
    return (value[: m.start()] if m else value).rstrip(" \t\r")


def raw_value(split: Split, key: str) -> tuple[int, str] | None:
    """``(file line, text)`` of a top-level ``key: value`` whose value sits on the key's own line,
    exactly as written (a trailing comment removed); ``None`` when the key is absent, its value is
    empty or starts on a later line. The text fix hints quote (``name: 1.10`` → ``"1.10"``)."""
    n = split.raw_first_line
    for line in split.raw.split("\n"):
        entry = _simple_entry(line) if line[:1] not in (" ", "\t", "#", "'", '"') else None
        if entry is not None and entry[0] == key:
            text = _strip_comment(entry[1])
            return (n, text) if text else None
        if line.startswith((f"{key}:", f"{key} :")) and not key.isidentifier():
            text = _strip_comment(line.split(":", 1)[1].strip())
            return (n, text) if text else None
        n += 1
    return None


def quoted(key: str, text: str) -> str:
    """``key: "text"`` — ``text`` exactly as written, in YAML double quotes (JSON escapes are
    YAML's too)."""
    return f"{key}: {json.dumps(text, ensure_ascii=False)}"


def quote_hint(split: Split, file_line: int | None) -> tuple[str, str, str] | None:
    """``(key, reason, quoted line)`` when the frontmatter line ``file_line`` is a top-level
    ``key: value`` whose unquoted value YAML cannot read as text: it starts with one of
    ``* & ! % @ ` `` (YAML's indicators) or holds ``: ``; else ``None``."""
    if file_line is None:
        return None
    idx = file_line - split.raw_first_line
    lines = split.raw.split("\n")
    if not 0 <= idx < len(lines):
        return None
    line = lines[idx].rstrip("\r")
    m = re.match(r"([A-Za-z_][\w.-]*)[ \t]*:[ \t]+(.*)$", line)
    if m is None:
        return None
    key, value = m.group(1), m.group(2).strip()
    if not value or value[0] in ("'", '"', "|", ">", "[", "{"):
        return None
    if value[0] in RESERVED_FIRST:
        first = "a backtick" if value[0] == "`" else f"`{value[0]}`"
        return key, f"the value of `{key}` starts with {first}, which YAML reserves", quoted(key, value)
    if ": " in value:
        return key, f"unquoted `: ` inside the value of `{key}`", quoted(key, value)
    return None


def _json_key_line(split: Split, key: str) -> int | None:
    n = split.raw_first_line
    needle = f'"{key}"'
    for line in split.raw.split("\n"):
        if needle in line:
            return n
        n += 1
    return None


def _reject(location: str, warning: CatalogWarning, diags: list[Diagnostic], fm: Mapping[str, Any],
            body: str, sha: str, size: int, split: Split | None, sanitized: bool = False,
            host_split: Split | None = None) -> SkillParse:
    return SkillParse(location, None, None, warning, fm, body, tuple(diags), sha, size, split, sanitized, host_split)


def safety_limit_warning(location: str, detail: str) -> CatalogWarning:
    """skillshelf's own refusal to parse a file (a safety limit Zuno does not have): kind
    ``skillshelf-limit``, ``skillshelf did not parse {src}: {detail}``."""
    return CatalogWarning("skillshelf-limit", location, f"skillshelf did not parse {location}: {detail}")


def parse_skill_bytes(data: bytes, location: str, *, slim: bool = False) -> SkillParse:
    """Parse the raw bytes of a ``SKILL.md`` the way Zuno does (SPEC F1–F3 as corrected by
    conformance Z-F). Never raises.

    The block and body are Zuno's (:func:`zuno_split`: a leading BOM means no frontmatter, the
    block closes at the first ``\\n---``), duplicate keys refuse the file (``duplicated key in
    mapping``, as ``yaml-rust2`` does), and there is no size limit in the host. skillshelf keeps
    two safety limits of its own — frontmatter over 64 KiB, alias expansion over 10,000 nodes —
    and reports them as skillshelf's (warning ``skillshelf-limit``), never as Zuno's.
    ``location`` is used verbatim in warnings (``{src}``). A rejected file has ``warning`` set,
    ``name`` ``None`` and the cause as an error diagnostic (``not-utf8``, ``unknown-engine``,
    ``yaml-error``, ``duplicate-key``, ``json-error``, ``frontmatter-too-large``, ``yaml-bomb``, ``missing-name``,
    ``invalid-description``).

    ``slim``: what a catalog entry needs only — no body, ``split`` or ``host_split`` (they hold
    the file's text), and the line-rule split is not made at all; every other field is the same.
    """
    parse = _parse_bytes(data, location, line_split=not slim, slim=slim)
    if not slim or (not parse.body and parse.split is None and parse.host_split is None):
        return parse
    return SkillParse(parse.location, parse.name, parse.description, parse.warning, parse.frontmatter, "",
                      parse.diagnostics, parse.content_sha256, parse.size, None, parse.sanitized, None)


def _parse_bytes(data: bytes, location: str, *, line_split: bool, slim: bool = False) -> SkillParse:
    """:func:`parse_skill_bytes`; ``line_split`` False: no line-rule split (``split`` None);
    ``slim``: an accepted file's parse is made slim here (no second object)."""
    sha = hashlib.sha256(data).hexdigest()
    size = len(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _undecodable(data, location, sha, exc)

    diags: list[Diagnostic] = []
    split = split_document(text) if line_split else None
    host = zuno_split(text)
    if text.startswith(_BOM):
        diags.append(Diagnostic(Severity.WARNING, "bom",
                                "the file starts with a UTF-8 byte-order mark: Zuno sees no frontmatter "
                                "(the file does not start with `---`)", line=1, column=1,
                                hint="save the file as UTF-8 without a byte-order mark"))
    if "\r\n" in text:
        diags.append(_info("crlf", "file uses CRLF line endings; values are read without CR", line=1))
    body = host.body

    fm: Any = None
    sanitized = False
    if host.has_frontmatter:
        engine = host.engine
        raw = host.raw
        if engine is not None and engine not in YAML_ENGINES and engine != JSON_ENGINE:
            detail = f'frontmatter engine "{engine}" is not registered'
            diags.append(_err("unknown-engine", detail, line=1, column=4,
                              hint="use a plain `---` line (YAML) or `---json`"))
            return _reject(location, frontmatter_warning(location, detail), diags, _EMPTY, body, sha, size, split,
                           host_split=host)
        if len(raw) > MAX_FRONTMATTER_BYTES // 4 and len(raw.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
            nbytes = len(raw.encode("utf-8"))
            detail = (f"frontmatter is {nbytes} bytes, above skillshelf's safety limit of "
                      f"{MAX_FRONTMATTER_BYTES} bytes (Zuno itself has no limit and would parse it)")
            diags.append(_err("frontmatter-too-large", f"skillshelf's safety limit: {detail}", line=1))
            return _reject(location, safety_limit_warning(location, detail), diags, _EMPTY, body, sha, size, split,
                           host_split=host)
        if _is_blank_block(raw):
            fm = None
        elif engine == JSON_ENGINE:
            try:
                fm = json.loads(raw.strip())
            except (ValueError, RecursionError) as exc:
                line = col = None
                msg = str(exc)
                if isinstance(exc, json.JSONDecodeError):
                    off = (len(raw) - len(raw.lstrip())) + exc.pos
                    line = host.raw_first_line + raw.count("\n", 0, off)
                    col = off - raw.rfind("\n", 0, off)
                    msg = f"{exc.msg} at line {line} column {col}"
                detail = f"invalid JSON frontmatter: {msg}"
                diags.append(_err("json-error", detail, line=line, column=col))
                return _reject(location, frontmatter_warning(location, detail), diags, _EMPTY, body, sha, size,
                               split, host_split=host)
        else:
            try:
                fm = _fast_mapping(raw)
                if fm is None:
                    fm = yamlload.load(raw, duplicates=Duplicates.REJECT)
            except YamlAliasLimit as exc:
                detail = (f"YAML alias expansion exceeds {exc.limit} nodes ({exc.reason}), skillshelf's safety "
                          "limit (Zuno has no such limit)")
                diags.append(_err("yaml-bomb", f"skillshelf's safety limit: {detail}", line=1))
                return _reject(location, safety_limit_warning(location, detail), diags, _EMPTY, body, sha, size,
                               split, host_split=host)
            except YamlError as first:
                line, col, problem = yaml_error_position(first, host)
                if isinstance(first, YamlDuplicateKey):
                    problem = "duplicated key in mapping"  # yaml-rust2's words
                retry_ok = False
                second: YamlError | None = None
                if host.opening in ("---", "---\r") and not isinstance(first, YamlDuplicateKey):
                    fixed = sanitize_block(raw)
                    if fixed != raw:
                        try:
                            fm = yamlload.load(fixed, duplicates=Duplicates.REJECT)
                            retry_ok = True
                        except YamlError as exc:  # the retry failed too: the first error stands (Zuno's)
                            retry_ok = False
                            second = exc
                if retry_ok:
                    sanitized = True
                    diags.append(_info(
                        "sanitized-retry",
                        f"YAML parsed only after quoting unquoted values holding ':' ({problem})",
                        line=line, column=col,
                    ))
                else:
                    where = f" at line {line} column {col}" if line is not None else ""
                    detail = f"invalid YAML frontmatter: {problem}{where}"
                    code = "duplicate-key" if isinstance(first, YamlDuplicateKey) else "yaml-error"
                    fix = quote_hint(host, line) if code == "yaml-error" else None
                    message = detail + (f"; {fix[1]}: quote the value" if fix else "")
                    at, column, hint = line, col, fix[2] if fix else None
                    if second is not None and fix is not None and second.line is not None:
                        # (the retry's line in the block as written: each quoted value took two lines)
                        rows = sanitized_rows(raw)
                        row = rows[min(second.line, len(rows)) - 1]
                        line2: int | None = host.raw_first_line + row
                        col2, problem2 = second.column, second.problem
                        duplicate = isinstance(second, YamlDuplicateKey)
                        if duplicate:
                            problem2 = "duplicated key in mapping"  # yaml-rust2's words
                        if line2 != line or duplicate:
                            # Zuno quotes that value itself and parses again: what stops the file
                            # then is the line to fix; quoting helps only a value Zuno left as it
                            # was, and never a repeated key
                            rewritten = sanitize_line(raw.split("\n")[row]) is not None
                            fix2 = None if duplicate or rewritten else quote_hint(host, line2)
                            message = (f"{detail}; Zuno quotes that value itself and parses again, which fails "
                                       f"at line {line2} column {col2}: {problem2}"
                                       + (f"; {fix2[1]}: quote the value" if fix2 else ""))
                            at, column, hint = line2, col2, fix2[2] if fix2 else None
                    diags.append(_err(code, message, line=at, column=column, hint=hint,
                                      field_=first.key if isinstance(first, YamlDuplicateKey) else None))
                    return _reject(location, frontmatter_warning(location, detail), diags, _EMPTY, body, sha, size,
                                   split, host_split=host)

    mapping: Mapping[str, Any] = fm if isinstance(fm, dict) else _EMPTY
    name = mapping.get("name")
    if not isinstance(name, str):
        key_line = None
        if "name" in mapping:
            key_line = (_json_key_line if host.engine == JSON_ENGINE else _key_line)(host, "name")
            msg = f"`name` must be a string, got {type_label(name)}"
        elif host.has_frontmatter:
            msg = "a skill needs a string `name` in its frontmatter"
        elif text.startswith(_BOM):
            msg = "a skill needs a string `name` in its frontmatter (Zuno sees none: the file starts with a BOM)"
        else:
            msg = "a skill needs a string `name` in its frontmatter (the file has no frontmatter)"
        diags.append(_err("missing-name", msg, field_="name",
                          line=key_line or (1 if host.has_frontmatter else None),
                          hint=_scalar_hint(host, "name", name)))
        return _reject(location, missing_name_warning(location), diags, mapping, body, sha, size, split, sanitized,
                       host)
    description = mapping.get("description")
    if "description" in mapping and not isinstance(description, str):
        key_line = (_json_key_line if host.engine == JSON_ENGINE else _key_line)(host, "description")
        diags.append(_err("invalid-description",
                          f"`description` must be a string, got {type_label(description)}",
                          field_="description", line=key_line, hint=_scalar_hint(host, "description", description)))
        return _reject(location, invalid_description_warning(location), diags, mapping, body, sha, size, split,
                       sanitized, host)
    if slim:
        return SkillParse(location, name, description, None, mapping, "", tuple(diags), sha, size, None, sanitized,
                          None)
    return SkillParse(location, name, description, None, mapping, body, tuple(diags), sha, size, split, sanitized,
                      host)


def _scalar_hint(split: Split, key: str, value: Any) -> str | None:
    """``key: "1.10"`` for a YAML number, boolean or null written on the key's line: the text as
    written, quoted (never a re-serialised value such as ``1.1``)."""
    if split.engine == JSON_ENGINE or isinstance(value, (str, list, dict)):
        return None
    found = raw_value(split, key)
    if found is None or found[1][0] in "'\"|>[{&*!":
        return None
    return quoted(key, found[1])


def type_label(value: Any) -> str:
    """A YAML-flavoured name for a value's type (``null``, ``boolean``, ``integer`` …)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def parse_skill_file(path: str, location: str | None = None, *, slim: bool = False) -> SkillParse:
    """Read ``path`` and parse it with :func:`parse_skill_bytes`. Never raises.

    ``location`` defaults to ``path``. I/O errors (missing file, permission, a directory named
    ``SKILL.md``) give an ``Unreadable`` warning ``failed to read skill {src}: {kind}`` with the
    Rust ``ErrorKind`` text Zuno prints (``is a directory``, conformance Z-T) and an error
    ``unreadable`` whose message keeps the operating system's own words [Z012]. ``slim``: as for
    :func:`parse_skill_bytes`.
    """
    loc = path if location is None else location
    try:
        data = read_regular(path)  # never blocks on a FIFO or device (SPEC D4)
    except OSError as exc:
        reason = os_error_reason(exc)
        return SkillParse(
            location=loc,
            name=None,
            description=None,
            warning=unreadable_warning(loc, error_kind_text(exc)),
            frontmatter=_EMPTY,
            body="",
            diagnostics=(_err("unreadable", f"cannot read the file: {reason}"),),
            content_sha256="",
            size=0,
        )
    return parse_skill_bytes(data, loc, slim=slim)
