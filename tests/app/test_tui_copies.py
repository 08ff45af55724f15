"""Copies of one skill name told apart at 80×24 and 120×36: each row shows the shortest part of its
path no other copy holds, and the source pane heads with the full locator. The workspace is
written in ``tmp_path``: a home with ``~/.agents/skills``, a project with ``.agents/skills`` and
``.zuno/skill`` and two ``skills.paths`` folders holding the same names (own text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import settle, tui_app

from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.source_pane import SourcePane


def _skill(folder: Path, name: str, description: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n",
                                     encoding="utf-8")


@pytest.fixture
def copies(tmp_path):
    t = tmp_path.resolve()
    home, proj = t / "home", t / "proj"
    (proj / ".git").mkdir(parents=True)
    name = "test-driven-development-loop"
    _skill(home / ".agents" / "skills" / name, name, "Red, green, refactor (home copy)")
    _skill(proj / ".agents" / "skills" / name, name, "Red, green, refactor (project copy)")
    _skill(proj / ".zuno" / "skill" / name, name, "Red, green, refactor (zuno copy)")
    _skill(home / "vendor-a" / "skills" / "doc-coauthoring", "doc-coauthoring", "Write docs together (A)")
    _skill(home / "vendor-b" / "skills" / "doc-coauthoring", "doc-coauthoring", "Write docs together (B)")
    _skill(proj / ".agents" / "skills" / "lonely", "lonely", "The only one")
    (proj / ".zuno").mkdir(exist_ok=True)
    (proj / ".zuno" / "zuno.json").write_text(json.dumps({"skills": {"paths": ["~/vendor-a/skills",
                                                                               "~/vendor-b/skills"]}}))
    env = Environment.from_mapping({"HOME": str(home)})
    return t, lambda: Catalog.open(str(proj), env=env, pull_remote=False)


def _shown_lines(app) -> dict[str, list[str]]:
    """The visible text of every listed source row (cut to the list's width), by name."""
    lst = app.main_screen.query_one(CatalogList)
    width = lst.scrollable_content_region.width
    out: dict[str, list[str]] = {}
    for pos in range(lst.line_count):
        row = lst.rows[lst.order[pos]]
        if not row.item.location.startswith("builtin://"):
            out.setdefault(row.name, []).append(lst.line_content(pos).plain[:width].rstrip())
    return out


@pytest.mark.parametrize(("size", "expected"), [
    ((80, 24), {
        "test-driven-development-loop": ["◆  test-driven-dev… …/.zuno/…", "◆  test-driven-dev… …/proj/.agents/…",
                                         "◆  test-driven-dev… ~/…"],
        "doc-coauthoring": ["◆  doc-coauthoring  …/vendor-a/…", "◆  doc-coauthoring  …/vendor-b/…"],
    }),
    ((120, 36), {
        "test-driven-development-loop": ["◆  test-driven-development… project .zuno   …/.zuno/…",
                                         "◆  test-driven-development… project .agents …/proj/.agents/…",
                                         "◆  test-driven-development… global .agents  ~/…"],
        "doc-coauthoring": ["◆  doc-coauthoring          path            …/vendor-a/…",
                            "◆  doc-coauthoring          path            …/vendor-b/…"],
    }),
])
async def test_copies_are_told_apart_and_the_pane_heads_with_the_locator(copies, size, expected):
    t, open_catalog = copies
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        lines = _shown_lines(app)
        for name, shown in expected.items():
            assert lines[name] == shown, lines[name]
            assert len(set(shown)) == len(shown)          # no two copies look alike
        main = app.main_screen
        lst = main.query_one(CatalogList)
        pane = main.query_one(SourcePane)
        for pos in range(lst.line_count):
            row = lst.rows[lst.order[pos]]
            if row.name == "doc-coauthoring":
                lst.highlighted = pos
                await settle(app, pilot)
                assert pane.head_text == str(t / "home" / "vendor-a" / "skills" / "doc-coauthoring" / "SKILL.md")
                head = pane.query_one("#source-head")
                assert head.region.height >= 1 and head.region.y < pane.details.region.y
                break
