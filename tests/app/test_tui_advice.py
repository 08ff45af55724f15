"""Budget advice in the index preview: when the index cuts or leaves out skills, which skills
made search-only let every other fit (the host's own fitting), and the change offered to preview."""

from __future__ import annotations

from conftest import settle, tui_app
from test_tui_whatif import generation
from textual.widgets import Static
from tui_fixtures import FixedCatalog

from skillshelf.app.screens.index_preview import IndexPreviewScreen
from skillshelf.core.render import Form, render_budgeted


async def test_index_preview_says_what_would_make_everything_fit():
    gen = generation()
    app = tui_app(lambda: FixedCatalog(gen, context_window=128_000), host="zuno", cwd_display="/w")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, IndexPreviewScreen)
        full = len(render_budgeted(gen.entries(), Form.INDEX, 10**9).text)
        summary = str(screen.query_one("#ip-summary", Static).render())
        assert (f"To fit every skill in full:\nmake these 2 search-only: saves {full - 2_457:,} characters "
                f"({full:,} → 2,457 for a 2,560 budget)\nskill-09, skill-10\n") in summary
        assert screen.preview is not None and screen.preview.advice is not None
        assert screen.preview.advice.names == ("skill-09", "skill-10")


async def test_no_advice_when_everything_fits():
    app = tui_app(lambda: FixedCatalog(generation(), context_window=1_000_000), host="zuno", cwd_display="/w")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        assert "To fit every skill" not in str(app.screen.query_one("#ip-summary", Static).render())
        assert app.screen.preview.advice is None


async def test_whatif_says_what_would_make_everything_fit_its_window():
    gen = generation()
    app = tui_app(lambda: FixedCatalog(gen), host="zuno", cwd_display="/w")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        advice = app.screen.query_one("#wi-advice", Static)
        assert not advice.display                       # the 8,000 default: everything fits
        await pilot.press("1", "2", "8", "k")            # 2,560 characters
        await settle(app, pilot)
        full = len(render_budgeted(gen.entries(), Form.INDEX, 10**9).text)
        assert advice.display and str(advice.render()) == (
            f"To fit every skill: make these 2 search-only: saves {full - 2_457:,} characters "
            f"({full:,} → 2,457 for a 2,560 budget) — skill-09, skill-10")


async def test_p_previews_the_advice_in_the_picker_and_a_write_makes_everything_fit(tmp_path, zuno_home):
    from skillshelf.app.screens.picker import AmbiguityPicker
    from skillshelf.core.catalog import Catalog
    from skillshelf.core.configwrite import Choice
    from skillshelf.core.model import Exposure
    from skillshelf.core.paths import Environment

    proj = zuno_home / "proj"
    for source in generation().sources:
        folder = proj / ".zuno" / "skill" / source.name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {source.name}\ndescription: {source.description}\n---\nBody.\n",
                                         encoding="utf-8")
    env = Environment.from_mapping({"HOME": str(zuno_home / "home")})
    catalog = Catalog.open(str(proj), env=env, context_window=128_000, pull_remote=False)
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        preview = app.screen
        # Zuno's built-ins take index room too and cannot be moved (skills.config names files): the
        # seven longest of the project's go
        names = ("skill-04", "skill-05", "skill-06", "skill-07", "skill-08", "skill-09", "skill-10")
        assert preview.preview.advice.names == names
        await pilot.press("p")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, AmbiguityPicker)
        advised = {str(proj / ".zuno" / "skill" / n / "SKILL.md") for n in names}
        assert picker.names == names
        assert {loc for loc, c in picker.choices.items() if c is Choice.SEARCH} == advised
        await pilot.press("ctrl+s")                       # write it (the picker's own step)
        await settle(app, pilot)
        gen = catalog.current
        assert {s.location for s in gen.sources if s.exposure is Exposure.SEARCH} == advised
        await pilot.press("escape")
        await settle(app, pilot)
        # back on the preview, shown for the new generation: nothing is cut, no advice
        assert app.screen is preview and preview.generation.number == gen.number
        assert preview.preview.advice is None and preview.preview.result.truncated == 0
