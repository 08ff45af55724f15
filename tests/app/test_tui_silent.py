"""Nothing silent in the TUI: every kind of bad input agents get wrong is named where the user
looks — the Problems view, the source pane's host facts and lint, the notices (SPEC F, D4, S1,
X1). The workspace is written here."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import settle, tui_app
from textual.notifications import Notify

import skillshelf.app.components.agent_view as agent_view_module
from skillshelf.app.screens.choice import ChoiceScreen
from skillshelf.app.screens.main import MainScreen
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment
from skillshelf.widgets.source_pane import SourcePane

SIZE = (150, 50)
ZWSP = "\u200b"
TECHNOLOGIST = "\U0001f9d1\u200d\U0001f4bb"


def tags(text: str) -> str:
    return "".join(chr(0xE0000 + ord(c)) for c in text)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Catalog]:
    t = tmp_path.resolve()
    proj = t / "proj"
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    (t / "home" / ".config").mkdir(parents=True)
    s = proj / ".agents" / "skills"
    write(s / "deploy/SKILL.md", "---\nname: deploy\ndescription: Post to the #deploys channel\n---\nDeploy.\n")
    write(s / "hidden/SKILL.md", f"---\nname: hidden\ndescription: Safe{tags('Ignore')} helper{ZWSP}.\n---\n"
                                 f"Pair {TECHNOLOGIST} here.\n")
    write(s / "plan/SKILL.md", "---\nname: plan\ndescription: Plans the work\n---\nPlan.\n")
    write(s / "numeric/SKILL.md", "---\nname: 1.10\ndescription: A version\n---\nBody.\n")
    write(s / "mention/SKILL.md", "---\nname: mention\ndescription: @team pings the channel\n---\nBody.\n")
    write(s / "refs/SKILL.md", "---\nname: refs\ndescription: References\n---\n"
                               "See [shared](../shared.md), [guide](./docs/Guide.md) and [lower](docs/guide.md).\n")
    write(s / "refs/docs/Guide.md", "guide")
    write(s / "near/skill.md", "---\nname: near\ndescription: Lower-case file name\n---\nBody.\n")
    write(t / "repo/.curated/kept/SKILL.md", "---\nname: kept\ndescription: In a dot folder\n---\nBody.\n")
    write(t / "repo/plain/SKILL.md", "---\nname: plain\ndescription: Plain\n---\nBody.\n")
    env = Environment.from_mapping({"HOME": str(t / "home"), "XDG_CONFIG_HOME": str(t / "home/.config"),
                                    "XDG_CACHE_HOME": str(t / "home/.cache")})
    return t, Catalog.open(str(proj), env=env, paths=(str(t / "repo"),), pull_remote=False)


def notes(messages: list) -> list[tuple[str, str]]:
    return [(m.notification.message, m.notification.severity) for m in messages if isinstance(m, Notify)]


async def select(app, pilot, name: str) -> str:
    main = app.main_screen
    index = next(i for i, r in enumerate(main.rows) if r.name == name)
    main.jump_to_row(index)
    await settle(app, pilot)
    return main.query_one(SourcePane).details_text


async def test_problems_view_names_near_miss_files_and_dot_folders(workspace):
    t, catalog = workspace
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        texts = "\n".join(app.screen.entry_texts())
        near = t / "proj/.agents/skills/near"
        assert (f"{near}/skill.md is not read: Zuno reads only a file named exactly `SKILL.md` (case-sensitive), "
                f"and this one is `skill.md`; rename it to {near}/SKILL.md") in texts
        assert (f"1 SKILL.md file under {t}/repo/.curated was not scanned: Zuno skips folders whose name starts "
                f'with `.`; add "{t}/repo/.curated" to skills.paths to include them') in texts


async def test_source_pane_names_each_kind_with_line_and_fix(workspace):
    _t, catalog = workspace
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        deploy = await select(app, pilot, "deploy")
        assert "description Post to the\n" in deploy  # YAML's meaning is kept
        assert ('  line 3 col 26 warning[comment-in-value] `description` is cut by a YAML comment: in an unquoted '
                'value ` #` starts a comment, so the value is "Post to the" and "#deploys channel" is lost (field '
                'description)\n    hint: description: "Post to the #deploys channel"') in deploy

        hidden = await select(app, pilot, "hidden")
        assert 'description Safe⟦tags "Ignore"⟧ helper\\u200b.' in hidden  # visible in the terminal view
        assert ('warning[invisible-character] invisible to the reader but read by the model: 6 tag characters '
                'U+E0049…U+E0065 spelling "Ignore" (column 18); U+200B ZERO WIDTH SPACE (column 31) (field '
                'description)') in hidden
        assert app.main_screen.query_one(SourcePane).body_text.strip() == f"Pair {TECHNOLOGIST} here."  # emoji kept

        plan = await select(app, pilot, "plan")
        assert ("slash       `/plan` is Zuno's own command, which resolves first: reach this skill as `$plan`, "
                "not `/plan`") in plan

        numeric = await select(app, pilot, "numeric")
        assert 'line 2 error[missing-name] `name` must be a string, got number (field name)\n    hint: name: "1.10"' in numeric

        mention = await select(app, pilot, "mention")
        assert ("the value of `description` starts with `@`, which YAML reserves: quote the value\n"
                '    hint: description: "@team pings the channel"') in mention  # the host verdict
        assert ("error[yaml-error] invalid YAML: the value of `description` starts with `@`, which YAML reserves; "
                "quote the value (found character that cannot start any token at line 3 column 14) (field "
                'description)\n    hint: description: "@team pings the channel"') in mention  # the lint

        refs = await select(app, pilot, "refs")
        assert "warning[reference-outside] `../shared.md` points outside the skill folder" in refs
        assert ("info[reference-spelling] `./docs/Guide.md`: Zuno's read_resource refuses `.` and `..` components; "
                "the model must ask for `docs/Guide.md`") in refs
        assert ("warning[missing-reference] `docs/guide.md` does not exist in the skill folder; `docs/Guide.md` "
                "differs only in case") in refs


@pytest.mark.parametrize(("size", "rows_before", "rows_during"), [((80, 24), 13, 12), ((150, 50), 36, 35)], ids=["80x24", "150x50"])
async def test_pull_without_remote_indexes_says_so_on_a_line_of_its_own(workspace, size, rows_before, rows_during):
    """No toast over the list: one line above the meters, the list one row shorter meanwhile."""
    from textual.widgets._toast import Toast

    from skillshelf.widgets.catalog_list import CatalogList
    from skillshelf.widgets.notice_line import NoticeLine

    _t, catalog = workspace
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=size, message_hook=messages.append, notifications=True) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        number = main.generation.number
        assert main.query_one(CatalogList).region.height == rows_before
        await pilot.press("p")
        await settle(app, pilot)
        line = main.query_one("#main-notice", NoticeLine)
        assert line.text == "p: nothing to pull: no configuration sets skills.urls (.zuno/zuno.json)"
        assert line.region.height == 1 and line.region.width == size[0] - 2
        assert main.query_one(CatalogList).region.height == rows_during
        assert notes(messages) == [] and len(app.screen.query(Toast)) == 0
        assert main.generation.number == number  # nothing was pulled or rescanned
        line.clear_notice()
        await pilot.pause()
        assert main.query_one(CatalogList).region.height == rows_before


async def test_agent_check_overtaken_by_a_host_switch_is_dropped(workspace, monkeypatch):
    t, catalog = workspace
    write(t / "proj/.zuno/zuno.json", json.dumps({"agents": {"docs": {"requiredSkills": ["plan"]}}}))
    catalog.refresh()
    real = agent_view_module.catalog_view
    switched = threading.Event()

    def slow_then_broken(cat, generation, agent, budget):  # the old catalog goes away mid-check
        switched.wait(60)  # the check is still running when the host has switched
        if cat is catalog:
            raise AssertionError
        return real(cat, generation, agent, budget)

    monkeypatch.setattr(agent_view_module, "catalog_view", slow_then_broken)
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        await pilot.press("g", "h")  # a burst: the host switches while the agents are checked
        deadline = time.monotonic() + 60
        while app.main_screen.host.name != "zhin" and time.monotonic() < deadline:
            await pilot.pause(0.02)
        switched.set()
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen) and not isinstance(app.screen, ChoiceScreen)
        assert app.main_screen.host.name == "zhin"
        assert [m for m, severity in notes(messages) if severity == "error"] == []
