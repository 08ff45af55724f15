"""widgets/rows.py: grouping, glyphs, filter regrouping, fixed-width prompt (SPEC D6, F6, X1)."""

from __future__ import annotations

from skillshelf.core.model import (
    Diagnostic,
    Exposure,
    Generation,
    Provenance,
    Rejected,
    Severity,
    Source,
    Status,
)
from skillshelf.widgets.places import distinguishing_parts, short_root_label
from skillshelf.widgets.rows import (
    LEGEND,
    RowLayout,
    build_rows,
    fit,
    fit_layout,
    group_hits,
    legend,
    row_prompt,
    short_location,
)


def src(name, root="/r", prov=Provenance.PROJECT_ZUNO, **kw):
    loc = f"{root}/{name}-{prov.value}/SKILL.md"
    return Source(name=name, location=loc, provenance=prov, canonical=loc, root=root, **kw)


def gen(sources, rejected=()):
    return Generation(1, "", "zuno", "/w", (), tuple(sources), tuple(rejected), ())


def test_d6_same_name_rows_grouped_and_marked():
    g = gen([src("a"), src("b"), src("a", prov=Provenance.GLOBAL_AGENTS), src("c")])
    rows = build_rows(g)
    assert [(r.name, r.item.provenance.value, r.state, r.ambiguous) for r in rows] == [
        ("a", "project-zuno", "◆", 2),
        ("a", "global-agents", "◆", 2),
        ("b", "project-zuno", "✓", 0),
        ("c", "project-zuno", "✓", 0),
    ]


def test_disabled_member_does_not_make_name_ambiguous():
    g = gen([src("a"), src("a", prov=Provenance.GLOBAL_AGENTS, enabled=False, status=Status.DISABLED)])
    rows = build_rows(g)
    assert [(r.state, r.ambiguous) for r in rows] == [("✓", 0), ("○", 0)]


def test_flags_and_kept_last_valid_and_rejected():
    err = Diagnostic(Severity.ERROR, "name-format", "bad", line=2, column=7)
    warn = Diagnostic(Severity.WARNING, "w", "meh")
    g = gen(
        [src("s", exposure=Exposure.SEARCH), src("e", exposure=Exposure.EXPLICIT),
         src("l", exposure=Exposure.SEARCH, diagnostics=(err,)), src("w", diagnostics=(warn,)),
         src("k", status=Status.KEPT_LAST_VALID)],
        [Rejected(location="/r/x/SKILL.md", provenance=Provenance.GLOBAL_AGENTS, canonical="/r/x/SKILL.md", name="x")],
    )
    assert [(r.state + r.flag) for r in build_rows(g)] == ["✓s", "✓e", "✓!", "✓ ", "↺ ", "✗ "]


def test_group_hits_keeps_groups_adjacent():
    g = gen([src("a"), src("b"), src("a", prov=Provenance.GLOBAL_AGENTS)],
            [Rejected(location="/r/a/SKILL.md", provenance=Provenance.GLOBAL_AGENTS, canonical="/r/a/SKILL.md", name="a")])
    rows = build_rows(g)  # a, a, b, rejected a
    assert group_hits(rows, [3, 1, 2]) == [3, 1, 2]
    assert group_hits(rows, [1, 2, 0]) == [0, 1, 2]  # both "a" rows follow the best-ranked one, in row order


def test_short_location_and_fit():
    s = src("pdf", root="/home/u/.agents/skills")
    assert short_location(s) == "pdf-project-zuno"
    other = Source(name="x", location="/a/b/c/x/SKILL.md", provenance=Provenance.CONFIGURED_PATH, canonical="/a")
    assert short_location(other) == "…/c/x"
    assert fit("abc", 5) == "abc  "
    assert fit("abcdef", 4) == "abc…"
    assert fit("日本語", 4) == "日 …"


def test_x1_row_prompt_plain_and_fixed_width():
    s = src("[b]x[/b]\x1b[2J")
    prompt = row_prompt(build_rows(gen([s]))[0], RowLayout(10, label=15))
    assert prompt.plain == "✓  [b]x[/b]␛… index    project .zuno   [b]x[/b]\x1b[2J-project-zuno".replace("\x1b", "␛")


def test_row_prompt_highlights_spans():
    s = src("pdf-tools")
    prompt = row_prompt(build_rows(gen([s]))[0], RowLayout(10), [(0, 3)])
    assert prompt.plain.startswith("✓  pdf-tools  index")
    assert any(span.start == 3 and span.end == 6 for span in prompt.spans)


def test_legend_lists_every_glyph():
    assert LEGEND == "✓ ok  ◆ ambiguous  ○ disabled  ✗ rejected  ↺ kept-last-valid  s search-only  e explicit-only  ! lint errors"


def test_shadowed_race_and_hidden_copies_get_their_own_glyphs():
    winner = src("pdf", prov=Provenance.USER)
    loser = src("pdf", prov=Provenance.PROJECT, status=Status.SHADOWED, shadowed_by=(winner.location,))
    r1 = src("dup", prov=Provenance.USER, status=Status.RACE)
    r2 = src("dup", prov=Provenance.PROJECT, status=Status.RACE, shadowed_by=(r1.location,))
    quiet = src("quiet", status=Status.HIDDEN, status_reason="disable-model-invocation")
    rows = build_rows(gen([winner, loser, r1, r2, quiet]))
    assert [(r.name, r.state, r.ambiguous) for r in rows] == [
        ("pdf", "✓", 0), ("pdf", "↓", 0), ("dup", "⇄", 2), ("dup", "⇄", 2), ("quiet", "◌", 0)]
    assert legend(rows) == ("✓ ok  ↓ shadowed  ⇄ either may win  ◌ hidden  ○ disabled  ✗ rejected  "
                            "↺ kept-last-valid  s search-only  e explicit-only  ! lint errors")
    assert legend(rows[:2]) == ("✓ ok  ↓ shadowed  ○ disabled  ✗ rejected  ↺ kept-last-valid  "
                                "s search-only  e explicit-only  ! lint errors")
    assert legend(build_rows(gen([src("a"), src("a", prov=Provenance.USER)]))) == LEGEND


def test_value_column_and_location_end_kept():
    from skillshelf.widgets.rows import fit_end

    assert fit_end("/home/u/.agents/skills/pdf", 12) == "…/skills/pdf"
    assert fit_end("short", 12) == "short"
    s = src("pdf", root="/very/long/root/that/is/cut", size=12345)
    row = build_rows(gen([s]))[0]
    # sorting by size shows the key in its own column (11 cells, right-aligned)
    plain = row_prompt(row, RowLayout(8, value=True, label=15, place=12), value="12,345 B").plain
    assert plain == "✓  pdf         12,345 B index    project .zuno   …roject-zuno"
    # the locator column keeps the END of a long path (…/skills/pdf), not its start
    other = Source(name="x", location="/a/b/c/deep/skills/pdf/SKILL.md", provenance=Provenance.PROJECT_ZUNO,
                   canonical="/a/b/c/deep/skills/pdf/SKILL.md", root="/elsewhere")
    assert row_prompt(build_rows(gen([other]))[0], RowLayout(8, place=12)).plain.endswith(" …/skills/pdf")


# Copies of one name told apart (own fixture: a home with ~/.agents/skills, a project with
# .agents/skills and .zuno/skill, two configured paths holding the same name)
HOME = "/u/me"
COPIES = [
    Source(name="tdd", location=f"{HOME}/proj/.zuno/skill/tdd/SKILL.md", provenance=Provenance.PROJECT_ZUNO,
           canonical="", root=f"{HOME}/proj/.zuno/skill"),
    Source(name="tdd", location=f"{HOME}/proj/.agents/skills/tdd/SKILL.md", provenance=Provenance.PROJECT_AGENTS,
           canonical="", root=f"{HOME}/proj/.agents/skills"),
    Source(name="tdd", location=f"{HOME}/.agents/skills/tdd/SKILL.md", provenance=Provenance.GLOBAL_AGENTS,
           canonical="", root=f"{HOME}/.agents/skills"),
    Source(name="doc", location=f"{HOME}/vendor-a/skills/doc/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
           canonical="", root=f"{HOME}/vendor-a/skills"),
    Source(name="doc", location=f"{HOME}/vendor-b/skills/doc/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
           canonical="", root=f"{HOME}/vendor-b/skills", enabled=False, status=Status.DISABLED),
    Source(name="solo", location="/opt/skills/solo/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
           canonical="", root="/opt/skills"),
]


def test_copies_get_the_shortest_telling_part_of_their_paths():
    rows = build_rows(gen(COPIES), home=HOME)
    assert [(r.name, r.root_label, r.distinct) for r in rows] == [
        ("tdd", "project .zuno", "…/.zuno/…"),          # "skill" alone would tell it too: .zuno says more
        ("tdd", "project .agents", "…/proj/.agents/…"),
        ("tdd", "global .agents", "~/.agents/…"),
        ("doc", "path", "…/vendor-a/…"),
        ("doc", "path", "…/vendor-b/…"),                # a disabled copy is told apart as well
        ("solo", "path", ""),
    ]
    # a path lying wholly inside another keeps a root-anchored part; nested copies keep the end
    assert distinguishing_parts(["/a/b/SKILL.md", "/x/a/b/SKILL.md"]) == {"/a/b/SKILL.md": "/a/…",
                                                                            "/x/a/b/SKILL.md": "…/x/…"}
    assert distinguishing_parts(["/p/skills/pdf/SKILL.md", "/p/skills/vendor/pdf/SKILL.md"]) == {
        "/p/skills/pdf/SKILL.md": "…/skills/pdf", "/p/skills/vendor/pdf/SKILL.md": "…/vendor/…"}


def test_short_root_labels_in_the_hosts_words():
    assert short_root_label(Provenance.USER, "user ~/.claude/skills") == "user .claude"
    assert short_root_label(Provenance.PROJECT, "workspace .agents/skills") == "workspace .agents"
    assert short_root_label(Provenance.ZHIN_AGENT, "agent:reviewer") == "agent:reviewer"
    assert short_root_label(Provenance.MANAGED, "admin /etc/codex/skills") == "admin /etc/codex"
    assert short_root_label(Provenance.SYSTEM, "system $CODEX_HOME/skills/.system") == "system $…/.system"
    assert short_root_label(Provenance.GLOBAL_ZUNO) == "global zuno"     # $XDG_CONFIG_HOME/zuno


def test_layout_keeps_what_tells_copies_apart_at_any_width():
    rows = build_rows(gen(COPIES), home=HOME)
    # wide: every column; what tells copies apart in the place column
    wide = fit_layout(100, 4, widest_label=15, widest_distinct=16)
    assert (wide.exposure, wide.label, wide.name) == (True, 15, 8)
    assert row_prompt(rows[1], wide).plain.rstrip() == "◆  tdd      index    project .agents …/proj/.agents/…"
    # 80 columns (a list 36 cells wide), long names: exposure and label give way, the part stays
    narrow = fit_layout(36, 23, widest_label=15, widest_distinct=16)
    assert (narrow.exposure, narrow.label, narrow.name, narrow.place) == (False, 0, 16, 16)
    assert [row_prompt(r, narrow).plain.rstrip() for r in rows] == [
        "◆  tdd              …/.zuno/…",
        "◆  tdd              …/proj/.agents/…",
        "◆  tdd              ~/.agents/…",
        "✓  doc              …/vendor-a/…",          # one copy enabled: not ambiguous, still told apart
        "○  doc              …/vendor-b/…",
        "✓  solo             path",                       # no copies: the root label instead
    ]
    # 120 columns (a list 58 cells wide): the label stays, the exposure goes
    mid = fit_layout(58, 23, widest_label=15, widest_distinct=16)
    assert (mid.exposure, mid.label, mid.name, mid.place) == (False, 15, 22, 16)


def test_a_place_column_too_narrow_to_say_anything_is_left_out():
    """No copies to tell apart and 2 cells left for the location: no place column (it showed ``…s``)."""
    layout = fit_layout(38, 19, widest_label=12)
    assert (layout.exposure, layout.label, layout.name, layout.place) == (False, 12, 19, 0)
    roomy = fit_layout(58, 19, widest_label=12)
    assert (roomy.exposure, roomy.label, roomy.name, roomy.place) == (True, 12, 19, 13)


def test_a_builtin_row_names_the_client_it_is_built_into_not_its_locator_tail():
    """Root label and place columns together give the built-in's provenance as its exposure
    names it (``Zuno 0.10.3 built-in``), not ``…ize-zuno``; a bare ``built-in`` reason stays so."""
    loc = "builtin://zuno-orchestration/0.10.3/customize-zuno"
    zuno = Source(name="customize-zuno", location=loc, provenance=Provenance.BUILTIN, canonical=loc,
                  exposure_reason="Zuno 0.10.3 built-in")
    row = build_rows(gen([zuno]))[0]
    assert row_prompt(row, RowLayout(16, label=15, place=9)).plain == (
        "✓  customize-zuno   index    Zuno 0.10.3 built-in")
    assert row_prompt(row, RowLayout(16, label=12, place=6)).plain == "✓  customize-zuno   index    Zuno 0.10.3 built-…"
    assert row_prompt(row, RowLayout(16, label=15, place=None)).plain.endswith("index    Zuno 0.10.3 built-in")
    # without a root label column the label goes in the place column, as for any row
    assert row_prompt(row, RowLayout(16, label=0, place=12)).plain == "✓  customize-zuno   index    built-in"
    bare = Source(name="skill-creator", location="builtin://gemini/skill-creator", provenance=Provenance.BUILTIN,
                  canonical="builtin://gemini/skill-creator", exposure_reason="built-in")
    assert row_prompt(build_rows(gen([bare]))[0], RowLayout(16, label=15, place=9)).plain == (
        "✓  skill-creator    index    built-in")
