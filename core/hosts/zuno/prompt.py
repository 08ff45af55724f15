"""Host ``zuno``: what the model is shown — the budgeted ``<skill_index>`` (SPEC P, U1) as a
:class:`~skillshelf.core.hosts.base.HostCatalog` with every source's fate."""

from __future__ import annotations

from collections.abc import Sequence

from skillshelf.core.budget import index_budget_chars
from skillshelf.core.hosts.base import CatalogEntry, EntryState, HostCatalog
from skillshelf.core.model import Exposure, Source
from skillshelf.core.render import Budgeted, Form, normalize_description, render_budgeted, truncate_description

__all__ = ["budget_rule", "zuno_catalog"]


def budget_rule(*, max_context_tokens: int | None, context_window: int | None) -> str:
    """SPEC U1 in words: where the index budget came from."""
    budget = index_budget_chars(max_context_tokens=max_context_tokens, context_window=context_window)
    if max_context_tokens:
        return f"maxContextTokens {max_context_tokens:,} × 4 (at most 10,000 tokens) = {budget:,} characters"
    if context_window:
        return f"2% of a {context_window:,}-token context window = {budget:,} characters"
    return f"no context window known: the default {budget:,} characters"


def _state(source: Source, result: Budgeted, omitted: set[str], cut: set[str]) -> CatalogEntry:
    name, loc = source.name, source.location
    if source.exposure is Exposure.EXPLICIT:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note="explicit-only: loadable by exact name, never listed")
    if not source.described:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note="no description: hidden from model-facing discovery")
    if source.exposure is Exposure.SEARCH:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note="search-only: reachable through search and list")
    if loc in omitted:
        return CatalogEntry(loc, name, EntryState.OMITTED, note="left out of the index by the budget")
    if loc in cut:
        if result.cap == 0:
            return CatalogEntry(loc, name, EntryState.NAME_ONLY, note="description dropped by the budget")
        shown = truncate_description(normalize_description(source.catalog_description), result.cap or 0)
        return CatalogEntry(loc, name, EntryState.CUT, shown, note=f"description cut to {result.cap} characters")
    return CatalogEntry(loc, name, EntryState.LISTED, shown=source.catalog_description)


def zuno_catalog(sources: Sequence[Source], budget: int, rule: str = "") -> HostCatalog:
    """The index form of ``sources`` (enabled ones, catalog order) within ``budget`` characters."""
    enabled = [s for s in sources if s.enabled]
    result = render_budgeted([s.entry for s in enabled], Form.INDEX, budget)
    omitted = set(result.omitted_locations)
    cut = set(result.truncated_locations)
    entries = tuple(_state(s, result, omitted, cut) for s in enabled)
    return HostCatalog(text=result.text, budget=budget, used=len(result.text), entries=entries, budget_rule=rule)
