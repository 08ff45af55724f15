"""The first frame of ``skillshelf`` (:func:`~skillshelf.app.tui.app_for`): the start screen —
header and a loading line — is drawn first, then the main screen is pushed over it and lists
the catalog; while it shows, only ``q`` acts."""

from __future__ import annotations

import asyncio
from argparse import Namespace
from pathlib import Path

from conftest import settle
from textual.widgets import Static
from tui_fixtures import project_workspace

from skillshelf.app import tui
from skillshelf.app.cli import build_parser, merged_options
from skillshelf.app.screens.main import MainScreen
from skillshelf.app.screens.start import LOADING, StartScreen
from skillshelf.widgets.header import CatalogHeader

SIZE = (120, 36)


class _Recording(tui.SkillshelfApp):
    """Records what the first frame shows and which actions it allows (at ``Ready``)."""

    CSS_PATH = str(Path(tui.__file__).with_name(tui.SkillshelfApp.CSS_PATH))
    first: dict[str, object] = {}

    def on_ready(self) -> None:
        if self.first:
            return
        screen = self.screen
        self.first["screen"] = type(screen).__name__
        if not isinstance(screen, StartScreen):
            return
        self.first.update(
            header=screen.query_one(CatalogHeader).plain,
            loading=str(screen.query_one("#start-loading", Static).content),
            allowed={a: bool(self.check_action(a, ())) for a in ("quit", "help", "command_palette", "resolve",
                                                                 "index_preview", "undo_list")},
        )


def _ns(tmp_path, *extra: str) -> Namespace:
    return merged_options(build_parser().parse_args(["--cwd", str(tmp_path / "proj"), "--no-watch", "--no-cache",
                                                     *extra]))


def _workspace(tmp_path, monkeypatch) -> None:
    project_workspace(tmp_path, monkeypatch, ("alpha",))


async def test_the_first_frame_is_the_start_screen_then_the_main_screen_lists_the_catalog(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    _Recording.first = {}
    app, demo = tui.app_for(_ns(tmp_path), app_class=_Recording)
    assert demo is None and app.start_screen is True
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):  # the main screen is pushed once the start screen is drawn
            if any(isinstance(s, MainScreen) for s in app.screen_stack):
                break
            await asyncio.sleep(0.01)
        await settle(app, pilot)
        first = _Recording.first
        assert first["screen"] == "StartScreen"
        # what the main screen's header says while it loads (SPEC C: host, working directory)
        assert first["header"] == f"skillshelf ─ {app.host.describe()} ─ {tmp_path / 'proj'} ─ loading…"
        assert first["loading"] == LOADING
        # only q acts on the start screen: nothing is there for the other keys yet
        assert first["allowed"] == {"quit": True, "help": False, "command_palette": False, "resolve": False,
                                    "index_preview": False, "undo_list": False}
        assert [type(s) for s in app.screen_stack] == [StartScreen, MainScreen]
        main = app.main_screen
        assert app.screen is main
        assert [r.name for r in main.rows if not r.location.startswith("builtin://")] == ["alpha"]
        assert app.check_action("help", ()) is True
        # the list has the focus (not the filter, the first focusable widget): q quits
        assert app.focused is main.catalog_pane.catalog_list
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    assert app.paused_until_ready is False  # the collector paused for the start is running again


async def test_an_app_built_without_the_start_screen_shows_the_main_screen_first(tmp_path, monkeypatch):
    _workspace(tmp_path, monkeypatch)
    _Recording.first = {}
    app, _ = tui.app_for(_ns(tmp_path), app_class=_Recording)
    app.start_screen = False
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [type(s) for s in app.screen_stack] == [MainScreen]
    assert _Recording.first["screen"] == "MainScreen"


async def test_ctrl_c_on_the_start_screen_quits():
    from textual.app import App

    from skillshelf.core.hosts import get_host

    class Starting(App[None]):
        def on_mount(self) -> None:
            self.push_screen(StartScreen(get_host("zuno"), "~/proj"))

    app = Starting()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
