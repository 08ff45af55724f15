"""Live catalog in the TUI (SPEC H2–H4): the watcher worker, the ``changed: +a ~c −r``
notice, ``WatchFailed`` in view, ``--no-watch``, selection/filter kept across generations, a bulk
install of 1,000 skills picked up while keys are pressed; and the what-if session window driving
the main screen's meters (SPEC U1–U2).

Real :class:`~skillshelf.core.catalog.Catalog` over trees written in ``tmp_path`` (HOME inside
it, no remote pulls). Watcher tests use ``step=20, debounce=200`` (DESIGN "Measured here") and
wait for the generation instead of sleeping a fixed time; the waits have generous caps that
only turn a hang into a failure.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import TEST_TIMINGS, settle, tui_app
from textual.widgets import Input, Static

from skillshelf.app import tui as tui_mod
from skillshelf.app.cli import build_parser
from skillshelf.app.generation_diff import GenerationDiff, generation_diff
from skillshelf.app.tui import SkillshelfApp
from skillshelf.core.budget import index_budget_chars, selected_budget_tokens
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment
from skillshelf.core.render import Form, render_budgeted
from skillshelf.core.watch import watch_failed
from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import CatalogHeader

SIZE = (130, 40)
#: Cap on any wait for the watcher, seconds (a hang fails instead of blocking CI).
WAIT_CAP = 60.0


def _skill(root: Path, name: str, description: str, body: str = "Body.\n") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    f = d / "SKILL.md"
    f.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}", encoding="utf-8")
    return f


@pytest.fixture
def project(tmp_path):
    """proj (a worktree) with .zuno/skill/{alpha,beta,gamma}; HOME/XDG inside tmp_path."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    skills = proj / ".zuno" / "skill"
    for name in ("alpha", "beta", "gamma"):
        _skill(skills, name, f"The {name} skill")
    env = Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                    "XDG_CACHE_HOME": str(home / ".cache"), "PATH": "/usr/bin:/bin"})
    return proj, skills, env


#: Watcher batching for tests (DESIGN "Measured here": step ≈ 20 ms, debounce ≈ 200 ms).
LIVE = replace(TEST_TIMINGS, watch_step=20, watch_debounce=200)


def _app(catalog, **kw) -> SkillshelfApp:
    return tui_app(lambda: catalog, host="zuno", cwd_display="~/proj", **kw)


async def wait_until(pilot, predicate, what: str) -> None:
    deadline = time.monotonic() + WAIT_CAP
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def wait_watcher_ready(app, pilot) -> None:
    await wait_until(pilot, lambda: app.watcher is not None, "the watcher worker")
    await asyncio.get_running_loop().run_in_executor(None, app.watcher.ready.wait, WAIT_CAP)


def header(app) -> str:
    return app.main_screen.query_one(CatalogHeader).plain


def shown_names(app) -> list[str]:
    m = app.main_screen
    return [m.rows[i].name for i in m.query_one(CatalogList).order]


# --------------------------------------------------------------------------- generation_diff


def test_h2_generation_diff_counts_added_changed_removed(project):
    proj, skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    g1 = cat.current
    _skill(skills, "delta", "New one")                       # added
    _skill(skills, "alpha", "The alpha skill, edited")        # changed (content)
    (skills / "gamma" / "SKILL.md").unlink()                  # removed
    (skills / "gamma").rmdir()
    (skills / "beta" / "SKILL.md").touch()                    # mtime only: not a change
    g2 = cat.refresh()
    diff = generation_diff(g1, g2)
    assert diff == GenerationDiff(added=1, changed=1, removed=1)
    assert diff.text == "changed: +1 ~1 \u22121"
    assert generation_diff(None, g2) == GenerationDiff()
    assert generation_diff(g2, g2).text == ""


def test_h2_generation_diff_metadata_change_with_same_bytes(project):
    """A sidecar edit changes the display name but not SKILL.md's SHA-256: still ``changed``."""
    proj, skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    g1 = cat.current
    (skills / "beta" / "agents").mkdir()
    (skills / "beta" / "agents" / "zuno.yaml").write_text("interface:\n  display_name: Beta!\n", encoding="utf-8")
    g2 = cat.refresh()
    before = {s.location: s for s in g1.sources}
    beta = next(s for s in g2.sources if s.name == "beta")
    assert beta.content_sha256 == before[beta.location].content_sha256
    assert generation_diff(g1, g2) == GenerationDiff(added=0, changed=1, removed=0)


# --------------------------------------------------------------------------- header notice


async def test_h2_refresh_shows_changed_notice_then_clears(project):
    proj, skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = _app(cat, timings=replace(TEST_TIMINGS, changes_shown=1.0))  # long enough to outlast settle()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert " ─ generation 1 ─ " in header(app)
        assert "changed:" not in header(app)
        _skill(skills, "delta", "New one")
        _skill(skills, "alpha", "The alpha skill, edited")
        (skills / "gamma" / "SKILL.md").unlink()
        await pilot.press("r")
        await settle(app, pilot)
        # one header format: the change follows the counts, the labels stay as they were
        assert header(app).endswith(" ─ generation 2 ─ 14 sources · 0 ambiguous · 0 broken ─ changed: +1 ~1 \u22121")
        await wait_until(pilot, lambda: "changed:" not in header(app), "the notice to clear")
        assert " ─ generation 2 ─ " in header(app)


async def test_h4_watch_failed_warning_shown_and_cleared(project):
    proj, _skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = _app(cat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        line = app.main_screen.query_one("#watch-warning", Static)
        assert line.display is False
        cat.set_watch_warnings((watch_failed("/x/skills", "too many open files"),))
        cat.refresh()  # published through subscribe, as the watcher does
        await settle(app, pilot)
        assert line.display is True
        assert line.content.plain == (
            "⚠ live watch: failed to watch skills in /x/skills: too many open files (r refreshes by hand)")
        cat.set_watch_warnings(())
        cat.refresh()
        await settle(app, pilot)
        assert line.display is False


# --------------------------------------------------------------------------- the watcher worker


async def test_h2_watcher_applies_edit_keeping_filter_and_selection(project):
    proj, skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = _app(cat, watch=True, timings=LIVE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await wait_watcher_ready(app, pilot)
        main = app.main_screen
        box = main.query_one("#filter", Input)
        box.value = "a"                      # alpha, beta, gamma all match
        main.apply_filter()
        lst = main.query_one(CatalogList)
        names = shown_names(app)
        target = names.index("gamma")
        lst.highlighted = target
        await settle(app, pilot)
        number = main.generation.number
        _skill(skills, "beta", "The beta skill, edited live")
        await wait_until(pilot, lambda: main.generation.number > number
                         and any(s.description == "The beta skill, edited live" for s in main.generation.sources),
                         "the edited generation")
        await settle(app, pilot)
        assert box.value == "a"
        assert main.selected_row().name == "gamma"
        assert lst.highlighted == target
        assert header(app).endswith(f" ─ generation {main.generation.number} ─ 14 sources · 0 ambiguous · 0 broken"
                                    " ─ changed: +0 ~1 \u22120")
        stop = app.live_watch.stop
        assert not stop.is_set()
    assert stop.is_set()  # unmount stops the watcher
    assert app.watcher is None


async def test_h2_bulk_install_1000_picked_up_while_keys_pressed(project):
    """1,000 skills written into a watched root while keys are pressed; every key moves
    the cursor, the final generation holds all of them, the list shows every row."""
    proj, skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = _app(cat, watch=True, timings=LIVE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await wait_watcher_ready(app, pilot)
        main = app.main_screen
        lst = main.query_one(CatalogList)
        before = len(main.rows)
        start_row = main.selected_row()
        assert lst.highlighted == 0

        def install() -> None:
            # "zz-…" sorts after the existing skills, so rows above the cursor keep their lines;
            # ten bursts of 100 so several generations land while keys are being pressed
            for burst in range(10):
                for i in range(burst * 100, burst * 100 + 100):
                    _skill(skills, f"zz-{i:04d}", f"Bulk skill {i}")
                time.sleep(0.05)

        writer = threading.Thread(target=install)
        writer.start()
        pressed = during = 0
        while pressed < before - 1:  # at most onto the last pre-existing row
            alive = writer.is_alive()
            await pilot.press("j")
            pressed += 1
            during += alive
        await asyncio.get_running_loop().run_in_executor(None, writer.join)
        assert during >= 1  # keys were handled while the install was running
        await wait_until(pilot, lambda: sum(1 for s in main.generation.sources if s.name.startswith("zz-")) == 1000,
                         "a generation with the 1,000 new skills")
        await settle(app, pilot)
        assert {f"zz-{i:04d}" for i in range(1000)} <= {s.name for s in main.generation.sources}
        assert main.generation.number == cat.current.number > 1
        assert len(main.rows) == before + 1000
        assert lst.line_count == before + 1000
        assert lst.highlighted == pressed == before - 1
        assert main.selected_row().name == "gamma"
        assert main.selected_row().location != start_row.location
        assert f" ─ generation {main.generation.number}" in header(app)
        await pilot.press("k")
        assert lst.highlighted == pressed - 1


async def test_watch_off_by_default_and_fake_catalog_not_watched(tmp_path):
    from tui_fixtures import FakeCatalog

    app = _app(FakeCatalog(tmp_path), watch=True)  # only a real Catalog can be watched
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.live is True
        assert app.watched is None
        assert [w for w in app.workers if w.group == "watcher"] == []
    assert SkillshelfApp(lambda: None).live is False


def test_no_watch_flag_reaches_the_app(monkeypatch, tmp_path):
    seen: dict[str, object] = {}

    def fake_run(self, *a, **kw):
        seen["live"] = self.live
        seen["host"] = self.host.name

    monkeypatch.setattr(SkillshelfApp, "run", fake_run)
    assert build_parser().parse_args(["--no-watch"]).no_watch is True
    assert build_parser().parse_args([]).no_watch is False
    ns = build_parser().parse_args(["--cwd", str(tmp_path), "--no-watch", "--host", "zhin"])
    assert tui_mod.run_tui(ns) == 0
    assert seen == {"live": False, "host": "zhin"}
    ns = build_parser().parse_args(["--cwd", str(tmp_path)])
    tui_mod.run_tui(ns)
    assert seen == {"live": True, "host": "zuno"}


# --------------------------------------------------------------------------- what-if window (U1–U2)


async def test_u1_session_window_recomputes_main_meters(project):
    proj, _skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = _app(cat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        meter = app.main_screen.query_one(BudgetMeter)
        assert meter.limit == 8000
        assert app.main_screen.query_one(SelectedMeter).budget == 32_000  # Z-U: 8,000 tokens × 4 bytes
        app.session_context_window = 128_000
        await settle(app, pilot)
        budget = index_budget_chars(max_context_tokens=None, context_window=128_000)
        assert budget == 2560
        expected = render_budgeted(cat.current.entries(), Form.INDEX, budget)
        assert (meter.limit, meter.used, meter.truncated, meter.omitted) == (
            budget, len(expected.text), expected.truncated, expected.omitted)
        assert selected_budget_tokens(context_window=128_000, max_selected_context_tokens=None) == 12_800
        assert app.main_screen.query_one(SelectedMeter).budget == 51_200  # Z-U: 12,800 tokens × 4 bytes
        assert header(app).endswith(" ─ what-if window 128,000")


async def test_u1_whatif_enter_sets_window_and_main_meter_follows(project):
    proj, _skills, env = project
    cat = Catalog.open(str(proj), env=env, pull_remote=False)
    app = _app(cat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        app.screen.query_one("#wi-window", Input).value = "200000"
        await pilot.press("enter")
        # the dialog's "now:" line follows the session values at once
        assert str(app.screen.query_one("#wi-now").render()) == (
            "Now: index budget 4,000 characters · window 200,000 tokens for this session")
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.session_context_window == 200_000
        assert app.main_screen.query_one(BudgetMeter).limit == 4000
        assert "what-if window 200,000" in header(app)
        # enter applies maxContextTokens too (it wins over the window, U1): meters use both
        await pilot.press("w")
        await settle(app, pilot)
        assert app.screen.query_one("#wi-window", Input).value == "200000"
        app.screen.query_one("#wi-mct", Input).value = "500"
        await pilot.press("enter")
        assert str(app.screen.query_one("#wi-now").render()) == (
            "Now: index budget 2,000 characters · maxContextTokens 500 (this session) decides it"
            " · window 200,000 tokens for this session")
        await pilot.press("escape")
        await settle(app, pilot)
        assert (app.session_context_window, app.session_max_context_tokens) == (200_000, 500)
        assert app.main_screen.query_one(BudgetMeter).limit == index_budget_chars(
            max_context_tokens=500, context_window=200_000) == 2000
        assert header(app).endswith(" ─ what-if window 200,000 · maxContextTokens 500")
        await pilot.press("i")
        await settle(app, pilot)
        assert app.screen.budget == 2000
