"""Every key is safe while screens close: a key typed together with ``q`` (the app exits) or with
the key that closes a screen (its binding's screen is gone when the key is handled) never
crashes the app. Keys are posted back to back, as a terminal delivers typed-ahead input."""

from __future__ import annotations

import pytest
from conftest import settle, tui_app
from textual import events
from tui_fixtures import FakeCatalog

from skillshelf.app.screens.main import MainScreen

#: Every key bound by the app or one of its screens.
KEYS = ("q", "question_mark", "ctrl+p", "a", "i", "w", "ctrl+z", "h", "e", "x", "slash", "escape", "n", "N", "r",
        "enter", "s", "g", "right_square_bracket", "left_square_bracket", "v", "R", "p", "c", "d", "f", "ctrl+s",
        "1", "2", "4", "space", "t", "u", "j", "k")

#: Keys that open a screen over the main screen.
OPENERS = ("e", "i", "w", "question_mark", "x", "g", "ctrl+p")

#: Keys typed while a screen closes: every key that opens or replaces a screen, acts on the
#: main screen's widgets, or is a screen's own action.
#: (``x`` is left out here: the compare screen builds every host's catalog each time it opens.)
RACING = ("e", "i", "w", "question_mark", "g", "ctrl+p", "a", "h", "R", "enter", "c", "slash", "ctrl+s")

_CHARS = {"question_mark": "?", "slash": "/", "right_square_bracket": "]", "left_square_bracket": "[", "space": " "}


def key_event(key: str) -> events.Key:
    return events.Key(key, _CHARS.get(key, key if len(key) == 1 else None))


def post_keys(app, *keys: str) -> None:
    """Queue ``keys`` at once, as typed-ahead input (``Pilot.press`` would wait between them)."""
    for key in keys:
        app.post_message(key_event(key))


@pytest.mark.parametrize("key", RACING + ("x",))
async def test_a_key_typed_right_after_q_is_dropped_not_a_crash(tmp_path, key):
    catalog = FakeCatalog(tmp_path)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        post_keys(app, "q", key, key)
        await pilot.pause()
        await pilot.pause()
    assert app.return_code == 0
    assert app.closing


async def test_every_key_typed_right_after_q_is_dropped(tmp_path):
    catalog = FakeCatalog(tmp_path)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        post_keys(app, *KEYS)
        await pilot.pause()
        await pilot.pause()
    assert app.return_code == 0


async def until(pilot, condition, tries: int = 200) -> bool:
    """Pause until ``condition()`` holds (at most ``tries`` pauses); no waiting on workers."""
    for _ in range(tries):
        if condition():
            return True
        await pilot.pause(0.01)
    return condition()


@pytest.mark.parametrize("opener", ("e", "i", "question_mark"))
async def test_any_key_typed_while_a_screen_closes_is_safe(tmp_path, opener):
    catalog = FakeCatalog(tmp_path)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for key in ("e", "i", "w", "a", "R", "slash", "enter"):
            await pilot.press(opener)
            assert await until(pilot, lambda: not isinstance(app.screen, MainScreen)), opener
            post_keys(app, "escape", key)
            await pilot.pause()
            for _ in range(6):  # back to the main screen, whatever the key opened
                if await until(pilot, lambda: isinstance(app.screen, MainScreen), tries=5):
                    break
                await pilot.press("escape")
            await pilot.press("escape")  # the main screen's own escape: the filter box lets go
            assert app.is_running
            assert isinstance(app.screen, MainScreen), (opener, key, app.screen)
