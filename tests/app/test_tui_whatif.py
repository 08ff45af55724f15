"""Pilot tests of the what-if screen (SPEC U1, U2, P5): typing a window works at once, presets
(↑ ↓, buttons) never swallow digits, each budget is said in words by whose rule; the truncated /
dropped lists follow; nothing is written."""

from __future__ import annotations

import pytest
from conftest import settle, tui_app
from textual.widgets import Input, OptionList, Static
from tui_fixtures import FixedCatalog

from skillshelf.app.screens.whatif import WhatIfScreen, compute_whatif, parse_tokens
from skillshelf.core.config import Config
from skillshelf.core.model import Exposure, Generation, Provenance, Source
from skillshelf.widgets.budget_meter import BudgetMeter

SIZE = (140, 42)
LOREM = "lorem ipsum dolor sit amet " * 40


def generation() -> Generation:
    """Ten skills ``skill-01`` … ``skill-10`` whose descriptions are the first 60 × i characters of LOREM, trailing space stripped."""
    sources = []
    for i in range(1, 11):
        loc = f"/s/skill-{i:02d}/SKILL.md"
        sources.append(Source(name=f"skill-{i:02d}", location=loc, provenance=Provenance.PROJECT_ZUNO,
                              canonical=loc, description=LOREM[: 60 * i].strip(), exposure=Exposure.INDEX))
    return Generation(1, "0" * 64, "zuno", "/w", (), tuple(sources), (), ())


def mem_catalog(mct: int | None = None) -> FixedCatalog:
    """:func:`generation` under Zuno with ``maxContextTokens`` ``mct``."""
    return FixedCatalog(generation(), config=Config(max_context_tokens=mct))


def cut_rows(screen) -> list[str]:
    cuts = screen.query_one("#wi-cuts", OptionList)
    return [str(cuts.get_option_at_index(i).prompt) for i in range(cuts.option_count)]


ALL = [f"skill-{i:02d}" for i in range(1, 11)]


async def test_u1_whatif_presets_and_free_entry():
    app = tui_app(lambda: mem_catalog(), host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, WhatIfScreen)
        # no window, no maxContextTokens: the 8,000 default; everything fits
        assert (screen.current.budget, screen.current.result.truncated, screen.current.result.omitted) == (8000, 0, 0)
        assert cut_rows(screen) == ["every skill fits in full"]

        # the window box has the focus: digits are typed, not taken as keys
        assert screen.focused is screen.query_one("#wi-window", Input)
        await pilot.press("3", "2", "k")                # 32k → 2% = 640 characters
        await settle(app, pilot)
        assert screen.query_one("#wi-window", Input).value == "32k"
        w = screen.current
        assert (w.context_window, w.budget, w.result.cap, w.selected_budget) == (32_000, 640, 27, 3_200)
        assert list(w.result.truncated_names) == ALL
        assert cut_rows(screen)[:2] == ["✂ skill-01  59 → 27", "✂ skill-02  119 → 27"]
        meter = screen.query_one(BudgetMeter)
        assert (meter.used, meter.limit, meter.truncated, meter.omitted) == (638, 640, 10, 0)
        # every figure says what it measures and by whose rule (the host's words: Zuno, Z-W, Z-U)
        assert meter.plain.splitlines()[1] == (
            "  Zuno's index budget: 32,000 tokens from --context-window → index budget 2% = 640 characters")
        assert str(screen.query_one("#wi-bodies", Static).render()) == (
            "Zuno's budget for the skill bodies one request loads: 32,000 tokens from --context-window → selected "
            "bodies 10% (at least 2,000 tokens) × 4 = 12,800 bytes")

        await pilot.press("up")                         # the next preset up: 128k → 2,560 characters
        await settle(app, pilot)
        assert screen.query_one("#wi-window", Input).value == "128000"
        w = screen.current
        assert (w.budget, w.result.cap, w.selected_budget) == (2_560, 265, 12_800)
        assert [r.split()[1] for r in cut_rows(screen)] == ALL[4:]

        await pilot.click("#wi-preset-2")               # the 200k button → 4,000: everything fits again
        await settle(app, pilot)
        assert (screen.current.budget, screen.current.result.truncated, screen.current.selected_budget) == (4_000, 0, 20_000)
        await pilot.press("down", "down")               # 128k, then 32k
        await settle(app, pilot)
        assert screen.current.context_window == 32_000

        screen.query_one("#wi-window", Input).value = "5k"   # free entry: 100 characters, name-only fallback
        await pilot.pause()
        await settle(app, pilot)
        w = screen.current
        assert (w.context_window, w.budget, w.selected_budget) == (5_000, 100, 2_000)
        assert list(w.result.omitted_names) == ALL[2:]
        assert cut_rows(screen) == ["✂ skill-01  59 → 0", "✂ skill-02  119 → 0"] + [f"✗ {n}  over budget" for n in ALL[2:]]

        # enter applies the window to the session; escape closes; nothing else changes
        await pilot.press("enter")
        assert app.session_context_window == 5_000
        await pilot.press("escape")
        assert not isinstance(app.screen, WhatIfScreen)
        await pilot.press("i")
        await settle(app, pilot)
        assert app.screen.budget == 100


async def test_u1_whatif_max_context_tokens_wins_and_bad_input():
    app = tui_app(lambda: mem_catalog(mct=150), host="zuno", cwd_display="/w")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        screen = app.screen
        assert screen.query_one("#wi-mct", Input).value == "150"
        await pilot.press("1", "m")                     # 1M window, but maxContextTokens 150 → 600 chars
        await settle(app, pilot)
        assert (screen.current.budget, screen.current.selected_budget) == (600, 32_000)
        assert screen.query_one(BudgetMeter).plain.splitlines()[1] == (
            "  Zuno's index budget: maxContextTokens 150 × 4 characters per token (at most 10,000 tokens) = 600 "
            "characters")
        assert screen.now_text() == ("Now: index budget 600 characters · maxContextTokens 150 (configuration) "
                                     "decides it · window: context window unknown")
        screen.query_one("#wi-mct", Input).value = ""    # cleared: the window decides (2% of 1M = 20,000)
        await pilot.pause()
        await settle(app, pilot)
        assert screen.current.budget == 20_000
        screen.query_one("#wi-mct", Input).value = "lots"
        await pilot.pause()
        await settle(app, pilot)
        assert str(screen.query_one("#wi-error", Static).render()) == "not a token count: 'lots'"
        assert screen.current.budget == 20_000          # the last valid outcome stays


def test_parse_tokens():
    assert [parse_tokens(s) for s in ("32000", "32,000", "128k", "1M", "1.5m", "", " 200K ")] == [
        32_000, 32_000, 128_000, 1_000_000, 1_500_000, None, 200_000]
    for bad in ("abc", "0", "-5", "12q"):
        with pytest.raises(ValueError):
            parse_tokens(bad)


def test_compute_whatif_is_pure():
    gen = generation()
    a = compute_whatif(gen, context_window=128_000, max_context_tokens=None)
    b = compute_whatif(gen, context_window=128_000, max_context_tokens=None)
    assert a == b and a.budget == 2_560
    assert compute_whatif(gen, context_window=None, max_context_tokens=20_000).budget == 40_000
