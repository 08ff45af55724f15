"""Budget arithmetic (SPEC U1–U3)."""

from __future__ import annotations

import pytest

from skillshelf.core.budget import (
    CHARS_PER_TOKEN,
    SelectedBody,
    SelectedBudgetExceeded,
    check_selected,
    index_budget_chars,
    selected_budget_tokens,
)


def test_chars_per_token_is_four():
    assert CHARS_PER_TOKEN == 4


# ------------------------------------------------------------------ U1


def test_u1_unknown_window_gives_8000_chars():
    assert index_budget_chars(max_context_tokens=None, context_window=None) == 8_000


def test_u1_known_window_is_two_percent():
    assert index_budget_chars(max_context_tokens=None, context_window=200_000) == 4_000
    assert index_budget_chars(max_context_tokens=None, context_window=1_000_000) == 20_000


@pytest.mark.parametrize("window, chars", [(149, 2), (150, 3), (199, 3), (49, 1), (1, 1), (50, 1), (128_001, 2_560)])
def test_u1_two_percent_of_an_odd_window_is_floored(window, chars):
    assert index_budget_chars(max_context_tokens=None, context_window=window) == chars
    assert chars == max(1, int(window * 0.02))  # Zuno: `.max(1)`


def test_u1_explicit_max_context_tokens_wins_and_is_capped_at_10000():
    assert index_budget_chars(max_context_tokens=1_500, context_window=200_000) == 6_000
    assert index_budget_chars(max_context_tokens=10_000, context_window=None) == 40_000
    assert index_budget_chars(max_context_tokens=10_001, context_window=None) == 40_000
    assert index_budget_chars(max_context_tokens=1_000_000, context_window=None) == 40_000


@pytest.mark.parametrize("bad", [0, -5, 2.5, "1000", True, False])
def test_u1_invalid_values_count_as_absent(bad):
    assert index_budget_chars(max_context_tokens=bad, context_window=200_000) == 4_000
    assert index_budget_chars(max_context_tokens=None, context_window=bad) == 8_000


# ------------------------------------------------------------------ U2


def test_u2_unknown_window_gives_8000_tokens():
    assert selected_budget_tokens(context_window=None, max_selected_context_tokens=None) == 8_000


@pytest.mark.parametrize("window, tokens", [
    (200_000, 20_000),
    (19_999, 2_000),   # 1,999 → floor 2,000
    (20_000, 2_000),
    (20_010, 2_001),
    (320_000, 32_000),
    (320_010, 32_000),  # ceiling
    (1_000_000, 32_000),
    (1, 2_000),
])
def test_u2_ten_percent_clamped_to_2000_and_32000(window, tokens):
    assert selected_budget_tokens(context_window=window, max_selected_context_tokens=None) == tokens


def test_u2_override_wins_but_is_still_capped():
    assert selected_budget_tokens(context_window=200_000, max_selected_context_tokens=500) == 500
    assert selected_budget_tokens(context_window=None, max_selected_context_tokens=32_000) == 32_000
    assert selected_budget_tokens(context_window=None, max_selected_context_tokens=50_000) == 32_000


@pytest.mark.parametrize("bad", [0, -1, 3.0, "x", True])
def test_u2_invalid_values_count_as_absent(bad):
    assert selected_budget_tokens(context_window=200_000, max_selected_context_tokens=bad) == 20_000
    assert selected_budget_tokens(context_window=bad, max_selected_context_tokens=None) == 8_000


# ------------------------------------------------------------------ U3


def test_u3_bodies_within_budget_pass_and_equal_fits():
    bodies = [SelectedBody("pdf", "/p/pdf/SKILL.md", 5_000), SelectedBody("docx", "/p/docx/SKILL.md", 3_000)]
    assert check_selected(bodies, 8_000) is None
    assert check_selected([], 0) is None


def test_u3_over_budget_fails_listing_every_body_and_its_size():
    bodies = [SelectedBody("pdf", "/p/pdf/SKILL.md", 6_000), SelectedBody("docx", "/p/docx/SKILL.md", 3_000)]
    with pytest.raises(SelectedBudgetExceeded) as info:
        check_selected(bodies, 8_000)
    exc = info.value
    assert exc.code == "selected-budget-exceeded"
    assert exc.bodies == tuple(bodies) and exc.total == 9_000 and exc.budget == 8_000
    assert str(exc) == (
        "selected skill bodies need 9,000 tokens, above the 8,000-token budget:\n"
        "  - pdf (/p/pdf/SKILL.md): 6,000 tokens\n"
        "  - docx (/p/docx/SKILL.md): 3,000 tokens"
    )
