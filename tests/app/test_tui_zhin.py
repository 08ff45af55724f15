"""Host ``zhin`` in the TUI (SPEC Z1–Z5, zhin-scenarios H003/H006/H011/H017/H025).

A small Zhin plugin written in ``tmp_path`` (own text): ``weather`` (two private tools, one
missing dependency), ``greeter`` (``always: true``), ``long-desc`` (a description over 96
characters), and the agent-private ``agents/reviewer/skills/audit``. ``h`` switches a Zuno
session to zhin and back; ``--host zhin`` opens in zhin mode directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import settle, tui_app

from skillshelf.app.empty_catalog import empty_catalog_text
from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import host_names
from skillshelf.core.hosts.zhin.load import zhin_read_instructions
from skillshelf.core.hosts.zhin.skills import CATALOG_HEADING, CATALOG_INSTRUCTION, render_zhin_catalog
from skillshelf.core.model import Generation, Provenance, Root
from skillshelf.core.paths import Environment
from skillshelf.core.tokens import TokenCounter, approx_tokens
from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import CatalogHeader
from skillshelf.widgets.source_pane import SourcePane

SIZE = (130, 40)
LONG = ("This description is deliberately much longer than ninety-six characters so that the "
        "Zhin catalog line is cut with an ellipsis")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def plugin(tmp_path):
    root = tmp_path / "bot"
    (root / ".git").mkdir(parents=True)
    _write(root / "skills" / "weather" / "SKILL.md",
           "---\nname: weather\ndescription: Look up the   weather\n  forecast for a city\ncompatibility:\n"
           "  deps:\n    - sh\n    - no-such-weather-cli\n---\n\n# Weather\n\n## Workflow\n\n1. Call the forecast tool.\n")
    (root / "skills" / "weather" / "tools" / "radar").mkdir(parents=True)
    (root / "skills" / "weather" / "tools" / "forecast").mkdir(parents=True)
    _write(root / "skills" / "greeter" / "SKILL.md",
           "---\nname: greeter\ndescription: Greets every new member\nalways: true\n---\n\n## 执行规则\nSay hello.\n")
    _write(root / "skills" / "long-desc" / "SKILL.md", f"---\nname: long-desc\ndescription: {LONG}\n---\nBody.\n")
    _write(root / "agents" / "reviewer" / "skills" / "audit" / "SKILL.md",
           "---\nname: audit\ndescription: Audit a pull request\n---\n## Instructions\nCheck the diff.\n")
    (root / "agents" / "reviewer" / "skills" / "audit" / "tools" / "lint").mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    env = Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                    "XDG_CACHE_HOME": str(home / ".cache"), "PATH": "/usr/bin:/bin"})
    return root, env


def _open(root: Path, env: Environment):
    def open_host(host: str):
        return Catalog.open(str(root), env=env, host=host, pull_remote=False)
    return open_host


def names(app) -> list[str]:
    m = app.main_screen
    return [m.rows[i].name for i in m.query_one(CatalogList).order]


def select(app, name: str) -> None:
    m = app.main_screen
    lst = m.query_one(CatalogList)
    lst.highlighted = names(app).index(name)


async def test_z5_zhin_mode_source_pane_body_and_meters(plugin):
    root, env = plugin
    open_host = _open(root, env)
    app = tui_app(lambda: open_host("zhin"), host="zhin", cwd_display="~/bot", open_host=open_host)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        gen = main.generation
        assert gen.host == "zhin"
        assert main.query_one(CatalogHeader).plain.startswith(
            "skillshelf ─ Zhin (im/skill) ─ ~/bot ─ generation 1 ─ 4 sources")
        assert sorted(names(app)) == ["audit", "greeter", "long-desc", "weather"]
        lst = main.query_one(CatalogList)
        prompts = {main.rows[i].name: lst.line_content(p).plain for p, i in enumerate(lst.order)}
        assert "agent:reviewer" in prompts["audit"]
        assert " plugin " in prompts["weather"]          # the root label (provenance zhin-plugin)

        # weather: catalog line (Z3), locked private tools (Z5, H003), missing deps warning (Z5)
        select(app, "weather")
        await settle(app, pilot)
        pane = main.query_one(SourcePane)
        text = pane.details_text
        assert "catalog      - weather: Look up the weather forecast for a city\n" in text
        assert "tools       2 private  locked until load_skill\n  🔒 skill__weather__forecast\n  🔒 skill__weather__radar\n" in text
        assert "deps        ⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能：no-such-weather-cli\n" in text
        weather = next(s for s in gen.sources if s.name == "weather")
        expected_body = zhin_read_instructions(weather, which=lambda d: "/bin/sh" if d == "sh" else None)
        assert expected_body.startswith("⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能：no-such-weather-cli\n\nSkill 'weather' loaded.")
        assert pane.body_text == expected_body
        assert pane.body_title.startswith("load_skill text · page 1 of 1")

        # agent-private skill: qualified tool name with the agent (H006)
        select(app, "audit")
        await settle(app, pilot)
        text = pane.details_text
        assert "agent       reviewer  (agent-private: listed only for this agent)\n" in text
        assert "  🔒 agent__reviewer__skill__audit__lint\n" in text

        # Z3 cut at 96 characters
        select(app, "long-desc")
        await settle(app, pilot)
        assert f"catalog      - long-desc: {LONG[:95]}…\n" in pane.details_text

        # meters: the catalog section (Z3) against the index budget; always: true bodies (Z5, U2)
        meter = main.query_one(BudgetMeter)
        section = render_zhin_catalog(gen.sources)
        assert section.startswith(CATALOG_HEADING) and section.endswith(CATALOG_INSTRUCTION)
        assert " - audit:" not in section
        assert (meter.label, meter.used, meter.limit, meter.truncated, meter.omitted) == (
            "catalog", len(section), None, 1, 0)
        selected = main.query_one(SelectedMeter)
        greeter_body = "## 执行规则\nSay hello."
        assert selected.required == 1 and selected.required_label == "always"
        body_cost = approx_tokens(zhin_read_instructions(next(s for s in gen.sources if s.name == "long-desc")))
        assert selected.estimate == approx_tokens(greeter_body) + body_cost
        assert f" {selected.estimate:,} / 8,000 tokens · 1 always + long-desc · " in selected.plain.splitlines()[0]
        exact = TokenCounter().count(greeter_body)
        assert main.view.required[0].exact == (exact.tokens if exact.exact else None)


async def test_z1_h_switches_host_and_back_keeping_filter(plugin):
    root, env = plugin
    open_host = _open(root, env)
    app = tui_app(lambda: open_host("zuno"), host="zuno", cwd_display="~/bot", open_host=open_host)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.generation.host == "zuno"
        assert "weather" not in names(app)  # bot/skills is not a Zuno root
        await pilot.press("h")
        await settle(app, pilot)
        assert (app.host.name, main.host.name, main.generation.host) == ("zhin", "zhin", "zhin")
        assert main.generation.number == 1
        assert main.query_one(CatalogHeader).plain.startswith(
            "skillshelf ─ Zhin (im/skill) ─ ~/bot ─ generation 1 ─ 4 sources")
        assert sorted(names(app)) == ["audit", "greeter", "long-desc", "weather"]
        for _ in range(len(host_names()) - 1):  # on through the other registered hosts, back to zuno
            await pilot.press("h")
            await settle(app, pilot)
        assert (main.host.name, main.generation.host) == ("zuno", "zuno")
        assert "weather" not in names(app)
        assert main.query_one(BudgetMeter).label == "index"
        assert main.query_one(SelectedMeter).required_label == "required"


async def test_h_without_reopen_support_says_so(tmp_path):
    from tui_fixtures import FakeCatalog

    notes: list[str] = []
    app = tui_app(lambda: FakeCatalog(tmp_path), host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE, message_hook=lambda m: notes.append(getattr(m, "notification", None) and m.notification.message)) as pilot:
        await settle(app, pilot)
        await pilot.press("h")
        await settle(app, pilot)
        assert app.main_screen.host.name == "zuno"
        assert "This catalog cannot be re-opened for another host." in notes


async def test_f5_lint_target_follows_the_host(tmp_path):
    """The same file under both hosts (a configured path for Zuno, a plugin skill for Zhin):
    Zuno lints it with the standard (``always`` is an unknown key: an error, row flag ``!``),
    Zhin with its own rules (``always: true`` is a valid Zhin key: clean)."""
    root = tmp_path / "bot"
    (root / ".git").mkdir(parents=True)
    _write(root / "skills" / "greeter" / "SKILL.md",
           "---\nname: greeter\ndescription: Greets every new member\nalways: true\n---\n\nSay hello.\n")
    home = tmp_path / "home"
    env = Environment.from_mapping({"HOME": str(home), "PATH": "/usr/bin:/bin"})

    def open_host(host: str):
        return Catalog.open(str(root), env=env, host=host, paths=(str(root / "skills"),), pull_remote=False)

    app = tui_app(lambda: open_host("zuno"), host="zuno", cwd_display="~/bot", open_host=open_host)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        select(app, "greeter")
        await settle(app, pilot)
        row = main.selected_row()
        assert (main.lint_cache.target, row.flag) == ("spec", "!")
        text = main.query_one(SourcePane).details_text
        assert ("lint (spec)  1 error, 0 warnings\n  line 4 col 1 error[unknown-key] unknown key `always`; the Agent Skills "
                "standard allows only allowed-tools, compatibility, description, license, metadata, name (field always)") in text

        await pilot.press("h")
        await settle(app, pilot)
        assert main.generation.host == "zhin"
        select(app, "greeter")
        await settle(app, pilot)
        row = main.selected_row()
        assert (main.lint_cache.target, row.flag) == ("zhin", " ")
        text = main.query_one(SourcePane).details_text
        assert "\nlint (zhin)  clean\n" in text
        assert "unknown-key" not in text and "lint (spec)" not in text


def test_z1_empty_zhin_catalog_names_roots_and_layout():
    roots = (Root(Provenance.ZHIN_PLUGIN, "/bot", "skills", depth=1, exists=False),)
    roots += (Root(Provenance.ZHIN_AGENT, "/bot/agents/rev", "skills", depth=1, label="agent:rev"),)
    text = empty_catalog_text(Generation(1, "", "zhin", "/bot", roots, (), (), ()))
    # the layouts come from the host's roots (the app knows no host's layout by name)
    assert text == ("No skills found for Zhin.\n\nSearched:\n  /bot/skills/*/SKILL.md  (missing)\n"
                    "  /bot/agents/rev/skills/*/SKILL.md  (missing)\n\n"
                    "Expected layout (a folder per skill, SKILL.md inside):\n  <root>/skills/<name>/SKILL.md\n"
                    "  <root>/skills/<name>/SKILL.md  (agent:rev)")


async def test_z1_empty_zhin_view_explains_and_host_switch_resets_the_agent(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    bot = tmp_path / "bot"
    bot.mkdir()
    env = Environment.from_mapping({"HOME": str(home)})

    def open_host(host: str):
        return Catalog.open(str(bot), env=env, host=host, pull_remote=False)

    app = tui_app(lambda: open_host("zuno"), host="zuno", cwd_display="~/bot", open_host=open_host)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        main.agent = "reviewer"  # an agent view of the zuno configuration
        await pilot.press("h")
        await settle(app, pilot)
        assert main.host.name == "zhin" and main.agent is None
        assert "agent:" not in main.query_one("#header").plain
        assert main.rows == []
        details = main.query_one(SourcePane).shown_text
        assert details.startswith("No skills found for Zhin.\n\nSearched:\n")
        assert f"  {bot}/skills/*/SKILL.md" in details
        assert "  <root>/skills/<name>/SKILL.md" in details
