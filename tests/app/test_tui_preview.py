"""Pilot tests of the index preview screen (SPEC P1–P7, U4) on an in-memory catalog."""

from __future__ import annotations

from conftest import settle, tui_app
from textual.notifications import Notify
from textual.widgets import OptionList, Static, Tabs, TextArea
from tui_fixtures import FixedCatalog

from skillshelf.app.screens.index_preview import IndexPreviewScreen, SavePathScreen
from skillshelf.core.config import Config
from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.zuno.installed import policy_marker
from skillshelf.core.model import Exposure, Generation, Provenance, Source

SIZE = (140, 42)


def _src(name: str, description: str, exposure: Exposure = Exposure.INDEX) -> Source:
    loc = f"/s/{name}/SKILL.md"
    return Source(name=name, location=loc, provenance=Provenance.PROJECT_ZUNO, canonical=loc,
                  description=description, exposure=exposure)


ALPHA = " ".join(["Alpha skill"] * 10)      # 119 characters
GAMMA = " ".join(["Gamma helper"] * 20)     # 259 characters


def generation() -> Generation:
    sources = (_src("alpha", ALPHA), _src("beta", "Beta"), _src("gamma", GAMMA),
               _src("delta", "Delta search", Exposure.SEARCH), _src("eps", "Explicit one", Exposure.EXPLICIT),
               _src("ctl", "Bell \x07 here", Exposure.SEARCH))
    return Generation(1, "0" * 64, "zuno", "/w", (), sources, (), ())


def mem_catalog(budget: int, include_instructions: bool = True, cwd: str = "/w") -> FixedCatalog:
    """:func:`generation` under Zuno with an index budget of ``budget`` characters (SPEC U1:
    ``maxContextTokens`` = budget / 4; 8,000 is the default without one)."""
    mct = None if budget == 8000 else budget // 4
    return FixedCatalog(generation(), cwd=cwd,
                        config=Config(include_instructions=include_instructions, max_context_tokens=mct))


def side_rows(screen) -> list[str]:
    cuts = screen.query_one("#ip-cuts", OptionList)
    return [str(cuts.get_option_at_index(i).prompt) for i in range(cuts.option_count)]


async def test_p5_preview_index_truncation_and_forms():
    app = tui_app(lambda: mem_catalog(200), host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, IndexPreviewScreen)
        area = screen.query_one("#ip-text", TextArea)
        # Z-P: the whole prompt — Zuno's policy (a stand-in of its 1,423 characters), a blank line,
        # the budgeted index and Zuno's coverage sentences
        index = (
            "<skill_index>\n"
            '  <skill name="alpha">Alpha skill Alpha skill Alpha skill...</skill>\n'
            '  <skill name="beta">Beta</skill>\n'
            '  <skill name="gamma">Gamma helper Gamma helper Gamma hel...</skill>\n'
            "</skill_index>\n"
            "2 skill description(s) were shortened to fit the model-visible metadata budget; every source identity "
            "remains available.\n"
            "2 additional search-only Skill source(s) are omitted from the initial index and remain available through "
            "action `search` or paged action `list`.")
        assert area.text == policy_marker() + "\n\n" + index
        assert side_rows(screen) == ["✂ alpha  119 → 38 (−81)", "✂ gamma  259 → 38 (−221)"]
        summary = str(screen.query_one("#ip-summary", Static).render())
        assert ("budget 200 characters\nbudgeted 200 characters (the index render)\n"
                f"sections policy 1,423 (stand-in) + index {len(index):,}\ntext   {1423 + 2 + len(index):,} characters"
                ) in summary
        assert ("3 rendered · 2 truncated (descriptions cut to 38 characters)\n"
                "0 omitted · 2 search-only (counted, not listed)\n") in summary
        assert area.show_cursor is False  # read-only text: no stray cursor glyph
        # selecting a truncated entry selects its description in the text
        cuts = screen.query_one("#ip-cuts", OptionList)
        cuts.focus()
        cuts.highlighted = 1
        await pilot.pause()
        assert area.selected_text == "Gamma helper Gamma helper Gamma hel..."

        await pilot.press("f")
        await settle(app, pilot)
        assert screen.query_one(Tabs).active == "form-list"
        assert area.text == (
            "## Available Skills\n"
            "- **beta**: Beta\n"
            "- **ctl**: Bell ␇ here\n"        # the BEL is shown as its control picture (SPEC X1)
            "- **delta**: Delta search")
        # the list form lists the search-only skills (SPEC E1), and the summary says so
        summary = str(screen.query_one("#ip-summary", Static).render())
        assert "3 rendered · 0 truncated\n2 omitted · 2 search-only (listed)\n" in summary
        assert screen.preview.text.splitlines()[2] == "- **ctl**: Bell \x07 here"
        assert side_rows(screen) == ["✗ alpha  over budget", "✗ gamma  over budget"]

        await pilot.press("f")
        await settle(app, pilot)
        assert screen.query_one(Tabs).active == "form-verbose"
        assert area.text.startswith("<available_skills>\n  <skill>\n    <name>beta</name>")
        await pilot.press("f")
        await settle(app, pilot)
        assert screen.query_one(Tabs).active == "form-index"
        assert area.text.startswith("[Zuno 0.10.3 skill trigger policy: ")
        await pilot.press("escape")
        assert not isinstance(app.screen, IndexPreviewScreen)


async def test_p7_include_instructions_false_banner_copy_and_save(tmp_path):
    catalog = mem_catalog(8000, include_instructions=False, cwd=str(tmp_path))  # relative saves go here
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        screen = app.screen
        banner = screen.query_one("#ip-banner", Static)
        assert banner.display
        assert str(banner.render()).startswith("includeInstructions: false — the index and the trigger policy are NOT in the prompt")
        text = screen.preview.text
        assert text == (
            "<skill_index>\n"
            f'  <skill name="alpha">{ALPHA}</skill>\n'
            '  <skill name="beta">Beta</skill>\n'
            f'  <skill name="gamma">{GAMMA}</skill>\n'
            "</skill_index>")
        assert side_rows(screen) == ["nothing truncated or omitted"]
        await pilot.press("c")
        assert app.clipboard == text
        notes = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert notes[-1] == f"{len(text):,} characters sent to the terminal clipboard (OSC 52)."
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SavePathScreen)
        box = app.screen.query_one("#save-path")
        # default: relative to the catalog's working directory (the project), keys shown
        assert box.value == "skill_index.txt"
        assert str(app.screen.query_one("#save-keys", Static).render()) == "enter save · esc cancel"
        await pilot.press("enter")
        await pilot.pause()
        assert (tmp_path / "skill_index.txt").read_text(encoding="utf-8") == text
        assert isinstance(app.screen, IndexPreviewScreen)
        # an existing file is not overwritten on the first enter
        target = tmp_path / "out.txt"
        target.write_text("keep me", encoding="utf-8")
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#save-path").value = "out.txt"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SavePathScreen)
        assert str(app.screen.query_one("#save-warning", Static).render()) == (
            f"{target} exists: enter again to overwrite it, or change the path.")
        assert target.read_text(encoding="utf-8") == "keep me"
        await pilot.press("enter")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == text
        assert isinstance(app.screen, IndexPreviewScreen)


async def test_preview_banner_hidden_when_instructions_on():
    app = tui_app(lambda: mem_catalog(8000), host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        assert not app.screen.query_one("#ip-banner", Static).display


async def test_z3_preview_shows_zhin_catalog_for_host_zhin():
    from skillshelf.core.hosts.zhin.skills import CATALOG_HEADING, CATALOG_INSTRUCTION

    sources = tuple(Source(name=n, location=f"/p/skills/{n}/SKILL.md", provenance=Provenance.ZHIN_PLUGIN,
                           canonical=f"/p/skills/{n}/SKILL.md", description=d)
                    for n, d in (("web-search", "Search  the\nweb"), ("calc", "x" * 100)))
    cat = FixedCatalog(Generation(1, "0" * 64, "zhin", "/w", (), sources, (), ()), host=get_host("zhin"),
                       home="/nonexistent")
    app = tui_app(lambda: cat, host="zhin", cwd_display="/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        screen = app.screen
        assert screen.preview.title == "zhin catalog"
        assert screen.query_one("#ip-text", TextArea).text == "\n".join(
            [CATALOG_HEADING, " - calc: " + "x" * 95 + "…", " - web-search: Search the web", "", CATALOG_INSTRUCTION])
        assert not screen.query_one(Tabs).display
