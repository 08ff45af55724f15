"""The source pane: everything about the selected row, and its body as plain text.

The screen sets it (attributes down): :meth:`SourcePane.show_row` with a
:class:`~skillshelf.widgets.rows.CatalogRow`, :meth:`SourcePane.show_body` with text it read in a
worker (widgets never touch the file system). Skill text is shown through plain ``Content`` and
:func:`~skillshelf.core.textsafe.visible` (SPEC X1); the body goes into a read-only ``TextArea``
(100 KB in ~0.1 s; ``Markdown`` would take seconds, DESIGN "Measured here").
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static, TextArea

from skillshelf.core.model import Diagnostic, Rejected, Severity, Source
from skillshelf.core.textsafe import visible
from skillshelf.widgets.rows import CatalogRow

__all__ = ["SourcePane", "details_content", "diagnostic_line"]

_LABEL_WIDTH = 12
_SEVERITY_STYLE = {Severity.ERROR: "$error", Severity.WARNING: "$warning", Severity.INFO: "$accent"}


def diagnostic_line(d: Diagnostic) -> str:
    """``line 3 col 14 error[yaml-error] message (field description)`` — position parts only when
    known; plain text, made visible (SPEC X1)."""
    where = []
    if d.line is not None:
        where.append(f"line {d.line}")
    if d.column is not None:
        where.append(f"col {d.column}")
    text = " ".join(where + [f"{d.severity.value}[{visible(d.code)}] {visible(d.message)}"])
    if d.field:
        text += f" (field {visible(d.field)})"
    return text


def _value(value: Any) -> str:
    if isinstance(value, str):
        return visible(value)
    try:
        return visible(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return visible(repr(value))


def _when(mtime: float) -> str:
    if not mtime:
        return "—"
    try:
        return datetime.fromtimestamp(mtime, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return "—"


class _Lines:
    """Builds the details Content line by line (label column + value)."""

    def __init__(self) -> None:
        self.parts: list[str | tuple[str, str] | Content] = []

    def line(self, *parts: str | tuple[str, str] | Content) -> None:
        if self.parts:
            self.parts.append("\n")
        self.parts.extend(parts)

    def field(self, label: str, value: str, style: str = "") -> None:
        self.line((label.ljust(_LABEL_WIDTH), "$foreground-muted"), (value, style) if style else value)

    def blank(self) -> None:
        self.line("")

    def content(self) -> Content:
        return Content.assemble(*self.parts)


def _diagnostics(lines: _Lines, diagnostics: Iterable[Diagnostic]) -> None:
    diags = list(diagnostics)
    if not diags:
        return
    lines.blank()
    lines.line((f"diagnostics ({len(diags)})", "bold"))
    for d in diags:
        lines.line("  ", (diagnostic_line(d), _SEVERITY_STYLE.get(d.severity, "")))
        if d.hint:
            lines.line("    hint: ", visible(d.hint))
        if d.path:
            lines.line("    in: ", visible(d.path))


def _frontmatter(lines: _Lines, frontmatter: Mapping[str, Any]) -> None:
    if not frontmatter:
        return
    lines.blank()
    lines.line(("frontmatter", "bold"))
    try:
        items = list(frontmatter.items())
    except Exception:  # a hostile mapping must not break the pane
        items = []
    for key, value in items:
        lines.line("  ", (visible(str(key)) + ":", "$foreground-muted"), " ", _value(value))


def details_content(row: CatalogRow) -> Content:
    """Everything the pane shows above the body for ``row`` (a source or a rejected file)."""
    item = row.item
    lines = _Lines()
    title: list[str | tuple[str, str]] = [(visible(item.name), "bold")]
    if isinstance(item, Rejected):
        title += ["  ·  ", ("rejected", "$error")]
    elif row.ambiguous:
        title += ["  ·  ", (f"ambiguous ({row.ambiguous})", "$warning")]
    lines.line(*title)
    lines.field("locator", visible(item.location))
    lines.field("provenance", item.provenance.value)
    if item.root:
        lines.field("root", visible(item.root))
    if item.aliases:
        lines.field("aliases", ", ".join(visible(a) for a in item.aliases))
    if isinstance(item, Rejected):
        if item.warning is not None:
            lines.field("warning", f"{visible(item.warning.kind)}: {visible(item.warning.message)}", "$error")
    else:
        _source_fields(lines, item)
    size = f"{item.size:,} bytes · modified {_when(item.mtime)}"
    lines.field("size", size)
    if item.content_sha256:
        lines.field("sha256", visible(item.content_sha256))
    _diagnostics(lines, item.diagnostics)
    _frontmatter(lines, item.frontmatter)
    return lines.content()


def _source_fields(lines: _Lines, s: Source) -> None:
    lines.field("exposure", f"{s.exposure.value} ({visible(s.exposure_reason)})")
    if s.enabled:
        lines.field("enabled", "yes")
    else:
        reason = f" ({visible(s.disabled_reason)})" if s.disabled_reason else ""
        lines.field("enabled", f"no{reason}", "$warning")
    lines.field("status", s.status.value)
    if s.display_name is not None:
        lines.field("display", visible(s.display_name))
    if s.short_description is not None:
        lines.field("short", visible(s.short_description))
    if s.description is None:
        lines.field("description", "(none: not described, so never indexed)", "$warning")
    else:
        lines.field("description", visible(s.description))
    if s.metadata_sources:
        lines.field("sidecars", ", ".join(visible(m) for m in s.metadata_sources))


class SourcePane(Vertical):
    """Details (scrollable) above a read-only body view."""

    DEFAULT_CSS = """
    SourcePane { width: 1fr; height: 1fr; }
    SourcePane > #source-details-scroll { height: 1fr; min-height: 6; }
    SourcePane > #source-body { height: 1fr; min-height: 4; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="source-details-scroll"):
            yield Static(Content("No source selected."), id="source-details", markup=False)
        yield TextArea("", read_only=True, soft_wrap=True, show_line_numbers=True, id="source-body")

    def show_row(self, row: CatalogRow | None) -> None:
        """Show ``row``'s details (or an empty-state line) and clear the body until it arrives."""
        details = self.query_one("#source-details", Static)
        if row is None:
            details.update(Content("No source selected."))
        else:
            details.update(details_content(row))
        self.query_one("#source-details-scroll", VerticalScroll).scroll_home(animate=False)
        self.show_body("")

    def show_message(self, message: str) -> None:
        """Replace the details with one line (an error, ``loading…``)."""
        self.query_one("#source-details", Static).update(Content(visible(message)))

    def show_body(self, text: str) -> None:
        """Load ``text`` (already read; made visible here, newlines kept) into the body view."""
        area = self.query_one("#source-body", TextArea)
        area.load_text(visible(text, multiline=True))

    @property
    def details_text(self) -> str:
        """The plain text of the details (for tests and copy)."""
        content = self.query_one("#source-details", Static).content
        return content.plain if isinstance(content, Content) else str(content)

    @property
    def body_text(self) -> str:
        """The text in the body view."""
        return self.query_one("#source-body", TextArea).text
