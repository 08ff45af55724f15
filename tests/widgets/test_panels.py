"""Budget meter, header and source-pane text (pure renderers; SPEC U, F5, X1)."""

from __future__ import annotations

from skillshelf.app.screens.help import HELP_ROWS, help_content
from skillshelf.app.screens.main import MainScreen
from skillshelf.app.tui import SkillshelfApp
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Generation,
    Provenance,
    Rejected,
    Severity,
    Source,
)
from skillshelf.widgets.budget_meter import meter_text
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import counts_text, header_text
from skillshelf.widgets.rows import build_rows
from skillshelf.widgets.source_pane import details_content, diagnostic_line


def test_meter_text_numbers_and_bar():
    text = meter_text("index", 6120, 8000, tokens=1530, truncated=3, omitted=0, bar_width=8).plain
    assert text == "index ██████░░ 6,120 / 8,000 characters · 3 truncated · 0 omitted · 1,530 tokens (tiktoken)"
    approx = meter_text("index", 10, 0, tokens=3, tokens_exact=False, bar_width=4).plain
    assert approx == "index ████ 10 / 0 characters · 0 truncated · 0 omitted · ~3 tokens (characters ÷ 4)"
    assert meter_text("catalog", 372, None, tokens=90).plain == (
        "catalog 372 characters · no budget · 0 truncated · 90 tokens (tiktoken)")


def _gen():
    a = Source(name="a", location="/p/a/SKILL.md", provenance=Provenance.PROJECT_ZUNO, canonical="/p/a/SKILL.md")
    a2 = Source(name="a", location="/g/a/SKILL.md", provenance=Provenance.GLOBAL_AGENTS, canonical="/g/a/SKILL.md")
    off = Source(name="off", location="/g/off/SKILL.md", provenance=Provenance.GLOBAL_AGENTS,
                 canonical="/g/off/SKILL.md", enabled=False, disabled_reason="skills.config entry 1 in /p/zuno.json")
    bad = Rejected(location="/g/bad/SKILL.md", provenance=Provenance.GLOBAL_AGENTS, canonical="/g/bad/SKILL.md",
                   name="bad", warning=CatalogWarning("MissingName", "/g/bad/SKILL.md", "missing name"),
                   diagnostics=(Diagnostic(Severity.ERROR, "missing-name", "no name", field="name", line=1),))
    return Generation(7, "", "zuno", "/p", (), (a, a2, off), (bad,), ())


def test_header_counts():
    g = _gen()
    assert counts_text(g) == "3 sources · 1 ambiguous · 1 broken · 1 disabled"
    assert header_text("zuno", "~/p\x1b", g).plain == (
        "skillshelf ─ host zuno ─ ~/p␛ ─ generation 7 ─ 3 sources · 1 ambiguous · 1 broken · 1 disabled")
    assert header_text("zhin", "/x", None, "loading…").plain == "skillshelf ─ host zhin ─ /x ─ loading…"


def test_zk_header_says_on_a_second_line_that_zuno_would_refuse_to_start():
    refusal = "Zuno would refuse to start: /p/.zuno/zuno.json:1:33: invalid value: integer `0`, expected a nonzero u32"
    text = header_text("zuno", "~/p", _gen(), refusal=refusal, width=80)
    first, second = text.plain.split("\n")
    assert first == header_text("zuno", "~/p", _gen(), width=80).plain  # the first line keeps its fitting
    assert second == "⚠ " + refusal
    assert any("error" in str(span.style) for span in text.spans if text.plain[span.start:span.end] == second)


def test_f5_diagnostic_line_formats():
    d = Diagnostic(Severity.WARNING, "desc-long", "too \x1b long", line=3, column=14)
    assert diagnostic_line(d) == "line 3 col 14 warning[desc-long] too ␛ long"
    assert diagnostic_line(Diagnostic(Severity.INFO, "x", "m")) == "info[x] m"


def test_details_disabled_and_rejected():
    rows = build_rows(_gen())
    off = details_content(rows[2]).plain
    assert "enabled     no — skills.config entry 1 in /p/zuno.json" in off
    bad = details_content(rows[3]).plain
    assert bad.splitlines()[0] == "bad  ·  rejected"
    assert "warning     MissingName: missing name" in bad
    assert "  line 1 error[missing-name] no name (field name)" in bad
    assert "host verdict (1)" in bad
    amb = details_content(rows[0]).plain
    assert amb.splitlines()[0] == "a  ·  ambiguous (2)"
    assert "description (none: not described, so never in the model's catalog)" in amb


def test_help_lists_every_binding_id():
    bindings = [*MainScreen.BINDINGS, *SkillshelfApp.BINDINGS, *CatalogList.BINDINGS]
    # a key's "not under this host" twin (action unavailable(...)) shares the row of the key it stands for
    twins = {b.id for b in bindings if b.action.startswith("unavailable(")}
    assert twins == {"app.resolve-unavailable", "app.undo-write-unavailable", "app.undo-list-unavailable",
                     "main.agent-unavailable", "main.pull-unavailable"}
    assert {b.id for b in bindings} - twins <= {row[0] for row in HELP_ROWS}
    text = help_content().plain
    assert "  n         next ambiguous name (conflict)" in text
    assert "  ✗  rejected" in text
    # the header's short labels (80 columns) are spelled out
    at = text.index("Header counts (short labels under 110 columns)\n")
    assert text[at:].split("\n")[1:4] == [
        "  src       sources: every skill file the host reads, disabled ones included",
        "  amb       ambiguous: names declared by two or more enabled sources (n jumps to the next)",
        "  brk       broken: files the host rejects (e lists them)"]


def test_help_sections_per_screen_and_hanging_indent():
    from skillshelf.app.screens.compare import CompareScreen
    from skillshelf.app.screens.help import HELP_SECTIONS
    from skillshelf.app.screens.index_preview import IndexPreviewScreen
    from skillshelf.app.screens.picker import AmbiguityPicker
    from skillshelf.app.screens.undo_list import UndoListScreen
    from skillshelf.app.screens.whatif import WhatIfScreen

    sections = {title: {row[0] for row in rows} for title, rows in HELP_SECTIONS}
    assert list(sections) == ["Main screen", "Skill picker (a)", "Undo list (U)", "Index preview (i)", "What-if (w)",
                              "Problems (e)", "Compare hosts (x)"]
    aliases = {"picker.close-q", "preview.close-q", "whatif.preset-down", "undo.close-q"}
    for title, screen in (("Skill picker (a)", AmbiguityPicker), ("Undo list (U)", UndoListScreen),
                          ("Index preview (i)", IndexPreviewScreen),
                          ("What-if (w)", WhatIfScreen), ("Compare hosts (x)", CompareScreen)):
        assert {b.id for b in screen.BINDINGS} - aliases <= sections[title], title
    lines = help_content(width=60).plain.splitlines()
    # a description longer than the width continues under the description column (12 cells)
    at = lines.index("  c         copy the selected locator (sent to the terminal")
    assert lines[at + 1] == "            clipboard with OSC 52; the terminal decides"
    assert lines[at + 2] == "            whether it lands)"
    assert "  1         keep the source under the cursor (enabled, its" in lines
    assert "  space     cycle keep → search-only → explicit → disable" in lines


def test_header_adapts_to_width_and_counts_always_show():
    from skillshelf.core.model import Status

    a = Source(name="a", location="/p/a/SKILL.md", provenance=Provenance.PROJECT_ZUNO, canonical="/p/a/SKILL.md",
               status=Status.KEPT_LAST_VALID)
    g = Generation(14, "", "zuno", "/p", (), (a,), (), ())
    cwd = "~/src/some/very/long/project/folder/name/here"
    full = header_text("zuno", cwd, g).plain
    assert full == (f"skillshelf ─ host zuno ─ {cwd} ─ generation 14 ─ 1 source · 0 ambiguous · 0 broken"
                    " · 1 kept-last-valid")
    # the cwd's middle goes first
    assert header_text("zuno", cwd, g, width=120).plain == (
        "skillshelf ─ host zuno ─ ~/src/s…older/name/here ─ generation 14 ─ 1 source · 0 ambiguous · 0 broken"
        " · 1 kept-last-valid")
    # then labels are abbreviated
    assert header_text("zuno", cwd, g, width=78).plain == (
        "skillshelf ─ zuno ─ ~/src…/name/here ─ gen 14 ─ 1 src · 0 amb · 0 brk · 1 kept")
    # then the name and cwd go: the counts still show
    assert header_text("zuno", cwd, g, width=60).plain == "zuno ─ gen 14 ─ 1 src · 0 amb · 0 brk · 1 kept"
    for width in (46, 60, 78, 100, 120, 140):
        assert len(header_text("zuno", cwd, g, width=width).plain) <= width


def test_details_order_verdict_and_lint_before_metadata_and_kept_note():
    from skillshelf.core.model import Status
    from skillshelf.widgets.source_pane import KEPT_NOTE, SourceExtras

    err = Diagnostic(Severity.ERROR, "name-format", "bad name", line=2)
    kept = Source(name="k" * 80, location="/p/k/SKILL.md", provenance=Provenance.PROJECT_ZUNO,
                  canonical="/p/k/SKILL.md", root="/p", description=" ".join(["long"] * 20), status=Status.KEPT_LAST_VALID,
                  content_sha256="ab" * 32, diagnostics=(err,))
    g = Generation(1, "", "zuno", "/p", (), (kept,), (), ())
    lint = (Diagnostic(Severity.WARNING, "desc-long", "too long", line=3),)
    lines = details_content(build_rows(g)[0], SourceExtras(lint=lint)).plain.splitlines()
    assert lines[0] == "k" * 59 + "…  ·  kept-last-valid"          # title capped at 60 characters
    assert lines[1:4] == ["exposure    index — default", "enabled     yes",   # the locator heads the pane
                          f"status      kept-last-valid — {KEPT_NOTE}"]
    verdict, lint_at, prov = lines.index("host verdict (1)"), lines.index("lint (spec)  0 errors, 1 warning"), \
        lines.index("provenance  project-zuno")
    assert verdict < lint_at < prov < lines.index("description " + " ".join(["long"] * 20))
    assert "kept sha256 " + "ab" * 8 + "…" in lines
