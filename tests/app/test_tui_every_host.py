"""Every screen of the TUI under every registered host (SPEC N1, N3–N4): the header names the
client and version emulated; help, palette, index preview, what-if, problems, compare, the body
pages, raw output and resources open and show the host's data; the ambiguity picker, the agent
view and the remote pull open where the host has them and otherwise say why not; ``h`` cycles
every registered host in registry order."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import settle, tui_app
from textual.command import CommandPalette
from textual.notifications import Notify

from skillshelf.app.components.body_pager import BodyPager
from skillshelf.app.screens.choice import ChoiceScreen
from skillshelf.app.screens.compare import CompareScreen
from skillshelf.app.screens.help import HelpScreen
from skillshelf.app.screens.index_preview import IndexPreviewScreen
from skillshelf.app.screens.main import MainScreen
from skillshelf.app.screens.picker import AmbiguityPicker
from skillshelf.app.screens.problems import ProblemsScreen
from skillshelf.app.screens.whatif import WhatIfScreen
from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import HOSTS, get_host, host_names
from skillshelf.core.hosts.base import Feature
from skillshelf.core.paths import Environment
from skillshelf.widgets.header import CatalogHeader

SIZE = (140, 44)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fm(name: str, description: str, body: str = "Body line one.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Environment, dict[str, Path]]:
    """A repository every host reads something in, with a same-name pair per host family, a skill
    with a resource file, an agent and a broken file."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".git").mkdir(parents=True)
    files = {
        # every host but zhin reads one of these; the pair makes a conflict under each
        "agents": write(ws / ".agents/skills/pdf/SKILL.md", fm("pdf", "Project PDF", "Page one.\n" * 2)),
        "agents-user": write(home / ".agents/skills/pdf/SKILL.md", fm("pdf", "User PDF")),
        "claude": write(ws / ".claude/skills/pdf/SKILL.md", fm("pdf", "Claude project PDF")),
        "claude-user": write(home / ".claude/skills/pdf/SKILL.md", fm("pdf", "Claude user PDF")),
        "gemini": write(ws / ".gemini/skills/pdf/SKILL.md", fm("pdf", "Gemini project PDF")),
        "zuno": write(ws / ".zuno/skill/pdf/SKILL.md", fm("pdf", "Zuno project PDF")),
        "zhin": write(ws / "skills/pdf/SKILL.md", fm("pdf", "Zhin PDF")),
        "zhin-other": write(ws / "skills/notes/SKILL.md", fm("notes", "Zhin notes")),
    }
    for key in ("agents", "agents-user", "claude", "claude-user", "gemini", "zuno", "zhin"):
        write(files[key].parent / "references/guide.md", "A resource.\n")
    write(ws / ".agents/skills/broken/SKILL.md", "---\nname: [broken\n---\n")
    write(ws / ".zuno/zuno.json", '{"agents": {"reviewer": {"profile": "plan"}}}\n')
    env = Environment.from_mapping({"HOME": str(home), "PATH": "/nonexistent", "GEMINI_CLI_TRUST_WORKSPACE": "true"})
    return ws, env, files


#: The row each host's tour starts on: the one copy of `pdf` the host keeps or lists first.
START = {"zuno": "zuno", "zhin": "zhin", "claude": "claude-user", "codex": "agents", "opencode": "claude",
         "gemini": "agents"}


#: What a host without a resource reader says when a file of the skill folder is asked for.
NO_RESOURCES = {
    "zhin": "Zhin's load_skill hands over no files of the skill folder (its tools/ are private tools, unlocked by "
            "loading the skill)",
    "claude": "Claude Code reads a skill's other files with its own file tools",
    "codex": "Codex reads a skill's other files with its own file tools",
    "opencode": "opencode reads a skill's other files with its own file tools",
    "gemini": "Gemini CLI reads a skill's other files with its own file tools",
}


#: The status glyph of each copy of `pdf` under each host (SPEC N3: settled copies are ↓, a race ⇄).
GLYPHS = {
    "zuno": {"zuno": "◆", "agents": "◆", "agents-user": "◆"},
    "zhin": {"zhin": "✓"},
    "claude": {"claude-user": "✓", "claude": "↓"},
    "codex": {"agents": "◆", "agents-user": "◆"},
    "opencode": {"claude": "⇄", "claude-user": "⇄", "agents": "⇄", "agents-user": "⇄"},
    "gemini": {"agents": "✓", "gemini": "↓", "agents-user": "↓"},
}


def test_every_registered_host_is_toured() -> None:
    assert set(START) == set(host_names())


def notice_line(app) -> str:
    """The main screen's notice line (what the keys that do not apply say)."""
    from skillshelf.widgets.notice_line import NoticeLine

    return app.main_screen.query_one("#main-notice", NoticeLine).text


def notices(messages: list[object]) -> list[str]:
    return [m.notification.message for m in messages if isinstance(m, Notify)]


async def _visit(app, pilot, key: str, kind: type, check=None) -> None:
    """Open the screen of ``key``, run ``check(screen)`` on it, close it with escape."""
    await pilot.press(key)
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, kind), (key, type(screen).__name__)
    if check is not None:
        check(screen)
    await pilot.press("escape")
    await settle(app, pilot)
    assert isinstance(app.screen, MainScreen), key


@pytest.mark.parametrize("name", list(START))
async def test_every_screen_under_the_host(workspace, name: str) -> None:
    ws, env, files = workspace
    host = get_host(name)
    messages: list[object] = []
    app = tui_app(lambda: Catalog.open(str(ws), env=env, host=host, pull_remote=False), host=host, cwd_display="~/ws")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.generation is not None and main.generation.host == name
        header = main.query_one(CatalogHeader).plain
        assert f"skillshelf ─ {host.describe()} ─ ~/ws ─ generation 1 ─ " in header
        glyphs = {key: r.state for key, path in files.items() for r in main.rows if r.location == str(path)}
        assert {k: v for k, v in glyphs.items() if k not in ("zhin-other",)} == GLYPHS[name]
        legend = main.query_one("#legend").render().plain
        assert all(g in legend for g in GLYPHS[name].values())
        assert main.jump_to_location(str(files[START[name]]))
        await settle(app, pilot)
        row = main.selected_row()
        assert row is not None and row.location == str(files[START[name]])

        # help: the hosts section marks this one and lists every registered host
        def help_check(screen: HelpScreen) -> None:
            text = screen.query_one("#help-text").render().plain
            assert f"*{name}" in text and all(h.describe() in text for h in HOSTS.values())

        await _visit(app, pilot, "question_mark", HelpScreen, help_check)
        await _visit(app, pilot, "ctrl+p", CommandPalette)

        def preview_check(screen: IndexPreviewScreen) -> None:  # the exact catalog text of this host
            assert screen.preview is not None
            if Feature.FORMS not in host.features:
                assert screen.preview.text == main.catalog.model_catalog().text

        await _visit(app, pilot, "i", IndexPreviewScreen, preview_check)

        def whatif_check(screen: WhatIfScreen) -> None:
            assert screen.query_one("#wi-title").render().plain == "What-if: another context window — nothing is written"
            # the maxContextTokens box only for a host with a configuration that has the key
            assert screen.query_one("#wi-mct-row").display == (Feature.CONFIG in host.features)

        await _visit(app, pilot, "w", WhatIfScreen, whatif_check)
        await _visit(app, pilot, "e", ProblemsScreen)

        def compare_check(screen: CompareScreen) -> None:
            assert [h.name for h in screen.hosts] == list(host_names())
            assert screen.result is not None and len(screen.result.rows) == 9

        await _visit(app, pilot, "x", CompareScreen, compare_check)

        # the body, its pages, raw output and the resources, read through the host
        pager = main.query_one(BodyPager)
        assert pager.page is not None and pager.page.error is None
        assert "Body line one." in pager.page.text or "Page one." in pager.page.text
        for key in ("right_square_bracket", "left_square_bracket", "v", "v"):
            await pilot.press(key)
            await settle(app, pilot)
        assert pager.page is not None
        await pilot.press("R")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("j", "k", "j", "enter")  # references/guide.md (j and k move as the arrows do)
        await settle(app, pilot)
        page = pager.page
        assert page is not None
        if page.error is None:
            assert page.text.endswith("A resource.\n") or "A resource." in page.text
        else:  # the host hands the model no resource: it says so in its terms
            assert page.error == NO_RESOURCES[name]

        # resolve / agent / pull: open where the host has them, otherwise a sentence says why
        before = len(notices(messages))
        await pilot.press("a")
        await settle(app, pilot)
        if Feature.CONFIG in host.features:
            assert isinstance(app.screen, AmbiguityPicker)
            await pilot.press("escape")
            await settle(app, pilot)
        else:
            assert isinstance(app.screen, MainScreen)
            assert notice_line(app) == (
                f"a: {host.describe()} has no configuration skillshelf writes a resolution to: it settles same-name "
                "copies itself (↓ shadowed, ⇄ either may win). Press h for a host with skills.config.")
        before = len(notices(messages))
        await pilot.press("g")
        await settle(app, pilot)
        if Feature.AGENTS in host.features:
            assert isinstance(app.screen, ChoiceScreen)
            await pilot.press("escape")
            await settle(app, pilot)
        else:
            assert notice_line(app) == (
                f"g: {host.describe()} has no agent profiles (agents.<name>) to view the catalog through.")
        if Feature.REMOTE not in host.features:
            await pilot.press("p")
            await settle(app, pilot)
            assert notice_line(app) == f"p: {host.describe()} has no remote skill indexes (skills.urls) to pull."
            await pilot.press("ctrl+z")
            await settle(app, pilot)
            assert notice_line(app) == (f"ctrl+z: {host.describe()} has no configuration skillshelf writes, so "
                                        "there is nothing to undo here.")
        assert notices(messages)[before:] == []  # on the main screen's notice line, never a toast
        assert isinstance(app.screen, MainScreen)


async def test_h_cycles_every_registered_host_and_back(workspace) -> None:
    ws, env, _files = workspace
    app = tui_app(lambda: Catalog.open(str(ws), env=env, pull_remote=False), cwd_display="~/ws")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        seen = [app.main_screen.generation.host]
        for _ in host_names():
            await pilot.press("h")
            await settle(app, pilot)
            main = app.main_screen
            seen.append(main.generation.host)
            assert f"skillshelf ─ {main.host.describe()} ─ " in main.query_one(CatalogHeader).plain
        assert seen == [*host_names(), host_names()[0]]


async def test_h_pressed_again_while_a_host_opens_goes_on_to_the_next_one(workspace) -> None:
    """``h h`` in one burst: the second press comes while the first host still opens; it goes on
    to the host after it (not dropped as "still loading")."""
    ws, env, _files = workspace
    gate = threading.Event()  # (the first host opens only once both presses were handled)

    def open_host(host):
        gate.wait(30)
        return Catalog.open(str(ws), env=env, host=host.name, pull_remote=False)

    app = tui_app(lambda: Catalog.open(str(ws), env=env, pull_remote=False), cwd_display="~/ws",
                  open_host=open_host)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        hosts = host_names()
        await pilot.press("h", "h")
        await pilot.pause()
        gate.set()
        await settle(app, pilot)
        main = app.main_screen
        assert (app.host.name, main.host.name, main.generation.host) == (hosts[2], hosts[2], hosts[2])


async def test_claude_catalog_meter_counts_columns_as_its_rule_does(workspace):
    """Claude Code measures its listing in terminal columns: the meter's figures and its rule say
    ``columns``, and the figure is what Claude counts (the listed lines' widths, the built-ins' at
    their real sizes), not the length of the text shown (where built-ins are stand-ins)."""
    from skillshelf.widgets.budget_meter import BudgetMeter

    ws, env, _files = workspace
    catalog = Catalog.open(str(ws), env=env, host="claude", pull_remote=False)
    model = catalog.session.catalog(catalog.current)
    assert model.unit == "columns" and model.used == 6_231 and len(model.text) == 977
    app = tui_app(lambda: catalog, host="claude", cwd_display="~/ws")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lines = app.main_screen.query_one(BudgetMeter).plain.splitlines()
        assert lines[0].startswith("catalog ") and " 6,231 / 30,000 columns · 0 truncated · 0 omitted · " in lines[0]
        assert lines[1] == ("  Claude Code's catalog budget: 1% of 1,000,000 tokens × 3 characters per token "
                            "(claude-opus-5-5) = 30,000 columns")


async def test_whatif_says_the_budget_in_the_hosts_own_unit(workspace):
    """The what-if's ``Now:`` line names the budget in the host's unit (Claude Code: columns)."""
    ws, env, _files = workspace
    app = tui_app(lambda: Catalog.open(str(ws), env=env, host="claude", pull_remote=False), host="claude",
                  cwd_display="~/ws")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, WhatIfScreen)
        assert screen.now_text().startswith("Now: catalog budget 30,000 columns · window: ")
        # at 80×24 the dialog takes the whole screen
        assert screen.query_one("#wi-box").region.size == (80, 23)


async def test_index_preview_of_a_client_counts_in_its_unit_and_lists_what_it_cut(workspace):
    """Claude Code over its budget lists skills by name only: the preview says so per skill, in
    columns as Claude counts them (it said "nothing truncated or omitted" in characters)."""
    from textual.widgets import OptionList, Static

    ws, env, _files = workspace
    env = Environment.from_mapping({**env.vars, "SLASH_COMMAND_TOOL_CHAR_BUDGET": "400"})
    catalog = Catalog.open(str(ws), env=env, host="claude", pull_remote=False)
    model = catalog.session.catalog(catalog.current)
    name_only = [e.name for e in model.entries if e.state.value == "name-only"]
    assert model.budget == 400 and name_only
    app = tui_app(lambda: catalog, host="claude", cwd_display="~/ws")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, IndexPreviewScreen)
        assert str(screen.query_one("#ip-title", Static).render()).startswith(
            "Index preview — Claude Code 2.1.332 — generation 1 — budget 400 columns")
        summary = str(screen.query_one("#ip-summary", Static).render())
        assert summary.startswith(f"claude catalog\nbudget 400 columns\ncounted {model.used:,} columns (as the client counts)\n")
        cuts = screen.query_one("#ip-cuts", OptionList)
        shown = [str(cuts.get_option_at_index(i).prompt) for i in range(cuts.option_count)]
        assert shown == [f"✂ {n}  name only" for n in name_only]
