"""Budget arithmetic (SPEC U1–U3).

Units: the index budget is in **characters** (Unicode scalar values, what
:func:`skillshelf.core.render.render_budgeted` takes); the selected-body budget is in **tokens**
(the agent's approximation, :data:`CHARS_PER_TOKEN` characters per token; see
:mod:`skillshelf.core.tokens` for exact counts).

Edge behaviour (decided here, the same in every caller):

- A token count from configuration or the command line is used only when it is a positive
  ``int`` (``bool`` is not an ``int`` here). Zero, negative numbers, floats, strings or ``None``
  count as *absent*, so the next rule in the chain applies. Reporting the bad value is the
  configuration layer's job (it names file and key); these functions never raise on it, so a
  what-if slider or a half-written config cannot crash the browser. A zero budget is not
  offered as a way to turn the index off: ``includeInstructions: false`` does that (SPEC P7).
- 2% of an odd window is floored: ``W * 2 // 100`` in exact integer arithmetic. For every window
  up to 3,000,000 tokens this equals truncating the float product ``W * 0.02`` (checked), which
  is what a host computing in floating point gets; integer arithmetic has no rounding surprises
  above that.
- 10% for the selected-body default is floored the same way (``W // 10``) before clamping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Characters per approximate token (SPEC U1; Codex uses the same figure, Zuno's docs don't
#: state one).
CHARS_PER_TOKEN = 4

#: U1: an explicit ``maxContextTokens`` is capped at this many tokens.
INDEX_MAX_CONTEXT_TOKENS = 10_000
#: U1: share of a known context window given to the index, as a fraction (2%).
INDEX_WINDOW_PERCENT = 2
#: U1: index budget in characters when neither value is known.
INDEX_DEFAULT_CHARS = 8_000

#: U2: share of the window for selected bodies (10%), its floor, ceiling and unknown-window default.
SELECTED_WINDOW_PERCENT = 10
SELECTED_MIN_TOKENS = 2_000
SELECTED_MAX_TOKENS = 32_000
SELECTED_DEFAULT_TOKENS = 8_000


def _positive_int(value: Any) -> int | None:
    """``value`` when it is a positive ``int`` (not ``bool``), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def index_budget_chars(*, max_context_tokens: int | None, context_window: int | None) -> int:
    """The prompt-index budget in characters (SPEC U1).

    ``max_context_tokens`` (config ``skills.maxContextTokens``) → ``min(v, 10_000) * 4``; else a
    known ``context_window`` W tokens → ``W * 2 // 100``, at least 1 (200,000 → 4,000); else
    8,000. Invalid values count as absent (module docstring). Never raises.
    """
    explicit = _positive_int(max_context_tokens)
    if explicit is not None:
        return min(explicit, INDEX_MAX_CONTEXT_TOKENS) * CHARS_PER_TOKEN
    window = _positive_int(context_window)
    if window is not None:
        return max(1, window * INDEX_WINDOW_PERCENT // 100)
    return INDEX_DEFAULT_CHARS


def selected_budget_tokens(*, context_window: int | None, max_selected_context_tokens: int | None) -> int:
    """The budget for the bodies selected for one request, in tokens (SPEC U2).

    ``max_selected_context_tokens`` (config ``skills.maxSelectedContextTokens``) overrides but
    is still capped at 32,000; else 10% of a known ``context_window`` (floored), clamped to
    [2,000, 32,000]; else 8,000. Invalid values count as absent. Never raises.
    """
    override = _positive_int(max_selected_context_tokens)
    if override is not None:
        return min(override, SELECTED_MAX_TOKENS)
    window = _positive_int(context_window)
    if window is not None:
        return max(SELECTED_MIN_TOKENS, min(SELECTED_MAX_TOKENS, window * SELECTED_WINDOW_PERCENT // 100))
    return SELECTED_DEFAULT_TOKENS


def index_budget_rule(*, max_context_tokens: int | None, context_window: int | None) -> str:
    """SPEC U1 in words, for the same inputs as :func:`index_budget_chars`:
    ``2% of a 200,000-token context window = 4,000 characters``."""
    budget = index_budget_chars(max_context_tokens=max_context_tokens, context_window=context_window)
    explicit = _positive_int(max_context_tokens)
    if explicit is not None:
        return f"maxContextTokens {explicit:,} × 4 (at most 10,000 tokens) = {budget:,} characters"
    window = _positive_int(context_window)
    if window is not None:
        return f"2% of a {window:,}-token context window = {budget:,} characters"
    return f"no context window known: the default {budget:,} characters"


def selected_budget_rule(*, context_window: int | None, max_selected_context_tokens: int | None) -> str:
    """SPEC U2 in words, for the same inputs as :func:`selected_budget_tokens`:
    ``10% of a 200,000-token context window, kept within 2,000–32,000 = 20,000 tokens``."""
    budget = selected_budget_tokens(context_window=context_window,
                                    max_selected_context_tokens=max_selected_context_tokens)
    override = _positive_int(max_selected_context_tokens)
    if override is not None:
        return f"maxSelectedContextTokens {override:,} (at most 32,000) = {budget:,} tokens"
    window = _positive_int(context_window)
    if window is not None:
        return f"10% of a {window:,}-token context window, kept within 2,000–32,000 = {budget:,} tokens"
    return f"no context window known: the default {budget:,} tokens"


#: Z-U: the selected-body budget is compared in UTF-8 bytes, this many bytes per token, and
#: never above :data:`SELECTED_MAX_TOKENS` × 4 = 128,000 bytes.
BYTES_PER_TOKEN = 4
SELECTED_MAX_BYTES = SELECTED_MAX_TOKENS * BYTES_PER_TOKEN


def selected_budget_bytes(*, context_window: int | None, max_selected_context_tokens: int | None) -> int:
    """The selected-body budget in UTF-8 bytes (conformance Z-U, Zuno
    ``selected_skill_prompt_budget``): ``maxSelectedContextTokens`` else 10% of a known window
    (at least 2,000 tokens) else 8,000 tokens, times 4, at most 128,000 bytes. Never raises."""
    override = _positive_int(max_selected_context_tokens)
    if override is not None:
        tokens = override
    else:
        window = _positive_int(context_window)
        tokens = (max(SELECTED_MIN_TOKENS, window * SELECTED_WINDOW_PERCENT // 100) if window is not None
                  else SELECTED_DEFAULT_TOKENS)
    return min(tokens * BYTES_PER_TOKEN, SELECTED_MAX_BYTES)


@dataclass(frozen=True)
class SelectedBody:
    """One skill body selected for a request (SPEC U3).

    ``label`` says why/which (``"pdf"``, ``"requiredSkills: pdf"``); ``location`` is the
    locator; ``tokens`` its size in tokens (the agent's approximation unless the caller passes
    exact counts).
    """

    label: str
    location: str
    tokens: int


class SelectedBudgetExceeded(Exception):
    """The selected bodies exceed the U2 budget (SPEC U3): the request fails before any
    provider call.

    ``code`` is ``"selected-budget-exceeded"``; ``bodies`` every body in the order given;
    ``total`` and ``budget`` in tokens. ``str(exc)`` lists each body and its size, e.g.::

        selected skill bodies need 9,000 tokens, above the 8,000-token budget:
          - pdf (/p/pdf/SKILL.md): 6,000 tokens
          - docx (/p/docx/SKILL.md): 3,000 tokens
    """

    code = "selected-budget-exceeded"

    def __init__(self, bodies: Sequence[SelectedBody], budget: int) -> None:
        self.bodies = tuple(bodies)
        self.budget = budget
        self.total = sum(b.tokens for b in self.bodies)
        lines = [f"selected skill bodies need {self.total:,} tokens, above the {budget:,}-token budget:"]
        lines += [f"  - {b.label} ({b.location}): {b.tokens:,} tokens" for b in self.bodies]
        super().__init__("\n".join(lines))


def check_selected(bodies: Sequence[SelectedBody], budget_tokens: int) -> None:
    """Raise :class:`SelectedBudgetExceeded` when the bodies' total tokens exceed
    ``budget_tokens`` (SPEC U3); a total equal to the budget fits. Nothing is dropped: the
    caller either sends every body or none."""
    total = sum(b.tokens for b in bodies)
    if total > budget_tokens:
        raise SelectedBudgetExceeded(bodies, budget_tokens)
