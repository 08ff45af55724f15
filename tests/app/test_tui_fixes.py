"""Fixes from a tester's session of the TUI: lint of kept-last-valid rows (SPEC H3, F5), rejected
reasons (F6), filter counts, picker keys / targets / warnings (K5), one generation per write
(H2), body line numbers (L3), empty zhin catalogs (Z1), copy wording. Files are written in
tmp_path (own text)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from test_tui_picker import Tree, row_of
from textual.notifications import Notify
from textual.widgets import Input, TextArea
from tui_fixtures import FakeCatalog

import skillshelf.app.screens.main as main_mod
from skillshelf.app.screens.picker import AmbiguityPicker, picker_advice, stays_ambiguous
from skillshelf.app.sourceinfo import (
    LintCache,
    body_first_line,
    empty_catalog_text,
    problems,
)
from skillshelf.app.tui import SkillshelfApp, undo_words
from skillshelf.core.catalog import Catalog
from skillshelf.core.configwrite import Choice, WriteResult
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Generation,
    Provenance,
    Rejected,
    Root,
    Severity,
    Source,
    Status,
)
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.source_pane import SourcePane

SIZE = (130, 40)


async def settle(app, pilot) -> None:
    """Let every worker except an endless watcher finish and its messages land."""
    for _ in range(4):
        await pilot.pause()
        busy = [w for w in app.workers if w.group != "watcher"]
        if busy:
            await app.workers.wait_for_complete(busy)
    await pilot.pause()


# --------------------------------------------------------------------------- pure pieces


def test_h3_lint_of_kept_last_valid_describes_the_file_on_disk(tmp_path):
    f = tmp_path / "pdf" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\nname: pdf\ndescription: Read PDF files\n---\nBody.\n", encoding="utf-8")
    kept = Source(name="pdf", location=str(f), provenance=Provenance.PROJECT_ZUNO, canonical=str(f),
                  status=Status.KEPT_LAST_VALID, content_sha256="old-version-hash")
    cache = LintCache("spec")
    assert cache.lint(kept) == ()
    # the file breaks on disk; the host keeps the old entry (same sha in the Source) — lint follows the disk
    f.write_text("---\nname: Not_Valid\n---\nBody.\n", encoding="utf-8")
    codes = {d.code for d in cache.lint(kept) if d.severity is Severity.ERROR}
    assert codes and cache.has_errors(kept)
    assert cache.get(kept) == cache.lint(kept)
    # a normal source is still keyed by its content hash (the generation's view of the file)
    ok = replace(kept, status=Status.OK, content_sha256="h1")
    assert LintCache.key(ok) == (str(f), "h1")
    assert LintCache.key(kept)[1].startswith("disk:")


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


def test_z1_empty_zhin_catalog_names_roots_and_layout():
    roots = (Root(Provenance.ZHIN_PLUGIN, "/bot", "skills", depth=1, exists=False),)
    text = empty_catalog_text(Generation(1, "", "zhin", "/bot", roots, (), (), ()))
    assert text == ("No skills found for host zhin.\n\nSearched:\n  /bot/skills/*/SKILL.md  (missing)\n\n"
                    "Expected layout (Zhin plugin):\n  <plugin>/skills/<name>/SKILL.md\n"
                    "  <plugin>/agents/<agent>/skills/<name>/SKILL.md  (agent-private)")


def test_l3_body_first_line_is_the_line_after_the_frontmatter(tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text("---\nname: a\ndescription: d\n---\n# Title\nline\n", encoding="utf-8")
    assert body_first_line(str(f), "# Title\nline\n") == 5
    assert body_first_line(str(f), "not in the file") == 1
    assert body_first_line(str(tmp_path / "missing.md"), "x") == 1


# --------------------------------------------------------------------------- main screen (Pilot)


async def test_filter_counts_no_match_sort_column_copy_and_line_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr(main_mod, "FILTER_LIMIT", 2)
    catalog = FakeCatalog(tmp_path)
    messages: list = []
    app = SkillshelfApp(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        main = app.main_screen
        pane = main.query_one(SourcePane)
        lst = main.query_one(CatalogList)
        title = lambda: main.query_one("#catalog-pane").border_title  # noqa: E731
        # docx: its body starts on line 5 of the file (after 4 frontmatter lines)
        assert main.selected_row().name == "docx"
        area = pane.query_one("#source-body", TextArea)
        assert (pane.body_text, area.line_number_start, area.show_cursor) == ("# Docx body\n", 5, False)
        # the true match count, never the capped one
        box = main.query_one("#filter", Input)
        box.value = "e"
        main.apply_filter()
        hits = len(main._index.search("e", 100))
        assert hits > 2 and lst.option_count == 2
        assert title() == f"Catalog (2 shown of {hits} matches · 6 rows) · sort relevance"
        assert main.query_one("#no-match").display is False
        box.value = "zzqqxx"
        main.apply_filter()
        assert lst.option_count == 0 and title() == "Catalog (0 matches · 6 rows) · sort relevance"
        no_match = main.query_one("#no-match")
        assert no_match.display is True
        assert no_match.content.plain == "no skills match `zzqqxx`  (esc clears the filter)"
        box.value = ""
        main.apply_filter()
        # size sort: the key shows in its own column
        main.sort = "provenance"
        await pilot.press("s")
        assert main.sort == "size"
        first = str(lst.get_option_at_index(0).prompt)
        assert "      52 B " in first and first.split()[1] == "docx"
        # c: copy the locator, honestly worded
        await pilot.press("c")
        assert app.clipboard == main.selected_row().location
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-1] == f"Locator sent to the terminal clipboard (OSC 52): {main.selected_row().location}"
        # a rejected file: its own line numbers, the note above the text (not in it)
        main.jump_to_row(next(i for i, r in enumerate(main.rows) if r.rejected))
        await settle(app, pilot)
        assert pane.body_text == "---\nname: broken-one\ndescription: a: b: c\n---\n"
        assert area.line_number_start == 1
        assert pane.body_note == "rejected by the host: the skill tool cannot load it; the file is shown as is"


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
    app = SkillshelfApp(lambda: cat, host="zuno", cwd_display="~/w")
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


# --------------------------------------------------------------------------- picker (K5)


async def test_k5_picker_keys_targets_recomputed_and_ambiguity_warned(tmp_path):
    tree = Tree(tmp_path, config=None)
    messages: list = []
    app = SkillshelfApp(tree.open, host="zuno", cwd_display="~/w")
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
        assert ("⚠ `pdf` stays ambiguous after this write: 2 sources stay enabled (keep / search-only / explicit);"
                " press 4 on all but one to disable them") in plan
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
                                 "u (or ctrl+z) undoes.")
        assert app.main_screen.generation.number == before + 1
        await pilot.press("u")
        await settle(app, pilot)
        assert not tree.config.exists()
        assert picker.status == f"undone: {tree.config} removed (it did not exist before)"
        assert app.main_screen.generation.number == before + 2


async def test_h2_one_generation_per_picker_write_with_the_watcher_live(tmp_path):
    tree = Tree(tmp_path)
    cat = tree.open()
    app = SkillshelfApp(lambda: cat, host="zuno", cwd_display="~/w", watch=True, watch_step=20, watch_debounce=200)
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


# --------------------------------------------------------------------------- host switch / zhin (Z1)


async def test_z1_empty_zhin_view_explains_and_host_switch_resets_the_agent(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    bot = tmp_path / "bot"
    bot.mkdir()
    env = Environment.from_mapping({"HOME": str(home)})

    def open_host(host: str):
        return Catalog.open(str(bot), env=env, host=host, pull_remote=False)

    app = SkillshelfApp(lambda: open_host("zuno"), host="zuno", cwd_display="~/bot", open_host=open_host)
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
        assert details.startswith("No skills found for host zhin.\n\nSearched:\n")
        assert f"  {bot}/skills/*/SKILL.md" in details
        assert "  <plugin>/skills/<name>/SKILL.md" in details
