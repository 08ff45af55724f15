"""The source pane: everything about the selected row (:class:`SourceDetails`), and its body as
plain text (:class:`BodyView`), stacked in a :class:`SourcePane`.

Attributes down: :meth:`SourceDetails.show_row` with a :class:`~skillshelf.widgets.rows.CatalogRow`
and the :class:`SourceExtras` computed off the event loop, :meth:`BodyView.show_body` with text
read in a worker (widgets never touch the file system). Skill text is shown through plain
``Content`` and :func:`~skillshelf.core.textsafe.visible` (SPEC X1); the body goes into a
read-only ``TextArea`` (100 KB in ~0.1 s; ``Markdown`` would take seconds, DESIGN "Measured here").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static, TextArea
from textual.widgets.text_area import Selection

from skillshelf.core.hosts.base import Fact
from skillshelf.core.model import Diagnostic, Rejected, Severity, Source, Status
from skillshelf.core.textsafe import visible
from skillshelf.widgets.rows import CatalogRow

__all__ = [
    "KEPT_NOTE",
    "TITLE_MAX",
    "BodyView",
    "SourceDetails",
    "SourceExtras",
    "SourcePane",
    "details_content",
    "diagnostic_line",
]

#: Most characters of the skill name in the pane's title line (then ``…``).
TITLE_MAX = 60
#: What the pane says for a kept-last-valid source (SPEC H3).
KEPT_NOTE = ("the host is showing a kept (older) version: the file on disk changed and is invalid; "
             "lint below describes the file on disk")


@dataclass(frozen=True)
class SourceExtras:
    """What was computed off the event loop for the shown row (attributes down).

    ``lint``: lint findings (SPEC F5) for ``lint_target`` (the host's; the pane's label names
    it), ``None`` while computing; ``display_origin`` / ``short_origin``: the sidecar file that
    set the display name / short description (SPEC E3); ``remote``: ``(url, version)`` of a
    remote source (SPEC R); ``resources``: ``(relative path, size in bytes)`` of the skill
    folder's files, ``resources_cut`` when the list was capped; ``facts``: what the host alone
    says about the source, shown under the heading ``facts_title`` (the host's name).
    """

    lint: tuple[Diagnostic, ...] | None = None
    display_origin: str | None = None
    short_origin: str | None = None
    remote: tuple[str, str | None] | None = None
    resources: tuple[tuple[str, int], ...] | None = None
    resources_cut: bool = False
    facts: tuple[Fact, ...] = ()
    facts_title: str = ""
    lint_target: str = "spec"


_LABEL_WIDTH = 12
#: Hex digits of the content SHA-256 shown (then ``…``).
SHA_SHOWN = 16
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
        return datetime.fromtimestamp(mtime, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return "—"


class _Lines:
    """Builds the details Content line by line (label column + value).

    With a ``width`` (cells of the details view), long values wrap under themselves with a
    hanging indent, so the label column stays aligned; without one, lines are left to the
    widget's own wrapping."""

    def __init__(self, width: int | None = None) -> None:
        self.parts: list[str | tuple[str, str] | Content] = []
        self.width = width

    def line(self, *parts: str | tuple[str, str] | Content) -> None:
        if self.parts:
            self.parts.append("\n")
        self.parts.extend(parts)

    def hanging(self, lead: str | tuple[str, str] | Content, *parts: str | tuple[str, str] | Content,
                indent: int | None = None) -> None:
        """One logical line: ``lead`` then ``parts``; continuation lines of a value too long for
        :attr:`width` start at column ``indent`` (default: the width of ``lead``)."""
        lead_c = Content.assemble(lead)
        value = Content.assemble(*parts)
        indent = lead_c.cell_length if indent is None else indent
        if self.width is None or lead_c.cell_length + value.cell_length <= self.width:
            self.line(lead_c, value)
            return
        first_room, room = self.width - lead_c.cell_length, self.width - indent
        if first_room < 12 or room < 12:
            self.line(lead_c, value)
            return
        first = value.wrap(first_room)[0]
        if not value.plain.startswith(first.plain):
            self.line(lead_c, value)
            return
        rest = value[len(first.plain):]
        rest = rest[len(rest.plain) - len(rest.plain.lstrip(" ")):]
        self.line(lead_c, first)
        for piece in rest.wrap(room) if rest.plain else []:
            self.line(" " * indent, piece)

    def field(self, label: str, value: str | Content, style: str = "") -> None:
        self.fields(label, (value, style) if style and isinstance(value, str) else value)

    def fields(self, label: str, *parts: str | tuple[str, str] | Content) -> None:
        """A labelled line whose value is several styled ``parts``."""
        self.hanging((label.ljust(_LABEL_WIDTH), "$foreground-muted"), *parts)

    def blank(self) -> None:
        self.line("")

    def content(self) -> Content:
        return Content.assemble(*self.parts)


def _diagnostics(lines: _Lines, diagnostics: Iterable[Diagnostic], title: str = "host verdict") -> None:
    diags = list(diagnostics)
    if not diags:
        return
    lines.blank()
    lines.line((f"{title} ({len(diags)})", "bold"))
    _diagnostic_lines(lines, diags)


def _diagnostic_lines(lines: _Lines, diags: Iterable[Diagnostic]) -> None:
    for d in diags:
        lines.hanging("  ", (diagnostic_line(d), _SEVERITY_STYLE.get(d.severity, "")), indent=4)
        if d.hint:
            lines.hanging("    hint: ", visible(d.hint), indent=6)
        if d.path:
            lines.hanging("    in: ", visible(d.path), indent=6)


def _frontmatter(lines: _Lines, frontmatter: Mapping[str, Any]) -> None:
    if not frontmatter:
        return
    lines.blank()
    lines.line(("frontmatter", "bold"))
    for key, value in frontmatter.items():
        lines.hanging(Content.assemble("  ", (visible(str(key)) + ":", "$foreground-muted"), " "), _value(value), indent=4)


def _lint(lines: _Lines, lint: tuple[Diagnostic, ...] | None, builtin: bool, target: str = "spec") -> None:
    lines.blank()
    label = (f"lint ({visible(target)})", "bold")
    if builtin:
        lines.line(label, "  ", ("built-in: no file to lint", "$foreground-muted"))
        return
    if lint is None:
        lines.line(label, "  ", ("computing…", "$foreground-muted"))
        return
    errors = sum(1 for d in lint if d.severity is Severity.ERROR)
    warnings = sum(1 for d in lint if d.severity is Severity.WARNING)
    if not lint:
        lines.line(label, "  ", ("clean", "$success"))
        return
    summary = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    lines.line(label, "  ", (summary, "$error" if errors else "$warning"))
    _diagnostic_lines(lines, lint)


def _resources(lines: _Lines, extras: SourceExtras) -> None:
    if extras.resources is None:
        return
    lines.blank()
    more = "+" if extras.resources_cut else ""
    lines.line((f"resources ({len(extras.resources)}{more})", "bold"), ("  R to read one", "$foreground-muted"))
    if not extras.resources:
        lines.line(("  (none)", "$foreground-muted"))
    for path, size in extras.resources:
        size_text = "?" if size < 0 else f"{size:,} B"
        lines.hanging("  ", visible(path), ("  " + size_text, "$foreground-muted"), indent=4)


def details_content(row: CatalogRow, extras: SourceExtras | None = None, width: int | None = None) -> Content:
    """Everything the pane shows above the body for ``row`` (a source or a rejected file);
    ``extras`` adds what workers computed (lint, sidecar origins, remote origin, resources, the
    host's facts). ``width`` (cells) wraps long values under the value column (hanging indent).

    Order: the title (name cut at :data:`TITLE_MAX` characters; the locator heads the pane
    above, :meth:`SourcePane.show_head`), exposure, enabled and
    status (with the kept-last-valid note, SPEC H3; the host's reason and the winning copies of
    a shadowed source), the host's facts, then the host verdict and the lint — so the
    reason behind a ``!`` or ``✗`` is visible without scrolling — then the longer metadata
    (provenance, root, aliases, description, sidecars, size, sha256, frontmatter, resources)."""
    extras = extras or SourceExtras()
    item = row.item
    lines = _Lines(width)
    name = visible(item.name)
    if len(name) > TITLE_MAX:
        name = name[: TITLE_MAX - 1] + "…"
    title: list[str | tuple[str, str]] = [(name, "bold")]
    if isinstance(item, Rejected):
        title += ["  ·  ", ("rejected", "$error")]
    elif row.ambiguous:
        title += ["  ·  ", (f"ambiguous ({row.ambiguous})", "$warning")]
    if isinstance(item, Source) and item.status is Status.KEPT_LAST_VALID:
        title += ["  ·  ", ("kept-last-valid", "$warning")]
    lines.line(*title)
    if isinstance(item, Rejected):
        if item.warning is not None:
            lines.field("warning", f"{visible(item.warning.kind)}: {visible(item.warning.message)}", "$error")
    else:
        _state_fields(lines, item)
        if extras.facts:
            _facts(lines, extras.facts_title, extras.facts)
    _diagnostics(lines, item.diagnostics)
    _lint(lines, extras.lint, item.location.startswith("builtin://"), extras.lint_target)
    lines.blank()
    lines.field("provenance", item.provenance.value)
    if extras.remote is not None:
        url, version = extras.remote
        lines.field("origin", visible(url))
        lines.field("version", visible(version) if version is not None else "— (the index gives none)")
    elif item.provenance.value == "remote":
        lines.field("origin", "(unknown: not pulled in this session)", "$foreground-muted")
    if item.root:
        lines.field("root", visible(item.root))
    if item.aliases:
        lines.field("aliases", ", ".join(visible(a) for a in item.aliases))
    if isinstance(item, Source):
        _source_fields(lines, item, extras)
    size = f"{item.size:,} bytes · modified {_when(item.mtime)}"
    lines.field("size", size)
    if item.content_sha256:
        sha = visible(item.content_sha256)
        label = "kept sha256" if isinstance(item, Source) and item.status is Status.KEPT_LAST_VALID else "sha256"
        lines.field(label, sha[:SHA_SHOWN] + ("…" if len(sha) > SHA_SHOWN else ""))
    _frontmatter(lines, item.frontmatter)
    _resources(lines, extras)
    return lines.content()


_FACT_STYLE = {Severity.ERROR: "$error", Severity.WARNING: "$warning", Severity.INFO: "$accent"}


def _facts(lines: _Lines, title: str, facts: Iterable[Fact]) -> None:
    """The host's own facts (:meth:`HostSession.source_facts
    <skillshelf.core.hosts.base.HostSession.source_facts>`): one labelled line each, detail lines
    indented under it."""
    lines.blank()
    lines.line((visible(title) or "host", "bold"))
    for fact in facts:
        style = _FACT_STYLE.get(fact.severity, "") if fact.severity is not None else ""
        lines.fields(visible(fact.label), (visible(fact.value), style) if style else visible(fact.value))
        for detail in fact.detail:
            lines.hanging("  ", visible(detail), indent=4)


def _sidecar_origin(s: Source, path: str | None) -> str:
    if path is None and len(s.metadata_sources) == 1:
        path = s.metadata_sources[0]
    if path is None:
        return " — from a sidecar"
    return f" — from sidecar {visible(path)}"


def _state_fields(lines: _Lines, s: Source) -> None:
    """Exposure and why, enabled, status (short: these come before the verdict and lint)."""
    lines.field("exposure", f"{s.exposure.value} — {visible(s.exposure_reason)}")
    if s.enabled:
        lines.field("enabled", "yes")
    else:
        reason = f" — {visible(s.disabled_reason)}" if s.disabled_reason else ""
        lines.field("enabled", f"no{reason}", "$warning")
    if s.status is Status.KEPT_LAST_VALID:
        lines.fields("status", (s.status.value, "$warning"), " — ", (KEPT_NOTE, "$warning"))
    elif s.status_reason:
        lines.fields("status", s.status.value, " — ", visible(s.status_reason))
    else:
        lines.field("status", s.status.value)
    for winner in s.shadowed_by:
        lines.field("shadowed by" if s.status is Status.SHADOWED else "competes", visible(winner))


def _source_fields(lines: _Lines, s: Source, extras: SourceExtras) -> None:
    if s.display_name is not None:
        lines.fields("display", visible(s.display_name),
                     (_sidecar_origin(s, extras.display_origin), "$foreground-muted"))
    if s.short_description is not None:
        lines.fields("short", visible(s.short_description),
                     (_sidecar_origin(s, extras.short_origin), "$foreground-muted"))
    if s.description is None:
        lines.field("description", "(none: not described, so never indexed)", "$warning")
    else:
        lines.field("description", visible(s.description))
    if s.metadata_sources:
        lines.field("sidecars", ", ".join(visible(m) for m in s.metadata_sources))


class SourceDetails(VerticalScroll):
    """The scrollable details of the shown row (:func:`details_content`), re-wrapped to its width."""

    DEFAULT_CSS = """
    SourceDetails { height: 1fr; min-height: 3; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = "source-details-scroll", classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown: tuple[CatalogRow, SourceExtras | None] | None = None
        self._wrap_width: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content("No source selected."), id="source-details", markup=False)

    def _text_widget(self) -> Static:
        return self.query_one("#source-details", Static)

    def _details_width(self) -> int | None:
        width = self._text_widget().size.width
        return width if width > 0 else None

    def _render_details(self) -> None:
        if self._shown is None:
            return
        row, extras = self._shown
        self._wrap_width = self._details_width()
        self._text_widget().update(details_content(row, extras, self._wrap_width))

    def on_resize(self) -> None:
        """Re-wrap the details for the new width (hanging indents are computed, not CSS)."""
        if self._shown is not None and self._details_width() != self._wrap_width:
            self.call_after_refresh(self._render_details)

    def show_row(self, row: CatalogRow | None, extras: SourceExtras | None = None, *, keep_scroll: bool = False) -> None:
        """Show ``row``'s details (or the empty-state line); ``keep_scroll`` keeps the scroll
        position (the same row with new extras), else the view goes back to the top."""
        if row is None:
            self._shown = None
            self._text_widget().update(Content("No source selected."))
        else:
            self._shown = (row, extras)
            self._render_details()
        if not keep_scroll:
            self.scroll_home(animate=False)

    def show_message(self, message: str) -> None:
        """Replace the details with one message (an error, the empty-catalog text), made visible."""
        self._shown = None
        self._text_widget().update(Content(visible(message, multiline=True)))

    @property
    def details_text(self) -> str:
        """The plain text of the details without the display wrapping (one line per field)."""
        if self._shown is not None:
            return details_content(*self._shown).plain
        return self.shown_text

    @property
    def shown_text(self) -> str:
        """The details exactly as displayed (wrapped with hanging indents)."""
        content = self._text_widget().content
        return content.plain if isinstance(content, Content) else str(content)


class BodyView(Vertical):
    """A title line, an optional note line and the read-only body text with the file's line numbers."""

    DEFAULT_CSS = """
    BodyView { height: 1fr; min-height: 6; }
    BodyView > #source-body-title { height: 1; background: $panel; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis; }
    BodyView > #source-body-note { height: 1; padding: 0 1; color: $warning; text-wrap: nowrap;
        text-overflow: ellipsis; display: none; }
    BodyView > #source-body-note.-shown { display: block; }
    BodyView > #source-body { height: 1fr; min-height: 4; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Content("body"), id="source-body-title", markup=False)
        yield Static(Content(""), id="source-body-note", markup=False)
        yield TextArea("", read_only=True, soft_wrap=True, show_line_numbers=True, show_cursor=False, id="source-body")

    def show_title(self, title: str) -> None:
        """Set the line above the body (``body · page 2 of 3 · raw``, a refusal, a resource)."""
        self.query_one("#source-body-title", Static).update(Content(visible(title)))

    def show_body(self, text: str, *, first_line: int = 1, note: str = "") -> None:
        """Load ``text`` (made visible here, newlines kept) numbering its lines from
        ``first_line`` (the file's own line number of the first line: a body starts after the
        frontmatter, a later page where the previous one stopped). ``note`` (why the view is
        special: rejected, disabled) shows on a line above the text, never inside it."""
        area = self.query_one("#source-body", TextArea)
        area.line_number_start = max(1, int(first_line))
        area.load_text(visible(text, multiline=True))
        note_widget = self.query_one("#source-body-note", Static)
        note_widget.update(Content(visible(note)))
        note_widget.set_class(bool(note), "-shown")

    def reveal_line(self, line: int) -> bool:
        """Select file line ``line`` of the shown text and scroll to it (the body search's match);
        False when the shown text does not hold that line."""
        area = self.query_one("#source-body", TextArea)
        index = int(line) - area.line_number_start
        if not 0 <= index < area.document.line_count:
            return False
        area.selection = Selection((index, 0), (index, len(area.document.get_line(index))))
        # scroll_cursor_visible does nothing without a shown cursor: scroll to the line ourselves
        self.call_after_refresh(self._scroll_to_line, index)
        return True

    def _scroll_to_line(self, index: int) -> None:
        area = self.query_one("#source-body", TextArea)
        y = area.wrapped_document.location_to_offset((index, 0)).y
        area.scroll_to(y=max(0, y - area.scrollable_content_region.height // 2), animate=False)

    @property
    def body_title(self) -> str:
        """The plain text of the line above the body."""
        content = self.query_one("#source-body-title", Static).content
        return content.plain if isinstance(content, Content) else str(content)

    @property
    def body_note(self) -> str:
        """The note line above the body (``""`` when none)."""
        content = self.query_one("#source-body-note", Static).content
        return content.plain if isinstance(content, Content) else str(content)

    @property
    def body_text(self) -> str:
        """The text in the body view."""
        return self.query_one("#source-body", TextArea).text


class SourcePane(Vertical):
    """The shown row's full locator (a head line that never scrolls away, so copies of one name
    are told apart here too), a :class:`SourceDetails` above a :class:`BodyView` (pass
    subclasses as children to add behaviour; by default plain ones). The properties read the
    parts (tests, copy)."""

    DEFAULT_CSS = """
    SourcePane { width: 1fr; height: 1fr; }
    SourcePane > #source-head { height: auto; max-height: 4; padding: 0 1 0 0; color: $accent; text-style: bold; }
    """

    def __init__(self, *children: Widget, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Static(Content(""), id="source-head", markup=False),
                         *(children or (SourceDetails(), BodyView())), id=id, classes=classes)

    def show_head(self, location: str | None) -> None:
        """Head the pane with ``location`` in full (made visible; wrapped, never cut), or nothing."""
        head = self.query_one("#source-head", Static)
        head.update(Content(visible(location or "")))
        head.display = bool(location)

    @property
    def head_text(self) -> str:
        """The head line's plain text (``""`` when no row is shown)."""
        content = self.query_one("#source-head", Static).content
        return content.plain if isinstance(content, Content) else str(content)

    @property
    def details(self) -> SourceDetails:
        """The details part."""
        return self.query_one(SourceDetails)

    @property
    def body(self) -> BodyView:
        """The body part."""
        return self.query_one(BodyView)

    @property
    def details_text(self) -> str:
        """See :attr:`SourceDetails.details_text`."""
        return self.details.details_text

    @property
    def shown_text(self) -> str:
        """See :attr:`SourceDetails.shown_text`."""
        return self.details.shown_text

    @property
    def body_title(self) -> str:
        """See :attr:`BodyView.body_title`."""
        return self.body.body_title

    @property
    def body_note(self) -> str:
        """See :attr:`BodyView.body_note`."""
        return self.body.body_note

    @property
    def body_text(self) -> str:
        """See :attr:`BodyView.body_text`."""
        return self.body.body_text
