"""Pilot tests of the main screen on a real workspace (DESIGN "The TUI"): lint beside the host's
verdict, exposure and sidecars, the meters, the agent view, body pages, files of the skill
folder, sort, a generation arriving from outside, and pulling remote skills.

A real :class:`~skillshelf.core.catalog.Catalog` runs over a tree written in ``tmp_path`` with
HOME / XDG inside it (no remote pulls); the remote test uses a fixed catalog with an origins map.
SPEC rules exercised: F5 (lint beside the host verdict), E2–E4 (exposure why, sidecars, agent
view), U1–U3 (meters), S2 (requiredSkills), L3–L6 (paged load, read_resource, refusals), R (pull).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import settle, tui_app
from textual.widgets import Input, TextArea
from tui_fixtures import FakeCatalog

from skillshelf.app.components.catalog_pane import CatalogPane
from skillshelf.app.resources import list_resources
from skillshelf.app.screens.choice import ChoiceScreen
from skillshelf.app.screens.main import MainScreen
from skillshelf.app.timings import Timings
from skillshelf.app.tui import SkillshelfApp
from skillshelf.core.catalog import Catalog
from skillshelf.core.config import Config
from skillshelf.core.model import CatalogWarning, Provenance, Source
from skillshelf.core.paths import Environment
from skillshelf.core.render import Form, render_budgeted
from skillshelf.core.tokens import TokenCounter
from skillshelf.core.tool import READ_PAGE_CONTENT_BYTES
from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.source_pane import SourcePane

SIZE = (130, 42)


def _skill(d: Path, text: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(text, encoding="utf-8")
    return d / "SKILL.md"


@pytest.fixture
def tree(tmp_path):
    """proj/.zuno/skill/{docx,big,colon,empty,shown} + a config with two agents and one rule."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    skills = proj / ".zuno" / "skill"
    paths = {
        "docx": _skill(skills / "docx", "---\nname: docx\ndescription: Word files\n---\n# Docx\nUse python-docx.\n"),
        # 150,000-byte body: three load pages of at most 61,440 bytes (SPEC L3)
        "big": _skill(skills / "big", "---\nname: big\ndescription: A big body\n---\n" + ("x" * 99 + "\n") * 1500),
        # unquoted colon in a plain scalar: the host retries and accepts, spec lint says error (B01 kind)
        "colon": _skill(skills / "colon", "---\nname: colon\ndescription: Use when: parsing files\n---\nColon body.\n"),
        "empty": _skill(skills / "empty", "---\nname: empty\ndescription: Nothing inside\n---\n   \n"),
        "shown": _skill(skills / "shown", "---\nname: shown\ndescription: Long description for the index\n---\nShown.\n"),
    }
    (skills / "docx" / "references").mkdir()
    (skills / "docx" / "references" / "guide.md").write_text("Guide line one.\n", encoding="utf-8")
    (skills / "docx" / "scripts").mkdir()
    (skills / "docx" / "scripts" / "run.sh").write_text("echo hi\n", encoding="utf-8")
    (skills / "shown" / "agents").mkdir()
    (skills / "shown" / "agents" / "zuno.yaml").write_text(
        "interface:\n  display_name: Shown Skill\n  short_description: Short one\n", encoding="utf-8")
    config = proj / ".zuno" / "zuno.json"
    config.write_text(json.dumps({
        "skills": {"config": [{"path": str(skills / "docx"), "exposure": "search"}]},
        "agents": {
            "reader": {"profile": "plan", "tools": ["read"], "requiredSkills": ["docx"]},
            "broken": {"requiredSkills": ["nope"]},
        },
    }), encoding="utf-8")
    env = Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                    "XDG_CACHE_HOME": str(home / ".cache")})
    paths["config"] = config
    return proj, env, paths


def open_app(tree) -> tuple[SkillshelfApp, Catalog]:
    proj, env, _ = tree
    catalog = Catalog.open(str(proj), env=env, pull_remote=False)
    return tui_app(lambda: catalog, host="zuno", cwd_display="~/proj"), catalog


def main(app) -> MainScreen:
    return app.main_screen


def shown_names(app) -> list[str]:
    m = main(app)
    return [m.rows[i].name for i in m.query_one(CatalogList).order]


async def select(app, pilot, name: str) -> None:
    m = main(app)
    index = next(i for i, r in enumerate(m.rows) if r.name == name)
    m.jump_to_row(index)
    await settle(app, pilot)


def pane(app) -> SourcePane:
    return main(app).query_one(SourcePane)


# --------------------------------------------------------------------------- lint (F5)


async def test_f5_lint_flag_and_pane_for_unquoted_colon(tree):
    app, _catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        m = main(app)
        flags = {r.name: r.state + r.flag for r in m.rows}
        assert flags["colon"] == "✓!"  # host accepted it; lint found an error
        assert flags["docx"] == "✓s" and flags["big"] == "✓ "
        await select(app, pilot, "colon")
        details = pane(app).details_text
        lint = details[details.index("lint (spec)"):]
        assert lint.startswith("lint (spec)  1 error")
        assert "line 3 col " in lint and "error[" in lint and "hint: " in lint
        # the list line shows the flag too
        lst = m.query_one(CatalogList)
        assert lst.line_content(lst.highlighted).plain.startswith("✓! colon")


# --------------------------------------------------------------------------- exposure why, meters, agents (E2–E4, U)


async def test_e2_exposure_why_and_sidecar_origin(tree):
    _, _, paths = tree
    app, _catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "docx")
        assert f"exposure    search — skills.config entry 1 in {paths['config']} (exposure: search)" in pane(app).details_text
        await select(app, pilot, "shown")
        sidecar = paths["shown"].parent / "agents" / "zuno.yaml"
        details = pane(app).details_text
        assert "exposure    index — default" in details
        assert f"display     Shown Skill — from sidecar {sidecar}" in details
        assert f"short       Short one — from sidecar {sidecar}" in details


async def test_u2_meters_exact_beside_agent_estimate(tree):
    app, catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = render_budgeted(catalog.current.entries(), Form.INDEX, catalog.index_budget).text
        index = main(app).query_one(BudgetMeter).render().plain.split("\n")
        # Z-P: the budget counts the index render; the second line is the whole prompt; the third whose rule
        assert len(text) == 2187
        assert index[0].endswith(" 2,187 / 8,000 characters · 0 truncated · 0 omitted")
        assert index[1].startswith("  prompt 3,757 characters (policy 1,423 + index 2,332, joined by a blank line) · ")
        assert index[1].endswith(" tokens (tiktoken)")
        assert index[2] == ("  Zuno's index budget: context window unknown (no `model` configured: Zuno picks one from the "
                            "providers it has credentials for) → the default index budget of 8,000 characters")
        await select(app, pilot, "docx")
        body = "# Docx\nUse python-docx.\n"
        selected = main(app).query_one(SelectedMeter).plain.split("\n")
        # Z-U: Zuno compares selected bodies in UTF-8 bytes against 8,000 tokens × 4; tiktoken's count beside
        assert len(body.encode()) == 24 and selected[0].endswith(
            f" 24 / 32,000 bytes · docx · {TokenCounter().count(body).tokens:,} tokens (tiktoken)")
        assert selected[1] == ("  Zuno's budget for the skill bodies one request loads (UTF-8 bytes): context window "
                               "unknown (no `model` configured: Zuno picks one from the providers it has credentials "
                               "for) → the default 8,000 tokens × 4 = 32,000 bytes of selected bodies")


async def test_e4_agent_switch_hides_builtins_and_reports_required_skills(tree):
    app, _catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "codemap" in shown_names(app)
        await pilot.press("g")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, ChoiceScreen)
        labels = [label.plain for _, label in picker.choices]
        assert labels[0].strip().startswith("(no agent)")
        # Z-A: Zuno's visible native agents first (declaration order), then the configured ones
        assert [label.split()[1] for label in labels[1:]] == [
            "orchestrator", "build", "plan", "review", "deep", "fixer", "general", "explorer", "librarian",
            "oracle", "looker", "reader", "broken"]
        assert labels[3] == "✓ plan  would start · hides 4 built-ins"
        assert labels[12] == "✓ reader  would start · hides 11 built-ins"  # its name is its profile
        assert labels[13].startswith("✗ broken  would not start: agents.broken.requiredSkills references "
                                     "unavailable Skill `nope` after Agent visibility filtering")
        await pilot.press(*["down"] * 12, "enter")  # reader
        await settle(app, pilot)
        m = main(app)
        assert isinstance(app.screen, MainScreen)
        assert m.agent == "reader"
        assert shown_names(app) == ["big", "colon", "docx", "empty", "shown"]
        header = m.query_one("#header").plain
        assert " ─ generation 1 ─ agent: reader ─ " in header
        assert m.query_one("#agent-warning").display is False
        assert " · 1 required" in m.query_one(SelectedMeter).plain
        await pilot.press("g")
        await settle(app, pilot)
        assert app.screen.query_one("#choice-list").highlighted == 12  # opens on the current agent
        await pilot.press("down", "enter")  # broken
        await settle(app, pilot)
        warning = m.query_one("#agent-warning")
        assert warning.display is True
        assert str(warning.content.plain).startswith(
            "⚠ agent broken would not start (e: full text): agents.broken.requiredSkills references unavailable "
            "Skill `nope`")
        assert "agent: broken" in m.query_one("#header").plain


# --------------------------------------------------------------------------- body pages, files of the skill folder (L3–L6)


async def test_l3_paged_body_next_previous_and_raw_view(tree):
    app, catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "big")
        p = pane(app)
        assert p.body_title.startswith("body · page 1 of 3   ] next  v raw")
        assert p.body_text == "x" * 99 + "\n" + p.body_text[100:] and len(p.body_text.encode()) == READ_PAGE_CONTENT_BYTES
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert p.body_title.startswith("body · page 2 of 3   ] next  [ previous")
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert p.body_title.startswith("body · page 3 of 3   [ previous")
        assert len(p.body_text.encode()) == 150_000 - 2 * READ_PAGE_CONTENT_BYTES
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert p.body_title.startswith("body · page 2 of 3")
        await pilot.press("v")
        await settle(app, pilot)
        assert p.body_title.startswith("body · page 2 of 3 · raw tool output")
        assert p.body_text.startswith(f"Continuing skill `big`.\nSource: `{catalog.current.get('big').location}`\n")
        assert "--- CONTINUE SKILL BODY ---" in p.body_text
        assert "The skill body is not complete. Call `skill` again with action `load`" in p.body_text
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert "--- BEGIN SKILL BODY ---" in p.body_text and p.body_title.startswith("body · page 1 of 3 · raw")


async def test_l6_builtin_body_and_bodyless_refusal(tree):
    app, catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        await select(app, pilot, "codemap")
        p = pane(app)
        assert p.body_text.startswith("Loaded skill `codemap`.\nSource: `builtin://zuno-orchestration/0.10.3/codemap`\n")
        assert "This embedded skill has no filesystem resource root; follow its body directly." in p.body_text
        assert p.body_text.rstrip().endswith("--- END SKILL BODY ---")
        # Zuno's body is not in skillshelf: a marked stand-in of its exact size (743 bytes)
        body = p.body_text.split("--- BEGIN SKILL BODY ---\n", 1)[1].rsplit("\n--- END SKILL BODY ---", 1)[0]
        assert body.startswith("[Zuno 0.10.3 built-in `codemap`: its body (743 bytes) is Zuno's text")
        assert len(body.encode()) == 743
        await select(app, pilot, "empty")
        assert p.body_title == "body · refused (bodyless)"
        loc = catalog.current.get("empty").location
        assert p.body_text == (f"Skill `empty` was discovered but its body is empty, so there is nothing to follow. "
                               f"Check {loc}.")


async def test_l5_resources_listed_and_read(tree):
    app, _catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "docx")
        details = pane(app).details_text
        assert "resources (2)  R to read one\n  references/guide.md  16 B\n  scripts/run.sh  8 B" in details
        await pilot.press("R")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("down", "enter")  # references/guide.md
        await settle(app, pilot)
        p = pane(app)
        assert p.body_title.startswith("resource references/guide.md · page 1 of 1")
        assert p.body_text == "Guide line one.\n"
        await pilot.press("R")
        await settle(app, pilot)
        await pilot.press("enter")  # back to SKILL.md (the picker opens on the current choice)
        await settle(app, pilot)
        assert p.body_title.startswith("resource references/guide.md")  # current was the resource
        await pilot.press("R")
        await settle(app, pilot)
        await pilot.press("up", "enter")
        await settle(app, pilot)
        assert p.body_title.startswith("body · page 1 of 1") and p.body_text == "# Docx\nUse python-docx.\n"


# --------------------------------------------------------------------------- sort, refresh


async def test_sort_cycles_name_then_provenance(tmp_path):
    catalog = FakeCatalog(tmp_path)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert shown_names(app) == ["docx", "pdf", "pdf", "code-review", "xlsx", "broken-one"]
        await pilot.press("s")
        assert shown_names(app) == ["broken-one", "code-review", "docx", "pdf", "pdf", "xlsx"]
        m = main(app)
        order = m.query_one(CatalogList).order
        assert [m.rows[i].item.provenance.value for i in order[3:5]] == ["project-zuno", "global-agents"]
        assert m.query_one("#catalog-pane").border_title == "Catalog (6) · sort name"
        await pilot.press("s")
        assert shown_names(app) == ["code-review", "docx", "pdf", "broken-one", "pdf", "xlsx"]
        await pilot.press("home", "n")  # conflicts still reachable
        assert m.rows[m.query_one(CatalogList).current_row].name == "pdf"


async def test_h1_selection_and_filter_kept_when_a_generation_arrives(tree):
    _, _, paths = tree
    app, catalog = open_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        m = main(app)
        m.query_one("#filter", Input).value = "o"
        await pilot.pause()
        await select(app, pilot, "colon")
        before = shown_names(app)
        paths["docx"].write_text("---\nname: docx\ndescription: Word files, edited\n---\nNew body.\n", encoding="utf-8")
        catalog.refresh()  # published from outside, as the watcher does
        await settle(app, pilot)
        assert m.generation.number == 2
        assert m.query_one("#filter", Input).value == "o"
        assert shown_names(app) == before
        assert m.selected_row().name == "colon"
        assert "colon" in pane(app).details_text.splitlines()[0]


# --------------------------------------------------------------------------- remote (R)


class RemoteCatalog(FakeCatalog):
    """A fixed catalog with one remote source and an origins map; a pull publishes a remote warning."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.session.config = Config(urls=("http://127.0.0.1:9",))  # type: ignore[misc]  # a configured index
        self.remote_dir = tmp / "cache" / "remote-pdf"
        loc = _skill(self.remote_dir, "---\nname: rpdf\ndescription: Remote PDF\n---\nremote body\n")
        self.remote = Source(name="rpdf", location=str(loc), provenance=Provenance.REMOTE, canonical=str(loc),
                             root=str(self.remote_dir), description="Remote PDF")
        self.remote_origins = {str(self.remote_dir): ("http://127.0.0.1:9/index.json", "1.2.0")}
        self.current = replace(self.current, sources=self.current.sources + (self.remote,))

    def refresh(self, *, pull_remote: bool = False):
        warnings = (CatalogWarning("IndexStatus", "http://127.0.0.1:9/other.json",
                                   "failed to fetch index http://127.0.0.1:9/other.json: HTTP 404"),) if pull_remote else ()
        self._successor = lambda g: replace(g, number=g.number + 1, warnings=warnings)
        return super().refresh(pull_remote=pull_remote)


async def test_r_remote_origin_shown_and_pull_now(tmp_path):
    catalog = RemoteCatalog(tmp_path)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "rpdf")
        details = pane(app).details_text
        assert "provenance  remote\norigin      http://127.0.0.1:9/index.json\nversion     1.2.0" in details
        await pilot.press("p")
        await settle(app, pilot)
        m = main(app)
        assert catalog.pulls == 1
        assert m.last_pull_warnings == ["failed to fetch index http://127.0.0.1:9/other.json: HTTP 404"]
        assert m.generation.number == 2
        assert m.selected_row().name == "rpdf"


# --------------------------------------------------------------------------- worker helpers (plain)


def test_l5_list_resources_depth_cap_and_skips(tmp_path):
    d = tmp_path / "skill"
    _skill(d, "---\nname: s\n---\nb\n")
    (d / "agents").mkdir()
    (d / "agents" / "zuno.yaml").write_text("x: 1\n")
    (d / ".hidden").write_text("h")
    deep = d / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    (d / "a" / "one.md").write_text("1")
    (d / "a" / "b" / "c" / "three.md").write_text("333")
    (deep / "four.md").write_text("4444")
    found, cut = list_resources(str(d))
    assert [(r.path, r.size) for r in found] == [("a/one.md", 1), ("a/b/c/three.md", 3)] and cut is False
    for i in range(5):
        (d / f"f{i}.txt").write_text("x")
    found, cut = list_resources(str(d), cap=3)
    assert [r.path for r in found] == ["f0.txt", "f1.txt", "f2.txt"] and cut is True


async def test_f5_lint_progress_reported_then_cleared(tree):
    seen: list[tuple[int, int]] = []

    def hook(message):
        if isinstance(message, CatalogPane.LintProgress):
            seen.append((message.done, message.total))

    proj, env, _ = tree
    catalog = Catalog.open(str(proj), env=env, pull_remote=False)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj",
                  timings=Timings(filter_debounce=0, typing_debounce=0, progress_after=-1.0))  # from the first file on
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await settle(app, pilot)
        assert seen and seen[0] == (1, 5)  # five files on disk, built-ins are not linted
        assert main(app).query_one("#catalog-pane").border_subtitle == ""


async def test_l3_later_pages_number_lines_from_where_the_page_starts(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    proj = tmp_path / "w"
    (proj / ".git").mkdir(parents=True)
    d = proj / ".zuno" / "skill" / "long"
    d.mkdir(parents=True)
    body = "".join(f"line {i} " + "x" * 60 + "\n" for i in range(1, 2001))
    (d / "SKILL.md").write_text(f"---\nname: long\ndescription: Long body\n---\n{body}", encoding="utf-8")
    env = Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = tui_app(lambda: cat, host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        main.jump_to_location(str(d / "SKILL.md"))
        await settle(app, pilot)
        pane = main.query_one(SourcePane)
        area = pane.query_one("#source-body", TextArea)
        page1 = pane.body_text
        assert area.line_number_start == 5 and page1.startswith("line 1 x")
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        start = 5 + page1.count("\n")
        assert area.line_number_start == start
        # the first line of page 2 is (the rest of) file line `start`: body line start - 4
        first_full = next(line for line in pane.body_text.split("\n")[1:] if line)
        assert first_full.startswith(f"line {start - 4 + 1} ")
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert area.line_number_start == 5
