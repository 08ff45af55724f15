"""SPEC X1 in the TUI's notifications: text built from untrusted input (paths, exception
messages that quote them, remote errors, write results) reaches ``notify`` with markup off and
every control character made visible (Textual's toast passes ESC through to the terminal)."""

from __future__ import annotations

from pathlib import Path

from conftest import settle, tui_app
from textual.notifications import Notify
from textual.widgets import Static
from tui_fixtures import FakeCatalog

from skillshelf.app.screens.index_preview import IndexPreviewScreen, SavePathScreen
from skillshelf.app.screens.main import PullDone
from skillshelf.app.screens.picker import AmbiguityPicker, WriteDone
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment

SIZE = (140, 42)
#: An OSC title-setting escape plus markup: neither may reach the terminal as such.
HOSTILE = "x\x1b]0;pwned\x07y [b]bold[/b]"
SHOWN = "x␛]0;pwned␇y [b]bold[/b]"


def notes(messages: list) -> list[tuple[str, bool]]:
    return [(m.notification.message, m.notification.markup) for m in messages if isinstance(m, Notify)]


async def test_x1_catalog_open_error_notice_visible():
    def broken():
        raise RuntimeError(f"cannot read /p/{HOSTILE}/SKILL.md")

    messages: list = []
    app = tui_app(broken, host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
    assert notes(messages) == [(f"cannot open the catalog: cannot read /p/{SHOWN}/SKILL.md", False)]


async def test_x1_pull_failed_notice_visible(tmp_path):
    messages: list = []
    app = tui_app(lambda: FakeCatalog(tmp_path), host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        app.main_screen.post_message(PullDone(None, [], f"HTTPError: {HOSTILE}"))
        await settle(app, pilot)
    assert notes(messages)[-1] == (f"Pull failed: HTTPError: {SHOWN}", False)


async def test_x1_undo_error_notice_visible(tmp_path, monkeypatch):
    from skillshelf.core import configwrite

    def refuse(result):
        raise configwrite.ConfigWriteError(f"/p/{HOSTILE}/zuno.json changed since the write")

    monkeypatch.setattr(configwrite, "undo", refuse)
    messages: list = []
    app = tui_app(lambda: FakeCatalog(tmp_path), host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        app.last_write = object()
        await pilot.press("ctrl+z")
        await settle(app, pilot)
    assert notes(messages)[-1] == (f"Not undone: /p/{SHOWN}/zuno.json changed since the write", False)


def _skill(root: Path, name: str, description: str) -> str:
    d = root / name
    d.mkdir(parents=True)
    f = d / "SKILL.md"
    f.write_text(f"---\nname: {name}\ndescription: {description}\n---\nbody\n", encoding="utf-8")
    return str(f)


async def test_x1_picker_write_notice_visible(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "w"
    (cwd / ".git").mkdir(parents=True)
    home.mkdir()
    project = _skill(cwd / ".zuno" / "skill", "pdf", "Project PDF")
    _skill(home / ".agents" / "skills", "pdf", "Global PDF")
    env = Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                    "XDG_CACHE_HOME": str(home / ".cache")})
    messages: list = []
    app = tui_app(lambda: Catalog.open(str(cwd), env=env, host="zuno", pull_remote=False),
                        host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        main.jump_to_row(next(i for i, r in enumerate(main.rows) if r.location == project))
        await pilot.press("a")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, AmbiguityPicker)
        picker.post_message(WriteDone(None, None, f"not written: {HOSTILE}", error=True))
        await settle(app, pilot)
        assert str(picker.query_one("#picker-status", Static).render()) == f"not written: {SHOWN}"
    assert notes(messages)[-1] == (f"not written: {SHOWN}", False)


async def test_x1_index_save_failure_notice_visible(tmp_path):
    from test_tui_preview import mem_catalog

    catalog = mem_catalog(8000, cwd=str(tmp_path))
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexPreviewScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SavePathScreen)
        app.screen.query_one("#save-path").value = "missing\x1b[2J/out.txt"  # no such folder
        await pilot.press("enter")
        await settle(app, pilot)
    assert notes(messages)[-1] == (f"Not saved: {tmp_path}/missing␛[2J/out.txt: No such file or directory", False)
