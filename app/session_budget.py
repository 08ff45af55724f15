"""The what-if values a TUI session applies (SPEC U1–U2): :class:`SessionBudget`.

Apart from :mod:`skillshelf.app.budgets` (which computes budgets from a catalog and imports the
token counter) so the app can hold them before the first frame without importing either.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NO_WHAT_IF", "SessionBudget"]


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
