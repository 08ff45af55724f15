"""core/advice.py: which skills made search-only let every other fit, by the host's own fitting."""

from __future__ import annotations

from dataclasses import replace

from skillshelf.core.advice import fit_advice
from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.base import EntryState, HostContext
from skillshelf.core.model import Exposure, Generation, Provenance, Source
from skillshelf.core.paths import Environment
from skillshelf.core.render import Form, render_budgeted

LOREM = "lorem ipsum dolor sit amet " * 40


def _generation() -> Generation:
    """Ten skills whose descriptions are 59, 119, … 599 characters (own text)."""
    sources = []
    for i in range(1, 11):
        loc = f"/s/skill-{i:02d}/SKILL.md"
        sources.append(Source(name=f"skill-{i:02d}", location=loc, provenance=Provenance.PROJECT_ZUNO, canonical=loc,
                              description=LOREM[: 60 * i].strip(), exposure=Exposure.INDEX))
    return Generation(1, "0" * 64, "zuno", "/w", (), tuple(sources), (), ())


def _zuno(window: int | None):
    session = get_host("zuno").open(HostContext("/w", Environment.from_mapping({"HOME": "/w"}), pull_remote=False))
    return lambda gen, budget: session.catalog(gen, context_window=window, budget=budget)


def test_advice_is_the_fewest_longest_lines_and_exact():
    gen = _generation()
    catalog_of = _zuno(128_000)                      # 2% of 128,000 = 2,560 characters
    advice = fit_advice(gen, catalog_of)
    assert advice is not None
    full = render_budgeted(gen.entries(), Form.INDEX, 10**9).text
    assert (advice.names, advice.budget, advice.unit, advice.cut) == (("skill-09", "skill-10"), 2_560, "characters", 6)
    assert (advice.before, advice.after, advice.saved) == (len(full), 2_457, len(full) - 2_457)
    assert advice.words() == (f"make these 2 search-only: saves {len(full) - 2_457:,} characters "
                              f"({len(full):,} → 2,457 for a 2,560 budget)")
    # exact by the host's own fitting: with both moved nothing is cut; with only one, something is
    moved = replace(gen, sources=tuple(replace(s, exposure=Exposure.SEARCH) if s.name in advice.names else s
                                       for s in gen.sources))
    assert all(e.state in (EntryState.LISTED, EntryState.HIDDEN) for e in catalog_of(moved, 2_560).entries)
    one = replace(gen, sources=tuple(replace(s, exposure=Exposure.SEARCH) if s.name == "skill-10" else s
                                     for s in gen.sources))
    assert any(e.state is EntryState.CUT for e in catalog_of(one, 2_560).entries)


def test_no_advice_when_everything_fits_or_nothing_can():
    gen = _generation()
    assert fit_advice(gen, _zuno(1_000_000)) is None         # 20,000 characters: nothing cut
    # 100 characters: only an empty index would fit, which is no advice
    assert fit_advice(gen, lambda g, b: _zuno(None)(g, 100 if b is None else b)) is None
