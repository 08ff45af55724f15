"""Render forms and budgets (SPEC P1–P6; conformance §3, Z078–Z105)."""

from __future__ import annotations

import random
import string

import pytest

from skillshelf.core.collate import locale_key, name_key, sort_key_with_location
from skillshelf.core.model import Exposure, SkillEntry
from skillshelf.core.render import (
    INDEX_DESCRIPTION_MAX_CHARS,
    NO_SKILLS,
    Budgeted,
    Form,
    _p1_key,
    escape_html,
    normalize_description,
    render,
    render_budgeted,
    truncate_description,
)


def c5() -> list[SkillEntry]:
    """Conformance corpus C5, in the order the scenarios supply it."""
    return [
        SkillEntry("lark-im", "/config/.agents/skills/lark-im/SKILL.md", "飞书即时通讯：收发消息和管理群聊。"),
        SkillEntry("quiet", "/config/.agents/skills/quiet/SKILL.md"),
        SkillEntry("customize-zuno", "<built-in>",
                   "Use ONLY when the user is editing or creating Zuno's own configuration."),
        SkillEntry("amazon_quick_guide", "/config/.config/zuno/skill/amazon_quick_guide/SKILL.md",
                   "MUST be loaded for ANY question about Amazon Quick."),
        SkillEntry("add-office365", "/workspace/app/.zuno/skills/add-office365/SKILL.md",
                   "Adds Office 365 Outlook connector to a Power Apps code app."),
    ]


Z078_LIST = (
    "## Available Skills\n"
    "- **add-office365**: Adds Office 365 Outlook connector to a Power Apps code app.\n"
    "- **amazon_quick_guide**: MUST be loaded for ANY question about Amazon Quick.\n"
    "- **customize-zuno**: Use ONLY when the user is editing or creating Zuno's own configuration.\n"
    "- **lark-im**: 飞书即时通讯：收发消息和管理群聊。"
)

Z079_VERBOSE = """<available_skills>
  <skill>
    <name>add-office365</name>
    <description>Adds Office 365 Outlook connector to a Power Apps code app.</description>
    <location>/workspace/app/.zuno/skills/add-office365/SKILL.md</location>
  </skill>
  <skill>
    <name>amazon_quick_guide</name>
    <description>MUST be loaded for ANY question about Amazon Quick.</description>
    <location>/config/.config/zuno/skill/amazon_quick_guide/SKILL.md</location>
  </skill>
  <skill>
    <name>customize-zuno</name>
    <description>Use ONLY when the user is editing or creating Zuno's own configuration.</description>
    <location>&lt;built-in&gt;</location>
  </skill>
  <skill>
    <name>lark-im</name>
    <description>飞书即时通讯：收发消息和管理群聊。</description>
    <location>/config/.agents/skills/lark-im/SKILL.md</location>
  </skill>
</available_skills>"""

Z080_INDEX = """<skill_index>
  <skill name="add-office365">Adds Office 365 Outlook connector to a Power Apps code app.</skill>
  <skill name="amazon_quick_guide">MUST be loaded for ANY question about Amazon Quick.</skill>
  <skill name="customize-zuno">Use ONLY when the user is editing or creating Zuno&#39;s own configuration.</skill>
  <skill name="lark-im">飞书即时通讯：收发消息和管理群聊。</skill>
</skill_index>"""


# ---------------------------------------------------------------------------------- forms


def test_z078_list_form_bytes():
    assert render(c5(), Form.LIST) == Z078_LIST


def test_z079_verbose_form_bytes():
    assert render(c5(), Form.VERBOSE) == Z079_VERBOSE


def test_z080_index_form_omits_redundant_sources_for_unique_names():
    text = render(c5(), Form.INDEX)
    assert text.startswith("<skill_index>")
    assert 'name="add-office365"' in text
    assert "Adds Office 365 Outlook connector" in text
    assert " source=" not in text
    assert text == Z080_INDEX
    assert len(text) == 386


def test_z081_exposure_filters_the_initial_index_without_hiding_search_only_metadata():
    entries = [
        SkillEntry("indexed", "/indexed/SKILL.md", "Initial metadata.", Exposure.INDEX),
        SkillEntry("search", "/search/SKILL.md", "Search metadata.", Exposure.SEARCH),
        SkillEntry("explicit", "/explicit/SKILL.md", "Explicit metadata.", Exposure.EXPLICIT),
    ]
    assert render(entries, Form.INDEX) == (
        '<skill_index>\n  <skill name="indexed">Initial metadata.</skill>\n</skill_index>'
    )
    assert render(entries, Form.LIST) == (
        "## Available Skills\n- **indexed**: Initial metadata.\n- **search**: Search metadata."
    )
    # P6 / E1: the search-only count is reported; explicit entries are never counted.
    assert render_budgeted(entries, Form.INDEX, 8000).search_only == 1


def test_z082_sidecar_short_description_replaces_long_frontmatter_metadata():
    entries = [SkillEntry("release", "/release/SKILL.md",
                          "A long frontmatter description that should not reach the index.",
                          short_description="Promote verified artifacts.")]
    assert render(entries, Form.INDEX) == (
        '<skill_index>\n  <skill name="release">Promote verified artifacts.</skill>\n</skill_index>'
    )


def test_e3_short_description_makes_an_undescribed_source_visible():
    entries = [SkillEntry("side", "/side/SKILL.md", None, short_description="From the sidecar.")]
    assert render(entries, Form.INDEX) == (
        '<skill_index>\n  <skill name="side">From the sidecar.</skill>\n</skill_index>'
    )


@pytest.mark.parametrize("form", list(Form))
def test_z084_empty_form_bytes(form):
    assert render([], form) == NO_SKILLS == "No skills are currently available."


@pytest.mark.parametrize("form", list(Form))
def test_z085_no_form_is_newline_terminated(form):
    text = render(c5(), form)
    assert not text.startswith("\n") and not text.endswith("\n")


@pytest.mark.parametrize("form", list(Form))
def test_z086_filtering_happens_before_the_emptiness_check(form):
    entries = [SkillEntry("a", "/a"), SkillEntry("b", "/b")]
    assert render(entries, form) == NO_SKILLS
    assert render_budgeted(entries, form, 10_000) == Budgeted(NO_SKILLS, 0, 0, 0, budget=10_000)


def test_z087_escaping_covers_location_and_nothing_else():
    entries = [SkillEntry("a<b>&c", "/p/<dir>/SKILL.md", 'uses <tags> & "quotes"')]
    verbose = render(entries, Form.VERBOSE)
    assert "<name>a<b>&c</name>" in verbose
    assert '<description>uses <tags> & "quotes"</description>' in verbose
    assert "<location>/p/&lt;dir&gt;/SKILL.md</location>" in verbose
    assert '- **a<b>&c**: uses <tags> & "quotes"' in render(entries, Form.LIST)
    assert render(entries, Form.INDEX) == (
        "<skill_index>\n"
        '  <skill name="a&lt;b&gt;&amp;c">uses &lt;tags&gt; &amp; &quot;quotes&quot;</skill>\n'
        "</skill_index>"
    )


def test_z088_escape_html_matches_the_oracle_entity_for_entity():
    assert escape_html("& < > \" ' plain") == "&amp; &lt; &gt; &quot; &#39; plain"
    assert escape_html("&amp;") == "&amp;amp;"


def test_z089_verbose_form_has_a_fixed_line_budget():
    lines = render(c5(), Form.VERBOSE).split("\n")
    assert len(lines) == 22
    assert lines[0] == "<available_skills>" and lines[-1] == "</available_skills>"
    assert lines[1] == "  <skill>" and lines[2].startswith("    <name>")


@pytest.mark.parametrize("form, chars", [(Form.LIST, 305), (Form.VERBOSE, 835), (Form.INDEX, 386)])
def test_z090_an_unspent_budget_is_byte_identical_to_the_unbounded_form(form, chars):
    full = render(c5(), form)
    assert len(full) == chars
    result = render_budgeted(c5(), form, chars)
    assert result.text == full
    assert (result.rendered, result.omitted, result.truncated) == (4, 0, 0)
    assert result.omitted_names == () and result.truncated_names == ()
    # one character less drops something
    tighter = render_budgeted(c5(), form, chars - 1)
    assert tighter.text != full and len(tighter.text) <= chars - 1


def test_z097_an_empty_corpus_answers_the_oracles_sentence_at_any_budget():
    result = render_budgeted([], Form.VERBOSE, 0)
    assert result.text == NO_SKILLS
    assert (result.rendered, result.omitted, result.truncated) == (0, 0, 0)


@pytest.mark.parametrize("form", [Form.LIST, Form.VERBOSE])
def test_z099_z100_sentinel_for_empty_and_undescribed(form):
    assert render([], form) == NO_SKILLS
    assert render([SkillEntry("a", "/a/SKILL.md")], form) == NO_SKILLS


def test_z101_neither_form_ends_with_a_newline():
    entries = [SkillEntry("a", "/a/SKILL.md", "d")]
    assert not render(entries, Form.LIST).endswith("\n")
    assert not render(entries, Form.VERBOSE).endswith("\n")


def test_z102_only_location_is_html_escaped():
    verbose = render([SkillEntry("a<b", "<built-in>", "d & <e>")], Form.VERBOSE)
    assert "<name>a<b</name>" in verbose
    assert "<description>d & <e></description>" in verbose
    assert "<location>&lt;built-in&gt;</location>" in verbose


def test_z103_escape_html_does_not_double_escape():
    assert escape_html("&<>\"'") == "&amp;&lt;&gt;&quot;&#39;"


# ---------------------------------------------------------------------------------- P2: sources


def test_p2_ambiguous_name_carries_source_after_the_name_attribute():
    entries = [
        SkillEntry("pdf", "/b/.agents/skills/pdf/SKILL.md", "Second pdf."),
        SkillEntry("docx", "/a/docx/SKILL.md", "Word files."),
        SkillEntry("pdf", "/a/.zuno/skill/pdf/SKILL.md", "First pdf."),
    ]
    assert render(entries, Form.INDEX) == (
        "<skill_index>\n"
        '  <skill name="docx">Word files.</skill>\n'
        '  <skill name="pdf" source="/a/.zuno/skill/pdf/SKILL.md">First pdf.</skill>\n'
        '  <skill name="pdf" source="/b/.agents/skills/pdf/SKILL.md">Second pdf.</skill>\n'
        "</skill_index>"
    )


def test_p2_duplicate_set_counts_hidden_sources_but_never_prints_them():
    entries = [
        SkillEntry("pdf", "/shown/pdf/SKILL.md", "Shown."),
        SkillEntry("pdf", "/explicit/pdf/SKILL.md", "Explicit.", Exposure.EXPLICIT),
        SkillEntry("pdf", "/quiet/pdf/SKILL.md"),  # undescribed
        SkillEntry("doc", "/doc/SKILL.md", ""),  # empty description: described, name-only line
    ]
    assert render(entries, Form.INDEX) == (
        "<skill_index>\n"
        '  <skill name="doc" />\n'
        '  <skill name="pdf" source="/shown/pdf/SKILL.md">Shown.</skill>\n'
        "</skill_index>"
    )


def test_p2_source_attribute_is_escaped():
    entries = [SkillEntry("x", "/p/<a>&'/SKILL.md", "d"), SkillEntry("x", "/q/SKILL.md", "e")]
    assert '  <skill name="x" source="/p/&lt;a&gt;&amp;&#39;/SKILL.md">d</skill>' in render(entries, Form.INDEX)


# ---------------------------------------------------------------------------------- P3–P4


def test_p3_descriptions_are_whitespace_collapsed_in_the_index():
    entries = [SkillEntry("w", "/w", "  one\ttwo\n\n three\u3000four\u00a0 ")]
    assert render(entries, Form.INDEX) == (
        '<skill_index>\n  <skill name="w">one two three four</skill>\n</skill_index>'
    )


def test_p3_unit_separators_are_not_whitespace_for_the_host():
    # Rust's `char::is_whitespace` excludes U+001C..U+001F (Python's str.split does not).
    assert normalize_description("a\x1fb  c") == "a\x1fb c"
    assert normalize_description(None) == ""


def test_p4_per_entry_cap_keeps_cap_minus_three_trimmed_plus_dots():
    long = "word " * 300  # 1,500 characters
    text = render([SkillEntry("big", "/big", long)], Form.INDEX)
    desc = text.split(">", 2)[2].rsplit("</skill>", 1)[0]
    kept = normalize_description(long)[: INDEX_DESCRIPTION_MAX_CHARS - 3].rstrip()
    assert desc == kept + "..."
    assert len(desc) <= INDEX_DESCRIPTION_MAX_CHARS


@pytest.mark.parametrize("cap, expected", [
    (0, ""), (1, "."), (2, ".."), (3, "..."), (4, "a..."), (5, "a..."), (6, "a b..."), (9, "a b c d e"),
])
def test_p4_truncate_description(cap, expected):
    assert truncate_description("a b c d e", cap) == expected


def test_budget_truncation_counts_descriptions_longer_than_the_uniform_cap():
    # The cap searched is uniform: the escaped & counts toward the budget but the cap is on
    # characters of the unescaped description.
    entries = [SkillEntry("a", "/a", "x" * 50), SkillEntry("b", "/b", "short & fine")]
    full = render(entries, Form.INDEX)
    result = render_budgeted(entries, Form.INDEX, len(full) - 10)
    assert result.cap == 40
    assert result.truncated == 1 and result.truncated_names == ("a",)
    assert result.text == (
        "<skill_index>\n"
        f'  <skill name="a">{"x" * 37}...</skill>\n'
        '  <skill name="b">short &amp; fine</skill>\n'
        "</skill_index>"
    )


# ---------------------------------------------------------------------------------- P5 breakpoints


@pytest.mark.parametrize("budget, names", [
    (0, ()),
    (54, ()),
    (55, ("lark-im",)),
    (87, ("lark-im",)),
    (88, ("add-office365", "lark-im")),
    (121, ("add-office365", "lark-im")),
    (122, ("add-office365", "customize-zuno", "lark-im")),
    (159, ("add-office365", "customize-zuno", "lark-im")),
])
def test_c5_index_budget_breakpoints_name_only_fallback(budget, names):
    # name-only line cost = 19 + len(name) + 1: lark-im 27, add-office365 33,
    # customize-zuno 34, amazon_quick_guide 38; frame 28 → breakpoints 55, 88, 122, 160
    result = render_budgeted(c5(), Form.INDEX, budget)
    all_names = ("add-office365", "amazon_quick_guide", "customize-zuno", "lark-im")
    assert result.rendered == len(names)
    assert result.omitted == 4 - len(names)
    assert result.omitted_names == tuple(n for n in all_names if n not in names)
    assert result.truncated == len(names) and result.truncated_names == names
    assert result.budget == budget
    if not names:
        assert result.text == "" and result.cap is None
    else:
        assert result.cap == 0
        assert result.text == "\n".join(
            ["<skill_index>", *[f'  <skill name="{n}" />' for n in names], "</skill_index>"]
        )
        assert len(result.text) <= budget


def test_c5_budget_160_renders_all_four_name_only():
    result = render_budgeted(c5(), Form.INDEX, 160)
    assert result.text == (
        "<skill_index>\n"
        '  <skill name="add-office365" />\n'
        '  <skill name="amazon_quick_guide" />\n'
        '  <skill name="customize-zuno" />\n'
        '  <skill name="lark-im" />\n'
        "</skill_index>"
    )
    assert (result.rendered, result.omitted, result.truncated, result.cap) == (4, 0, 4, 0)


def test_c5_budget_386_is_full_and_385_searches_a_cap():
    assert render_budgeted(c5(), Form.INDEX, 386).cap == INDEX_DESCRIPTION_MAX_CHARS
    r = render_budgeted(c5(), Form.INDEX, 385)
    assert r.cap == 70 and r.truncated == 1 and r.truncated_names == ("customize-zuno",)
    assert len(r.text) == 385
    # 71 characters cut to 70: the first 67 plus "..."
    assert '<skill name="customize-zuno">Use ONLY when the user is editing or creating Zuno&#39;s own configurat...</skill>' in r.text


def test_list_budget_keeps_cheapest_entries_and_resorts_by_name():
    # costs (line + 1): lark-im 33, amazon_quick_guide 78, add-office365 81, customize-zuno 94;
    # frame 19 (the header line)
    r = render_budgeted(c5(), Form.LIST, 19 + 33 + 78 + 80)
    assert r.text == (
        "## Available Skills\n"
        "- **amazon_quick_guide**: MUST be loaded for ANY question about Amazon Quick.\n"
        "- **lark-im**: 飞书即时通讯：收发消息和管理群聊。"
    )
    assert (r.rendered, r.omitted, r.truncated) == (2, 2, 0)
    assert r.omitted_names == ("add-office365", "customize-zuno")
    assert len(r.text) == 19 + 33 + 78
    assert render_budgeted(c5(), Form.LIST, 19 + 33).rendered == 1
    assert render_budgeted(c5(), Form.LIST, 19 + 32).text == ""
    assert render_budgeted(c5(), Form.LIST, 19 + 32).omitted == 4


def test_verbose_budget_nothing_fits_gives_empty_text():
    r = render_budgeted(c5(), Form.VERBOSE, 38)
    assert (r.text, r.rendered, r.omitted) == ("", 0, 4)


def test_negative_budget_is_refused():
    with pytest.raises(ValueError):
        render_budgeted(c5(), Form.INDEX, -1)


# ---------------------------------------------------------------------------------- reference check


def _ref_locale_sorted(items, key):
    return sorted(items, key=lambda e: sort_key_with_location(e.name, e.location))


def _ref_index_line(e, cap, dups):
    desc = truncate_description(normalize_description(e.catalog_description), cap)
    src = f' source="{escape_html(e.location)}"' if e.name in dups else ""
    if not desc:
        return f'  <skill name="{escape_html(e.name)}"{src} />'
    return f'  <skill name="{escape_html(e.name)}"{src}>{escape_html(desc)}</skill>'


def _ref_index(entries, budget):
    """Straight transcription of the conformance "Budget algorithm reference" (index form),
    building the text at every step; the fast implementation must agree with it."""
    names = [e.name for e in entries]
    dups = {n for n in names if names.count(n) > 1}
    cands = _ref_locale_sorted([e for e in entries if e.indexed], None)
    if not cands:
        return NO_SKILLS, 0, 0, 0

    def assemble(rows, cap):
        return "\n".join(["<skill_index>", *[_ref_index_line(e, cap, dups) for e in rows], "</skill_index>"])

    if len(assemble(cands, 0)) <= budget:
        if len(assemble(cands, 1024)) <= budget:
            return assemble(cands, 1024), len(cands), 0, 0
        low, high = 0, 1024
        while low < high:
            mid = low + (high - low + 1) // 2
            if len(assemble(cands, mid)) <= budget:
                low = mid
            else:
                high = mid - 1
        trunc = sum(1 for e in cands if len(normalize_description(e.catalog_description)) > low)
        return assemble(cands, low), len(cands), 0, trunc
    by_cost = sorted(cands, key=lambda e: (len(_ref_index_line(e, 0, dups)) + 1, locale_key(e.name),
                                           e.location.encode()))
    spent, kept = 28, []
    for e in by_cost:
        cost = len(_ref_index_line(e, 0, dups)) + 1
        if spent + cost > budget:
            break
        spent += cost
        kept.append(e)
    if not kept:
        return "", 0, len(cands), 0
    kept = _ref_locale_sorted(kept, None)
    return assemble(kept, 0), len(kept), len(cands) - len(kept), len(kept)


def _random_entries(rnd: random.Random, n: int) -> list[SkillEntry]:
    words = ["pdf", "a", "Zuno's", "<x>", "&", '"q"', "tab\there", "line\nbreak", "é", "飞书", "  ",
             "wide\u3000space", "nbsp\u00a0x", "sep\x1fx", "long" * 30, "end "]
    names = ["pdf", "PDF", "pdf-2", "pdf_2", "a&b", "x<y", "Zed", "zed", "é-skill", "b"]
    out = []
    for i in range(n):
        name = rnd.choice(names)
        desc = None if rnd.random() < 0.1 else " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 60)))
        exposure = rnd.choice([Exposure.INDEX, Exposure.INDEX, Exposure.SEARCH, Exposure.EXPLICIT])
        short = rnd.choice([None, None, None, "short & sweet"])
        out.append(SkillEntry(name, f"/r{rnd.randint(0, 5)}/{name}/{i}/SKILL.md", desc, exposure,
                              short_description=short))
    return out


def test_index_budget_fitting_agrees_with_the_reference_algorithm():
    rnd = random.Random(20240601)
    for _ in range(25):
        entries = _random_entries(rnd, rnd.randint(1, 12))
        full = len(render(entries, Form.INDEX))
        budgets = {0, 27, 28, 40, 60, 100, full, full - 1, full + 1, full // 2, full // 3, full * 2 // 3}
        budgets |= {rnd.randint(0, full + 10) for _ in range(15)}
        for budget in sorted(b for b in budgets if b >= 0):
            got = render_budgeted(entries, Form.INDEX, budget)
            text, rendered, omitted, truncated = _ref_index(entries, budget)
            assert (got.text, got.rendered, got.omitted, got.truncated) == (text, rendered, omitted, truncated), budget
            if got.text != NO_SKILLS:
                assert len(got.text) <= budget


def test_fast_sort_key_orders_names_exactly_like_locale_key():
    rnd = random.Random(7)
    alphabet = string.ascii_letters + string.digits + string.punctuation + " \x00\x07\x7féÉß飞"
    names = ["aB", "Ab", "ab", "a-b", "a_b", "ab-c", "abc", "zz", "z-z", "a1", "aA", "a", "a-",
             "Zebra", "zzz", "apple", "Apple", "_under", "-dash", "1one", "ß", "SS", "ss", ""]
    names += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 6))) for _ in range(3000)]
    assert sorted(names, key=name_key) == sorted(names, key=locale_key)
    entries = [SkillEntry(n, f"/{rnd.choice('abAB')}/{rnd.randint(0, 3)}") for n in names]
    assert sorted(entries, key=_p1_key) == sorted(entries, key=lambda e: sort_key_with_location(e.name, e.location))
