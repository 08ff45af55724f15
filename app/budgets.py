"""The budgets the TUI shows, with the what-if values a session applied (SPEC U1–U2).

A :class:`SessionBudget` is what the what-if screen's ``enter`` applies: another context window
and, for hosts with a configuration, another ``maxContextTokens``. The budgets themselves come
from the host's session (:meth:`~skillshelf.core.hosts.base.HostSession.index_budget`,
:meth:`~skillshelf.core.hosts.base.HostSession.selected_budget`); ``None`` means the host has
no such budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.core.budget import index_budget_chars
from skillshelf.core.tokens import TokenSpan, approx_tokens, shared_counter

__all__ = ["NO_WHAT_IF", "SessionBudget", "TokenCount", "count_tokens", "index_budget", "selected_budget"]


@dataclass(frozen=True)
class SessionBudget:
    """What-if values applied to this session.

    ``context_window`` in tokens (``None`` = the catalog's own, ``--context-window``);
    ``max_context_tokens`` in tokens replaces the configuration's ``maxContextTokens`` when
    ``replaces_max_context_tokens`` (``None`` then means unset for the session); otherwise the
    configuration's value applies (it still wins over the window, SPEC U1).
    """

    context_window: int | None = None
    max_context_tokens: int | None = None
    replaces_max_context_tokens: bool = False


#: No what-if values: the catalog's own window and the configuration's ``maxContextTokens``.
NO_WHAT_IF = SessionBudget()


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
