"""One generation as the TUI shows it for one agent view: listed sources, both meters' numbers and
why the agent would not start (SPEC E4, S2, U1–U3, P5).

Everything comes from the host: its model catalog (:meth:`HostSession.catalog
<skillshelf.core.hosts.base.HostSession.catalog>`), its budgets, the text it hands over when a
skill is loaded. Hosts with :attr:`Feature.AGENTS <skillshelf.core.hosts.base.Feature.AGENTS>`
filter the sources for an ``agents.<name>`` entry and count its ``requiredSkills`` bodies;
hosts with :attr:`Feature.ALWAYS <skillshelf.core.hosts.base.Feature.ALWAYS>` count what every
prompt carries for their ``always: true`` skills. Runs in worker threads (renders, reads bodies,
counts tokens).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from skillshelf.app.budgets import (
    NO_WHAT_IF,
    SessionBudget,
    count_tokens,
    index_budget,
    selected_budget,
    selected_words,
    window_words,
)
from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.loaded_text import loaded_text
from skillshelf.core.agents import AgentSetup, agent_view, resolve_required_skills
from skillshelf.core.budget import SelectedBody as BudgetBody
from skillshelf.core.budget import SelectedBudgetExceeded, check_selected
from skillshelf.core.hosts.base import EntryState, Feature
from skillshelf.core.model import Generation, Source

if TYPE_CHECKING:
    from skillshelf.core.report import RequiredBody

__all__ = ["ALWAYS_KEY", "CatalogView", "IndexMeasure", "SelectedBody", "catalog_view"]

#: The frontmatter key of a skill a host with :attr:`Feature.ALWAYS` injects into every prompt.
ALWAYS_KEY = "always"


@dataclass(frozen=True)
class IndexMeasure:
    """The catalog meter: ``used`` characters of the text the model gets (or what the host
    counts, in ``unit``) against ``budget``
    (``None`` = the host has no budget), its ``tokens`` (tiktoken when ``exact``) and the
    agent's ``approx`` (characters / 4); ``truncated`` descriptions cut (or dropped to the name)
    and ``omitted`` sources left out by the budget (SPEC P5–P6)."""

    used: int
    budget: int | None
    tokens: int
    exact: bool
    approx: int
    truncated: int = 0
    omitted: int = 0
    #: the unit of ``used`` and ``budget``: ``characters``, or the host's own (``tokens``)
    unit: str = "characters"
    #: where the budget came from, in the host's words (``2% of a 200,000-token context window
    #: = 4,000 characters``, ``no budget: …``)
    rule: str = ""
    #: a host sending several prompt sections (Zuno, conformance Z-P): the whole prompt text in
    #: characters (``used`` is then only what counts against the budget) and each section's
    #: short name and characters, in prompt order; ``None`` / empty for a one-text host
    prompt: int | None = None
    sections: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class SelectedBody:
    """A body every request of this view carries (an agent's required skill, SPEC S2; an
    ``always`` skill, Z5): ``tokens`` the agent's estimate, ``exact`` the tiktoken count (``None``
    when not exact), ``size`` what the host counts against its selected-body budget, in
    :attr:`HostLabels.selected_unit <skillshelf.core.hosts.base.HostLabels.selected_unit>`
    (Zuno: UTF-8 bytes; ``None``: not known)."""

    name: str
    location: str
    tokens: int
    exact: int | None
    size: int | None = None


@dataclass(frozen=True)
class CatalogView:
    """What the main screen shows for one (generation, agent) pair.

    ``sources``: the sources listed (every source without an agent; with one, the agent's view
    of the enabled sources, SPEC E4); ``hidden``: enabled sources the agent cannot see;
    ``index``: the catalog meter; ``selected_budget``: tokens (``None`` = the host has none);
    ``required``: the bodies every request carries; ``problems``: why the agent would not start
    (empty = it would).
    """

    agent: str | None
    sources: tuple[Source, ...]
    index: IndexMeasure
    selected_budget: int | None
    hidden: tuple[Source, ...] = ()
    required: tuple[SelectedBody, ...] = ()
    problems: tuple[str, ...] = ()
    #: where the context window the budgets use came from, in words (``""``: the host's rule says)
    window: str = ""
    #: the selected-body budget's rule in words (``""``: no budget)
    selected_rule: str = ""

    @property
    def ok(self) -> bool:
        """True when the agent would start."""
        return not self.problems

    def shown(self, generation: Generation) -> Generation:
        """``generation`` with only :attr:`sources` (same number, digest and rejected files)."""
        if self.agent is None:
            return generation
        return replace(generation, sources=self.sources)


def _selected(name: str, location: str, text: str) -> SelectedBody:
    count = count_tokens(text)
    return SelectedBody(name, location, count.approx, count.tokens if count.exact else None, count.approx)


def _always_bodies(catalog: AppCatalog, sources: tuple[Source, ...]) -> tuple[SelectedBody, ...]:
    out = []
    for s in sources:
        if s.enabled and s.frontmatter.get(ALWAYS_KEY) is True:
            injected = loaded_text(catalog.session, s).injected
            if injected is not None:
                out.append(_selected(s.name, s.location, injected))
    return tuple(out)


def _required_bodies(catalog: AppCatalog, setup: AgentSetup,
                     visible: tuple[Source, ...]) -> tuple[tuple[SelectedBody, ...], list[str], list[RequiredBody]]:
    from skillshelf.core.report import required_body  # (the report machinery: not before the first frame)

    outcome = resolve_required_skills(setup.name, setup.required_skills, visible)
    problems: list[str] = [outcome.refusal] if outcome.refusal is not None else []
    unit = catalog.host.labels.selected_unit
    bodies: list[SelectedBody] = []
    rows: list[RequiredBody] = []
    for _name, source in outcome.resolved:
        row, error = required_body(catalog.session, source, unit)
        if row is None:
            problems.append(f"required skill `{source.name}` cannot be read: {error}")
            continue
        rows.append(row)
        bodies.append(SelectedBody(row.name, row.location, row.tokens, row.exact_tokens, row.size))
    return tuple(bodies), problems, rows


def catalog_view(catalog: AppCatalog, generation: Generation, agent: str | None,
                 budget: SessionBudget = NO_WHAT_IF, *, pause: Callable[[], None] | None = None) -> CatalogView:
    """The :class:`CatalogView` of ``generation`` for ``agent`` (``None`` = no agent) with the
    session's what-if ``budget``. ``agent`` is ignored for hosts without
    :attr:`Feature.AGENTS`. The catalog text counts as empty when the configuration says
    ``includeInstructions: false`` (SPEC P7). ``pause`` is called before the host's catalog is
    made and before its tokens are counted (:class:`~skillshelf.core.foreground.Foreground`); an
    exception it raises abandons the view."""
    if pause is not None:
        pause()
    features = catalog.host.features
    if Feature.AGENTS not in features:
        agent = None
    enabled = tuple(s for s in generation.sources if s.enabled)
    listed: tuple[Source, ...] = generation.sources
    hidden: tuple[Source, ...] = ()
    agent_config: AgentSetup | None = None
    if agent is not None:
        agent_config = catalog.session.agent(agent)
        listed = agent_view(enabled, agent_config)
        hidden = tuple(s for s in enabled if s not in listed)
    chars = index_budget(catalog, budget)
    override = chars if budget.replaces_max_context_tokens else None
    shown = replace(generation, sources=listed)
    model = catalog.session.catalog(shown, context_window=budget.context_window, budget=override, agent=agent)
    text = model.text if catalog.config.include_instructions else ""
    if pause is not None:
        pause()  # (the first count loads the encoding: ~0.1 s that no other thread can run in)
    count = count_tokens(text, model.token_spans if text else ())
    states = [e.state for e in model.entries]
    own_unit = model.unit != "characters"  # the host counts its budget otherwise (Codex: tokens)
    rule = model.budget_rule
    if override is not None and budget.max_context_tokens is not None:
        # the host's words for its rule (core/hosts/zuno/prompt.budget_rule), the value a what-if
        rule = f"maxContextTokens {budget.max_context_tokens:,} (what-if) × 4 (at most 10,000 tokens) = {override:,} characters"
    elif override is not None:
        rule = f"maxContextTokens unset (what-if), so the context window decides: {override:,} characters"
    sectioned = bool(model.sections) and bool(text)  # the budget counts one part of the prompt (Z-P)
    index = IndexMeasure(model.used if own_unit or sectioned else len(text), model.budget, count.tokens, count.exact,
                         count.approx,
                         truncated=sum(1 for s in states if s in (EntryState.CUT, EntryState.NAME_ONLY)),
                         omitted=states.count(EntryState.OMITTED), unit=model.unit, rule=rule,
                         prompt=len(text) if sectioned else None,
                         sections=tuple((x.name, x.characters) for x in model.sections) if sectioned else ())
    limit = selected_budget(catalog, budget)
    required: tuple[SelectedBody, ...] = ()
    problems: list[str] = []
    if agent is not None and agent_config is not None:
        required, problems, rows = _required_bodies(catalog, agent_config, listed)
        refusal = catalog.config.refusal
        if refusal is not None:
            problems.insert(0, refusal.message)
        if limit is not None:
            if catalog.host.labels.selected_unit == "bytes":
                from skillshelf.core.report import selected_refusal

                over = selected_refusal(rows, limit)
                if over is not None:
                    problems.append(over)
            else:
                try:
                    check_selected([BudgetBody(f"requiredSkills: {b.name}", b.location, b.tokens) for b in required],
                                   limit)
                except SelectedBudgetExceeded as exc:
                    problems.append(str(exc).splitlines()[0])
    elif Feature.ALWAYS in features:
        required = _always_bodies(catalog, listed)
    selected_rule = model.selected_rule or selected_words(catalog, budget.context_window, limit)
    return CatalogView(agent, listed, index, limit, hidden, required, tuple(problems), window_words(catalog, budget),
                       selected_rule if limit is not None else "")
