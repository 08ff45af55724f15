"""The TUI under host ``codex`` (SPEC N): the catalog meter counts in Codex's own unit (tokens),
every same-name copy is a row, hidden and disabled skills keep their state."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import settle, tui_app

from skillshelf.core.catalog import Catalog
from skillshelf.core.model import Status
from skillshelf.core.paths import Environment
from skillshelf.widgets.budget_meter import BudgetMeter, meter_text
from skillshelf.widgets.catalog_list import CatalogList

SIZE = (130, 40)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _skill(root: Path, folder: str, name: str, description: str) -> None:
    _write(root / folder / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")


def test_meter_unit_word() -> None:
    assert " 120 / 10,000 tokens" in meter_text("catalog", 120, 10000, unit="tokens").plain


async def test_browse_under_codex(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    _skill(ws / ".agents" / "skills", "one", "same", "project copy")
    _skill(home / ".agents" / "skills", "two", "same", "user copy")
    _skill(ws / ".agents" / "skills", "quiet", "quiet", "hidden from the model")
    _write(ws / ".agents" / "skills" / "quiet" / "agents" / "openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    _skill(ws / ".agents" / "skills", "off", "off", "disabled")
    _write(home / ".codex" / "config.toml", '[[skills.config]]\nname = "off"\nenabled = false\n')
    env = Environment.from_mapping({"HOME": str(home), "PATH": ""})
    app = tui_app(lambda: Catalog.open(str(ws), env=env, host="codex", pull_remote=False), host="codex",
                  cwd_display="~/ws")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.generation.host == "codex"
        rows = [main.rows[i] for i in main.query_one(CatalogList).order]
        assert sorted(r.name for r in rows) == ["off", "quiet", "same", "same"]
        statuses = {s.name: s.status for s in main.generation.sources}
        assert statuses["quiet"] is Status.HIDDEN and statuses["off"] is Status.DISABLED
        meter = main.query_one(BudgetMeter)
        assert (meter.unit, meter.limit) == ("tokens", 10000)
        assert 0 < meter.used < 200
