"""The budgets the TUI shows, with the what-if values a session applied (SPEC U1–U2).

A :class:`SessionBudget` is what the what-if screen's ``enter`` applies: another context window
and, for hosts with a configuration, another ``maxContextTokens``. The budgets themselves come
from the host's session (:meth:`~skillshelf.core.hosts.base.HostSession.index_budget`,
:meth:`~skillshelf.core.hosts.base.HostSession.selected_budget`); ``None`` means the host has
no such budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.session_budget import NO_WHAT_IF, SessionBudget
from skillshelf.core.advice import FitAdvice, fit_advice
from skillshelf.core.budget import index_budget_chars, selected_budget_rule
from skillshelf.core.hosts.base import Feature, Host, HostCatalog
from skillshelf.core.model import Generation
from skillshelf.core.tokens import TokenSpan, approx_tokens, shared_counter

__all__ = ["NO_WHAT_IF", "SessionBudget", "TokenCount", "budget_advice", "count_tokens", "index_budget",
           "index_rule_words",
           "selected_budget", "selected_rule_words", "selected_words", "window_words"]


def index_budget(catalog: AppCatalog, budget: SessionBudget = NO_WHAT_IF) -> int | None:
    """The catalog budget in characters under ``budget``; ``None`` when the host has none."""
    base = catalog.session.index_budget(budget.context_window)
    if base is None or not budget.replaces_max_context_tokens:
        return base
    window = budget.context_window if budget.context_window is not None else catalog.context.context_window
    return index_budget_chars(max_context_tokens=budget.max_context_tokens, context_window=window)


def selected_budget(catalog: AppCatalog, budget: SessionBudget = NO_WHAT_IF) -> int | None:
    """The selected-body budget in tokens under ``budget`` (SPEC U2); ``None`` when the host has none."""
    return catalog.session.selected_budget(budget.context_window)


def window_words(catalog: AppCatalog, budget: SessionBudget = NO_WHAT_IF) -> str:
    """``window 128,000 tokens (what-if, this session only)`` when the session's what-if gave the
    window, else ``""``: the host's own rule words say where its window came from
    (``--context-window``, the model catalog …, :attr:`HostCatalog.budget_rule`)."""
    if budget.context_window is not None:
        return f"window {budget.context_window:,} tokens (what-if, this session only)"
    return ""


def index_rule_words(host: Host, budget: int | None, rule: str, window: str = "") -> str:
    """The catalog meter's second line: whose budget and its rule in the host's words —
    ``Zuno's index budget: 2% of a 200,000-token context window = 4,000 characters`` — then
    where the window came from when the session or the command line gave it; ``Gemini CLI: no
    budget: …`` for a host without one."""
    if budget is None:
        text = f"{host.client}: {rule or 'no budget'}"
    else:
        text = f"{host.client}'s {host.labels.catalog} budget: {rule or f'{budget:,}'}"
    return text + (f" · {window}" if window else "")


def selected_words(catalog: AppCatalog, context_window: int | None, budget: int | None) -> str:
    """The selected-body budget ``budget`` (tokens) in words: for a host whose budget is SPEC U2
    (:attr:`Feature.SELECTED_BUDGET <skillshelf.core.hosts.base.Feature.SELECTED_BUDGET>`) how
    it follows from ``context_window`` (``None``: the catalog's) and the configuration, else
    the bare figure; ``""`` without a budget."""
    if budget is None:
        return ""
    if Feature.SELECTED_BUDGET in catalog.host.features:
        window = catalog.context.context_window if context_window is None else context_window
        return selected_budget_rule(context_window=window,
                                    max_selected_context_tokens=catalog.config.max_selected_context_tokens)
    return f"{budget:,} tokens"


def selected_rule_words(host: Host, budget: int | None, rule: str, window: str = "") -> str:
    """The bodies meter's second line: what it measures and against whose budget — ``Zuno's
    budget for the skill bodies one request loads (4 characters a token): no context window
    known: the default 8,000 tokens`` — or that the host has none."""
    if budget is None:
        return f"{host.client} sets no budget for the skill bodies a request loads"
    counted = "UTF-8 bytes" if host.labels.selected_unit == "bytes" else "4 characters a token"
    text = f"{host.client}'s budget for the skill bodies one request loads ({counted}): {rule}"
    return text + (f" · {window}" if window else "")


def budget_advice(catalog: AppCatalog, generation: Generation, budget: SessionBudget = NO_WHAT_IF,
                  context_window: int | None = None) -> FitAdvice | None:
    """What would make every skill of ``generation`` fit the catalog budget in force (the
    session's what-if values, or ``context_window`` tokens when given): which skills to make
    search-only, by the host's own fitting (:func:`skillshelf.core.advice.fit_advice`). Only
    for hosts with search-only exposure and a configuration to write it to (``None`` otherwise,
    and when nothing is cut). Worker thread (renders the catalog about log2(N) times)."""
    features = catalog.host.features
    if Feature.EXPOSURE not in features or Feature.CONFIG not in features:
        return None
    window = budget.context_window if context_window is None else context_window
    chars = index_budget(catalog, replace(budget, context_window=window))
    session = catalog.session

    def catalog_of(shown: Generation, override: int | None) -> HostCatalog:
        return session.catalog(shown, context_window=window, budget=chars if override is None else override)

    # skills.config entries name files: a built-in source cannot be made search-only
    return fit_advice(generation, catalog_of, movable=lambda s: not s.location.startswith("builtin://"))


@dataclass(frozen=True)
class TokenCount:
    """``tokens`` of a text (tiktoken ``cl100k_base`` when ``exact``, else the estimate) and the
    agent's own ``approx`` (characters / 4, rounded up; SPEC U4, T1)."""

    tokens: int
    exact: bool
    approx: int


def count_tokens(text: str, spans: Sequence[TokenSpan] = ()) -> TokenCount:
    """:class:`TokenCount` of ``text``; ``spans``: stand-ins with the real texts' counts
    (:attr:`HostCatalog.token_spans <skillshelf.core.hosts.base.HostCatalog.token_spans>`)."""
    count = shared_counter().count_spliced(text, spans)
    return TokenCount(int(count.tokens), bool(count.exact), approx_tokens(text))
