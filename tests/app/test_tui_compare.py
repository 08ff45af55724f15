"""The Compare screen (``x``, SPEC N4) on a real workspace seen by every host."""

from __future__ import annotations

from conftest import settle, tui_app

from skillshelf.app.screens.compare import CompareScreen
from skillshelf.core.catalog import Catalog
from skillshelf.core.compare import CellState
from skillshelf.core.paths import Environment

SIZE = (120, 40)


def _skill(root, folder, name, desc):
    d = root / folder
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nbody\n", encoding="utf-8")
    return str(d / "SKILL.md")


def _workspace(tmp_path):
    home, ws = tmp_path / "home", tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    home.mkdir()
    shared = _skill(ws / ".agents" / "skills", "pdf", "pdf", "Shared PDF skill")
    claude_proj = _skill(ws / ".claude" / "skills", "review", "review", "Project review")
    claude_user = _skill(home / ".claude" / "skills", "review", "review", "User review")
    env = Environment.from_mapping({"HOME": str(home), "PATH": "/nonexistent"})
    return ws, env, shared, claude_proj, claude_user


async def test_compare_screen_rows_cells_explanation_toggle_and_jump(tmp_path):
    ws, env, shared, claude_proj, claude_user = _workspace(tmp_path)
    app = tui_app(lambda: Catalog.open(str(ws), env=env, pull_remote=False))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.result is not None
        rows = {r.location: r for r in screen.result.rows}
        assert set(rows) == {shared, claude_proj, claude_user}
        assert rows[shared].cells["zuno"].state is CellState.LISTED
        assert rows[shared].cells["claude"].state is CellState.NOT_READ
        assert rows[shared].cells["codex"].state is CellState.LISTED
        # Claude: the user copy wins over the project copy of the same folder name
        assert rows[claude_proj].cells["claude"].state is CellState.SHADOWED
        assert rows[claude_proj].cells["claude"].by == (claude_user,)
        assert rows[claude_user].cells["claude"].state is CellState.LISTED
        table = screen.query_one("#cmp-table")
        assert table.row_count == 3
        # the explanation follows the cursor: the claude column of the project copy
        order = [r.location for r in screen.shown]
        table.move_cursor(row=order.index(claude_proj), column=1 + [h.name for h in screen.hosts].index("claude"))
        await settle(app, pilot)
        explained = str(screen.query_one("#cmp-explain").render())
        assert "Claude Code 2.1.332: shadowed" in explained and "shadowed by" in explained
        # every host reads the shared .agents copy except Claude, so the hosts disagree on all three
        await pilot.press("d")
        await settle(app, pilot)
        assert table.row_count == len(screen.result.disagreeing()) == 3
        table.move_cursor(row=[r.location for r in screen.shown].index(shared), column=0)
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, CompareScreen)
        assert app.main_screen.selected_row().location == shared


async def test_compare_screen_shows_an_empty_workspace(tmp_path):
    (tmp_path / "ws" / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    env = Environment.from_mapping({"HOME": str(tmp_path / "home"), "PATH": "/nonexistent"})
    app = tui_app(lambda: Catalog.open(str(tmp_path / "ws"), env=env, pull_remote=False))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        assert str(app.screen.query_one("#cmp-explain").render()) == "no skill files"
        await pilot.press("q")
        await settle(app, pilot)
        assert not isinstance(app.screen, CompareScreen)


def test_a_race_cell_is_explained_as_either_may_win():
    from skillshelf.app.screens.compare import explain_cell
    from skillshelf.core.compare import Cell, Row
    from skillshelf.core.hosts import get_host

    cell = Cell(CellState.RACE, "pdf", "Project PDF", "2 files are named `pdf`: … so any of them may win",
                ("/h/.claude/skills/pdf/SKILL.md",))
    row = Row("/w/.claude/skills/pdf/SKILL.md", ("/w/.claude/skills/pdf/SKILL.md",), {"opencode": cell})
    text = explain_cell(get_host("opencode"), row, cell, "/h").plain
    assert text == ("opencode 1.18.33: race: either copy may win  /w/.claude/skills/pdf/SKILL.md\n"
                    "name         pdf\ndescription  Project PDF\n"
                    "why          2 files are named `pdf`: … so any of them may win\n"
                    "competes with ~/.claude/skills/pdf/SKILL.md")


async def test_compare_at_80_columns_keeps_every_host_column_in_view(tmp_path):
    from textual.widgets import DataTable, Static

    ws, env, *_copies = _workspace(tmp_path)
    _skill(ws / ".agents" / "skills" / "a-rather-deep-category-folder", "a-long-skill-folder-name",
                  "a-long-skill-folder-name", "Deep")
    app = tui_app(lambda: Catalog.open(str(ws), env=env, pull_remote=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        table = screen.query_one("#cmp-table", DataTable)
        # the file column keeps the end of each path; the six host columns fit in 80 cells
        files = sorted(str(table.get_row_at(i)[0]) for i in range(table.row_count))
        assert files == ["./.agent…der-name/SKILL.md", "./.agent…ills/pdf/SKILL.md", "./.claud…s/review/SKILL.md",
                         "~/.claud…s/review/SKILL.md"]
        assert table.virtual_size.width <= 80
        assert [str(c.label) for c in table.columns.values()] == ["skill file", "zuno", "zhin", "claude", "codex",
                                                                   "opencode", "gemini"]
        # one line per host, in characters against the budget in the host's own unit
        totals = str(screen.query_one("#cmp-totals", Static).render()).splitlines()
        assert totals[2] == "claude    Claude Code: 14 listed · 6,230 / 30,000 columns · sends 976 characters"
        assert all(len(line) <= 80 for line in totals) and len(totals) == 6


async def test_compare_table_keeps_rows_on_a_tiny_terminal(tmp_path):
    """At 60×15 the explanation, totals and legend took every line and the table showed no row;
    it keeps a header and four rows (the panels below scroll)."""
    ws, env, *_ = _workspace(tmp_path)
    app = tui_app(lambda: Catalog.open(str(ws), env=env, pull_remote=False))
    async with app.run_test(size=(60, 15)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        table = app.screen.query_one("#cmp-table")
        assert table.size.height == 5
        assert table.row_count == 3
