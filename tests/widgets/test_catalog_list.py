"""The catalog list widget on its own (a ``ScrollView`` with ``render_line``): one line per row,
the cursor and its messages, keys, mouse, scrolling, and 10,000 rows shown without measuring."""

from __future__ import annotations

import time

from conftest import settle
from textual.app import App, ComposeResult

from skillshelf.core.model import Generation, Provenance, Source
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.rows import build_rows


def _rows(n: int):
    sources = tuple(Source(name=f"skill-{i:05d}", location=f"/r/skill-{i:05d}/SKILL.md", provenance=Provenance.PROJECT_ZUNO,
                           canonical=f"/r/skill-{i:05d}/SKILL.md", root="/r", description=f"Skill {i}")
                    for i in range(n))
    return build_rows(Generation(1, "", "zuno", "/w", (), sources, (), ()))


class ListApp(App[None]):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.rows = _rows(n)
        self.seen: list[tuple[str, int | None]] = []

    def compose(self) -> ComposeResult:
        yield CatalogList(id="catalog")

    def on_mount(self) -> None:
        lst = self.query_one(CatalogList)
        lst.show_rows(self.rows, range(len(self.rows)))
        lst.focus()

    def on_catalog_list_row_highlighted(self, event: CatalogList.RowHighlighted) -> None:
        self.seen.append(("highlighted", event.row))

    def on_catalog_list_row_chosen(self, event: CatalogList.RowChosen) -> None:
        self.seen.append(("chosen", event.row))


async def test_one_line_per_row_keys_and_messages():
    app = ListApp(50)
    async with app.run_test(size=(80, 12)) as pilot:
        await settle(app, pilot)
        lst = app.query_one(CatalogList)
        assert (lst.line_count, lst.virtual_size.height, lst.highlighted, lst.current_row) == (50, 50, 0, 0)
        assert lst.line_content(3).plain.startswith("✓  skill-00003 index    project .zuno skill-00003")
        app.seen.clear()
        await pilot.press("j", "down", "k")
        assert lst.highlighted == 1 and app.seen == [("highlighted", 1), ("highlighted", 2), ("highlighted", 1)]
        await pilot.press("end")
        assert lst.highlighted == 49 and lst.scroll_y == 50 - lst.scrollable_content_region.height
        await pilot.press("home", "pagedown")
        assert lst.highlighted == lst.scrollable_content_region.height
        await pilot.press("enter")
        assert app.seen[-1] == ("chosen", lst.highlighted)


async def test_click_chooses_the_row_under_the_mouse_and_order_maps_rows():
    app = ListApp(20)
    async with app.run_test(size=(80, 12)) as pilot:
        await settle(app, pilot)
        lst = app.query_one(CatalogList)
        await pilot.click(CatalogList, offset=(5, 4))
        assert lst.highlighted == 4 and app.seen[-1] == ("chosen", 4)
        # a filtered order: line positions map to row indices; the kept row stays under the cursor
        lst.show_rows(app.rows, [7, 3, 11], keep=3)
        assert (lst.line_count, lst.highlighted, lst.current_row) == (3, 1, 3)
        assert lst.position_of(11) == 2 and lst.position_of(4) is None
        assert lst.highlight_row(11) and lst.current_row == 11
        assert not lst.highlight_row(4)


async def test_ten_thousand_rows_show_without_measuring_every_line():
    app = ListApp(10)
    rows = _rows(10_000)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        lst = app.query_one(CatalogList)
        started = time.perf_counter()
        lst.show_rows(rows, range(len(rows)))
        await pilot.pause()
        elapsed = time.perf_counter() - started
        assert lst.line_count == 10_000 and lst.virtual_size.height == 10_000
        await pilot.press("end")
        assert lst.current_row == 9_999 and lst.scroll_y == 10_000 - lst.scrollable_content_region.height
        # only the lines on screen were built (the rest are made when scrolled to)
        assert elapsed < 2.0  # measured ~0.05 s here; the cap only catches per-row measuring
