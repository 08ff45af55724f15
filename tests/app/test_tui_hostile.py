"""The TUI on a workspace full of hostile files never dies on skill text (SPEC X1): every row is
selected and shown (source pane, raw view), the locator copied, the index preview opened,
copied and saved, the problems screen opened. Text leaving the app (the clipboard's OSC 52, a
saved file) is valid UTF-8: a lone surrogate is written as its escape ``\\ud800``, never a
0-byte file or a crash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import settle, tui_app
from hostile import write_hostile_workspace

from skillshelf.app.screens.index_preview import IndexPreviewScreen, SavePathScreen, save_text
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment

SIZE = (120, 36)


def _open(tmp_path: Path, host: str):
    proj, home = tmp_path / "proj", tmp_path / "home"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    write_hostile_workspace(str(proj))
    env = Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                    "XDG_CACHE_HOME": str(home / ".cache"), "PATH": os.environ.get("PATH", "")})
    catalog = Catalog.open(str(proj), env=env, host=host, pull_remote=False)
    return tui_app(lambda: catalog, host=host, cwd_display="~/proj", watch=False), proj


def _utf8(text: str) -> str:
    text.encode("utf-8")  # raises on a lone surrogate
    return text


@pytest.mark.parametrize("host", ["zuno", "opencode"])
async def test_every_screen_survives_hostile_skill_text(tmp_path, host):
    app, proj = _open(tmp_path, host)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert any(r.name == "n\ud800" for r in main.rows)  # the surrogate name is listed, not dropped
        for i in range(len(main.rows)):
            main.jump_to_row(i)
            await settle(app, pilot, rounds=2)
            await pilot.press("v")
            await settle(app, pilot, rounds=2)
            await pilot.press("v")
            await pilot.press("c")
            _utf8(app.clipboard)
        await pilot.press("i")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexPreviewScreen)
        text = app.screen.preview.text
        assert "\ud800" in text  # the exact index holds the name as the host reads it
        await pilot.press("c")
        copied = _utf8(app.clipboard)
        assert "n\\ud800" in copied and "/bad\\udcffname/SKILL.md" in copied
        assert copied.replace("\\ud800", "\ud800").replace("\\udcff", "\udcff").replace("\\udc80", "\udc80") == text
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SavePathScreen)
        await pilot.press("enter")
        await pilot.pause()
        saved = (proj / "skill_index.txt").read_bytes().decode("utf-8")
        assert saved == app.clipboard and "n\\ud800" in saved
        await pilot.press("escape")
        await pilot.press("e")
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.is_running


def test_save_text_encodes_before_it_opens_the_file(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("previous", encoding="utf-8")
    full = save_text("keep.txt", "a\udcffb\ud800", base=str(tmp_path))
    assert full == str(target)
    assert target.read_bytes() == b"a\\udcffb\\ud800"
