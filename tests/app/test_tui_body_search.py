"""The optional body search (``ctrl+f``): off the event loop, a row found in a body shows the
matching line and the body view selects it; names and descriptions still rank first. Own
workspace in ``tmp_path``."""

from __future__ import annotations

import pytest
from conftest import settle, tui_app
from textual.widgets import Input, TextArea

from skillshelf.app.body_search import BodyCache, search_bodies
from skillshelf.core.catalog import Catalog
from skillshelf.core.model import Provenance, Rejected
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList


def _skill(root, name: str, description: str, body: str) -> str:
    folder = root / name
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}", encoding="utf-8")
    return str(path)


@pytest.fixture
def workspace(tmp_path):
    t = tmp_path.resolve()
    proj = t / "proj"
    (proj / ".git").mkdir(parents=True)
    skills = proj / ".agents" / "skills"
    _skill(skills, "release-notes", "Write release notes", "# Notes\n\nList every change.\nUse the Flamingo template.\n")
    _skill(skills, "flamingo-style", "The flamingo house style", "# Style\n\nPink.\n")
    _skill(skills, "unrelated", "Nothing to see", "# Other\n\nNo birds here.\n")
    env = Environment.from_mapping({"HOME": str(t / "home")})
    return lambda: Catalog.open(str(proj), env=env, pull_remote=False)


def test_search_bodies_numbers_lines_as_in_the_file(tmp_path):
    path = _skill(tmp_path, "a", "x", "line one\n\nthe Needle is here\n")
    broken = tmp_path / "b" / "SKILL.md"
    broken.parent.mkdir()
    broken.write_text("no frontmatter\nneedle in a rejected file\n", encoding="utf-8")
    items = [Catalog.open(str(tmp_path), env=Environment.from_mapping({"HOME": str(tmp_path / "h")}),
                          paths=(str(tmp_path),), pull_remote=False).current.sources[-1],
             Rejected(location=str(broken), provenance=Provenance.CONFIGURED_PATH, canonical=str(broken), name="b")]
    assert items[0].location == path
    cache = BodyCache()
    # the body starts on file line 5 (after 4 frontmatter lines); a rejected file is searched whole
    assert search_bodies(items, "needle", cache) == {0: (7, "the Needle is here"), 1: (2, "needle in a rejected file")}
    assert search_bodies(items, "nothing", cache) == {}
    assert search_bodies(items, "needle", cache, cancelled=lambda: True) == {}


async def test_ctrl_f_finds_a_query_in_bodies_after_the_names(workspace):
    app = tui_app(workspace, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        lst = main.query_one(CatalogList)
        box = main.query_one("#filter", Input)
        box.value = "flamingo"
        main.apply_filter()
        await settle(app, pilot)
        names = lambda: [main.rows[i].name for i in lst.order]  # noqa: E731
        assert names() == ["flamingo-style"]
        await pilot.press("ctrl+f")
        await settle(app, pilot)
        # the name match first, the body match after it, with its line
        assert names() == ["flamingo-style", "release-notes"]
        rows = len(main.rows)                          # Zuno's eleven built-ins and the three skills
        assert main.catalog_pane.border_title == (f"Catalog (1 match + 1 in bodies · {rows} rows) · sort relevance"
                                                  " · bodies searched")
        assert lst.line_content(1).plain.rstrip() == "✓  release-notes  project .agents 8: Use the Flamingo templ…"
        # choosing it selects the line in the body view
        lst.highlighted = 1
        await settle(app, pilot)
        area = main.query_one("#source-body", TextArea)
        assert area.selected_text == "Use the Flamingo template."
        assert area.selection.start == (3, 0)          # file line 8 is the body's 4th line (body from line 5)
        # typing on keeps searching bodies; ctrl+f again stops
        box.value = "birds"
        main.apply_filter()
        await settle(app, pilot)
        assert names() == ["unrelated"]
        await pilot.press("ctrl+f")
        await settle(app, pilot)
        assert names() == []


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
async def test_ctrl_f_shows_its_mode_in_the_filter_box_not_in_a_toast(workspace, size):
    """The body search stays on until ``ctrl+f`` again: the box says so (placeholder first words;
    the border title where the box has a border, from 30 rows), and no toast covers the list."""
    from textual.notifications import Notify

    messages: list = []
    app = tui_app(workspace, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=size, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        box = app.main_screen.query_one("#filter", Input)
        assert box.placeholder == "/ filter…  (name, description, keywords; typos ok)  ctrl+f: bodies too"
        await pilot.press("ctrl+f")
        await settle(app, pilot)
        assert box.placeholder == "/ filter… bodies too (ctrl+f: off) · name, description, keywords; typos ok"
        assert box.border_title == "bodies too"
        assert (box.region.height == 3) is (size[1] >= 30)
        await pilot.press("ctrl+f")
        await settle(app, pilot)
        assert box.placeholder == "/ filter…  (name, description, keywords; typos ok)  ctrl+f: bodies too"
        assert not box.border_title
        assert [m for m in messages if isinstance(m, Notify)] == []
