"""The ambiguity picker (SPEC K5) on a real catalog built in tmp_path: choices, targets, the
plan, writes and undo (in the picker and with ``ctrl+z``), one generation per write (H2)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import settle, tui_app
from textual.widgets import DataTable, Static

from skillshelf.app.screens.picker import (
    AmbiguityPicker,
    body_diff,
    candidate_targets,
    default_choices,
    picker_advice,
    stays_ambiguous,
)
from skillshelf.app.timings import Timings
from skillshelf.app.undo import undo_words
from skillshelf.core.catalog import Catalog
from skillshelf.core.configwrite import Choice, WriteResult
from skillshelf.core.paths import Environment

SIZE = (140, 42)

#: The project config before the picker writes (a comment and an existing entry to keep).
CONFIG_BEFORE = (
    "{\n"
    "  // project settings (kept byte for byte)\n"
    '  "skills": {\n'
    '    "config": [\n'
    '      { "path": "~/elsewhere", "exposure": "search" }\n'
    "    ]\n"
    "  }\n"
    "}\n"
)


def _skill(root: Path, name: str, description: str, body: str) -> str:
    d = root / name
    d.mkdir(parents=True)
    f = d / "SKILL.md"
    f.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}", encoding="utf-8")
    return str(f)


class Tree:
    """A worktree ``w`` (with ``.git``) and a home, both inside tmp_path: ``pdf`` in the project
    (``.zuno/skill``) and in the home (``.agents/skills``), ``docx`` only in the project."""

    def __init__(self, tmp: Path, config: str | None = CONFIG_BEFORE) -> None:
        self.home = tmp / "home"
        self.cwd = tmp / "w"
        (self.cwd / ".git").mkdir(parents=True)
        self.home.mkdir()
        proj = self.cwd / ".zuno" / "skill"
        glob = self.home / ".agents" / "skills"
        self.pdf_project = _skill(proj, "pdf", "Project PDF helper", "# PDF\nproject line\nshared line\n")
        self.pdf_global = _skill(glob, "pdf", "Global PDF helper", "# PDF\nglobal line\nshared line\n")
        self.docx = _skill(proj, "docx", "Word files", "# Docx\n")
        self.config = self.cwd / ".zuno" / "zuno.json"
        if config is not None:
            self.config.write_text(config, encoding="utf-8")
        self.env = Environment.from_mapping({"HOME": str(self.home),
                                             "XDG_CONFIG_HOME": str(self.home / ".config"),
                                             "XDG_CACHE_HOME": str(self.home / ".cache")})

    def open(self) -> Catalog:
        return Catalog.open(str(self.cwd), env=self.env, host="zuno", pull_remote=False)


def make_app(tree: Tree):
    return tui_app(tree.open, host="zuno", cwd_display="~/w")


def row_of(app, location: str) -> int:
    return next(i for i, r in enumerate(app.main_screen.rows) if r.location == location)


def static_text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_k5_picker_keep_disable_write_undo(tmp_path):
    tree = Tree(tmp_path)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        assert main.generation.ambiguous_names() == ("pdf",)
        main.jump_to_row(row_of(app, tree.pdf_project))
        await pilot.press("a")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, AmbiguityPicker)
        # both sources listed, in catalog order, with lint counts from the worker
        table = picker.query_one(DataTable)
        assert table.row_count == 2
        assert [s.location for s in picker.sources] == [tree.pdf_project, tree.pdf_global]
        assert [str(table.get_row_at(i)[9]) for i in range(2)] == ["ok", "ok"]
        # what decides each source now: no skills.config entry matches either
        assert [str(table.get_row_at(i)[4]) for i in range(2)] == ["default", "default"]
        assert static_text(picker, "#picker-where") == (
            f"locator {tree.pdf_project}\ndecided by no skills.config entry; exposure index (default)  ·  "
            "now enabled, exposure index")
        # default: the selected row is kept, the other disabled; re-choose explicitly with keys
        await pilot.press("1")                  # cursor on row 1 (project) → keep
        await pilot.press("j", "4")             # j moves down; global → disable
        assert picker.choices == {tree.pdf_project: Choice.KEEP, tree.pdf_global: Choice.DISABLE}
        # the home copy is written as ~/… (portable)
        entry = '{"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}'
        plan_text = static_text(picker, "#picker-plan")
        assert "target project ./.zuno/zuno.json" in plan_text
        assert "change skills.config:\n+ " + entry + "\n" in plan_text
        diff = static_text(picker, "#picker-diff")
        assert "-project line\n+global line\n" in diff

        await pilot.press("ctrl+s")
        await settle(app, pilot)
        expected = (
            "{\n"
            "  // project settings (kept byte for byte)\n"
            '  "skills": {\n'
            '    "config": [\n'
            '      { "path": "~/elsewhere", "exposure": "search" },\n'
            f"      {entry}\n"
            "    ]\n"
            "  }\n"
            "}\n"
        )
        assert tree.config.read_text(encoding="utf-8") == expected
        assert Path(str(tree.config) + ".bak").read_text(encoding="utf-8") == CONFIG_BEFORE
        assert app.main_screen.generation.ambiguous_names() == ()
        assert "pdf" not in main.generation.ambiguous_names()
        assert "no longer ambiguous" in picker.status and not picker.status_error
        assert picker.last_result is not None and app.last_write is picker.last_result  # Written reached the app

        await pilot.press("u")
        await settle(app, pilot)
        assert tree.config.read_bytes() == CONFIG_BEFORE.encode("utf-8")
        assert main.generation.ambiguous_names() == ("pdf",)
        assert picker.status.startswith("undone:")
        await pilot.press("escape")
        assert not isinstance(app.screen, AmbiguityPicker)


async def test_k5_picker_creates_file_and_app_ctrl_z_undoes(tmp_path):
    tree = Tree(tmp_path, config=None)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.main_screen.jump_to_row(row_of(app, tree.pdf_global))
        await pilot.press("a")
        await settle(app, pilot)
        picker = app.screen
        # the selected (global) source is kept by default; the project one disabled
        assert picker.choices == {tree.pdf_project: Choice.DISABLE, tree.pdf_global: Choice.KEEP}
        # the project copy is written relative to the project folder (Zuno's working directory)
        assert "new file:\n+ {\"path\": \".zuno/skill/pdf/SKILL.md\", \"enabled\": false}\n" in \
            static_text(picker, "#picker-plan")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert tree.config.read_text(encoding="utf-8") == (
            '{\n  "skills": {\n    "config": [\n'
            '      {"path": ".zuno/skill/pdf/SKILL.md", "enabled": false}\n'
            "    ]\n  }\n}\n")
        await pilot.press("escape")
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert not tree.config.exists()
        assert app.main_screen.generation.ambiguous_names() == ("pdf",)


async def test_k5_picker_target_switch_and_changed_file_error(tmp_path):
    tree = Tree(tmp_path)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.main_screen.jump_to_row(row_of(app, tree.pdf_project))
        await pilot.press("a")
        await settle(app, pilot)
        picker = app.screen
        assert [t.kind for t in picker.targets] == ["project", "global"]
        await pilot.press("t")
        assert picker.target.path == str(tree.home / ".config" / "zuno" / "zuno.json")
        assert "target global ~/.config/zuno/zuno.json" in static_text(picker, "#picker-plan")
        await pilot.press("t")
        assert picker.target.kind == "project"
        # the file changes on disk after the plan was made: refused, shown, nothing written
        tree.config.write_text(CONFIG_BEFORE + "\n", encoding="utf-8")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert picker.status_error
        assert "changed on disk since the plan was made" in picker.status
        assert tree.config.read_text(encoding="utf-8") == CONFIG_BEFORE + "\n"
        assert isinstance(app.screen, AmbiguityPicker)


async def test_picker_opens_for_a_skill_that_is_not_ambiguous(tmp_path):
    tree = Tree(tmp_path)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.main_screen.jump_to_row(row_of(app, tree.docx))
        await pilot.press("a")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, AmbiguityPicker)
        assert static_text(picker, "#picker-title").startswith(
            "Manage docx — 1 source, 1 enabled (not ambiguous now).")
        # it starts from how things are: nothing to write until a choice changes
        assert picker.choices == {tree.docx: Choice.KEEP}
        assert "nothing to write" in static_text(picker, "#picker-plan")
        await pilot.press("3")
        assert "+ {\"path\": \".zuno/skill/docx/SKILL.md\", \"exposure\": \"explicit\"}" in \
            static_text(picker, "#picker-plan")


def test_default_choices_and_diff(tmp_path):
    tree = Tree(tmp_path)
    gen = tree.open().current
    pdfs = [s for s in gen.sources if s.name == "pdf"]
    assert default_choices(pdfs, None) == {tree.pdf_project: Choice.KEEP, tree.pdf_global: Choice.DISABLE}
    assert default_choices(pdfs, tree.pdf_global) == {tree.pdf_project: Choice.DISABLE, tree.pdf_global: Choice.KEEP}
    assert body_diff("a", "x\ny\n", "b", "x\nz\n") == ["--- a", "+++ b", "@@ -1,2 +1,2 @@", " x", "-y", "+z"]
    assert body_diff("a", "same", "b", "same") == ["(identical bodies)"]


def test_candidate_targets(tmp_path):
    tree = Tree(tmp_path)
    jsonc = tree.cwd / "zuno.jsonc"
    jsonc.write_text("{ /* c */ }\n", encoding="utf-8")
    cat = tree.open()
    assert [(t.kind, t.path) for t in candidate_targets(cat)] == [
        ("project", str(tree.config)),
        ("global", str(tree.home / ".config" / "zuno" / "zuno.json")),
        ("jsonc", str(jsonc)),
    ]


def test_k5_picker_advice_and_ambiguity_count():
    assert picker_advice("x.json does not parse (fix it, or choose another target file)") == (
        "x.json does not parse (fix it, or press t to choose another target)")
    assert stays_ambiguous({"a": Choice.KEEP, "b": Choice.SEARCH, "c": Choice.DISABLE}) == 2
    assert stays_ambiguous({"a": Choice.KEEP, "b": Choice.DISABLE}) == 1


def test_undo_words_created_file_is_removed():
    made = WriteResult("/p/.zuno/zuno.json", "/p/.zuno/zuno.json", None, None, b"{}", True, True)
    edited = replace(made, backup="/p/.zuno/zuno.json.bak", previous=b"{}", created=False)
    assert undo_words(made) == "/p/.zuno/zuno.json removed (it did not exist before)"
    assert undo_words(edited) == "/p/.zuno/zuno.json restored"


async def test_k5_picker_keys_targets_recomputed_and_ambiguity_warned(tmp_path):
    tree = Tree(tmp_path, config=None)
    messages: list = []
    app = tui_app(tree.open, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(140, 42), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        app.main_screen.jump_to_row(row_of(app, tree.pdf_project))
        await pilot.press("a")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, AmbiguityPicker)
        table = picker.query_one("#picker-sources")
        assert [t.kind for t in picker.targets] == ["project", "global"]
        # j/k move the cursor (k no longer sets "keep")
        await pilot.press("j")
        assert table.cursor_row == 1 and picker.choices[tree.pdf_global] is Choice.DISABLE
        await pilot.press("k")
        assert table.cursor_row == 0 and picker.choices[tree.pdf_project] is Choice.KEEP
        # space cycles the choice; 2 sets search-only directly
        await pilot.press("j", "space")
        assert picker.choices[tree.pdf_global] is Choice.KEEP
        await pilot.press("space")
        assert picker.choices[tree.pdf_global] is Choice.SEARCH
        await pilot.press("4", "2")
        assert picker.choices[tree.pdf_global] is Choice.SEARCH
        # two sources stay enabled: said before writing, and the first ctrl+s only warns
        plan = str(picker.query_one("#picker-plan").render())
        assert ("⚠ `pdf` stays ambiguous after this write: 2 sources stay enabled (keep / search-only / explicit"
                " / index); press 4 on all but one to disable them") in plan
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not tree.config.exists()
        assert picker.status == ("`pdf` would stay ambiguous (2 sources stay enabled): press ctrl+s again to "
                                 "write anyway, or 4 to disable all but one.")
        await pilot.press("4")
        # a .zuno/zuno.jsonc made while the picker is open is offered on t
        jsonc = tree.cwd / ".zuno" / "zuno.jsonc"
        jsonc.write_text("{ /* made meanwhile */ }\n", encoding="utf-8")
        await pilot.press("t")
        # the project file is now the .jsonc (core prefers it); the old target is gone, so t selects it
        assert next((t.kind, t.path) for t in picker.targets) == ("project", str(jsonc))
        assert picker.target.path == str(jsonc)
        await pilot.press("t")
        assert picker.target.kind == "global"
        jsonc.unlink()
        await pilot.press("t")
        assert picker.target.path == str(tree.config)
        # write (creates the file): the status names it with ~, the undo says "removed"
        before = app.main_screen.generation.number
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert tree.config.exists()
        assert picker.status == (f"wrote {tree.config} (new file); `pdf` is no longer ambiguous. "
                                 "u (or ctrl+z) undoes it (write #1).")
        assert app.main_screen.generation.number == before + 1
        await pilot.press("u")
        await settle(app, pilot)
        assert not tree.config.exists()
        assert picker.status == f"undone: {tree.config} removed (it did not exist before)"
        assert app.main_screen.generation.number == before + 2


async def test_h2_one_generation_per_picker_write_with_the_watcher_live(tmp_path):
    tree = Tree(tmp_path)
    cat = tree.open()
    app = tui_app(lambda: cat, host="zuno", cwd_display="~/w", watch=True,
                  timings=Timings(filter_debounce=0, typing_debounce=0, watch_step=20, watch_debounce=200))
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(app, pilot)
        deadline = time.monotonic() + 30
        while app.watcher is None and time.monotonic() < deadline:
            await pilot.pause(0.05)
        await asyncio.get_running_loop().run_in_executor(None, app.watcher.ready.wait, 30)
        main = app.main_screen
        before = main.generation.number
        main.jump_to_row(row_of(app, tree.pdf_project))
        await pilot.press("a")
        await settle(app, pilot)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "no longer ambiguous" in app.screen.status
        await asyncio.sleep(0.8)  # any second rescan of the same change would have landed by now
        await settle(app, pilot)
        assert cat.current.number == before + 1
        assert main.generation.number == before + 1


def _many(tmp: Path, count: int, copied: int) -> tuple[Catalog, list[str], Path]:
    """``count`` skills in the project's ``.zuno/skill`` (``many-00`` …), the first ``copied`` of
    them also in the home's ``.agents/skills`` (ambiguous)."""
    home, proj = tmp / "home", tmp / "proj"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    names = [f"many-{i:02d}" for i in range(count)]
    for i, name in enumerate(names):
        roots = [proj / ".zuno" / "skill"] + ([home / ".agents" / "skills"] if i < copied else [])
        for root in roots:
            _skill(root, name, f"Does {name} things.", f"Body of {name} in {root.parent.name}.\n")
    env = Environment.from_mapping({"HOME": str(home)})
    return Catalog.open(str(proj), env=env, pull_remote=False), names, proj


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_a_picker_for_many_names_counts_them_in_one_line_and_keeps_the_change_in_view(tmp_path, size):
    catalog, names, proj = _many(tmp_path, 46, 2)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        gen = catalog.current
        search = {s.location: Choice.SEARCH for s in gen.sources if s.location.startswith(str(proj))}
        app.push_screen(AmbiguityPicker(catalog, gen, names, choices=search))
        await settle(app, pilot)
        picker = app.screen
        assert static_text(picker, "#picker-title") == \
            "Resolve 46 skills — 48 sources, 48 enabled; 2 of them ambiguous now"
        assert static_text(picker, "#picker-names") == "names " + ", ".join(names)
        assert static_text(picker, "#picker-keys") == "j k move  5 index  K keep only this one  space cycle the choice"
        for line in ("#picker-title", "#picker-names", "#picker-keys"):
            assert picker.query_one(line).region.height == 1
        # the first rows of the table and the first entry to write are on screen
        table = picker.query_one(DataTable)
        assert table.region.height == (6 if size[1] < 30 else 9)
        plan = static_text(picker, "#picker-plan")
        assert plan.startswith("target project ./.zuno/zuno.json\nnew file:\n"
                               '+ {"path": ".zuno/skill/many-00/SKILL.md", "exposure": "search"}\n')
        # one warning for the names that stay ambiguous, after the change
        assert plan.endswith("\n⚠ 2 names stay ambiguous after this write (two or more of their sources stay "
                             "enabled): many-00, many-01; press 4 on all but one source of each to disable them")
        assert picker.query_one("#picker-plan-scroll").border_subtitle == "t switches to: global"
        assert picker.query_one("#picker-plan-scroll").region.height >= 6
        # the body diff compares copies of one name, never two names
        assert picker.query_one("#picker-diff-scroll").border_title == "Body diff #1 → #47"
        diff = static_text(picker, "#picker-diff")
        assert diff.startswith("--- #1 project-zuno\n+++ #47 global-agents\n")
        assert "\n-Body of many-00 in .zuno.\n+Body of many-00 in .agents.\n" in diff and "many-01" not in diff
        await pilot.press("j", "j")
        assert static_text(picker, "#picker-diff") == "(one source of this name: nothing to compare)"
        # the first ctrl+s warns once for all of them
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert picker.status == "2 names would stay ambiguous: press ctrl+s again to write anyway, or 4 to disable all but one."
