"""Pure renderers: sort orders, meters with exact and estimated tokens (and without a budget),
header with an agent and the client emulated, source details with lint / sidecars / remote /
resources / the host's facts (SPEC F5, E3, E4, U1-U3, R, X1)."""

from __future__ import annotations

from skillshelf.core.model import Diagnostic, Generation, Provenance, Rejected, Severity, Source
from skillshelf.widgets.budget_meter import selected_meter_text, tokens_text
from skillshelf.widgets.header import header_text
from skillshelf.widgets.rows import SORTS, build_rows, next_sort, row_tokens, sort_order
from skillshelf.widgets.source_pane import SourceExtras, details_content


def _src(name, loc, prov=Provenance.PROJECT_ZUNO, **kw):
    return Source(name=name, location=loc, provenance=prov, canonical=loc, **kw)


def _gen():
    return Generation(3, "", "zuno", "/p", (), (
        _src("zeta", "/p/zeta/SKILL.md", description="z" * 40, size=10),
        _src("alpha", "/g/alpha/SKILL.md", Provenance.GLOBAL_AGENTS, description="short", size=500),
        _src("Beta", "/p/beta/SKILL.md", size=4000),
        _src("alpha", "/p/alpha/SKILL.md", description="a", size=20),
    ), (Rejected(location="/p/bad/SKILL.md", provenance=Provenance.PROJECT_ZUNO, canonical="/p/bad/SKILL.md",
                 name="bad", size=8),), ())


def test_sorts_cycle_and_orders():
    assert SORTS == ("catalog", "name", "provenance", "size", "tokens")
    assert next_sort("tokens") == "catalog" and next_sort("bogus") == "catalog"
    rows = build_rows(_gen())
    base = list(range(len(rows)))
    names = lambda order: [(rows[i].name, rows[i].location) for i in order]  # noqa: E731
    assert [rows[i].name for i in base] == ["zeta", "alpha", "alpha", "Beta", "bad"]
    by_name = sort_order(rows, base, "name", lambda item: 0)
    assert names(by_name) == [("alpha", "/g/alpha/SKILL.md"), ("alpha", "/p/alpha/SKILL.md"), ("bad", "/p/bad/SKILL.md"),
                              ("Beta", "/p/beta/SKILL.md"), ("zeta", "/p/zeta/SKILL.md")]
    by_prov = sort_order(rows, base, "provenance", lambda item: 0)
    assert [rows[i].name for i in by_prov] == ["alpha", "bad", "Beta", "zeta", "alpha"]
    assert [rows[i].item.size for i in sort_order(rows, base, "size", lambda item: 0)] == [4000, 500, 20, 10, 8]
    assert [row_tokens(rows[i].item) for i in sort_order(rows, base, "tokens", row_tokens)] == [1000, 10, 2, 2, 1]


def test_f5_lint_errors_set_the_flag():
    rows = build_rows(_gen(), lint_errors={"/p/zeta/SKILL.md"})
    assert [r.state + r.flag for r in rows] == ["✓!", "◆ ", "◆ ", "✓ ", "✗ "]


def test_u_tokens_text_and_selected_meter():
    assert tokens_text(1530, True) == "1,530 tokens (tiktoken)"
    assert tokens_text(1498, False) == "~1,498 tokens (characters ÷ 4)"
    line = selected_meter_text("bodies", 9000, 8000, tokens=8800, tokens_exact=True, required=2, selected="pdf\x1b",
                               bar_width=4).plain
    # the host's own count (characters ÷ 4) is what it checks; tiktoken's beside it
    assert line == ("bodies ████ 9,000 / 8,000 tokens · 2 required + pdf␛ · over budget: the request would fail"
                    " · 8,800 tokens (tiktoken)")
    assert selected_meter_text("bodies", 0, 8000, tokens=0, tokens_exact=True, bar_width=2).plain == (
        "bodies ░░ 0 / 8,000 tokens · nothing selected")


def test_e4_header_names_the_agent():
    assert header_text("zuno", "~/p", _gen(), agent="rev[b]").plain == (
        "skillshelf ─ host zuno ─ ~/p ─ generation 3 ─ agent: rev[b] ─ 4 sources · 1 ambiguous · 1 broken")


def test_details_lint_sidecars_remote_resources():
    s = _src("r", "/c/r/SKILL.md", Provenance.REMOTE, root="/c/r", display_name="R!", exposure_reason="default",
             metadata_sources=("/c/r/agents/openai.yaml", "/c/r/agents/zuno.yaml"))
    row = build_rows(Generation(1, "", "zuno", "/p", (), (s,), (), ()))[0]
    pending = details_content(row).plain
    assert "origin      (unknown: not pulled in this session)" in pending
    assert "display     R! — from a sidecar" in pending and "lint (spec)  computing…" in pending
    lint = (Diagnostic(Severity.ERROR, "yaml-error", "bad", line=3, column=14, hint='description: "a: b"'),)
    extras = SourceExtras(lint=lint, display_origin="/c/r/agents/zuno.yaml",
                          remote=("https://x/index.json", None), resources=(("a.md", 5), ("d/b.txt", 1200)),
                          resources_cut=True)
    text = details_content(row, extras).plain
    assert "provenance  remote\norigin      https://x/index.json\nversion     — (the index gives none)" in text
    assert "display     R! — from sidecar /c/r/agents/zuno.yaml" in text
    assert "lint (spec)  1 error, 0 warnings\n  line 3 col 14 error[yaml-error] bad\n    hint: description: \"a: b\"" in text
    assert "resources (2+)  R to read one\n  a.md  5 B\n  d/b.txt  1,200 B" in text


def test_u_meters_without_a_budget_and_header_names_the_client():
    assert selected_meter_text("bodies", 40, None, tokens=41, tokens_exact=True, selected="pdf").plain == (
        "bodies 41 tokens (tiktoken) · pdf · no budget")
    assert header_text("claude", "~/p", _gen(), client="Claude Code 2.1.332").plain.startswith(
        "skillshelf ─ Claude Code 2.1.332 ─ ~/p ─ generation 3 ─ ")


def test_host_facts_section_and_status_reason():
    from skillshelf.core.hosts.base import Fact
    from skillshelf.core.model import Status

    s = _src("w", "/c/w/SKILL.md", Provenance.PROJECT_ZUNO, root="/c", status=Status.SHADOWED,
             status_reason="a project copy wins", shadowed_by=("/p/w/SKILL.md",))
    row = build_rows(Generation(1, "", "zuno", "/p", (), (s,), (), ()))[0]
    facts = (Fact("catalog", " - w: W"), Fact("tools", "1 private", ("🔒 skill__w__t\x1b",), Severity.WARNING))
    text = details_content(row, SourceExtras(facts=facts, facts_title="zhin")).plain
    assert "status      shadowed — a project copy wins\nshadowed by /p/w/SKILL.md\n" in text
    assert "\nzhin\ncatalog      - w: W\ntools       1 private\n  🔒 skill__w__t␛\n" in text
