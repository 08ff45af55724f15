"""The catalog list: one virtualised line per row (an ``OptionList``; no per-row widgets).

Attributes down: the screen calls :meth:`CatalogList.show_rows` with the rows of a generation and
the visible order (filter hits, grouped). Messages up: :class:`CatalogList.RowHighlighted` and
:class:`CatalogList.RowChosen` carry the row index. 10,000 rows fill in ~0.3 s (DESIGN
"Measured here").

A live catalog re-shows every row on each generation (SPEC H2), so this is kept cheap: row
prompts are cached per file (reused while the file's entry object, status cells and the name
column width are the same), and every line is known to be one cell high (``text-wrap: nowrap``),
so the option list does not measure each prompt (1,000 rows: ~25 ms instead of ~90 ms).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rich.cells import cell_len
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from skillshelf.core.textsafe import visible
from skillshelf.widgets.rows import CatalogRow, prompt_fixed_width, row_prompt

__all__ = ["CatalogList"]

#: Name column width bounds, in cells.
NAME_MIN, NAME_MAX = 8, 30


class CatalogList(OptionList):
    """Catalog rows with fixed-width text columns: status, name, exposure, provenance, location.

    | key | action |
    |---|---|
    | ``j`` / ``down`` | next row |
    | ``k`` / ``up`` | previous row |
    | ``enter`` | choose the row (posts :class:`RowChosen`) |
    """

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="catalog.down"),
        Binding("k", "cursor_up", "Up", show=False, id="catalog.up"),
    ]

    DEFAULT_CSS = """
    CatalogList {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

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
        super().__init__(id=id, classes=classes, markup=False)
        self.rows: Sequence[CatalogRow] = ()
        self.order: list[int] = []
        self._position: dict[int, int] = {}
        self._spans: dict[int, Sequence[tuple[int, int]]] = {}
        self._width = NAME_MIN
        #: (locator, rejected) → (row, layout, prompt) for rows shown without filter spans.
        self._prompts: dict[tuple[str, bool], tuple[CatalogRow, tuple[object, ...], Content]] = {}
        #: The sort-key column (``size`` / ``tokens`` sorts): ``(name, row → text)``, or ``None``.
        self.value_column: tuple[str, Callable[[CatalogRow], str]] | None = None
        self._location_width: int | None = None
        self._last: tuple[Sequence[CatalogRow], list[int], dict[int, Sequence[tuple[int, int]]]] | None = None

    def _layout(self) -> tuple[object, ...]:
        return (self._width, self.value_column[0] if self.value_column else None, self._location_width)

    def _prompt(self, row: CatalogRow, spans: Sequence[tuple[int, int]]) -> Content:
        """``row``'s line, from the cache when the same entry object is shown with the same
        status cells and column layout (spans always re-render)."""
        value = self.value_column[1](row) if self.value_column else None
        if spans:
            return row_prompt(row, self._width, spans, value=value, location_width=self._location_width)
        key = (row.item.location, row.rejected)
        layout = self._layout()
        hit = self._prompts.get(key)
        if hit is not None:
            old, old_layout, prompt = hit
            if (old_layout == layout and old.item is row.item and old.state == row.state
                    and old.flag == row.flag and old.ambiguous == row.ambiguous):
                return prompt
        prompt = row_prompt(row, self._width, value=value, location_width=self._location_width)
        self._prompts[key] = (row, layout, prompt)
        return prompt

    def _compute_location_width(self) -> int | None:
        region = self.scrollable_content_region
        if not region or region.width <= 0:
            return None
        room = region.width - self._get_left_gutter_width() - prompt_fixed_width(self._width, self.value_column is not None)
        return max(room, 8)

    def on_resize(self) -> None:
        """Re-fit the location column (its end stays visible) when the width changed."""
        if self._last is not None and self._compute_location_width() != self._location_width:
            rows, order, spans = self._last
            keep = self.current_row
            self.show_rows(rows, order, spans, keep=keep)

    def show_rows(
        self,
        rows: Sequence[CatalogRow],
        order: Sequence[int],
        spans: Mapping[int, Sequence[tuple[int, int]]] | None = None,
        *,
        keep: int | None = None,
    ) -> None:
        """Show ``rows[i]`` for each ``i`` in ``order``; ``spans`` emphasise filter matches in
        names. The cursor goes to row ``keep`` when it is shown, else to the first line."""
        spans = spans or {}
        scroll_y = self.scroll_y
        self.rows = rows
        self.order = list(order)
        self._spans = dict(spans)
        self._position = {row: pos for pos, row in enumerate(self.order)}
        widest = max((cell_len(visible(rows[i].name)) for i in self.order), default=NAME_MIN)
        self._width = max(NAME_MIN, min(NAME_MAX, widest))
        self._location_width = self._compute_location_width()
        self._last = (rows, self.order, self._spans)
        if len(self._prompts) > 2 * len(rows) + 1000:  # forget files long gone
            self._prompts.clear()
        self.set_options(Option(self._prompt(rows[i], spans.get(i, ())), id=str(i)) for i in self.order)
        # keep the scroll position (a new generation must not jump the view), then make sure
        # the kept cursor is visible
        self.scroll_to(y=scroll_y, animate=False, immediate=True)
        if keep is not None and keep in self._position:
            self.highlighted = self._position[keep]
        elif self.order:
            self.highlighted = 0

    def update_rows(self, rows: Sequence[CatalogRow], changed: Sequence[int]) -> None:
        """Replace the rows (same indices, same order) and re-render the prompts of the
        ``changed`` row indices in place (e.g. lint flags arrived); cursor and scroll stay."""
        self.rows = rows
        if self._last is not None:
            self._last = (rows, self._last[1], self._last[2])
        for i in changed:
            pos = self._position.get(i)
            if pos is not None:
                self.replace_option_prompt_at_index(pos, self._prompt(rows[i], self._spans.get(i, ())))

    def _update_lines(self) -> None:
        """Every catalog line is exactly one cell high (prompts hold no newline: text is made
        visible first, and ``text-wrap: nowrap``), so the line map is built without measuring
        each prompt. Overrides ``OptionList._update_lines`` of Textual 8.2.8 (pinned)."""
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        lines = cache.lines
        start = lines[-1][0] + 1 if lines else 0
        count = len(self.options)
        for index in range(start, count):
            cache.index_to_line[index] = len(lines)
            cache.heights[index] = 1
            lines.append((index, 0))
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        virtual_size = Size(width, len(lines))
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """One line per option (see :meth:`_update_lines`)."""
        return len(self.options)

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
        self.scroll_to_highlight(top=False)
        return True

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.RowHighlighted(self, int(event.option.id) if event.option.id else None))

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.RowChosen(self, int(event.option.id) if event.option.id else None))
