"""The picker for any skill, changing one's mind, the undo journal across sessions and the undo
list, in the TUI (SPEC K4–K5), on a real catalog in tmp_path (the journal lives in its home)."""

from __future__ import annotations

import os

from conftest import settle
from test_tui_picker import CONFIG_BEFORE, SIZE, Tree, make_app, row_of, static_text
from textual.notifications import Notify
from textual.widgets import OptionList

from skillshelf.app.screens.picker import AmbiguityPicker
from skillshelf.app.screens.undo_list import UndoListScreen
from skillshelf.app.undo import Journal
from skillshelf.core.configwrite import Choice


async def _open_picker(app, pilot, location):
    app.main_screen.jump_to_row(row_of(app, location))
    await pilot.press("a")
    await settle(app, pilot)
    picker = app.screen
    assert isinstance(picker, AmbiguityPicker)
    return picker


async def _resolve_then_change_back(tmp_path, config):
    tree = Tree(tmp_path, config=config)
    before = None if config is None else tree.config.read_bytes()
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        picker = await _open_picker(app, pilot, tree.pdf_project)
        await pilot.press("ctrl+s")  # keep the project copy, disable the home one
        await settle(app, pilot)
        assert app.main_screen.generation.ambiguous_names() == ()
        await pilot.press("escape")
        # the picker opens on the name, no longer ambiguous, showing the rule that decides it
        picker = await _open_picker(app, pilot, tree.pdf_project)
        assert static_text(picker, "#picker-title").startswith("Manage pdf — 2 sources, 1 enabled (not ambiguous now).")
        await pilot.press("j")
        assert static_text(picker, "#picker-where").startswith(
            f"locator {tree.pdf_global}\ndecided by skills.config entry ")
        assert '"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}' in static_text(picker, "#picker-where")
        await pilot.press("1")  # changed back: the home copy kept again
        assert "- {\"path\": \"~/.agents/skills/pdf/SKILL.md\", \"enabled\": false}" in \
            static_text(picker, "#picker-plan")
        await pilot.press("ctrl+s", "ctrl+s")  # the second confirms leaving pdf ambiguous again
        await settle(app, pilot)
        assert app.main_screen.generation.ambiguous_names() == ("pdf",)
    return tree, before


async def test_conflict_resolved_then_changed_back_in_the_tui_is_byte_for_byte(tmp_path):
    tree, before = await _resolve_then_change_back(tmp_path, CONFIG_BEFORE)
    assert tree.config.read_bytes() == before


async def test_conflict_resolved_then_changed_back_in_the_tui_removes_the_file_it_created(tmp_path):
    tree, _ = await _resolve_then_change_back(tmp_path, None)
    assert not tree.config.exists()


async def test_tui_undo_in_a_later_session_is_byte_for_byte(tmp_path):
    tree = Tree(tmp_path)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await _open_picker(app, pilot, tree.pdf_global)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    assert tree.config.read_text(encoding="utf-8") != CONFIG_BEFORE
    # a new session: ctrl+z undoes the journal's newest write
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.last_write is None
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert tree.config.read_text(encoding="utf-8") == CONFIG_BEFORE
        assert app.main_screen.generation.ambiguous_names() == ("pdf",)
        await pilot.press("ctrl+z")
        assert tree.config.read_text(encoding="utf-8") == CONFIG_BEFORE  # nothing left: nothing touched


async def test_undo_list_shows_every_write_and_enter_undoes_one(tmp_path):
    tree = Tree(tmp_path)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        picker = await _open_picker(app, pilot, tree.docx)
        await pilot.press("4", "ctrl+s")  # disable docx
        await settle(app, pilot)
        await pilot.press("escape")
        after_docx = tree.config.read_bytes()
        picker = await _open_picker(app, pilot, tree.pdf_project)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await pilot.press("escape")
        await pilot.press("U")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, UndoListScreen)
        listing = screen.query_one(OptionList)
        rows = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert [r.split()[0] for r in rows] == ["#2", "#1"]
        assert rows[0].split()[3:5] == ["current", str(tree.config)]
        assert rows[0].endswith("pdf: disable ~/.agents/skills/pdf/SKILL.md")
        assert rows[1].endswith(f"docx: disable {tree.docx}")
        # #1 cannot be undone while #2's bytes are on top of it
        assert listing.get_option_at_index(1).disabled
        await pilot.press("enter")  # the highlighted newest one
        await settle(app, pilot)
        assert not isinstance(app.screen, UndoListScreen)
        assert tree.config.read_bytes() == after_docx
        entries = Journal.for_env(tree.env).entries()
        assert [(e.id, e.undone) for e in entries] == [(1, False), (2, True)]
        assert picker is not None


async def test_undo_list_says_the_journal_is_damaged(tmp_path):
    tree = Tree(tmp_path)
    journal = Journal.for_env(tree.env)
    os.makedirs(journal.directory)
    with open(journal.file, "wb") as f:
        f.write(b"not json")
    messages: list[object] = []
    app = make_app(tree)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        await pilot.press("U")
        await settle(app, pilot)
        assert isinstance(app.screen, UndoListScreen)
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-1] == (f"The undo journal {journal.file} cannot be read (not a journal skillshelf wrote); it is "
                             "started anew (and kept as journal.json.damaged) at the next write.")


async def test_preset_choices_for_several_names_and_the_preview_says_why_a_path_is_absolute(tmp_path):
    tree = Tree(tmp_path, config=None)
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        picker = AmbiguityPicker(main.catalog, main.generation, ["docx", "pdf"],
                                 choices={tree.docx: Choice.SEARCH, tree.pdf_global: Choice.DISABLE})
        app.push_screen(picker)
        await settle(app, pilot)
        assert picker.choices == {tree.pdf_project: Choice.KEEP, tree.pdf_global: Choice.DISABLE,
                                  tree.docx: Choice.SEARCH}
        plan = static_text(picker, "#picker-plan")
        assert '+ {"path": ".zuno/skill/docx/SKILL.md", "exposure": "search"}' in plan
        assert '+ {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}' in plan
        await pilot.press("t")  # the global file applies to every project: no project-relative path
        plan = static_text(picker, "#picker-plan")
        assert f'+ {{"path": "{tree.docx}", "exposure": "search"}}' in plan
        assert (f"absolute: {tree.home}/.config/zuno/zuno.json applies to every project, so a "
                "project-relative path could match another project's file") in plan.replace("\n  ", " ")


async def test_a_large_config_is_planned_off_the_event_loop(tmp_path):
    entries = ",\n".join(f'      {{"path": "/srv/s{i}/SKILL.md", "exposure": "search"}}' for i in range(6000))
    tree = Tree(tmp_path, config='{\n  "skills": {\n    "config": [\n' + entries + "\n    ]\n  }\n}\n")
    assert tree.config.stat().st_size > 256 * 1024
    app = make_app(tree)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.main_screen.jump_to_row(row_of(app, tree.pdf_project))
        await pilot.press("a")
        picker = app.screen
        assert isinstance(picker, AmbiguityPicker)
        await settle(app, pilot)
        assert '+ {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}' in static_text(picker, "#picker-plan")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert tree.config.read_text(encoding="utf-8").endswith(
            '"exposure": "search"},\n      {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}\n    ]\n  }\n}\n')
