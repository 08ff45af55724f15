"""``o`` opens the selected file in ``$VISUAL`` / ``$EDITOR``; the app comes back on the generation
that has the change (own workspace in ``tmp_path``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import settle, tui_app
from textual.notifications import Notify

from skillshelf.app.editor import editor_command, file_digest
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment
from skillshelf.widgets.source_pane import SourcePane


def test_editor_command_from_visual_then_editor():
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": "  ", "EDITOR": "nano"}) == ["nano"]
    assert editor_command({"EDITOR": "'my editor' -x"}) == ["my editor", "-x"]
    assert editor_command({}) is None
    assert editor_command({"EDITOR": "vi 'unbalanced"}) is None


@pytest.fixture
def workspace(tmp_path):
    t = tmp_path.resolve()
    proj = t / "proj"
    (proj / ".git").mkdir(parents=True)
    skill = proj / ".agents" / "skills" / "notes" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: notes\ndescription: Old words\n---\nBody.\n", encoding="utf-8")
    env = Environment.from_mapping({"HOME": str(t / "home")})
    return skill, lambda: Catalog.open(str(proj), env=env, pull_remote=False)


async def _select(app, pilot, name: str) -> None:
    main = app.main_screen
    main.jump_to_row(next(i for i, r in enumerate(main.rows) if r.name == name))
    await settle(app, pilot)


async def test_o_runs_the_editor_and_shows_the_new_generation(workspace, monkeypatch):
    skill, open_catalog = workspace
    # a real editor process: a Python one-liner that rewrites the description
    script = skill.parent.parent.parent.parent / "edit.py"
    script.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
                      "p.write_text(p.read_text().replace('Old words', 'New words'))\n", encoding="utf-8")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    ran: list[list[str]] = []
    messages: list = []
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")

    def run_editor(argv: list[str]) -> None:    # no terminal to hand over under Pilot: run it as is
        import subprocess
        ran.append(argv)
        subprocess.run(argv, check=True)

    app.run_editor = run_editor  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        await _select(app, pilot, "notes")
        before = app.main_screen.generation.number
        await pilot.press("o")
        await settle(app, pilot)
        assert ran == [[sys.executable, str(script), str(skill)]]
        main = app.main_screen
        assert main.generation.number == before + 1
        assert "description New words" in main.query_one(SourcePane).details_text
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-1] == f"Edited {skill}: rescanning."
        # closing the editor without a change: no new generation
        monkeypatch.setenv("VISUAL", "true")
        await pilot.press("o")
        await settle(app, pilot)
        assert main.generation.number == before + 1
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-1] == f"Unchanged: {skill}"


async def test_o_says_why_when_it_cannot_open(workspace, monkeypatch):
    skill, open_catalog = workspace
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    messages: list = []
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=(80, 24), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        await _select(app, pilot, "notes")
        await pilot.press("o")
        await _select(app, pilot, "deepwork")         # one of Zuno's built-ins: no file
        monkeypatch.setenv("EDITOR", "vi")
        await pilot.press("o")
        await _select(app, pilot, "notes")
        missing = Path(skill).parent / "no-such-editor"
        monkeypatch.setenv("EDITOR", str(missing))
        await pilot.press("o")
        monkeypatch.setenv("EDITOR", "true")
        await pilot.press("o")                        # Pilot cannot hand the terminal over: said, not raised
        await settle(app, pilot)
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-4:] == [
            "Set $VISUAL or $EDITOR to the editor to use (for example: export EDITOR=nano).",
            "builtin://zuno-orchestration/0.10.3/deepwork is not a file on disk (a built-in skill): nothing to open.",
            f"The editor {missing} ($VISUAL / $EDITOR) was not found.",
            "Could not run true: App.suspend is not supported in this environment.",
        ]
        assert file_digest(str(skill)) is not None
