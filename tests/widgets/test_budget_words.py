"""Budgets in words (SPEC U1, U2) and one header format: each meter says what it measures and by
whose rule, under every host; the header keeps its format when a generation's changes come and go."""

from __future__ import annotations

import pytest

from skillshelf.app.budgets import index_rule_words, selected_rule_words
from skillshelf.core.budget import index_budget_rule, selected_budget_rule
from skillshelf.core.hosts import get_host
from skillshelf.core.model import Generation, Provenance, Source
from skillshelf.widgets.header import header_text


def test_u1_u2_rules_in_words():
    assert index_budget_rule(max_context_tokens=None, context_window=200_000) == (
        "2% of a 200,000-token context window = 4,000 characters")
    assert index_budget_rule(max_context_tokens=None, context_window=None) == (
        "no context window known: the default 8,000 characters")
    assert index_budget_rule(max_context_tokens=20_000, context_window=200_000) == (
        "maxContextTokens 20,000 × 4 (at most 10,000 tokens) = 40,000 characters")
    assert selected_budget_rule(context_window=1_000_000, max_selected_context_tokens=None) == (
        "10% of a 1,000,000-token context window, kept within 2,000–32,000 = 32,000 tokens")
    assert selected_budget_rule(context_window=None, max_selected_context_tokens=None) == (
        "no context window known: the default 8,000 tokens")
    assert selected_budget_rule(context_window=None, max_selected_context_tokens=50_000) == (
        "maxSelectedContextTokens 50,000 (at most 32,000) = 32,000 tokens")


@pytest.mark.parametrize(("host", "budget", "rule", "expected"), [
    ("zuno", 4_000, "2% of a 200,000-token context window = 4,000 characters",
     "Zuno's index budget: 2% of a 200,000-token context window = 4,000 characters · window 200,000 tokens "
     "(--context-window)"),
    ("claude", 6_000, "1% of 200,000 tokens × 3 characters per token (claude-sonnet-4-5) = 6,000 columns",
     "Claude Code's listing budget: 1% of 200,000 tokens × 3 characters per token (claude-sonnet-4-5) = 6,000 "
     "columns · window 200,000 tokens (--context-window)"),
    ("opencode", None, "no budget: opencode sends every skill's whole description",
     "opencode: no budget: opencode sends every skill's whole description · window 200,000 tokens "
     "(--context-window)"),
])
def test_meter_rule_line_names_whose_rule(host, budget, rule, expected):
    h = get_host(host)
    words = index_rule_words(h, budget, rule, "window 200,000 tokens (--context-window)")
    assert words == expected.replace("listing", h.labels.catalog)


def test_bodies_rule_line():
    # Zuno compares UTF-8 bytes (conformance Z-U); Zhin counts tokens of 4 characters
    assert selected_rule_words(get_host("zuno"), 32_000, "the default 8,000 tokens × 4 = 32,000 bytes") == (
        "Zuno's budget for the skill bodies one request loads (UTF-8 bytes): the default 8,000 tokens × 4 = "
        "32,000 bytes")
    assert selected_rule_words(get_host("zhin"), 8_000, "no context window known: the default 8,000 tokens") == (
        "Zhin's budget for the skill bodies one request loads (4 characters a token): no context window known: "
        "the default 8,000 tokens")
    assert selected_rule_words(get_host("gemini"), None, "") == (
        "Gemini CLI sets no budget for the skill bodies a request loads")


def _gen(number: int) -> Generation:
    a = Source(name="a", location="/p/a/SKILL.md", provenance=Provenance.PROJECT_ZUNO, canonical="/p/a/SKILL.md")
    return Generation(number, "", "zuno", "/p", (), (a,), (), ())


@pytest.mark.parametrize("width", [80, 120])
def test_one_header_format_while_changes_come_and_go(width):
    cwd = "~/src/a/fairly/long/project/path"
    before = header_text("zuno", cwd, _gen(1), client="Zuno 0.10.3", width=width).plain
    after = header_text("zuno", cwd, _gen(2), client="Zuno 0.10.3", changes="changed: +12 ~3 −1",
                        width=width).plain
    cleared = header_text("zuno", cwd, _gen(2), client="Zuno 0.10.3", width=width).plain
    # the same labels and the same cwd before, during and after the change notice
    assert cleared == before.replace("generation 1 ", "generation 2 ").replace("gen 1 ", "gen 2 ")
    if width == 120:
        assert cleared == ("skillshelf ─ Zuno 0.10.3 ─ ~/src/a/fairly/long/project/path ─ generation 2 ─ "
                           "1 source · 0 ambiguous · 0 broken")
        assert after == cleared + " ─ changed: +12 ~3 −1"   # the line's end is what the screen cuts
    else:
        # short labels keep the client and version emulated in place of the host name
        assert cleared == "skillshelf ─ Zuno 0.10.3 ─ ~/src/…g/project/path ─ gen 2 ─ 1 src · 0 amb · 0 brk"
        assert after == cleared + " ─ +12 ~3 −1"
