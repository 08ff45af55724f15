"""The first rows of a large catalog are on screen before its build ends (provisional, with how
far the build got in the header); the published generation replaces them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from conftest import tui_app

from skillshelf.app.components.source_details import DetailsPanel
from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.base import BuildProgress, progress_sink
from skillshelf.core.model import Provenance, Source
from skillshelf.core.paths import Environment
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import CatalogHeader

SIZE = (120, 36)


def _source(name: str, loc: str) -> Source:
    return Source(name=name, location=loc, provenance=Provenance.PROJECT_AGENTS, canonical=loc, root="/r",
                  description=f"{name} skill")


def _project(tmp_path, *names: str):
    """A worktree ``tmp_path/proj`` with one skill per name under ``.agents/skills``."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for name in names:
        d = project / ".agents" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} skill\n---\nbody\n", encoding="utf-8")
    return project


def _reading(project, tmp_path, first: tuple[Source, ...]) -> tuple[Callable[[], Catalog], threading.Event]:
    """An opener reporting ``first`` as the rows of a build still under way (of three files),
    then opening ``project``'s catalog once the event returned with it is set."""
    release = threading.Event()

    def open_catalog() -> Catalog:
        sink = progress_sink()  # what the screen's worker set: a build would report here
        assert sink is not None
        sink(BuildProgress(len(first), 3, first))
        release.wait(60)
        return Catalog.open(str(project), env=Environment.from_mapping({"HOME": str(tmp_path / "home")}),
                            pull_remote=False)

    return open_catalog, release


def _reporting(progress: BuildProgress, catalog: Catalog) -> tuple[Callable[[], Catalog], threading.Event]:
    """An opener reporting ``progress`` (a build still under way, or the last run's list while
    checked), then returning ``catalog`` once the event returned with it is set."""
    release = threading.Event()

    def open_catalog() -> Catalog:
        sink = progress_sink()  # what the screen's worker set: a build would report here
        assert sink is not None
        sink(progress)
        release.wait(60)
        return catalog

    return open_catalog, release


async def _until(pilot, condition, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)


async def test_first_rows_are_shown_while_the_build_runs_then_the_generation(tmp_path):
    project = _project(tmp_path, "alpha", "beta", "gamma")
    open_catalog, release = _reading(project, tmp_path, (_source("alpha", "/r/alpha/SKILL.md"),
                                                         _source("beta", "/r/beta/SKILL.md")))
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        lst = main.query_one(CatalogList)
        await _until(pilot, lambda: len(lst.order) == 2, "the provisional rows")
        assert [main.rows[i].name for i in lst.order] == ["alpha", "beta"]
        assert main.generation is None
        assert "reading skill files… 2 / 3" in main.query_one(CatalogHeader).plain
        details = main.query_one(DetailsPanel)
        await _until(pilot, lambda: details.row is not None and details.row.name == "alpha", "the cursor's row")
        # what the provisional row carries, not "No source selected."
        assert details.details_text.startswith("alpha\n") and "description alpha skill" in details.details_text
        release.set()
        await _until(pilot, lambda: main.generation is not None, "the published generation")
        await _until(pilot, lambda: {main.rows[i].name for i in lst.order} >= {"alpha", "beta", "gamma"},
                     "the full list")
        assert "reading skill files" not in main.query_one(CatalogHeader).plain
        assert all(main.rows[i].location.startswith(str(project)) or main.rows[i].location.startswith("builtin://")
                   for i in lst.order)


async def test_the_last_runs_list_is_shown_while_the_files_are_checked(tmp_path):
    """A build over a kept one reports the last run's whole list first (``checking``): the rows
    are on screen with "checking skill files for changes…" until the generation comes."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    release = threading.Event()
    kept = (_source("alpha", "/r/alpha/SKILL.md"), _source("beta", "/r/beta/SKILL.md"))

    def open_catalog() -> Catalog:
        sink = progress_sink()
        assert sink is not None
        sink(BuildProgress(0, 2, kept, checking=True))
        sink(BuildProgress(1, 2, kept, checking=True))
        release.wait(60)
        return Catalog.open(str(project), env=Environment.from_mapping({"HOME": str(tmp_path / "home")}),
                            pull_remote=False)

    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        lst = main.query_one(CatalogList)
        header = main.query_one(CatalogHeader)
        await _until(pilot, lambda: "checking skill files for changes… 1 / 2" in header.plain, "the count")
        assert [main.rows[i].name for i in lst.order] == ["alpha", "beta"] and main.generation is None
        release.set()
        await _until(pilot, lambda: main.generation is not None, "the published generation")
        await _until(pilot, lambda: "checking" not in header.plain, "the header")
        assert not any(main.rows[i].name in ("alpha", "beta") for i in lst.order)


async def test_the_real_generations_filter_index_reuses_the_last_runs_list(tmp_path):
    """The last run's whole list, shown while the files are checked, gets its filter index in
    the background; the published generation's index takes over what it made of the same rows
    and ranks exactly as one made from scratch."""
    from skillshelf.core.filter import FilterIndex

    project = _project(tmp_path, "alpha", "beta", "gamma-tools")
    catalog = Catalog.open(str(project), env=Environment.from_mapping({"HOME": str(tmp_path / "home")}),
                           pull_remote=False)
    kept = tuple(s for s in catalog.current.sources if s.location.startswith(str(project)))
    assert len(kept) == 3
    release = threading.Event()

    def open_catalog() -> Catalog:
        sink = progress_sink()
        assert sink is not None
        sink(BuildProgress(0, 3, kept, checking=True))
        release.wait(60)
        return catalog

    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        pane = main.catalog_pane
        await _until(pilot, lambda: pane._basis is not None and pane._basis.built() is not None,
                     "the provisional list's index")
        release.set()
        await _until(pilot, lambda: main.generation is not None and pane._index is not None, "the index")
        index = pane._index
        items = [r.item for r in pane.rows]
        assert sum(k >= 0 for k in index._from_basis) == 3  # the three kept rows (not the built-ins)
        index.prepare()
        fresh = FilterIndex(items)
        for query in ("alpha", "gam", "tols", "gamma-tool", "skill", "bta", "alpah"):
            assert index.search(query) == fresh.search(query), query
        await pilot.press("slash", "g", "a", "m")
        await _until(pilot, lambda: [main.rows[i].name for i in pane.catalog_list.order] == ["gamma-tools"], "the hit")


async def test_the_last_runs_list_found_unchanged_keeps_its_rows_and_filter_index(tmp_path):
    """When the published generation lists the very entries of the last run's list shown while
    the files were checked (nothing changed), its rows and their filter index are that list's:
    nothing is made again, and the filter ranks exactly as an index made from scratch. Another
    home folder than the rows were made with (``~`` in them) or another entry makes them anew."""
    from skillshelf.core.filter import FilterIndex

    project = _project(tmp_path, "alpha", "beta", "gamma-tools")
    home = str(tmp_path / "home")
    catalog = Catalog.open(str(project), env=Environment.from_mapping({"HOME": home}), pull_remote=False)
    gen = catalog.current

    async def shown(progress: BuildProgress, app_home: str | None):
        release = threading.Event()

        def open_catalog() -> Catalog:
            sink = progress_sink()
            assert sink is not None
            sink(progress)
            release.wait(60)
            return catalog

        app = tui_app(open_catalog, host="zuno", cwd_display="~/proj", home=app_home)
        async with app.run_test(size=SIZE) as pilot:
            main = app.main_screen
            pane = main.catalog_pane
            await _until(pilot, lambda: pane._basis is not None and pane._basis.built() is not None,
                         "the provisional list's index")
            provisional_rows, provisional_index = pane.rows, pane._basis.built()
            assert pane.border_title.endswith(" · last run, checking…")  # (it is the last run's list)
            pane.set_query("gam", now=True)  # a query over the provisional list uses its index
            assert pane._index is provisional_index
            assert [main.rows[i].name for i in pane.catalog_list.order] == ["gamma-tools"]
            pane.set_query("", now=True)
            release.set()
            await _until(pilot, lambda: main.generation is not None and pane._index is not None, "the index")
            assert "last run" not in str(pane.border_title)
            items = [r.item for r in pane.rows]
            assert len(items) == len(gen.sources) + len(gen.rejected)
            index = pane._index
            fresh = FilterIndex(items)
            for query in ("alpha", "gam", "tols", "gamma-tool", "skill", "bta", "alpah"):
                assert index.search(query) == fresh.search(query), query
            await pilot.press("slash", "g", "a", "m")
            await _until(pilot, lambda: [main.rows[i].name for i in pane.catalog_list.order] == ["gamma-tools"],
                         "the hit")
            return pane.rows is provisional_rows, index is provisional_index

    same = BuildProgress(0, len(gen.sources), gen.sources, gen.rejected, checking=True)
    assert await shown(same, home) == (True, True)
    assert await shown(same, None) == (False, False)  # rows made before the home folder was known
    other = next(s for s in gen.sources if s.name == "beta")
    copy = Source(name=other.name, location=other.location, provenance=other.provenance,
                  canonical=other.canonical, root=other.root, description=other.description)
    changed = BuildProgress(0, len(gen.sources), tuple(copy if s is other else s for s in gen.sources),
                            gen.rejected, checking=True)
    assert await shown(changed, home) == (False, False)


async def test_the_body_of_the_row_under_the_cursor_is_read_once_the_last_runs_list_is_found_unchanged(tmp_path):
    """The last run's list shown while the files are checked has no catalog to read a body
    from; found unchanged, the cursor stays on its row (no new highlight) and its body is read
    then, not left empty with "nothing selected"."""
    from skillshelf.app.components.body_pager import BodyPager

    project = _project(tmp_path, "alpha", "beta")
    catalog = Catalog.open(str(project), env=Environment.from_mapping({"HOME": str(tmp_path / "home")}),
                           pull_remote=False)
    gen = catalog.current
    open_catalog, release = _reporting(
        BuildProgress(0, len(gen.sources), gen.sources, gen.rejected, checking=True), catalog)
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        pager = main.query_one(BodyPager)
        await _until(pilot, lambda: main.catalog_pane.selected_row() is not None, "the last run's list")
        first = main.catalog_pane.selected_row()
        assert first is not None and main.generation is None and pager.page is None
        release.set()
        await _until(pilot, lambda: main.generation is not None, "the generation")
        await _until(pilot, lambda: pager.page is not None, "the body of the row under the cursor")
        selected = main.catalog_pane.selected_row()
        assert selected is not None and selected.location == first.location


async def test_the_filter_index_is_built_before_the_first_keystroke(tmp_path):
    """Once a generation is shown, its filter index is built in the background (the first
    keystroke at 10,000 rows would otherwise wait a few hundred milliseconds for it); a lint
    update of the rows' flags keeps it (it indexes items, not flags)."""
    project = _project(tmp_path, "alpha", "beta")

    def open_catalog() -> Catalog:
        return Catalog.open(str(project), env=Environment.from_mapping({"HOME": str(tmp_path / "home")}),
                            pull_remote=False)

    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        pane = main.catalog_pane
        await _until(pilot, lambda: main.generation is not None and pane._index is not None, "the index")
        index = pane._index
        await pilot.press("slash", "b", "e", "t")
        await _until(pilot, lambda: [main.rows[i].name for i in pane.catalog_list.order] == ["beta"], "the hit")
        assert pane._index is index


async def test_the_list_is_shown_before_its_view_is_computed(tmp_path, monkeypatch):
    """The published generation's rows do not wait for its view (the catalog text and its
    tokens): they are listed at once with both meters saying "computing…", and the view
    follows without listing the rows again."""
    from tui_fixtures import FixedCatalog, make_generation

    import skillshelf.app.screens.main as main_module
    from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter

    release = threading.Event()
    real_view = main_module.catalog_view
    started: list[int] = []

    def slow_view(catalog, generation, agent, budget, **kw):
        started.append(generation.number)
        release.wait(60)
        return real_view(catalog, generation, agent, budget, **kw)

    monkeypatch.setattr(main_module, "catalog_view", slow_view)
    from skillshelf.app.components.catalog_pane import CatalogPane

    listed: list[int] = []
    real_show = CatalogPane.show_generation

    def show_generation(pane, gen, **kw):
        listed.append(gen.number if gen is not None else -1)
        real_show(pane, gen, **kw)

    monkeypatch.setattr(CatalogPane, "show_generation", show_generation)
    generation = make_generation(tmp_path)
    app = tui_app(lambda: FixedCatalog(generation), host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        lst = main.query_one(CatalogList)
        meter, selected = main.query_one(BudgetMeter), main.query_one(SelectedMeter)
        await _until(pilot, lambda: started == [1], "the view worker")
        assert main.generation is generation and main.view is None
        assert [main.rows[i].name for i in lst.order] == ["docx", "pdf", "pdf", "code-review", "xlsx", "broken-one"]
        assert meter.pending and selected.pending
        assert "computing…" in meter.render().plain
        assert not [w for w in app.workers if w.group == "lint"]  # the lint waits for the view
        assert {main.rows[i].flag for i in lst.order} == {" ", "s", "!"} and main.rows[3].flag == " "
        assert listed == [1]
        release.set()
        await _until(pilot, lambda: main.view is not None, "the view")
        await _until(pilot, lambda: not meter.pending, "the meter")
        assert listed == [1]  # not listed again
        assert main.generation is generation and started == [1]
        await _until(pilot, lambda: main.rows[3].flag == "!", "the lint flag of code-review (no description)")


async def test_the_view_and_the_lint_wait_while_the_filter_is_typed_in(tmp_path, monkeypatch):
    """A keystroke never shares the CPU with background work: the view and the lint of every
    file pause while the filter is typed in and go on once typing has been quiet for
    ``Timings.typing_quiet``."""
    from dataclasses import replace

    from conftest import TEST_TIMINGS
    from tui_fixtures import FixedCatalog, make_generation

    import skillshelf.app.screens.main as main_module

    release = threading.Event()
    real_view = main_module.catalog_view

    waits: list[tuple[bool, bool]] = []  # per call of the view's pause: (busy on entry, busy on return)

    def slow_view(catalog, generation, agent, budget, *, pause=None):
        release.wait(60)
        assert pause is not None

        def logged() -> None:
            busy = main.foreground.busy()
            pause()
            waits.append((busy, main.foreground.busy()))

        return real_view(catalog, generation, agent, budget, pause=logged)

    monkeypatch.setattr(main_module, "catalog_view", slow_view)
    app = tui_app(lambda: FixedCatalog(make_generation(tmp_path)), host="zuno", cwd_display="/w",
                  timings=replace(TEST_TIMINGS, typing_quiet=3600.0))
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        pane = main.catalog_pane
        await _until(pilot, lambda: main.generation is not None, "the list")
        await pilot.press("slash", "p", "d")  # typing while the view is computed
        await _until(pilot, lambda: [main.rows[i].name for i in pane.catalog_list.order] == ["pdf", "pdf"], "the hits")
        release.set()  # the view goes on to its next step, and waits there for the typing to stop
        for _ in range(10):
            await pilot.pause(0.02)
        assert main.view is None
        assert any(w.group == "view" and not w.is_finished for w in app.workers)
        assert not any(w.group == "lint" for w in app.workers)
        assert main.rows[3].name == "code-review" and main.rows[3].flag == " "  # not linted yet
        assert pane.foreground is main.foreground and main.foreground.busy()
        main.foreground.touched_at = float("-inf")  # as if the typing had been quiet long enough
        await _until(pilot, lambda: main.view is not None, "the view")
        await _until(pilot, lambda: main.rows[3].flag == "!", "the lint flag of code-review (no description)")
        assert waits[0] == (True, False) and all(not after for _, after in waits)


async def test_the_row_under_the_cursor_while_the_build_runs_gets_its_details_once_it_ends(tmp_path):
    """A cold start: the cursor's row is shown before its catalog exists (nothing about it can be
    computed yet); the very same entry in the published generation then gets its lint and the
    rest computed, instead of "computing…" for good."""
    project = _project(tmp_path, "alpha", "beta")
    catalog = Catalog.open(str(project), env=Environment.from_mapping({"HOME": str(tmp_path / "home")}),
                           pull_remote=False)
    read = tuple(s for s in catalog.current.sources if s.location.startswith(str(project)))
    # (the entries read so far: the very objects the generation holds)
    open_catalog, release = _reporting(BuildProgress(2, 2, read), catalog)
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        details = main.query_one(DetailsPanel)
        await _until(pilot, lambda: details.row is not None and details.row.name == "alpha", "the cursor's row")
        assert main.generation is None and details.extras.lint is None
        release.set()
        await _until(pilot, lambda: main.generation is not None, "the published generation")
        lst = main.query_one(CatalogList)
        main.catalog_pane.highlight(next(i for i in lst.order if main.rows[i].name == "alpha"))
        await _until(pilot, lambda: details.row is not None and details.row.name == "alpha"
                     and details.extras.lint is not None, "the lint of the row under the cursor")
        assert "computing…" not in details.details_text


async def _first_list_then_generation(tmp_path, move: bool) -> tuple[list[str], str]:
    """The rows of a list still being read (two of three skills, at their real locators), then the
    generation; ``move``: the cursor is moved down one row meanwhile. Returns the generation's
    rows in order and the name of the row under the cursor."""
    project = _project(tmp_path, "alpha", "beta", "gamma")
    open_catalog, release = _reading(project, tmp_path, tuple(
        _source(n, str(project / ".agents" / "skills" / n / "SKILL.md")) for n in ("alpha", "beta")))
    app = tui_app(open_catalog, host="zuno", cwd_display="~/proj")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        lst = main.query_one(CatalogList)
        await _until(pilot, lambda: len(lst.order) == 2, "the provisional rows")
        pane = main.catalog_pane
        assert pane.selected_row() is not None and pane.selected_row().name == "alpha"
        if move:
            lst.focus()
            await pilot.press("down")
            await _until(pilot, lambda: pane.selected_row().name == "beta", "the moved cursor")
        release.set()
        await _until(pilot, lambda: main.generation is not None and len(lst.order) > 3, "the full list")
        await pilot.pause()
        return [main.rows[i].name for i in lst.order], pane.selected_row().name


async def test_a_list_still_being_read_leaves_the_cursor_on_the_generations_first_row(tmp_path):
    names, selected = await _first_list_then_generation(tmp_path, move=False)
    assert names[0] != "alpha" and selected == names[0]  # (as a warm start: the list's first row, a built-in)


async def test_a_row_chosen_while_the_list_is_read_keeps_the_cursor(tmp_path):
    names, selected = await _first_list_then_generation(tmp_path, move=True)
    assert selected == "beta" and names[0] != "beta"
