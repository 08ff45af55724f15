"""The TUI at 80 columns: the main keys stay in the footer, notices inside dialogs never float over
their text, and the Problems list lists each finding once and moves with ``j`` / ``k``."""

from __future__ import annotations

import pytest
from conftest import settle, tui_app
from textual.widgets import OptionList
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast
from tui_fixtures import FixedCatalog, make_generation

from skillshelf.app.problems import Problem, problems
from skillshelf.app.screens.problems import ProblemsScreen, problem_content
from skillshelf.app.screens.whatif import WhatIfScreen
from skillshelf.core.model import CatalogWarning, Diagnostic, Generation, Severity
from skillshelf.widgets.notice_line import NoticeLine

NARROW = (80, 24)


def _visible_keys(app) -> list[str]:
    """Footer keys wholly visible left of the palette key (at the footer's real width)."""
    keys = list(app.screen.query(FooterKey))
    palette = [k for k in keys if k.has_class("-command-palette")]
    right = palette[0].region.x if palette else app.size.width
    return [k.key for k in keys if not k.has_class("-command-palette") and k.region.width
            and k.region.right <= right]


async def test_main_keys_visible_in_the_footer_at_80_columns(tmp_path):
    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w")
    async with app.run_test(size=NARROW) as pilot:
        await settle(app, pilot)
        shown = _visible_keys(app)
        assert shown[:7] == ["slash", "a", "i", "w", "e", "question_mark", "q"]


async def test_notices_inside_a_dialog_never_float_over_it(tmp_path):
    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w")
    async with app.run_test(size=NARROW, notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("a notice on the main screen", timeout=600)   # outlives a slow machine
        await settle(app, pilot)
        # on the main screen too a notice has a line of its own above the meters, never a toast
        main_line = app.main_screen.query_one("#main-notice", NoticeLine)
        assert main_line.display and main_line.text == "a notice on the main screen"
        assert len(app.screen.query(Toast)) == 0
        assert main_line.region.bottom <= app.main_screen.query_one("Meters").region.y
        await pilot.press("w")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, WhatIfScreen)
        assert len(app.screen.query(Toast)) == 0
        await pilot.press("enter")                     # applies the session values: a notice (4 s)
        await pilot.pause()
        await pilot.pause()
        line = screen.query_one(NoticeLine)
        assert line.display and line.text.startswith("This session: context window unknown")
        assert len(app.screen.query(Toast)) == 0
        box = screen.query_one("#wi-box")
        # the line is part of the dialog's own layout, under its other parts
        assert box.region.contains_region(line.region)
        others = [w for w in box.children if w is not line and w.display]
        assert all(w.region.bottom <= line.region.y for w in others)
        line.clear_notice()
        await pilot.pause()
        assert not line.display



async def test_a_pulls_warnings_show_whole_on_the_main_notice_line(tmp_path):
    from skillshelf.app.screens.main import REMOTE_WARNINGS_SHOWN, PullDone

    generation = make_generation(tmp_path)
    app = tui_app(lambda: FixedCatalog(generation), host="zuno", cwd_display="/w")
    async with app.run_test(size=NARROW, notifications=True) as pilot:
        await settle(app, pilot)
        warnings = [f"https://h/{i}/index.json: skill entry {i} has no name" for i in range(7)]
        app.main_screen.post_message(PullDone(generation, warnings))
        await settle(app, pilot)
        line = app.main_screen.query_one("#main-notice", NoticeLine)
        assert REMOTE_WARNINGS_SHOWN == 5 and len(app.screen.query(Toast)) == 0
        assert line.text.splitlines() == ["Pulled with 7 warning(s):", *warnings[:5], "… and 2 more"]
        assert line.region.height == 7   # every line shown, none cut by the line's height

def _twice_generation(tmp_path) -> Generation:
    g = make_generation(tmp_path)
    w = CatalogWarning("PathNotFound", "/nowhere", "skill path not found: /nowhere")
    config = Diagnostic(Severity.ERROR, "config-invalid", "/w/.zuno/zuno.json:1:2: expected ':'", path="/w/.zuno/zuno.json")
    return Generation(g.number, g.digest, g.host, g.cwd, g.roots, g.sources, g.rejected, (w, w), (config,))


def test_problems_lists_a_finding_once_and_its_file_once(tmp_path):
    found = problems(_twice_generation(tmp_path))
    assert [(p.kind, p.message) for p in found] == [
        ("config-invalid", "/w/.zuno/zuno.json:1:2: expected ':'"),
        ("rejected", "mapping values are not allowed here"),
        ("PathNotFound", "skill path not found: /nowhere"),
    ]
    # a message that already starts with its file does not repeat it on the next line
    assert problem_content(found[0]).plain == "✗ /w/.zuno/zuno.json:1:2: expected ':'"
    assert problem_content(Problem(Severity.WARNING, "PathNotFound", "not found", "/x")).plain == "⚠ not found\n    /x"


@pytest.mark.parametrize("size", [NARROW, (120, 36)])
async def test_problems_moves_with_j_and_k(tmp_path, size):
    gen = _twice_generation(tmp_path)
    app = tui_app(lambda: FixedCatalog(gen), host="zuno", cwd_display="/w")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ProblemsScreen)
        lst = screen.query_one(OptionList)
        texts = screen.entry_texts()
        assert texts.count("✗ /w/.zuno/zuno.json:1:2: expected ':'") == 1
        first = lst.highlighted
        assert first is not None and not lst.get_option_at_index(first).disabled
        await pilot.press("j")
        second = lst.highlighted
        assert second is not None and second > first and not lst.get_option_at_index(second).disabled
        await pilot.press("j", "k")
        assert lst.highlighted == second
        await pilot.press("k")
        assert lst.highlighted == first


@pytest.mark.parametrize("key", ["a", "i", "w", "e", "question_mark", "x"])
async def test_every_dialog_has_its_own_notice_line(tmp_path, key):
    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w")
    async with app.run_test(size=NARROW, notifications=True) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        main.jump_to_row(next(i for i, r in enumerate(main.rows) if r.name == "pdf"))
        await pilot.press(key)
        await settle(app, pilot)
        assert app.screen is not main
        app.notify("said inside the dialog", timeout=600)
        await pilot.pause()
        await pilot.pause()
        assert app.screen.query_one(NoticeLine).text == "said inside the dialog"
        assert len(app.screen.query(Toast)) == 0


@pytest.mark.parametrize(("size", "filter_height", "list_rows"), [((80, 24), 1, 13), ((120, 36), 3, 22)])
async def test_under_30_rows_the_filter_is_one_line_and_the_list_gets_its_rows(tmp_path, size, filter_height,
                                                                              list_rows):
    from textual.widgets import Input

    from skillshelf.widgets.catalog_list import CatalogList

    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.query_one("#filter", Input).region.height == filter_height
        assert main.query_one(CatalogList).region.height == list_rows
        await pilot.press("slash", "p")                # still a working filter
        await settle(app, pilot)
        assert main.query_one("#filter", Input).value == "p" and main.query_one("#filter", Input).has_focus


@pytest.mark.parametrize(("width", "shown"), [
    (80, ["slash", "a", "i", "w", "e", "question_mark", "q", "o"]),
    (70, ["slash", "a", "i", "w", "e", "question_mark"]),
])
async def test_the_footer_shows_whole_keys_only(tmp_path, width, shown):
    """A key that would be cut mid-word (``n Conflic``) is hidden with every key after it."""
    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w")
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(app, pilot)
        keys = [k for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")]
        palette = next(k for k in app.screen.query(FooterKey) if k.has_class("-command-palette"))
        displayed = [k for k in keys if k.display]
        assert [k.key for k in displayed] == shown
        assert all(k.region.right <= palette.region.x for k in displayed)
        assert not any(k.display for k in keys[len(shown):])


@pytest.mark.parametrize(("size", "meter_lines", "list_rows"), [((60, 15), 2, 7), ((80, 24), 5, 13), ((120, 36), 5, 22)],
                         ids=["60x15", "80x24", "120x36"])
async def test_under_20_rows_each_meter_is_one_line_and_the_list_keeps_its_rows(tmp_path, size, meter_lines,
                                                                               list_rows):
    """Under 20 rows the meters keep their numbers (one line each) and give the prompt and rule
    lines to the list; from 20 rows every line is there."""
    from skillshelf.app.components.meters import Meters
    from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter
    from skillshelf.widgets.catalog_list import CatalogList

    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.query_one(Meters).region.height == meter_lines
        assert main.query_one(CatalogList).region.height == list_rows
        index, bodies = main.query_one(BudgetMeter).plain, main.query_one(SelectedMeter).plain
        assert index.startswith("index ") and bodies.startswith("bodies ")
        assert (index.count("\n"), bodies.count("\n")) == ((0, 0) if meter_lines == 2 else (2, 1))
