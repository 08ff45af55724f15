"""The Problems view (``e``; SPEC K1, D2, D4, F6), actions in the command palette and ``q``
closing dialogs. Workspaces are written in ``tmp_path`` (own text)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import settle, tui_app
from tui_fixtures import FakeCatalog, make_generation

from skillshelf.app.problems import Problem, problems, problems_summary
from skillshelf.app.screens.help import HelpScreen
from skillshelf.app.screens.index_preview import IndexPreviewScreen
from skillshelf.app.screens.main import MainScreen
from skillshelf.app.screens.problems import ProblemsScreen
from skillshelf.core.catalog import Catalog
from skillshelf.core.model import CatalogWarning, Diagnostic, Generation, Provenance, Rejected, Severity
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList

SIZE = (120, 40)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def broken_workspace(tmp_path):
    """A project with one good skill, an uncovered ``.claude/skills`` folder, a garbage
    ``$ZUNO_CONFIG_CONTENT`` layer and a ``--path`` that does not exist."""
    t = tmp_path.resolve()
    proj = t / "proj"
    (proj / ".git").mkdir(parents=True)
    _write(proj / ".agents" / "skills" / "good" / "SKILL.md", "---\nname: good\ndescription: A good skill\n---\nBody.\n")
    _write(proj / ".claude" / "skills" / "stray" / "SKILL.md", "---\nname: stray\ndescription: Not covered\n---\nBody.\n")
    (t / "home").mkdir()
    env = Environment.from_mapping({"HOME": str(t / "home"), "ZUNO_CONFIG_CONTENT": "{not json"})
    return t, Catalog.open(str(proj), env=env, paths=(str(t / "missing"),), pull_remote=False)


async def test_k1_d2_problems_summary_and_screen(broken_workspace):
    t, catalog = broken_workspace
    config_msg = "$ZUNO_CONFIG_CONTENT:1:6: expected ':', found `json`"
    missing_msg = f"skill path not found: {t}/missing"
    uncovered_msg = (f"1 SKILL.md file in {t}/proj/.claude/skills not covered by any root; "
                     "add it to skills.paths to load them")
    hint = '{"skills": {"paths": ["' + f"{t}/proj/.claude/skills" + '"]}}'
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert [r.name for r in main.rows if not r.item.location.startswith("builtin://")] == ["good"]  # it still starts (K1)
        line = main.query_one("#problems-line")
        assert line.display is True
        # exactly one error: it is named (cut at 100 characters), then the other counts
        assert line.content.plain == ("✗ config-invalid: $ZUNO_CONFIG_CONTENT:1:6: expected ':', found `json`"
                                      " · 1 warning · 1 note — press e")

        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProblemsScreen)
        assert screen.title_content().plain.startswith("Problems · generation 1 · 1 error · 1 warning · 1 note")
        assert screen.entry_texts() == [
            "config invalid (1)",
            f"✗ {config_msg}",  # the message starts with its source: not repeated under it
            "path not found (1)",
            f"⚠ {missing_msg}\n    {t}/missing",
            "uncovered folder (1)",
            f"• {uncovered_msg}\n    {t}/proj/.claude/skills\n    hint: {hint}",
        ]
        # enter on an entry that names no skill file keeps the screen open
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ProblemsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


def _generation_with_problems(tmp: Path):
    """The fake generation plus a sidecar warning for ``xlsx`` and the rejected file's host warning."""
    gen = make_generation(tmp)
    xlsx = next(s for s in gen.sources if s.name == "xlsx")
    sidecar = xlsx.location.rsplit("/", 1)[0] + "/agents/zuno.yaml"
    warnings = (
        CatalogWarning("MetadataMalformed", sidecar, f"failed to parse metadata {sidecar}: bad [b]x[/b]\x1b[2J"),
        gen.rejected[0].warning,
    )
    return replace(gen, warnings=warnings), xlsx, sidecar


def test_problems_fold_group_and_name_the_skill_file(tmp_path):
    gen, xlsx, sidecar = _generation_with_problems(tmp_path)
    config = Diagnostic(Severity.ERROR, "config-invalid", "/c/zuno.json:1:1: bad", path="/c/zuno.json", line=1, column=1)
    gen = replace(gen, warnings=gen.warnings + (CatalogWarning("config-invalid", "/c/zuno.json", "/c/zuno.json:1:1: bad"),),
                  diagnostics=(config,))
    broken = gen.rejected[0]
    found = problems(gen)
    assert found == (
        Problem(Severity.ERROR, "config-invalid", "/c/zuno.json:1:1: bad", "/c/zuno.json"),
        Problem(Severity.ERROR, "rejected", "mapping values are not allowed here", broken.location, None,
                "line 3 col 14", "yaml-error", broken.location),
        Problem(Severity.WARNING, "MetadataMalformed", gen.warnings[0].message, sidecar, location=xlsx.location),
    )
    assert problems_summary(found) == "2 errors · 1 warning"
    assert problems_summary(()) == ""


async def test_f6_rejected_and_sidecar_problems_jump_to_their_rows(tmp_path):
    catalog = FakeCatalog(tmp_path)
    catalog.current, xlsx, _sidecar = _generation_with_problems(tmp_path)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.query_one("#problems-line").content.plain == (
            "✗ rejected: …home/.agents/skills/broken-one/SKILL.md line 3 col 14: mapping values are not allowed he…"
            " · 1 warning — press e")
        main.query_one("#filter").value = "docx"  # the jump clears a filter that hides the row
        main.apply_filter()
        await pilot.press("e")
        await pilot.pause()
        texts = app.screen.entry_texts()
        assert texts[:2] == ["rejected files (1)",
                             f"✗ [yaml-error] line 3 col 14  mapping values are not allowed here\n    {tmp_path}/home/.agents/skills/broken-one/SKILL.md"]
        # X1: markup and control characters of the message are shown literally
        assert texts[3].startswith("⚠ failed to parse metadata ") and texts[3].split("\n")[0].endswith(": bad [b]x[/b]␛[2J")
        await pilot.press("enter")  # the rejected file (first selectable entry)
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        lst = main.query_one(CatalogList)
        assert main.rows[lst.current_row].name == "broken-one"
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("down", "enter")  # the sidecar warning names xlsx's SKILL.md
        await settle(app, pilot)
        assert main.rows[lst.current_row].location == xlsx.location


async def test_help_lists_problems_key_and_q_closes_a_dialog(tmp_path):
    app = tui_app(lambda: FakeCatalog(tmp_path), host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "\n  e         problems: warnings, config errors, hints, rejected files\n" in app.screen.query_one("#help-text").content.plain
        await pilot.press("escape", "i")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexPreviewScreen)
        await pilot.press("q")  # closes the preview, does not quit
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.is_running
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.is_running
        await pilot.press("q")  # from the main screen q quits
        await pilot.pause()
        assert not app.is_running


def type_in_palette(app, text: str) -> None:
    """Set the palette's search box (one Input.Changed instead of a key press per letter)."""
    from textual.command import CommandInput

    app.screen.query_one(CommandInput).value = text


async def test_palette_runs_actions_by_name(tmp_path):
    app = tui_app(lambda: FakeCatalog(tmp_path), host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        type_in_palette(app, "index preview")
        await settle(app, pilot)  # the palette has listed its hits (its search is a worker)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexPreviewScreen)
        await pilot.press("escape")
        await pilot.pause()
        main = app.main_screen
        assert main.sort == "catalog"
        await pilot.press("ctrl+p")
        await pilot.pause()
        type_in_palette(app, "sort")
        await settle(app, pilot)  # the palette has listed its hits (its search is a worker)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen) and main.sort == "name"


def test_f6_rejected_reason_is_the_first_error_not_an_info_note():
    info = Diagnostic(Severity.INFO, "crlf", "file uses CRLF line endings")
    error = Diagnostic(Severity.ERROR, "yaml-error", "mapping values are not allowed here", line=3, column=14)
    warn = CatalogWarning("Frontmatter", "/r/a/SKILL.md", "invalid YAML frontmatter")
    a = Rejected(location="/r/a/SKILL.md", provenance=Provenance.GLOBAL_AGENTS, canonical="/r/a/SKILL.md",
                 name="a", warning=warn, diagnostics=(info, error))
    b = Rejected(location="/r/b/SKILL.md", provenance=Provenance.GLOBAL_AGENTS, canonical="/r/b/SKILL.md", name="b",
                 warning=CatalogWarning("MissingName", "/r/b/SKILL.md", "missing name"), diagnostics=(info,))
    gen = Generation(1, "", "zuno", "/w", (), (), (a, b), (warn, b.warning))
    found = [(p.code, p.where, p.message) for p in problems(gen)]
    assert found == [("yaml-error", "line 3 col 14", "mapping values are not allowed here"),
                     ("MissingName", "", "missing name")]
