"""The last run's first page of the list (:mod:`skillshelf.app.keptpage`): kept by one run of
``skillshelf``, drawn with the next run's first frame and in the catalog pane until the list has
rows; never trusted (made visible again), never an error, never kept with ``--no-cache``."""

from __future__ import annotations

import asyncio
import json
import os
import time
from argparse import Namespace
from dataclasses import replace
from pathlib import Path

from conftest import settle
from textual.content import Content
from tui_fixtures import project_workspace

from skillshelf.app import tui
from skillshelf.app.cli import build_parser, merged_options
from skillshelf.app.components.catalog_pane import WAITING_FILTER
from skillshelf.app.keptpage import PAGE_LINES, KeptPage, page_file, read_page, write_page
from skillshelf.app.screens.main import MainScreen
from skillshelf.widgets.kept_page import LAST_RUN, KeptPageView

SIZE = (120, 36)


# --------------------------------------------------------------------------- the file


def test_a_page_written_is_read_back_exactly(tmp_path):
    file = str(tmp_path / "c" / "tui" / "page.json")
    page = KeptPage("Catalog (3) · sort catalog", ("✓  alpha  index", "✓  beta   index", "⇄  gamma  search"))
    assert write_page(file, page) is True
    assert read_page(file) == page
    assert os.listdir(tmp_path / "c" / "tui") == ["page.json"]  # no temporary file left


def test_only_the_first_page_lines_are_kept(tmp_path):
    file = str(tmp_path / "page.json")
    write_page(file, KeptPage("Catalog", tuple(f"row {i}" for i in range(PAGE_LINES + 20))))
    page = read_page(file)
    assert page is not None and len(page.lines) == PAGE_LINES and page.lines[-1] == f"row {PAGE_LINES - 1}"


def test_what_is_read_is_made_visible_again(tmp_path):
    file = tmp_path / "page.json"
    file.write_text(json.dumps({"format": 1, "title": "Catalog\x1b[2J", "lines": ["\x1b]0;owned\x07name", "ok"]}),
                    encoding="utf-8")
    page = read_page(str(file))
    assert page == KeptPage("Catalog␛[2J", ("␛]0;owned␇name", "ok"))


def test_a_missing_damaged_or_foreign_file_is_no_page(tmp_path):
    f = tmp_path / "page.json"
    assert read_page(str(f)) is None
    assert read_page(None) is None
    for text in ("{", "[]", json.dumps({"format": 2, "title": "t", "lines": ["a"]}),
                 json.dumps({"format": 1, "title": 3, "lines": ["a"]}),
                 json.dumps({"format": 1, "title": "t", "lines": []}),
                 json.dumps({"format": 1, "title": "t", "lines": ["a", 4]}),
                 json.dumps({"format": 1, "title": "t", "lines": ["x" * 300_000]})):
        f.write_text(text, encoding="utf-8")
        assert read_page(str(f)) is None, text
    f.write_bytes(b"\xff\xfe")
    assert read_page(str(f)) is None


def test_a_page_that_cannot_be_written_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert write_page(str(blocker / "tui" / "page.json"), KeptPage("t", ("a",))) is False


def test_each_workspace_and_host_has_its_own_page(tmp_path):
    a = page_file(str(tmp_path), ["/w1", "/home"], "zuno")
    assert a == page_file(str(tmp_path), ["/w1", "/home"], "zuno")
    assert len({a, page_file(str(tmp_path), ["/w2", "/home"], "zuno"),
                page_file(str(tmp_path), ["/w1", "/home"], "claude")}) == 3
    assert Path(a).parent == tmp_path / "tui"


# --------------------------------------------------------------------------- the TUI


class _FirstFrame(tui.SkillshelfApp):
    """Records the kept page the first frame shows (at ``Ready``)."""

    CSS_PATH = str(Path(tui.__file__).with_name(tui.SkillshelfApp.CSS_PATH))
    seen: dict[str, object] = {}

    def on_ready(self) -> None:
        if "screen" in self.seen:
            return
        self.seen["screen"] = type(self.screen).__name__
        pages = self.screen.query(KeptPageView)
        page = pages.first() if pages else None
        self.seen["lines"] = page.lines if page is not None else None
        self.seen["title"] = _plain(page.border_title) if page is not None else None


def _plain(title: str | None) -> str:
    """A border title (Textual gives it as markup) as the terminal shows it."""
    return Content.from_markup(title or "").plain


def _workspace(tmp_path, monkeypatch) -> None:
    project_workspace(tmp_path, monkeypatch, ("alpha", "beta"))


def _ns(tmp_path, *extra: str) -> Namespace:
    return merged_options(build_parser().parse_args(["--cwd", str(tmp_path / "proj"), "--no-watch", *extra]))


async def _run(ns: Namespace) -> tuple[tui.SkillshelfApp, list[str], dict[str, object]]:
    """One ``skillshelf`` run until its list is complete: the app, its list lines, the first frame."""
    _FirstFrame.seen = {}
    app, _ = tui.app_for(ns, app_class=_FirstFrame)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            if any(isinstance(s, MainScreen) and s.generation is not None for s in app.screen_stack):
                break
            await asyncio.sleep(0.01)
        await settle(app, pilot)
        lst = app.main_screen.catalog_pane.catalog_list
        lines = [lst.line_content(i).plain for i in range(lst.line_count)]
        assert app.main_screen.catalog_pane.kept_page_lines == ()  # the list has rows: the page is gone
        assert lst.display is True
    return app, lines, dict(_FirstFrame.seen)


async def test_a_run_keeps_its_first_page_and_the_next_run_draws_it_with_its_first_frame(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    first, lines, seen = await _run(_ns(tmp_path))
    assert seen == {"screen": "StartScreen", "lines": None, "title": None}  # nothing kept yet
    assert first.page_file is not None
    kept = read_page(first.page_file)
    assert kept is not None
    # the list's lines when it was kept, in its order (their last columns are fitted to the width
    # the list had then: the lint column came later)
    assert [line.split()[:2] for line in kept.lines] == [line.split()[:2] for line in lines[:PAGE_LINES]]
    assert [line.split()[1] for line in kept.lines][-2:] == ["alpha", "beta"]  # after the built-ins
    assert kept.title == f"Catalog ({len(lines)}) · sort catalog"
    _second, lines2, seen2 = await _run(_ns(tmp_path))
    assert seen2 == {"screen": "StartScreen", "lines": kept.lines, "title": kept.title + LAST_RUN}
    assert lines2 == lines


async def test_the_catalog_pane_shows_the_kept_page_until_the_list_has_rows(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    await _run(_ns(tmp_path))  # keeps the page
    app, _ = tui.app_for(_ns(tmp_path), app_class=_FirstFrame)
    gate = asyncio.Event()
    opener = app._open_catalog

    def slow_open():  # the catalog opens only once the pane has been looked at
        deadline = time.monotonic() + 30
        while not gate.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        return opener()

    app._open_catalog = slow_open
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            if any(isinstance(s, MainScreen) for s in app.screen_stack):
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        pane = app.main_screen.catalog_pane
        assert app.kept_page is not None
        assert pane.kept_page_lines == app.kept_page.lines
        assert pane.catalog_list.display is False
        assert _plain(pane.border_title) == app.kept_page.title + LAST_RUN
        gate.set()
        await settle(app, pilot)
        assert pane.kept_page_lines == () and pane.catalog_list.display is True
        assert _plain(pane.border_title) == f"Catalog ({len(pane.rows)}) · sort catalog"


async def test_no_page_is_kept_or_read_with_no_cache(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    app, _lines, seen = await _run(_ns(tmp_path, "--no-cache"))
    assert app.page_file is None
    assert seen["lines"] is None
    assert not (tmp_path / "home" / ".cache" / "skillshelf" / "tui").exists()


def test_a_fifo_or_device_at_the_page_path_is_no_page_and_never_blocks(tmp_path):
    fifo = tmp_path / "page.json"
    os.mkfifo(fifo)
    assert read_page(str(fifo)) is None  # (a plain open would wait for a writer forever)
    assert read_page("/dev/zero") is None


def test_text_that_cannot_be_encoded_is_not_kept_and_leaves_nothing(tmp_path):
    file = str(tmp_path / "page.json")
    assert write_page(file, KeptPage("Catalog", ("bad \udcff name",))) is False
    assert os.listdir(tmp_path) == []


async def _gated(tmp_path, fail: bool = False):
    """An app whose catalog opens only once ``gate`` is set (raising when ``fail``)."""
    app, _ = tui.app_for(_ns(tmp_path), app_class=_FirstFrame)
    gate = asyncio.Event()
    opener = app._open_catalog

    def slow_open():
        deadline = time.monotonic() + 30  # (a failed test that never opens the gate does not hang)
        while not gate.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        if fail:
            raise OSError("the disk went away")
        return opener()

    app._open_catalog = slow_open
    return app, gate


async def _main_up(app, pilot) -> MainScreen:
    for _ in range(300):
        if any(isinstance(s, MainScreen) for s in app.screen_stack):
            break
        await asyncio.sleep(0.01)
    await pilot.pause()
    return app.main_screen


async def test_a_title_with_markup_is_shown_as_text(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    app, gate = await _gated(tmp_path)
    assert app.page_file is not None
    title = "Catalog [/oops] [@click=app.quit]x[/] [b]2[/b]"
    write_page(app.page_file, KeptPage(title, ("✓  alpha",)))
    _FirstFrame.seen = {}
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        assert _FirstFrame.seen["title"] == title + LAST_RUN
        assert _plain(main.catalog_pane.border_title) == title + LAST_RUN
        gate.set()
        await settle(app, pilot)
        assert main.catalog_pane.kept_page_lines == ()


async def test_a_filter_typed_over_the_kept_page_applies_to_the_rows_to_come(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    await _run(_ns(tmp_path))  # keeps the page
    app, gate = await _gated(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        pane = main.catalog_pane
        page = app.kept_page
        assert page is not None
        pane.set_query("zzqx-nothing", now=True)
        await pilot.pause()
        assert pane.kept_page_lines == page.lines  # no false "no skills match" over the page
        assert pane.query_one("#no-match").display is False
        assert _plain(pane.border_subtitle) == WAITING_FILTER  # the page says the filter waits
        pane.set_query("alpha", now=True)
        assert pane.lists_every_row is False
        gate.set()
        await settle(app, pilot)
        assert pane.kept_page_lines == ()
        assert [pane.rows[i].name for i in pane.catalog_list.order] == ["alpha"]
        assert WAITING_FILTER not in _plain(pane.border_subtitle)


async def test_a_catalog_that_cannot_be_opened_takes_the_kept_page_away(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    await _run(_ns(tmp_path))  # keeps the page
    app, gate = await _gated(tmp_path, fail=True)
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        assert main.catalog_pane.kept_page_lines != ()
        gate.set()
        await settle(app, pilot)
        pane = main.catalog_pane
        assert pane.kept_page_lines == () and pane.catalog_list.display is True
        assert _plain(pane.border_title) == "Catalog"
        assert "cannot open the catalog: " in main.query_one("#header").plain


async def test_an_empty_list_removes_the_kept_page(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    ns = _ns(tmp_path, "--host", "zhin")  # no Zhin skills here, and Zhin has no built-ins
    app, lines, _seen = await _run(ns)
    assert lines == [] and app.page_file is not None
    assert not os.path.exists(app.page_file)
    write_page(app.page_file, KeptPage("Catalog (2)", ("✓  alpha", "✓  beta")))  # an older run's
    app, lines, seen = await _run(ns)
    assert lines == [] and seen["lines"] == ("✓  alpha", "✓  beta")
    assert not os.path.exists(app.page_file)



async def _header_says(header, text: str) -> None:
    """Wait (at most 3 s) until the main screen's header holds ``text``."""
    for _ in range(300):
        if text in header.plain:
            return
        await asyncio.sleep(0.01)


async def _checked_slowly(tmp_path, monkeypatch, partial_after: float, fail: bool = False):
    """An app over a workspace whose last run kept its build and its first page: the real build
    reports the last run's whole list (``checking``), then the catalog is handed over only once
    ``gate`` is set. Returns the app, the gate and the lists :meth:`show_partial` was given."""
    from skillshelf.app.components.catalog_pane import CatalogPane

    _workspace(tmp_path, monkeypatch)
    await _run(_ns(tmp_path))  # keeps the build and the page
    app, gate = await _gated_after_open(tmp_path, fail)
    app.timings = replace(app.timings, partial_after=partial_after)
    partials: list[list[str]] = []
    real = CatalogPane.show_partial

    def show_partial(pane, generation, *, whole=False):
        builtins = [s for s in generation.sources if s.location.startswith("builtin://")]
        assert tuple(builtins) == generation.sources[:len(builtins)]  # (first, as the generation lists them)
        partials.append([s.name for s in generation.sources[len(builtins):]])
        real(pane, generation, whole=whole)

    monkeypatch.setattr(CatalogPane, "show_partial", show_partial)
    return app, gate, partials


async def _gated_after_open(tmp_path, fail: bool = False):
    """An app whose catalog is built at once but handed over only once ``gate`` is set (then
    raising when ``fail``)."""
    app, _ = tui.app_for(_ns(tmp_path), app_class=_FirstFrame)
    gate = asyncio.Event()
    opener = app._open_catalog

    def slow_open():
        catalog = opener()
        deadline = time.monotonic() + 30  # (a failed test that never opens the gate does not hang)
        while not gate.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        if fail:
            raise OSError("the disk went away")
        return catalog

    app._open_catalog = slow_open
    return app, gate


async def test_over_the_kept_page_a_quick_check_draws_no_provisional_list(tmp_path, monkeypatch):
    """With the last run's first page on screen, the last run's whole list is not drawn while
    its files are checked (drawing it would slow the check): the page stays, with the check in
    the header, until the published generation's rows replace it."""
    app, gate, partials = await _checked_slowly(tmp_path, monkeypatch, partial_after=3600.0)
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        pane = main.catalog_pane
        header = main.query_one("#header")
        await _header_says(header, "checking skill files for changes")
        assert "checking skill files for changes" in header.plain
        assert pane.kept_page_lines == app.kept_page.lines and pane.rows == [] and main.generation is None
        from skillshelf.app.components.source_details import DetailsPanel
        from skillshelf.app.screens.main import KEPT_PAGE_DETAILS

        details = main.query_one(DetailsPanel)
        assert details.details_text == KEPT_PAGE_DETAILS  # (a picture of a list: not "No source selected.")
        gate.set()
        await settle(app, pilot)
        assert main.generation is not None and pane.kept_page_lines == ()
        assert details.row is not None and details.details_text.startswith(details.row.name)
        assert {"alpha", "beta"} <= {pane.rows[i].name for i in pane.catalog_list.order}
    assert partials == []


async def test_over_the_kept_page_a_long_check_draws_the_last_runs_list(tmp_path, monkeypatch):
    """A check that outlasts ``Timings.partial_after`` gets the last run's whole list drawn in
    place of its first page (provisional, no generation yet), then the published rows."""
    app, gate, partials = await _checked_slowly(tmp_path, monkeypatch, partial_after=0.2)
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        pane = main.catalog_pane
        for _ in range(300):
            if partials:
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        assert partials == [["alpha", "beta"]]
        assert main.generation is None and pane.kept_page_lines == ()
        assert [pane.rows[i].name for i in pane.catalog_list.order if not pane.rows[i].location.startswith("builtin://")
                ] == ["alpha", "beta"]
        gate.set()
        await settle(app, pilot)
        assert main.generation is not None
        assert "checking" not in main.query_one("#header").plain
    assert partials == [["alpha", "beta"]]


async def test_a_check_that_fails_never_draws_the_last_runs_list_afterwards(tmp_path, monkeypatch):
    """A catalog that cannot be opened after its check began takes the kept page away, and the
    last run's list (never checked) is not drawn once ``Timings.partial_after`` has passed."""
    app, gate, partials = await _checked_slowly(tmp_path, monkeypatch, partial_after=1.0, fail=True)
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        pane = main.catalog_pane
        header = main.query_one("#header")
        await _header_says(header, "checking skill files for changes")
        gate.set()
        await _header_says(header, "cannot open the catalog")
        assert "cannot open the catalog: " in header.plain
        await asyncio.sleep(1.3)  # past partial_after
        await pilot.pause()
        assert partials == [] and pane.rows == [] and pane.kept_page_lines == ()
        assert "cannot open the catalog: " in header.plain


async def test_a_filter_typed_before_any_row_says_it_waits_never_no_match(tmp_path, monkeypatch):
    """With no page kept (a first run), a filter typed while the catalog is still being opened
    lists nothing and says it waits for the list, not "no skills match"; the rows that come are
    filtered."""
    _workspace(tmp_path, monkeypatch)
    app, gate = await _gated(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        main = await _main_up(app, pilot)
        pane = main.catalog_pane
        assert pane.kept_page_lines == ()
        pane.set_query("alpha", now=True)
        await pilot.pause()
        assert pane.query_one("#no-match").display is False
        assert _plain(pane.border_subtitle) == WAITING_FILTER
        assert "matches" not in _plain(pane.border_title)
        gate.set()
        await settle(app, pilot)
        assert [pane.rows[i].name for i in pane.catalog_list.order] == ["alpha"]
        assert WAITING_FILTER not in _plain(pane.border_subtitle)
