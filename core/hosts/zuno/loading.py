"""Host ``zuno``: what the ``skill`` tool hands the model for one source, page by page (SPEC L3–L6).

:func:`load_page` calls the tool (``load`` or ``read_resource``) over the source itself, so a
disabled or shadowed source is shown as the tool would serve it if it were listed, and splits
the tool's output into the exact text and the body between its wrapper lines.
"""

from __future__ import annotations

from typing import Any

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.base import LoadedPage
from skillshelf.core.model import Source
from skillshelf.core.tool import SkillTool, ToolError, load_document, text_page

__all__ = ["LOAD_LABEL", "RESOURCE_LABEL", "body_first_line", "body_only", "load_page", "page_count"]

#: :attr:`LoadedPage.label` of a body page and of a resource page.
LOAD_LABEL = "skill tool load"
RESOURCE_LABEL = "skill tool read_resource"
#: Most pages counted before giving up on a page count (a cursor loop would be a tool bug).
PAGE_COUNT_MAX = 10_000
#: How many characters of a body page are looked up in the file to number its lines.
_LINE_PROBE = 400
#: Most bytes of a ``SKILL.md`` read to number its body's lines.
_READ_MAX = 4 * 1024 * 1024
_BODY_MARKERS = ("\n--- BEGIN SKILL BODY ---\n", "\n--- CONTINUE SKILL BODY ---\n")
_RESOURCE_TAIL = "\n\nResource is not complete. Continue with action `read_resource`"


def body_only(output: str, source: str) -> str:
    """The body slice of a ``load`` output whose ``Source:`` line names ``source``: what lies
    between the ``--- BEGIN/CONTINUE SKILL BODY ---`` line and the closing line (the END marker
    or the continuation sentence)."""
    head = output.find(f"Source: `{source}`")
    head = 0 if head < 0 else head + len(source) + 10
    start = 0
    found = [(pos, m) for m in _BODY_MARKERS if (pos := output.find(m, head)) >= 0]
    if found:
        pos, marker = min(found)
        start = pos + len(marker)
    end = output.rfind("\n")
    if end < start:
        end = len(output)
    return output[start:end]


def body_first_line(path: str, body: str) -> int:
    """The 1-based line of the file at ``path`` where ``body`` (the first page of its body as the
    tool serves it) begins: the body follows the frontmatter, so ``# Title`` of a file whose
    frontmatter has 3 lines is line 5. 1 when the file cannot be read or the body is not found
    verbatim (line endings normalised, for example)."""
    if not body or path.startswith("builtin://"):
        return 1
    try:
        text = read_regular(path, _READ_MAX).decode("utf-8", errors="replace")
    except OSError:
        return 1
    at = text.find(body[:_LINE_PROBE])
    if at < 0:
        return 1
    return text.count("\n", 0, at) + 1


def page_count(action: str, identity: str, contents: str) -> int:
    """How many pages the tool cuts ``contents`` into (SPEC L3), at most :data:`PAGE_COUNT_MAX`."""
    pages, cursor = 0, None
    while True:
        page = text_page(action, identity, contents, cursor)
        pages += 1
        if page.next_cursor is None or pages >= PAGE_COUNT_MAX:
            return pages
        cursor = page.next_cursor


def _count(source: Source, resource: str | None, meta: dict[str, Any]) -> int | None:
    """The page count of the first page's document (``None`` when it cannot be re-read)."""
    try:
        if resource is None:
            doc = load_document([source.entry], source.name, source.location)
            return page_count("load", doc.source, doc.content)
        text = read_regular(str(meta["path"])).decode("utf-8")
        return page_count("read_resource", f"{meta['source']}::{meta['resource']}", text)
    except (ToolError, OSError, UnicodeDecodeError, KeyError):
        return None


def load_page(source: Source, cursor: str | None = None, *, resource: str | None = None) -> LoadedPage:
    """One ``load`` page of ``source``'s body (``resource`` None) or one ``read_resource`` page,
    through the ``skill`` tool with ``source`` always passed (so same-name sources work) and
    ``cursor``. A :class:`~skillshelf.core.tool.ToolError` becomes ``error`` (its exact
    sentence) and ``error_code``. The first page carries the page count and, for a body, the
    file's line number where it starts."""
    label = LOAD_LABEL if resource is None else RESOURCE_LABEL
    request: dict[str, Any] = {"action": "load" if resource is None else "read_resource",
                               "name": source.name, "source": source.location}
    if resource is not None:
        request["path"] = resource
    if cursor is not None:
        request["cursor"] = cursor
    try:
        result = SkillTool([source.entry]).call(request)
    except ToolError as err:
        return LoadedPage("", None, True, label, error=err.message, error_code=err.code)
    meta = dict(result.metadata or {})
    next_cursor = meta.get("next_cursor")
    next_cursor = str(next_cursor) if next_cursor is not None else None
    first = cursor is None
    pages = (1 if next_cursor is None else _count(source, resource, meta)) if first else None
    if resource is None:
        body = body_only(result.output, str(meta.get("source", source.location)))
        first_line = body_first_line(str(meta.get("location") or source.location), body) if first else None
    else:
        body = result.output
        if next_cursor is not None and (cut := body.rfind(_RESOURCE_TAIL)) >= 0:
            body = body[:cut]
        first_line = 1 if first else None
    return LoadedPage(result.output, next_cursor, next_cursor is None, label, body=body, first_line=first_line,
                      pages=pages)
