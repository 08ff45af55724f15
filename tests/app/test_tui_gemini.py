"""The TUI under host ``gemini`` (SPEC N): header names the client, shadowed, race and disabled
copies are rows with their state, the lint column is Gemini CLI's own verdict, and an untrusted
workspace explains itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import settle, tui_app

from skillshelf.core.catalog import Catalog
from skillshelf.core.model import Status
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import CatalogHeader

SIZE = (130, 40)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _skill(root: Path, folder: str, name: str, description: str) -> None:
    _write(root / folder / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Environment]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    _skill(home / ".gemini" / "skills", "shared", "shared", "user copy")
    _skill(ws / ".agents" / "skills", "shared", "shared", "workspace copy")
    _skill(ws / ".gemini" / "skills", "race-a", "racer", "a")
    _skill(ws / ".gemini" / "skills", "race-b", "racer", "b")
    _skill(ws / ".gemini" / "skills", "off", "off", "disabled")
    _write(ws / ".gemini" / "skills" / "bom" / "SKILL.md", "\ufeff---\nname: bom\ndescription: d\n---\n")
    _write(home / ".gemini" / "settings.json", json.dumps({"skills": {"disabled": ["off"]}}))
    env = Environment.from_mapping({"HOME": str(home), "PATH": "", "GEMINI_CLI_TRUST_WORKSPACE": "true",
                                    "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(tmp_path / "etc" / "settings.json")})
    return ws, env


async def test_browse_under_gemini(workspace: tuple[Path, Environment]) -> None:
    ws, env = workspace
    app = tui_app(lambda: Catalog.open(str(ws), env=env, host="gemini", pull_remote=False), host="gemini",
                        cwd_display="~/ws")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.generation.host == "gemini"
        header = main.query_one(CatalogHeader).plain
        assert header == (
            "skillshelf ─ Gemini CLI 0.61.0 ─ ~/ws ─ generation 1 ─ 7 sources · 1 ambiguous · 1 broken · 1 disabled · "
            "1 shadowed")
        rows = [main.rows[i] for i in main.query_one(CatalogList).order]
        names = [r.name for r in rows]
        assert {"shared", "racer", "off", "skill-creator", "antigravity-support"} <= set(names)
        statuses = {s.status for s in main.generation.sources}
        assert {Status.SHADOWED, Status.RACE, Status.DISABLED} <= statuses
        assert [r.location for r in main.generation.rejected] == [str(ws / ".gemini" / "skills" / "bom" / "SKILL.md")]
        assert main.lint_cache.target == "gemini"


async def test_a_builtin_without_an_installed_client_is_selected_not_unreadable(
        workspace: tuple[Path, Environment]) -> None:
    """No Gemini CLI installed (empty PATH): the built-in on the cursor is a row like any other —
    the bodies meter names it and says its size is not known, the body pane says why."""
    from skillshelf.app.components.body_pager import BodyPager
    from skillshelf.widgets.budget_meter import SelectedMeter

    ws, env = workspace
    app = tui_app(lambda: Catalog.open(str(ws), env=env, host="gemini", pull_remote=False), host="gemini",
                  cwd_display="~/ws")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        row = main.selected_row()
        assert row is not None and row.location == "builtin://gemini/skill-creator"
        meter = main.query_one(SelectedMeter).plain.splitlines()
        assert meter == ["bodies ? tokens · skill-creator · no budget · its body is inside the client: size unknown",
                         "  Gemini CLI sets no budget for the skill bodies a request loads"]
        pager = main.query_one(BodyPager)
        assert pager.title_text() == "body · built into the client"
        assert pager.page is not None and pager.page.error == (
            "skill-creator is built into Gemini CLI 0.61.0: its body is inside the client, not in a SKILL.md "
            "file skillshelf can read")
        # a row read from a file is measured as usual
        while (row := main.selected_row()) is not None and row.location.startswith("builtin://"):
            await pilot.press("j")
            await settle(app, pilot)
        assert main.query_one(SelectedMeter).plain.splitlines()[0] == "bodies 2 tokens (tiktoken) · shared · no budget"
