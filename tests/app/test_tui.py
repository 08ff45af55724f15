"""Pilot tests of the main screen on a fake catalog (DESIGN "The TUI"; SPEC X1, D6, F6)."""

from __future__ import annotations

import html
import re

import pytest
from conftest import settle, tui_app
from textual.notifications import Notify
from textual.widgets import Input, TextArea
from tui_fixtures import X1_DESCRIPTION, FakeCatalog

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.screens.help import HelpScreen
from skillshelf.app.screens.main import MainScreen
from skillshelf.app.tui import display_path
from skillshelf.core.catalog import Catalog
from skillshelf.core.filter import FilterIndex
from skillshelf.core.hosts.zuno.installed import policy_marker
from skillshelf.core.paths import Environment
from skillshelf.core.render import Form, render_budgeted
from skillshelf.core.tokens import TokenCounter
from skillshelf.widgets.budget_meter import BudgetMeter
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.source_pane import SourcePane

SIZE = (120, 40)


@pytest.fixture
def catalog(tmp_path):
    return FakeCatalog(tmp_path)


def make_app(catalog):
    return tui_app(lambda: catalog, host="zuno", cwd_display="~/w")


def shown_names(app) -> list[str]:
    lst = app.screen.query_one(CatalogList)
    return [app.main_screen.rows[i].name for i in lst.order]


def screen_text(app) -> str:
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def test_header_rows_and_meter(catalog, tmp_path):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = screen_text(app)
        assert "skillshelf ─ Zuno 0.10.3 ─ ~/w ─ generation 1 ─ 5 sources · 1 ambiguous · 1 broken" in text
        lst = app.screen.query_one(CatalogList)
        assert lst.line_count == 6
        assert shown_names(app) == ["docx", "pdf", "pdf", "code-review", "xlsx", "broken-one"]
        states = [app.main_screen.rows[i].state + app.main_screen.rows[i].flag for i in lst.order]
        # code-review has no description: the host accepts it, spec lint (F5) flags an error
        assert states == ["✓ ", "◆ ", "◆ ", "✓!", "✓s", "✗!"]
        meter = app.screen.query_one(BudgetMeter)
        expected = render_budgeted(catalog.current.entries(), Form.INDEX, 8000)
        # Z-P: the budget counts the index render; the prompt is both sections (the policy stand-in
        # of Zuno's 1,423 characters, then the index with Zuno's search-only sentence for xlsx)
        index = expected.text + (
            "\n1 additional search-only Skill source(s) are omitted from the initial index and remain available "
            "through action `search` or paged action `list`."
        )
        prompt = policy_marker("0.10.3") + "\n\n" + index
        # the policy stand-in counts as Zuno's real text (275 cl100k tokens with the blank line)
        tokens = TokenCounter().count(index)
        assert tokens.exact and tokens.tokens == 163
        assert (meter.used, meter.limit, meter.truncated, meter.omitted) == (len(expected.text), 8000, 0, 0)
        assert (meter.prompt, meter.sections) == (len(prompt), (("policy", 1423), ("index", len(index))))
        # two locators hold tmp_path, so the sizes follow its length (pytest-9 → pytest-10: 2 more; 439 and 2,009 at 56 characters)
        assert index.count(str(tmp_path)) == 2
        paths = 2 * len(str(tmp_path))
        assert (meter.used - paths, meter.prompt - paths, len(index) - paths) == (327, 1897, 472)
        assert (meter.tokens, meter.tokens_exact) == (275 + 163, True)
        assert "index █" in text and f" {meter.used:,} / 8,000 characters · 0 truncated · 0 omitted" in text
        assert (f"prompt {meter.prompt:,} characters (policy 1,423 + index {len(index):,}, joined by a blank line)"
                " · 438 tokens (tiktoken)") in text
        # by whose rule, in words
        assert "Zuno's index budget: context window unknown → the default index budget of 8,000 characters" in text


async def test_filter_narrows_and_escape_clears(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press("p", "d", "f")
        await pilot.pause()
        assert shown_names(app) == ["pdf", "pdf"]
        assert "Catalog (2 matches · 6 rows) · sort relevance" in screen_text(app)
        app.screen.query_one("#filter", Input).value = "spredsheet"  # typo, description match
        await pilot.pause()
        assert shown_names(app) == ["xlsx"]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query_one("#filter", Input).value == ""
        assert len(shown_names(app)) == 6
        assert isinstance(app.focused, CatalogList)


async def test_keys_queued_behind_slash_go_into_the_filter_not_to_the_lists_keys(catalog):
    """``/`` then letters that arrive before the screen has handled the ``/`` (typed while it
    is busy, or pasted): every letter is typed into the filter, none acts as a key of the list
    (``w`` would open the what-if screen, ``h`` switch the host); ``/`` and ``q`` typed in the
    filter are letters."""
    from textual import events

    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        for key, char in (("slash", "/"), ("w", "w"), ("h", "h"), ("a", "a"), ("slash", "/"), ("o", "o"), ("q", "q")):
            event = events.Key(key, char)  # all queued before the first is handled, as the terminal sends them
            event.set_sender(app)
            app._driver.send_message(event)
        await settle(app, pilot)
        assert app.screen is main and main.host.name == "zuno"
        assert isinstance(app.focused, Input)
        assert main.query_one("#filter", Input).value == "wha/oq" and not app.closing


async def test_select_row_shows_locator_description_and_body(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "j", "j", "k")  # docx -> pdf -> pdf(global) -> code-review -> pdf(global)
        await settle(app, pilot)
        pane = app.screen.query_one(SourcePane)
        pdf_global = catalog.current.sources[3]
        assert pane.head_text == pdf_global.location      # the pane heads with the full locator
        assert "pdf  ·  ambiguous (2)" in pane.details_text
        assert "description Global PDF helper" in pane.details_text
        assert pane.body_text == "global pdf body\n"  # the body as the skill tool loads it (L3)
        assert pane.body_title.startswith("body · page 1 of 1")
        await pilot.press("enter")
        assert app.focused is not None and app.focused.id == "source-details-scroll"
        await pilot.press("escape")
        assert isinstance(app.focused, CatalogList)


async def test_f6_rejected_row_shows_diagnostic_with_line(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("end")
        await settle(app, pilot)
        details = app.screen.query_one(SourcePane).details_text
        assert "broken-one  ·  rejected" in details
        assert "warning     Frontmatter: invalid YAML frontmatter" in details
        assert "line 3 col 14 error[yaml-error] mapping values are not allowed here (field description)" in details


async def test_d6_next_and_previous_conflict(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lst = app.screen.query_one(CatalogList)
        assert lst.highlighted == 0
        await pilot.press("n")
        assert lst.highlighted == 1
        await pilot.press("down", "down", "n")  # from code-review wraps to the pdf group start
        assert lst.highlighted == 1
        await pilot.press("home", "N")
        assert lst.highlighted == 1


async def test_refresh_publishes_next_generation(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "r")
        await settle(app, pilot)
        assert catalog.refreshes == 1
        assert "generation 2" in screen_text(app)
        assert app.screen.query_one(CatalogList).highlighted == 1  # cursor kept on the same row


async def test_help_opens_and_closes(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "next ambiguous name (conflict)" in screen_text(app)
        text = app.screen.query_one("#help-text").content.plain  # the whole (scrollable) help
        assert "↺  kept-last-valid" in text
        for keys in ("s", "g", "]", "[", "v", "R", "p"):  # sort, agents, pages, raw, files, pull are listed
            assert f"\n  {keys:<10}" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_palette_jumps_to_skill(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"xlsx")
        await settle(app, pilot)  # the palette has listed its hits (its search is a worker)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        lst = app.screen.query_one(CatalogList)
        assert app.main_screen.rows[lst.current_row].name == "xlsx"
        assert "exposure    search — sidecar agents/zuno.yaml" in app.screen.query_one(SourcePane).details_text


async def test_x1_markup_and_escapes_shown_literally(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "down", "down")  # code-review
        await settle(app, pilot)
        pane = app.screen.query_one(SourcePane)
        assert "Review code [bold red]x[/] then ␛[31mred␛[0m done" in pane.details_text
        assert "\x1b" not in pane.details_text and "\x1b" not in pane.body_text
        assert "body with ␛[2J escape" in pane.body_text
        # the description sits below the verdict and lint: scroll the details to it
        pane.query_one("#source-details-scroll").scroll_end(animate=False)
        await pilot.pause()
        text = screen_text(app)
        assert "[bold red]x[/]" in text and "␛[31mred␛[0m" in text
        assert X1_DESCRIPTION not in text


def test_display_path_home_tilde():
    assert display_path("/home/u/src/app", "/home/u") == "~/src/app"
    assert display_path("/home/user2", "/home/u") == "/home/user2"
    assert display_path("/home/u", "/home/u/") == "~"


async def test_loading_indicator_while_catalog_opens(catalog):
    import threading

    gate = threading.Event()

    def slow_open():
        gate.wait(10)
        return catalog

    app = tui_app(slow_open, host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one(CatalogList).loading is True
        assert "skillshelf ─ Zuno 0.10.3 ─ ~/w ─ loading…" in screen_text(app)
        gate.set()
        await settle(app, pilot)
        assert app.screen.query_one(CatalogList).loading is False
        assert "generation 1" in screen_text(app)


async def test_open_failure_is_shown_not_raised(tmp_path):
    def broken_open():
        raise OSError("disk on fire")

    app = tui_app(broken_open, host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "cannot open the catalog: disk on fire" in app.screen.query_one(SourcePane).details_text
        assert app.screen.query_one(CatalogList).loading is False


async def test_letters_typed_in_filter_are_text_not_commands(catalog):
    app = make_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", "r", "n", "q", "j")
        await pilot.pause()
        assert app.screen.query_one("#filter", Input).value == "rnqj"
        assert catalog.refreshes == 0
        assert isinstance(app.screen, MainScreen)


async def test_filter_counts_no_match_sort_column_copy_and_line_numbers(tmp_path):
    catalog = FakeCatalog(tmp_path)
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(130, 40), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        main.catalog_pane.filter_limit = 2
        pane = main.query_one(SourcePane)
        lst = main.query_one(CatalogList)
        title = lambda: main.query_one("#catalog-pane").border_title  # noqa: E731
        # docx: its body starts on line 5 of the file (after 4 frontmatter lines)
        assert main.selected_row().name == "docx"
        area = pane.query_one("#source-body", TextArea)
        assert (pane.body_text, area.line_number_start, area.show_cursor) == ("# Docx body\n", 5, False)
        # the true match count, never the capped one
        box = main.query_one("#filter", Input)
        box.value = "d"
        main.apply_filter()
        hits = len(FilterIndex([r.item for r in main.rows]).search("d", 100))
        assert hits > 2 and lst.line_count == 2
        assert title() == f"Catalog (2 shown of {hits} matches · 6 rows) · sort relevance"
        assert main.query_one("#no-match").display is False
        box.value = "zzqqxx"
        main.apply_filter()
        assert lst.line_count == 0 and title() == "Catalog (0 matches · 6 rows) · sort relevance"
        no_match = main.query_one("#no-match")
        assert no_match.display is True
        assert no_match.content.plain == "no skills match `zzqqxx`  (esc clears the filter)"
        box.value = ""
        main.apply_filter()
        # size sort: the key shows in its own column
        main.sort = "provenance"
        await pilot.press("s")
        assert main.sort == "size"
        first = lst.line_content(0).plain
        assert "      52 B " in first and first.split()[1] == "docx"
        # c: copy the locator, honestly worded
        await pilot.press("c")
        assert app.clipboard == main.selected_row().location
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-1] == f"Locator sent to the terminal clipboard (OSC 52): {main.selected_row().location}"
        # a rejected file: its own line numbers, the note above the text (not in it)
        main.jump_to_row(next(i for i, r in enumerate(main.rows) if r.rejected))
        await settle(app, pilot)
        assert pane.body_text == "---\nname: broken-one\ndescription: a: b: c\n---\n"
        assert area.line_number_start == 1
        assert pane.body_note == "rejected by the host: the skill tool cannot load it; the file is shown as is"


def test_fakes_and_the_real_catalog_are_app_catalogs(tmp_path):
    assert isinstance(FakeCatalog(tmp_path), AppCatalog)
    (tmp_path / "real").mkdir()
    real = Catalog.open(str(tmp_path / "real"), env=Environment.from_mapping({"HOME": str(tmp_path)}), pull_remote=False)
    assert isinstance(real, AppCatalog)
