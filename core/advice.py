"""Budget advice (SPEC P5, E1): when the catalog text cuts or leaves out skills, which skills made
search-only would let every other one fit in full, and what that saves.

The host's own fitting decides: :func:`fit_advice` takes the host's catalog function (for Zuno
:meth:`HostSession.catalog <skillshelf.core.hosts.base.HostSession.catalog>`, which renders the
budgeted ``<skill_index>``) and checks every candidate set with it, so the advice is exact for
that host, budget and window — not an estimate. Search-only skills stay loadable through the
skill tool's search and list; only their index line goes.

Which skills: the longest index lines first (fewest skills to move for the characters needed),
the smallest number that makes the host's catalog cut nothing and leave nothing out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from skillshelf.core.hosts.base import EntryState, HostCatalog
from skillshelf.core.model import Exposure, Generation, Source

__all__ = ["ADVICE_REASON", "FitAdvice", "fit_advice"]

#: The exposure reason given to the sources moved in the trial generations.
ADVICE_REASON = "budget advice (not written)"
#: A budget no catalog reaches: the catalog text with every description in full.
_UNLIMITED = 10**12
_CUT = frozenset({EntryState.CUT, EntryState.NAME_ONLY, EntryState.OMITTED})


@dataclass(frozen=True)
class FitAdvice:
    """Make the sources at ``locations`` (named ``names``, catalog order) search-only and every
    other skill's description fits in full. ``before`` / ``after``: the catalog text with every
    description in full, in the host's ``unit`` (characters for Zuno), today and after the change;
    ``saved`` = ``before - after``; ``budget`` the budget both are fitted to; ``cut`` the number of
    skills the budget cuts or leaves out today."""

    locations: tuple[str, ...]
    names: tuple[str, ...]
    before: int
    after: int
    budget: int
    unit: str
    cut: int

    @property
    def saved(self) -> int:
        """How much shorter the full catalog text gets, in :attr:`unit`."""
        return self.before - self.after

    def words(self) -> str:
        """``make these 6 search-only: saves 2,140 characters (12,140 → 10,000 for a 10,000 budget)``."""
        n = len(self.locations)
        these = "this one" if n == 1 else f"these {n:,}"
        return (f"make {these} search-only: saves {self.saved:,} {self.unit} "
                f"({self.before:,} → {self.after:,} for a {self.budget:,} budget)")


def _with_search_only(generation: Generation, locations: frozenset[str]) -> Generation:
    sources = tuple(replace(s, exposure=Exposure.SEARCH, exposure_reason=ADVICE_REASON) if s.location in locations
                    else s for s in generation.sources)
    return replace(generation, sources=sources)


def fit_advice(generation: Generation, catalog_of: Callable[[Generation, int | None], HostCatalog],
               movable: Callable[[Source], bool] = lambda source: True) -> FitAdvice | None:
    """What makes every skill of ``generation`` fit the host's catalog budget, or ``None`` when
    nothing is cut today, the host has no budget, or only moving every listed skill would do.

    ``catalog_of(generation, budget)`` is the host's catalog of a generation: with ``budget``
    ``None`` under its own rule, else fitted to that budget (in the host's unit). Exposure is the
    host's (SPEC E1): a search-only source has no index line. Only sources ``movable`` says the
    user can change are moved (a built-in one cannot be named by ``skills.config``). Runs the
    host's fitting about log2(N) + 3 times for N listed skills."""
    today = catalog_of(generation, None)
    budget = today.budget
    cut = sum(1 for e in today.entries if e.state in _CUT)
    if budget is None or cut == 0:
        return None
    by_location = {s.location: s for s in generation.sources}
    shown = [by_location[e.location] for e in today.entries
             if e.state in (EntryState.LISTED, *_CUT) and e.location in by_location]
    listed = [s for s in shown if movable(s)]

    def cost(location: str) -> int:
        source = by_location[location]
        return len(source.name) + len(source.catalog_description or "")

    order = sorted((s.location for s in listed), key=lambda loc: -cost(loc))  # stable: ties keep catalog order

    def fits(k: int) -> bool:
        trial = catalog_of(_with_search_only(generation, frozenset(order[:k])), budget)
        return not any(e.state in _CUT for e in trial.entries)

    # every listed skill moved would "fit" an empty index: that is no advice
    most = len(order) if len(order) < len(shown) else len(order) - 1
    if most < 1 or not fits(most):
        return None
    lo, hi = 0, most  # fits(hi) holds; find the smallest k that fits
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid + 1
    chosen = frozenset(order[:lo])
    before = catalog_of(generation, _UNLIMITED).used
    after = catalog_of(_with_search_only(generation, chosen), _UNLIMITED).used
    moved = [s for s in generation.sources if s.location in chosen]
    return FitAdvice(tuple(s.location for s in moved), tuple(s.name for s in moved), before, after, budget,
                     today.unit, cut)
