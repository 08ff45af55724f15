"""The catalog list: one line per row, rendered on demand (a ``ScrollView`` with ``render_line``,
as Textual's ``Log`` and ``OptionList`` are built; no per-row widgets, no per-row measuring).

Attributes down: the screen calls :meth:`CatalogList.show_rows` with the rows of a generation and
the visible order (filter hits, grouped). Messages up: :class:`CatalogList.RowHighlighted` (the
cursor moved) and :class:`CatalogList.RowChosen` (``enter`` or a click) carry the row index.

Every row is exactly one line (its text is made visible first, so it holds no line break), so
showing 10,000 rows only sets the virtual size; a line's :class:`~textual.content.Content` is
built when it is first drawn and cached per file while the file's entry, status cells and the
column layout stay the same (a live catalog re-shows every row on each generation, SPEC H2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual

from skillshelf.core.textsafe import visible
from skillshelf.widgets.places import short_root_label
from skillshelf.widgets.rows import NAME_MAX, NAME_MIN, CatalogRow, RowLayout, fit_layout, row_prompt

__all__ = ["LINE_ROOM", "NAME_MAX", "NAME_MIN", "CatalogList", "ValueColumn"]

#: Cells the place column keeps for a body line found by the body search.
LINE_ROOM = 24
#: Rendered lines kept (a screenful is a few dozen).
_STRIP_CACHE = 1024

#: The sort-key column (``size`` / ``tokens`` sorts): its name and the cell text of a row.
ValueColumn = tuple[str, Callable[[CatalogRow], str]]



def _cells(text: str) -> int:
    """Terminal cells of ``text`` as shown (made visible): printable ASCII, nearly every name,
    is one cell per character and shown as is (10,000 rows measure in a few milliseconds)."""
    if text.isascii() and text.isprintable():
        return len(text)
    return cell_len(visible(text))

def _widest(rows: Sequence[CatalogRow]) -> tuple[int, int, int]:
    """The widest name, root label and distinguishing part of ``rows``, in cells (each distinct
    text measured once: 10,000 rows have ~10 root labels and few distinguishing parts)."""
    labels = {(r.item.provenance, r.provenance_label) for r in rows}
    return (max(map(_cells, {r.item.name for r in rows}), default=NAME_MIN),
            max((_cells(short_root_label(p, label)) for p, label in labels), default=0),
            max(map(_cells, {r.distinct for r in rows}), default=0))


class CatalogList(ScrollView, can_focus=True):
    """Catalog rows with fixed-width text columns: status, name, [sort value], exposure, root
    label, place (what tells copies of a name apart, else the location, its end kept when cut);
    the columns fit the list's width (:func:`~skillshelf.widgets.rows.fit_layout`): what tells
    copies apart always shows, the exposure and root label columns give way first.

    | key | action |
    |---|---|
    | ``j`` / ``down`` | next row |
    | ``k`` / ``up`` | previous row |
    | ``home`` / ``end`` | first / last row |
    | ``pageup`` / ``pagedown`` | a page up / down |
    | ``enter`` | choose the row (posts :class:`RowChosen`) |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "cursor_down", "Down", show=False, id="catalog.down"),
        Binding("k,up", "cursor_up", "Up", show=False, id="catalog.up"),
        Binding("home", "first", "First", show=False, id="catalog.first"),
        Binding("end", "last", "Last", show=False, id="catalog.last"),
        Binding("pageup", "page_up", "Page up", show=False, id="catalog.page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="catalog.page-down"),
        Binding("enter", "choose", "Choose", show=False, id="catalog.choose"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"catalog-list--row", "catalog-list--row-highlighted",
                                             "catalog-list--row-hover"}

    DEFAULT_CSS = """
    CatalogList {
        height: 1fr;
        padding: 0 1;
        color: $foreground;
        background: $surface;
        overflow-x: hidden;
        & > .catalog-list--row-highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .catalog-list--row-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > .catalog-list--row-hover {
            background: $block-hover-background;
        }
    }
    """

    #: Line position of the cursor in :attr:`order` (``None`` when the list is empty).
    highlighted: reactive[int | None] = reactive(None)
    _hover: reactive[int | None] = reactive(None)

    class RowHighlighted(Message):
        """The cursor moved to row ``row`` (index into the rows last shown), or ``None``."""

        def __init__(self, catalog_list: CatalogList, row: int | None) -> None:
            super().__init__()
            self.catalog_list = catalog_list
            self.row = row

        @property
        def control(self) -> CatalogList:
            return self.catalog_list

    class RowChosen(RowHighlighted):
        """``enter`` (or a click) on row ``row``."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: Sequence[CatalogRow] = ()
        self.order: list[int] = []
        self._position: dict[int, int] = {}
        self._spans: dict[int, Sequence[tuple[int, int]]] = {}
        #: widest name, root label and distinguishing part of the shown rows, in cells
        self._widest = (NAME_MIN, 0, 0)
        #: The sort-key column (``size`` / ``tokens`` sorts), or ``None``.
        self.value_column: ValueColumn | None = None
        self.row_layout = RowLayout(NAME_MIN)
        #: (locator, rejected) → (row, layout, line) for rows shown without filter spans.
        self._lines: dict[tuple[str, bool], tuple[CatalogRow, tuple[object, ...], Content]] = {}
        self._strips: LRUCache[tuple[int, bool, bool, int], Strip] = LRUCache(_STRIP_CACHE)
        #: the widest name, root label and place of every row of the rows last shown whole
        self._whole_widest: tuple[Sequence[CatalogRow], tuple[int, int, int]] | None = None

    # ------------------------------------------------------------------ attributes down
    def show_rows(
        self,
        rows: Sequence[CatalogRow],
        order: Sequence[int],
        spans: Mapping[int, Sequence[tuple[int, int]]] | None = None,
        *,
        keep: int | None = None,
        lines: Mapping[int, tuple[int, str]] | None = None,
    ) -> None:
        """Show ``rows[i]`` for each ``i`` in ``order``; ``spans`` emphasise filter matches in
        names; ``lines`` (row → file line number and text) are body lines the body search
        found, shown in the place column. The scroll position is kept (a new generation must not
        jump the view); the cursor goes to row ``keep`` when it is shown, else to the first line.
        Posts :class:`RowHighlighted` only when the cursor's row changed."""
        before = self.current_row
        self.rows = rows
        self.order = list(order)
        self._spans = dict(spans or {})
        self.lines: dict[int, tuple[int, str]] = dict(lines or {})
        self._position = {row: pos for pos, row in enumerate(self.order)}
        whole = len(self.order) == len(rows)
        if whole and self._whole_widest is not None and self._whole_widest[0] is rows:
            widest = self._whole_widest[1]  # every row again (an emptied filter): measured already
        else:
            shown = rows if whole else [rows[i] for i in self.order]
            widest = _widest(shown)
            if whole:
                self._whole_widest = (rows, widest)
        # a body line found by the body search needs room too (its start is what says most)
        self._widest = (widest[0], widest[1], max(widest[2], LINE_ROOM) if self.lines else widest[2])
        self.row_layout = self._fit_layout()
        if len(self._lines) > 2 * len(rows) + 1000:  # forget files long gone
            self._lines.clear()
        self._strips.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.order))
        target = self._position.get(keep) if keep is not None else None
        if target is None:
            target = 0 if self.order else None
        self.set_reactive(CatalogList.highlighted, target)
        if target is not None:
            self.scroll_to_highlight()
        self.refresh()
        if self.current_row != before:
            self.post_message(self.RowHighlighted(self, self.current_row))

    def update_rows(self, rows: Sequence[CatalogRow], changed: Sequence[int]) -> None:
        """Replace the rows (same indices, same order) and redraw the ``changed`` row indices
        (lint flags arrived, for example); cursor and scroll stay."""
        self.rows = rows
        if any(i in self._position for i in changed):
            self._strips.clear()
            self.refresh()

    # ------------------------------------------------------------------ reading
    @property
    def spans(self) -> dict[int, Sequence[tuple[int, int]]]:
        """The filter spans shown (row index → character ranges in the name)."""
        return self._spans

    @property
    def line_count(self) -> int:
        """Lines shown (rows in the current order)."""
        return len(self.order)

    def line_content(self, position: int) -> Content:
        """The text of line ``position`` (0-based, in the current order)."""
        row = self.order[position]
        return self._line(self.rows[row], self._spans.get(row, ()), self.lines.get(row))

    @property
    def current_row(self) -> int | None:
        """Row index under the cursor, or ``None`` when the list is empty."""
        if self.highlighted is None or not self.order:
            return None
        return self.order[self.highlighted]

    def position_of(self, row: int) -> int | None:
        """Line position of row ``row`` in the current order, or ``None`` when filtered out."""
        return self._position.get(row)

    def highlight_row(self, row: int) -> bool:
        """Move the cursor to row ``row``; False when it is not shown."""
        pos = self._position.get(row)
        if pos is None:
            return False
        self.highlighted = pos
        self.scroll_to_highlight()
        return True

    # ------------------------------------------------------------------ lines
    def _layout(self) -> tuple[object, ...]:
        return (self.row_layout, self.value_column[0] if self.value_column else None)

    def _line(self, row: CatalogRow, spans: Sequence[tuple[int, int]], matched: tuple[int, str] | None = None) -> Content:
        """``row``'s line, from the cache when the same entry object is shown with the same
        status cells and column layout (lines with filter spans or a body line are always built)."""
        value = self.value_column[1](row) if self.value_column else None
        if spans or matched is not None:
            return row_prompt(row, self.row_layout, spans, value=value, matched=matched)
        key = (row.item.location, row.rejected)
        layout = self._layout()
        hit = self._lines.get(key)
        if hit is not None:
            old, old_layout, line = hit
            if (old_layout == layout and old.item is row.item and old.state == row.state
                    and old.flag == row.flag and old.ambiguous == row.ambiguous
                    and old.provenance_label == row.provenance_label and old.distinct == row.distinct):
                return line
        line = row_prompt(row, self.row_layout, value=value)
        self._lines[key] = (row, layout, line)
        return line

    def _fit_layout(self) -> RowLayout:
        width = self.scrollable_content_region.width
        name, label, distinct = self._widest
        return fit_layout(width if width > 0 else None, name, value=self.value_column is not None,
                          widest_label=label, widest_distinct=distinct)

    def on_resize(self, event: events.Resize) -> None:
        """Re-fit the columns (what tells copies apart stays visible) when the width changed."""
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.order))
        layout = self._fit_layout()
        if layout != self.row_layout:
            self.row_layout = layout
            self._strips.clear()
            self.refresh()
        if self.highlighted is not None:
            self.scroll_to_highlight()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        pos = self.scroll_offset.y + y
        if not 0 <= pos < len(self.order):
            return Strip.blank(width, self.get_visual_style("catalog-list--row").rich_style)
        highlighted, hover = pos == self.highlighted, pos == self._hover
        key = (pos, highlighted, hover, width)
        strip = self._strips.get(key)
        if strip is None:
            if highlighted:
                style = self.get_visual_style("catalog-list--row", "catalog-list--row-highlighted")
            elif hover:
                style = self.get_visual_style("catalog-list--row", "catalog-list--row-hover")
            else:
                style = self.get_visual_style("catalog-list--row")
            strips = Visual.to_strips(self, self.line_content(pos), width, 1, style)
            strip = strips[0] if strips else Strip.blank(width)
            strip = strip.crop_extend(0, width, style.rich_style).apply_meta({"row": pos})
            self._strips[key] = strip
        return strip

    # ------------------------------------------------------------------ cursor
    def validate_highlighted(self, value: int | None) -> int | None:
        if value is None or not self.order:
            return None
        return max(0, min(value, len(self.order) - 1))

    def watch_highlighted(self, old: int | None, new: int | None) -> None:
        for pos in (old, new):
            if pos is not None:
                self.refresh_line(pos)
        if new is not None:
            self.scroll_to_highlight()
        self.post_message(self.RowHighlighted(self, self.current_row))

    def watch__hover(self, old: int | None, new: int | None) -> None:
        for pos in (old, new):
            if pos is not None:
                self.refresh_line(pos)

    def refresh_line(self, position: int) -> None:
        """Redraw line ``position`` (its cached render is dropped)."""
        for key in [k for k in self._strips.keys() if k[0] == position]:  # noqa: SIM118 (LRUCache is not iterable)
            self._strips.discard(key)
        y = position - self.scroll_offset.y
        if 0 <= y < self.scrollable_content_region.height:
            self.refresh(Region(0, y, self.scrollable_content_region.width, 1))

    def scroll_to_highlight(self) -> None:
        """Scroll so the cursor's line is visible."""
        if self.highlighted is None or not self.is_mounted:
            return
        self.scroll_to_region(Region(0, self.highlighted, max(1, self.scrollable_content_region.width), 1),
                              force=True, animate=False, immediate=True)

    def action_cursor_down(self) -> None:
        if self.order:
            self.highlighted = 0 if self.highlighted is None else self.highlighted + 1

    def action_cursor_up(self) -> None:
        if self.order:
            self.highlighted = 0 if self.highlighted is None else self.highlighted - 1

    def action_first(self) -> None:
        if self.order:
            self.highlighted = 0

    def action_last(self) -> None:
        if self.order:
            self.highlighted = len(self.order) - 1

    def action_page_down(self) -> None:
        if self.order:
            self.highlighted = (self.highlighted or 0) + max(1, self.scrollable_content_region.height)

    def action_page_up(self) -> None:
        if self.order:
            self.highlighted = (self.highlighted or 0) - max(1, self.scrollable_content_region.height)

    def action_choose(self) -> None:
        if self.current_row is not None:
            self.post_message(self.RowChosen(self, self.current_row))

    # ------------------------------------------------------------------ mouse
    def on_click(self, event: events.Click) -> None:
        pos = event.style.meta.get("row")
        if isinstance(pos, int):
            self.highlighted = pos
            self.action_choose()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        pos = event.style.meta.get("row")
        self._hover = pos if isinstance(pos, int) else None

    def on_leave(self, event: events.Leave) -> None:
        self._hover = None
