"""The model-facing ``skill`` tool: list, search, load, read_resource (SPEC L1–L6, I1–I3).

This reproduces Zuno's tool (``zuno-tools/src/skill.rs@bf553199``; conformance doc §4 and §0.3)
byte for byte: the same argument acceptance, refusal texts, page size, cursors, search scoring,
and output wrappers. One :class:`SkillTool` answers one request at a time from either a fixed
sequence of :class:`~skillshelf.core.model.SkillEntry` or a live catalog (anything with
``.current`` → :class:`~skillshelf.core.model.Generation` and ``.refresh()`` → Generation).

Units: page sizes, offsets, cursor offsets and the 4 MiB limits are UTF-8 **bytes**; the
search description cap is bytes too (1,200); ``list`` cursors count **entries**.

Texts that §4 does not restate (continuation pages, incomplete-page footers, list pages after
the first, no search match) are taken from the same Zuno source file, so they are Zuno's too.
Decisions that are skillshelf's own are marked "skillshelf decision" where they are made:

* request fields of the wrong JSON type, unknown fields and a missing ``action`` are refused
  with the message serde would give (Zuno rejects them while deserialising, before the tool
  runs), under code ``invalid-arguments``;
* ``read_resource`` paths are checked with Windows rules as well (``\\`` is a separator, a
  ``C:`` drive prefix is not relative, NUL is refused) and any ``.`` component is refused, as
  the refusal text says (Rust's path parser silently drops an inner ``.``);
* list results also carry ``complete`` in their metadata.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Protocol, runtime_checkable

from skillshelf.core.collate import locale_key, sort_key_with_location
from skillshelf.core.fileread import read_regular
from skillshelf.core.frontmatter import parse_skill_bytes
from skillshelf.core.model import Generation, SkillEntry
from skillshelf.core.resolve import (
    EMPTY_MESSAGE,
    ResolveError,
    by_location,
    named,
    resolve,
    stale_error,
)
from skillshelf.core.serdejson import unexpected

log = logging.getLogger(__name__)

#: The wire id the model calls.
WIRE_ID = "skill"
#: The four actions, in schema order (Z106).
ACTIONS = ("list", "search", "load", "read_resource")
#: Request fields in schema order (Z106); also the order serde names them in its messages.
FIELDS = ("action", "query", "name", "source", "path", "cursor", "limit")

DEFAULT_SEARCH_LIMIT = 8
MAX_SEARCH_LIMIT = 20
LIST_PAGE_SIZE = 20
#: Search/list description cap in UTF-8 bytes, cut with ``…``.
SEARCH_DESCRIPTION_MAX_BYTES = 1_200
#: Largest skill body or text resource, in bytes (SPEC L3).
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
#: Largest body/resource slice in one page, in bytes (SPEC L3).
READ_PAGE_CONTENT_BYTES = 61_440

#: Instruction footer of a search with matches (Z108, Z121).
SEARCH_FOOTER = (
    "Load the selected instructions with action `load`, its exact `name`, and the advertised "
    "`source` when one is present; do not treat a description as the skill body."
)
#: The paragraph after ``Resource root:`` on a first load page (Z115).
RESOURCE_HINT = (
    "For relative text references, call `skill` with action `read_resource`, this exact skill "
    "name and source, and the referenced relative path. Use this root directly for assets or "
    "scripts; do not search the filesystem to rediscover this skill."
)
#: First-page line for an embedded skill without a resource root (built-ins).
NO_ROOT_HINT = "This embedded skill has no filesystem resource root; follow its body directly."

_DESCRIPTIONS = {
    "action": "Whether to `list`, `search`, `load`, or `read_resource`.",
    "query": "A concise task intent or capability query. Required only for `search`.",
    "name": "The exact skill name from the index or search results. Required for `load` and `read_resource`.",
    "source": (
        "Exact source locator returned by the catalog, list, or search result. Required when more "
        "than one installed skill declares `name`."
    ),
    "path": "A relative text-resource path inside the selected skill. Required only for `read_resource`.",
    "cursor": "Opaque continuation returned by a previous list or read operation.",
    "limit": "Maximum search matches. Optional for `search`; invalid for other actions.",
}

#: The provider parameter schema (Z106): seven properties, the action enum, limit 1–20, no
#: other properties.
SCHEMA: dict[str, Any] = {
    "title": "SkillParams",
    "description": "Search descriptions, load one skill body, or read one referenced text resource.",
    "type": "object",
    "properties": {
        "action": {"description": _DESCRIPTIONS["action"], "type": "string", "enum": list(ACTIONS)},
        **{
            f: {"description": _DESCRIPTIONS[f], "type": ["string", "null"], "default": None}
            for f in ("query", "name", "source", "path", "cursor")
        },
        "limit": {
            "description": _DESCRIPTIONS["limit"],
            "type": ["integer", "null"],
            "format": "uint",
            "minimum": 1,
            "maximum": MAX_SEARCH_LIMIT,
            "default": None,
        },
    },
    "required": ["action"],
    "additionalProperties": False,
}


# --------------------------------------------------------------------------- results and errors


class ToolError(Exception):
    """A refused tool call. ``message`` is Zuno's exact reason text; ``code`` a short id.

    Codes: ``invalid-arguments`` (serde-level), ``unexpected-field``, ``missing-field``,
    ``unknown-skill``, ``no-skills``, ``ambiguous-skill``, ``source-mismatch``,
    ``catalog-stale``, ``stale-cursor``, ``empty-query``, ``limit-out-of-range``,
    ``document-unavailable``, ``document-too-large``, ``bodyless``, ``no-resource-root``,
    ``invalid-resource-path``, ``resource-unavailable``, ``resource-outside-root``,
    ``resource-not-file``, ``resource-too-large``, ``resource-not-utf8``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        """``{"code", "message"}``."""
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class ToolResult:
    """One successful tool answer: the text the model reads, its metadata, and its title."""

    output: str
    metadata: dict[str, Any] = field(default_factory=dict)
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"output", "metadata", "title"}``."""
        return {"output": self.output, "metadata": dict(self.metadata), "title": self.title}


# --------------------------------------------------------------------------- text helpers

#: Unicode White_Space, the set Rust's ``trim`` and ``split_whitespace`` use (Python's
#: ``str.split()`` would also split on U+001C–U+001F).
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WS_RE = re.compile("[" + re.escape(_WHITE_SPACE) + "]+")


def rust_trim(text: str) -> str:
    """``str::trim``: strip Unicode White_Space from both ends."""
    return text.strip(_WHITE_SPACE)


def normalize_whitespace(text: str) -> str:
    """Whitespace runs collapsed to one space, ends trimmed (``split_whitespace().join(" ")``)."""
    return " ".join(p for p in _WS_RE.split(text) if p)


def _is_alphanumeric(ch: str) -> bool:
    # Rust char::is_alphanumeric = Alphabetic or Numeric (Nd, Nl, No). Python's isalnum covers
    # letters and every numeric category; the few combining marks Unicode counts as Alphabetic
    # (Other_Alphabetic, e.g. Devanagari vowel signs) are the known difference.
    return ch.isalnum()


def _split_non_alphanumeric(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    for ch in text:
        if _is_alphanumeric(ch):
            current.append(ch)
        else:
            parts.append("".join(current))
            current = []
    parts.append("".join(current))
    return parts


def search_terms(query: str) -> list[str]:
    """The query split on non-alphanumeric characters, empty pieces dropped, lower-cased (§0.3)."""
    return [p.lower() for p in _split_non_alphanumeric(query) if p]


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def truncate_utf8(value: str, maximum: int) -> str:
    """``value`` cut to at most ``maximum`` UTF-8 bytes including a trailing ``…`` (3 bytes).

    The cut lands on a character boundary and trailing whitespace is trimmed before the
    ellipsis. Values that fit are returned unchanged.
    """
    data = _utf8(value)
    if len(data) <= maximum:
        return value
    end = min(max(maximum - 3, 0), len(data))
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass").rstrip(_WHITE_SPACE) + "…"


def display_description(description: str) -> str:
    """Catalog description as list/search show it: whitespace-normalised, ``(empty description)``
    when empty, capped at 1,200 bytes with ``…`` (§0.3)."""
    normalized = normalize_whitespace(description)
    if not normalized:
        return "(empty description)"
    return truncate_utf8(normalized, SEARCH_DESCRIPTION_MAX_BYTES)


def display_name_of(entry: SkillEntry) -> str:
    """The display name, falling back to the invocation name (Zuno ``catalog_display_name``)."""
    return entry.display_name if entry.display_name is not None else entry.name


def display_entry(entry: SkillEntry, include_source: bool) -> str:
    """One list/search line: ``- name: desc``, ``- name (Display): desc``, plus
    `` (source: `loc`)`` when ``include_source`` (the name has more than one source)."""
    display = display_name_of(entry)
    title = entry.name if display == entry.name else f"{entry.name} ({display})"
    line = f"- {title}: {display_description(entry.catalog_description or '')}"
    if include_source:
        line += f" (source: `{entry.location}`)"
    return line


def search_score(entry: SkillEntry, query: str, terms: Sequence[str]) -> int:
    """Zuno's search score of ``entry`` for a lower-cased ``query`` and its ``terms`` (§0.3, SPEC L2).

    Whole query: name equals +10000 else contains +2000; display name (falls back to the name)
    equals +8000 else contains +1500; short description contains +1000; description contains
    +500. Per term: name equals +400, else a name segment equals +250, else the name contains
    +150; a display-name segment equals +125, else it contains +75; short description contains
    +60; description contains +30.
    """
    name = entry.name.lower()
    display = display_name_of(entry).lower()
    short = (entry.short_description or "").lower()
    description = (entry.description or "").lower()
    score = 0
    if name == query:
        score += 10_000
    elif query in name:
        score += 2_000
    if display == query:
        score += 8_000
    elif query in display:
        score += 1_500
    if query in short:
        score += 1_000
    if query in description:
        score += 500
    name_parts = _split_non_alphanumeric(name)
    display_parts = _split_non_alphanumeric(display)
    for term in terms:
        if name == term:
            score += 400
        elif term in name_parts:
            score += 250
        elif term in name:
            score += 150
        if term in display_parts:
            score += 125
        elif term in display:
            score += 75
        if term in short:
            score += 60
        if term in description:
            score += 30
    return score


# --------------------------------------------------------------------------- cursors


def cursor_digest(action: str, identity: str, contents: str) -> str:
    """First 16 hex digits of SHA-256(action NUL identity NUL contents) (SPEC L4)."""
    h = hashlib.sha256()
    h.update(_utf8(action) + b"\0" + _utf8(identity) + b"\0" + _utf8(contents))
    return h.hexdigest()[:16]


def encode_cursor(action: str, offset: int, identity: str, contents: str) -> str:
    """``v1|<action>|<offset>|<digest16>`` (SPEC L4)."""
    return f"v1|{action}|{offset}|{cursor_digest(action, identity, contents)}"


_OFFSET_RE = re.compile(r"\+?[0-9]+\Z")  # what Rust's usize::from_str accepts


def cursor_offset(action: str, identity: str, contents: str, cursor: str | None, maximum: int) -> int:
    """The offset a cursor continues at, 0 without a cursor (SPEC L4, §0.3 "Cursors").

    Valid only with exactly four ``|`` parts, version ``v1``, this ``action``, a decimal offset
    ≤ ``maximum`` and the digest of (action, identity, contents). Raises :class:`ToolError`
    ``stale-cursor`` otherwise.
    """
    if cursor is None:
        return 0
    parts = cursor.split("|")
    ok = (
        len(parts) == 4
        and parts[0] == "v1"
        and parts[1] == action
        and _OFFSET_RE.match(parts[2]) is not None
        and int(parts[2]) <= maximum
        and parts[3] == cursor_digest(action, identity, contents)
    )
    if not ok:
        raise _invalid_cursor(action)
    return int(parts[2])


def _invalid_cursor(action: str) -> ToolError:
    return ToolError("stale-cursor", f"`skill` action `{action}` received an invalid or stale `cursor`")


@dataclass(frozen=True)
class TextPage:
    """One page of a text: its byte ``start``, the ``contents`` and the ``next_cursor`` (None when complete)."""

    start: int
    contents: str
    next_cursor: str | None

    @property
    def complete(self) -> bool:
        return self.next_cursor is None


def text_page(action: str, identity: str, contents: str, cursor: str | None) -> TextPage:
    """The page of ``contents`` a cursor asks for: at most :data:`READ_PAGE_CONTENT_BYTES` bytes
    from the cursor's offset, cut back to a UTF-8 character boundary (SPEC L3, L4).

    An offset inside a multi-byte character is a ``stale-cursor`` refusal.
    """
    data = _utf8(contents)
    start = cursor_offset(action, identity, contents, cursor, len(data))
    if start < len(data) and (data[start] & 0xC0) == 0x80:
        raise _invalid_cursor(action)
    end = min(start + READ_PAGE_CONTENT_BYTES, len(data))
    while end > start and end < len(data) and (data[end] & 0xC0) == 0x80:
        end -= 1
    next_cursor = encode_cursor(action, end, identity, contents) if end < len(data) else None
    return TextPage(start, data[start:end].decode("utf-8", "surrogatepass"), next_cursor)


# --------------------------------------------------------------------------- request decoding


@dataclass(frozen=True)
class _Params:
    action: str
    query: str | None = None
    name: str | None = None
    source: str | None = None
    path: str | None = None
    cursor: str | None = None
    limit: int | None = None


def _decode(request: Any) -> _Params:
    # skillshelf decision: serde's own messages for what Zuno refuses while deserialising.
    if not isinstance(request, Mapping):
        raise ToolError("invalid-arguments", f"invalid type: {unexpected(request)}, expected struct SkillParams")
    values: dict[str, Any] = {}
    for key, value in request.items():
        if key not in FIELDS:
            expected = ", ".join(f"`{f}`" for f in FIELDS)
            raise ToolError("invalid-arguments", f"unknown field `{key}`, expected one of {expected}")
        if key == "action":
            if not isinstance(value, str):
                raise ToolError("invalid-arguments", f"invalid type: {unexpected(value)}, expected enum SkillAction")
            if value not in ACTIONS:
                expected = ", ".join(f"`{a}`" for a in ACTIONS)
                raise ToolError("invalid-arguments", f"unknown variant `{value}`, expected one of {expected}")
        elif value is None:
            continue
        elif key == "limit":
            if isinstance(value, int) and not isinstance(value, bool):
                if value < 0:
                    raise ToolError("invalid-arguments", f"invalid value: integer `{value}`, expected usize")
            else:
                raise ToolError("invalid-arguments", f"invalid type: {unexpected(value)}, expected usize")
        elif not isinstance(value, str):
            raise ToolError("invalid-arguments", f"invalid type: {unexpected(value)}, expected a string")
        values[key] = value
    if "action" not in values:
        raise ToolError("invalid-arguments", "missing field `action`")
    return _Params(**values)


def _reject_unexpected(params: _Params, fields: Sequence[str]) -> None:
    for f in fields:
        if getattr(params, f) is not None:
            raise ToolError("unexpected-field", f"`skill` action `{params.action}` does not accept `{f}`")


def _required(params: _Params, f: str) -> Any:
    value = getattr(params, f)
    if value is None:
        raise ToolError("missing-field", f"`skill` action `{params.action}` requires `{f}`")
    return value


# --------------------------------------------------------------------------- documents


def _os_error_text(err: OSError) -> str:
    """Rust's ``io::Error`` display for an OS error: ``<strerror> (os error N)``."""
    if err.errno is not None:
        return f"{os.strerror(err.errno)} (os error {err.errno})"
    return str(err)


def resource_root(entry: SkillEntry) -> str | None:
    """The directory relative resources resolve against: the parent of a path locator, as
    spelled; ``None`` for URL locators (``builtin://…``), which have no resource root."""
    if "://" in entry.location:
        return None
    parent = os.path.dirname(entry.location)
    return parent or None


class _ReadFailure(Exception):
    """A file-backed body that could not be materialised; ``detail`` is Zuno's read-error text."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _parse_document(text: str) -> tuple[str, str]:
    """``(declared name, body)`` of a ``SKILL.md`` text (SPEC F2–F3), or :class:`_ReadFailure`
    with Zuno's rejection detail (``invalid frontmatter: …``, ``source no longer declares a
    string `name```, ``… `description```).

    Uses the host parser :func:`skillshelf.core.frontmatter.parse_skill_bytes` (F1–F3,
    sanitize retry included).
    """
    parsed = parse_skill_bytes(text.encode("utf-8", "surrogatepass"), "")
    if parsed.warning is None and parsed.name is not None:
        return parsed.name, parsed.body
    kind = parsed.warning.kind if parsed.warning is not None else "MissingName"
    if kind == "InvalidDescription":
        raise _ReadFailure("source no longer declares a string `description`")
    if kind == "Frontmatter":
        prefix = "failed to load skill : "
        message = parsed.warning.message  # type: ignore[union-attr]
        detail = message[len(prefix):] if message.startswith(prefix) else message
        raise _ReadFailure(f"invalid frontmatter: {detail}")
    if kind == "Unreadable":
        raise _ReadFailure("failed to read the selected SKILL.md: stream did not contain valid UTF-8")
    raise _ReadFailure("source no longer declares a string `name`")


def read_entry_body(entry: SkillEntry) -> str:
    """The body to serve for ``entry`` (SPEC L6).

    Embedded entries (``body`` set) return it as is. File-backed entries re-read ``location``
    now and check that it still declares ``entry.name``. Raises :class:`ToolError`
    ``document-unavailable`` with Zuno's text
    (``Skill `n` could not be read from LOC: failed to read skill LOC: DETAIL``) otherwise —
    DETAIL being ``failed to read the selected SKILL.md: …``, ``invalid frontmatter: …``,
    ``source no longer declares a string `name```, or
    ``source identity changed from `old` to `new`; refresh the skill catalog`` (Z111).
    """
    if entry.body is not None:
        return entry.body
    try:
        try:
            data = read_regular(entry.location)  # never blocks if the file became a FIFO
        except OSError as err:
            raise _ReadFailure(f"failed to read the selected SKILL.md: {_os_error_text(err)}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _ReadFailure("failed to read the selected SKILL.md: stream did not contain valid UTF-8") from None
        declared, body = _parse_document(text)
        if declared != entry.name:
            raise _ReadFailure(
                f"source identity changed from `{entry.name}` to `{declared}`; refresh the skill catalog"
            )
        return body
    except _ReadFailure as failure:
        raise ToolError(
            "document-unavailable",
            f"Skill `{entry.name}` could not be read from {entry.location}: "
            f"failed to read skill {entry.location}: {failure.detail}",
        ) from None


@dataclass(frozen=True)
class LoadedDocument:
    """A resolved, size-checked, non-empty skill body (Zuno ``LoadedSkillDocument``)."""

    name: str
    source: str
    resource_root: str | None
    content: str


def load_document(entries: Sequence[SkillEntry], name: str, source: str | None = None) -> LoadedDocument:
    """Resolve ``name``/``source`` (SPEC I1/I2, fixed-catalog rules) and materialise the body.

    Refusals, in order: resolution (unknown / ambiguous / source-mismatch), read failure,
    ``document-too-large`` (body over 4 MiB), ``bodyless`` (body empty after trimming).
    """
    try:
        entry = resolve(entries, name, source)
    except ResolveError as err:
        raise _from_resolve(err) from None
    content = read_entry_body(entry)
    size = len(_utf8(content))
    if size > MAX_DOCUMENT_BYTES:
        raise ToolError(
            "document-too-large",
            f"Skill `{entry.name}` is {size} bytes, above the {MAX_DOCUMENT_BYTES}-byte document limit",
        )
    if not rust_trim(content):
        raise ToolError(
            "bodyless",
            f"Skill `{entry.name}` was discovered but its body is empty, so there is nothing to "
            f"follow. Check {entry.location}.",
        )
    return LoadedDocument(entry.name, entry.location, resource_root(entry), content)


def _from_resolve(err: ResolveError) -> ToolError:
    code = err.code
    if code == "unknown-skill" and err.message.startswith("No skills are available"):
        code = "no-skills"
    return ToolError(code, err.message)


# --------------------------------------------------------------------------- resource paths

_DRIVE_RE = re.compile(r"[A-Za-z]:")


def resource_components(requested: str) -> list[str] | None:
    """The plain components of a trimmed resource path, or ``None`` when it is not acceptable
    (SPEC L5): empty, absolute (``/`` or ``\\``), drive-prefixed (``C:``), holding NUL, or with
    a ``.`` or ``..`` component. ``/`` and ``\\`` both separate components; empty components
    (``a//b``) are ignored. skillshelf decision: Windows rules apply on every platform.
    """
    if not requested or "\0" in requested:
        return None
    if requested[0] in "/\\" or _DRIVE_RE.match(requested):
        return None
    parts = [p for p in re.split(r"[/\\]", requested) if p]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    return parts


# --------------------------------------------------------------------------- the tool


@runtime_checkable
class LiveCatalog(Protocol):
    """What the tool needs of a live catalog: the published generation and a refresh (SPEC I3)."""

    @property
    def current(self) -> Generation: ...

    def refresh(self) -> Generation: ...


class SkillTool:
    """The ``skill`` tool over a fixed entry list or a live catalog (DESIGN "Stable Python surface").

    ``source`` is a sequence of :class:`SkillEntry` or a Generation (fixed: an entry with
    ``body`` is embedded, without it the body is re-read from ``location`` at every load), or a
    live catalog exposing
    ``.current`` (a Generation) and ``.refresh()`` (returns the new Generation). A live catalog
    is read afresh on every call and refreshed once when a requested locator or name does not
    resolve (SPEC I3, Z112).
    """

    def __init__(self, source: LiveCatalog | Generation | Sequence[SkillEntry]) -> None:
        self._live: LiveCatalog | None = None
        self._fixed: tuple[SkillEntry, ...] = ()
        if isinstance(source, Generation):
            self._fixed = source.entries()
        elif isinstance(source, LiveCatalog):
            self._live = source
        else:
            self._fixed = tuple(source)

    # -- catalog access

    def _snapshot(self) -> Sequence[SkillEntry]:
        if self._live is not None:
            return self._live.current.entries()
        return self._fixed

    def _refresh(self) -> Sequence[SkillEntry] | None:
        if self._live is None:
            return None
        try:
            return self._live.refresh().entries()
        except OSError as exc:  # the rescan failed: answer from the published generation (SPEC I3)
            log.warning("refreshing the catalog for a skill-tool call failed: %s", exc)
            return self._live.current.entries()

    # -- dispatch

    def call(self, request: Mapping[str, Any]) -> ToolResult:
        """Answer one request (the JSON object the model sends). Raises :class:`ToolError`.

        Field acceptance (§0.3): ``list`` takes only ``cursor``; ``search`` ``query`` (required)
        and ``limit``; ``load`` ``name`` (required), ``source``, ``cursor``; ``read_resource``
        ``name`` and ``path`` (required), ``source``, ``cursor``. Unexpected fields are refused
        before missing required ones, in the order query, name, source, path, cursor, limit.
        """
        p = _decode(request)
        if p.action == "list":
            _reject_unexpected(p, ("query", "name", "source", "path", "limit"))
            return self._list(self._snapshot(), p.cursor)
        if p.action == "search":
            _reject_unexpected(p, ("name", "source", "path", "cursor"))
            query = _required(p, "query")
            return self._search(self._snapshot(), query, p.limit)
        if p.action == "load":
            _reject_unexpected(p, ("query", "path", "limit"))
            name = _required(p, "name")
            return self._load(name, p.source, p.cursor)
        _reject_unexpected(p, ("query", "limit"))
        name = _required(p, "name")
        path = _required(p, "path")
        return self._read_resource(name, p.source, path, p.cursor)

    # -- list (L1)

    def _list(self, entries: Sequence[SkillEntry], cursor: str | None) -> ToolResult:
        listed = sorted((e for e in entries if e.searchable), key=lambda e: sort_key_with_location(e.name, e.location))
        if not listed:
            raise ToolError("no-skills", EMPTY_MESSAGE)
        identity = "\n".join(
            f"{e.name}\0{e.location}\0{display_name_of(e)}\0{e.catalog_description or ''}" for e in listed
        )
        start = cursor_offset("list", identity, identity, cursor, len(listed))
        end = min(start + LIST_PAGE_SIZE, len(listed))
        counts = _name_counts(entries)
        lines = [f"Available skills {start + 1}-{end} of {len(listed)}:"]
        lines.extend(display_entry(e, counts[e.name] > 1) for e in listed[start:end])
        next_cursor = encode_cursor("list", end, identity, identity) if end < len(listed) else None
        if next_cursor is not None:
            lines.append(f"Continue with action `list` and cursor `{next_cursor}` for the next page.")
        metadata: dict[str, Any] = {"shown": max(end - start, 0), "available": len(listed), "complete": next_cursor is None}
        if next_cursor is not None:
            metadata["next_cursor"] = next_cursor
        return ToolResult("\n".join(lines), metadata, "Skills")

    # -- search (L2)

    def _search(self, entries: Sequence[SkillEntry], query: str, limit: int | None) -> ToolResult:
        query = rust_trim(query)
        terms = search_terms(query)
        if not query or not terms:
            raise ToolError("empty-query", "`skill` search needs a non-empty `query` containing a word or name")
        limit = DEFAULT_SEARCH_LIMIT if limit is None else limit
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise ToolError(
                "limit-out-of-range", f"`skill` search `limit` must be between 1 and {MAX_SEARCH_LIMIT}, got {limit}"
            )
        described = [e for e in entries if e.searchable]
        if not described:
            raise ToolError("no-skills", EMPTY_MESSAGE)
        folded = query.lower()
        scored = [(search_score(e, folded, terms), e) for e in described]
        matches = [(s, e) for s, e in scored if s > 0]
        matches.sort(key=lambda se: (-se[0], locale_key(se[1].name)))
        matched = len(matches)
        matches = matches[:limit]
        if not matches:
            output = (
                f"No skill description matched `{query}` among {len(described)} discoverable skills. "
                f"Search again with a broader capability or exact skill-name fragment."
            )
        else:
            counts = _name_counts(entries)
            lines = [f"Skill matches for `{query}` ({len(matches)} shown, {matched} matched, {len(described)} available):"]
            lines.extend(display_entry(e, counts[e.name] > 1) for _, e in matches)
            lines.append(SEARCH_FOOTER)
            output = "\n".join(lines)
        metadata = {"query": query, "shown": len(matches), "matched": matched, "available": len(described)}
        return ToolResult(output, metadata, f"Skill search: {query}")

    # -- load (L3, L6, I3)

    def _load(self, name: str, source: str | None, cursor: str | None) -> ToolResult:
        entries = self._snapshot()
        stale = (source is not None and _mismatch(entries, source, name)) or (
            source is None and not named(entries, name)
        )
        if stale and self._live is not None:
            entries = self._refresh() or entries
        if source is not None and self._live is not None and _mismatch(entries, source, name):
            raise _from_resolve(stale_error(entries, name, source))
        try:
            document = load_document(entries, name, source)
        except ToolError:
            refreshed = self._refresh()
            if refreshed is None:
                raise
            entries = refreshed
            if source is not None and _mismatch(entries, source, name):
                raise _from_resolve(stale_error(entries, name, source)) from None
            document = load_document(entries, name, source)
        page = text_page("load", document.source, document.content, cursor)
        first = page.start == 0
        lines = [
            f"{'Loaded' if first else 'Continuing'} skill `{document.name}`.",
            f"Source: `{document.source}`",
        ]
        if first:
            if document.resource_root is not None:
                lines.append(f"Resource root: `{document.resource_root}`")
                lines.append(RESOURCE_HINT)
            else:
                lines.append(NO_ROOT_HINT)
        lines.append("")
        lines.append("--- BEGIN SKILL BODY ---" if first else "--- CONTINUE SKILL BODY ---")
        lines.append(page.contents)
        if page.next_cursor is None:
            lines.append("--- END SKILL BODY ---")
        else:
            lines.append(
                f"The skill body is not complete. Call `skill` again with action `load`, name "
                f"`{document.name}`, source `{document.source}`, and cursor `{page.next_cursor}` "
                f"before taking task action."
            )
        metadata: dict[str, Any] = {
            "name": document.name,
            "source": document.source,
            "location": document.source,
            "complete": page.complete,
        }
        if document.resource_root is not None:
            metadata["root"] = document.resource_root
        if page.next_cursor is not None:
            metadata["next_cursor"] = page.next_cursor
        return ToolResult("\n".join(lines), metadata, f"Skill: {document.name}")

    # -- read_resource (L3, L5)

    def _read_resource(self, name: str, source: str | None, path: str, cursor: str | None) -> ToolResult:
        entries = self._snapshot()
        if source is not None and _mismatch(entries, source, name):
            entries = self._refresh() or entries
            if self._live is not None and _mismatch(entries, source, name):
                raise _from_resolve(stale_error(entries, name, source))
        try:
            entry = resolve(entries, name, source)
        except ResolveError as err:
            raise _from_resolve(err) from None
        requested = rust_trim(path)
        parts = resource_components(requested)
        if parts is None:
            raise ToolError(
                "invalid-resource-path",
                f"Skill resource `{path}` for `{entry.name}` must be a non-empty relative path and "
                f"cannot contain `.` or `..` components",
            )
        root = resource_root(entry)
        if root is None:
            raise ToolError(
                "no-resource-root",
                f"Skill `{entry.name}` is not backed by a local SKILL.md, so it has no readable "
                f"resource root ({entry.location})",
            )
        prefix = f"Skill resource `{requested}` for `{entry.name}`"

        def unavailable(err: OSError) -> ToolError:
            return ToolError("resource-unavailable", f"{prefix} is unavailable: {_os_error_text(err)}")

        try:
            canonical_root = os.path.realpath(root, strict=True)
            canonical = os.path.realpath(os.path.join(root, *parts), strict=True)
        except OSError as err:
            raise unavailable(err) from None
        if not PurePosixPath(canonical).is_relative_to(canonical_root):
            raise ToolError("resource-outside-root", f"{prefix} resolves outside its skill root")
        try:
            st = os.stat(canonical)
        except OSError as err:
            raise unavailable(err) from None
        if not stat.S_ISREG(st.st_mode):
            raise ToolError("resource-not-file", f"{prefix} is not a regular file")
        def too_large(size: int) -> ToolError:
            return ToolError(
                "resource-too-large",
                f"{prefix} is {size} bytes, above the {MAX_DOCUMENT_BYTES}-byte text-resource limit",
            )

        if st.st_size > MAX_DOCUMENT_BYTES:
            raise too_large(st.st_size)
        try:
            data = read_regular(canonical, MAX_DOCUMENT_BYTES)
        except OSError as err:
            raise unavailable(err) from None
        if len(data) > MAX_DOCUMENT_BYTES:
            raise too_large(len(data))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolError("resource-not-utf8", f"{prefix} is not UTF-8 text") from None
        page = text_page("read_resource", f"{entry.location}::{requested}", text, cursor)
        contents = page.contents
        if page.next_cursor is not None:
            contents += (
                f"\n\nResource is not complete. Continue with action `read_resource`, name "
                f"`{entry.name}`, source `{entry.location}`, path `{requested}`, and cursor "
                f"`{page.next_cursor}`."
            )
        metadata: dict[str, Any] = {
            "name": entry.name,
            "source": entry.location,
            "root": canonical_root,
            "path": canonical,
            "resource": requested,
            "complete": page.complete,
        }
        if page.next_cursor is not None:
            metadata["next_cursor"] = page.next_cursor
        return ToolResult(contents, metadata, f"Skill resource: {entry.name}/{requested}")


def _mismatch(entries: Sequence[SkillEntry], locator: str, name: str) -> bool:
    found = by_location(entries, locator)
    return found is None or found.name != name


def _name_counts(entries: Sequence[SkillEntry]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.name] = counts.get(e.name, 0) + 1
    return counts
