"""Resolution by name, locator, slash and dollar forms, required skills (SPEC I1–I3, S1–S2)."""

from __future__ import annotations

import pytest

from skillshelf.core.model import Exposure, SkillEntry
from skillshelf.core.resolve import (
    EMPTY_MESSAGE,
    NATIVE_COMMANDS,
    ResolveError,
    resolve_dollar,
    resolve_locator,
    resolve_name,
    resolve_required,
    resolve_slash,
)


def e(name, loc=None, desc="d", **kw):
    return SkillEntry(name, loc or f"/s/{name}/SKILL.md", desc, **kw)


ENTRIES = [
    e("deploy", "/a/deploy/SKILL.md"),
    e("deploy", "/b/deploy/SKILL.md"),
    e("audit"),
    e("Zeta"),
    e("quiet", desc=None),
    e("hidden", exposure=Exposure.EXPLICIT),
]


def test_i1_unique_name_resolves_any_exposure():
    assert resolve_name(ENTRIES, "audit").location == "/s/audit/SKILL.md"
    assert resolve_name(ENTRIES, "quiet").description is None
    assert resolve_name(ENTRIES, "hidden").exposure is Exposure.EXPLICIT


def test_i1_ambiguous_name_lists_every_locator():
    with pytest.raises(ResolveError) as info:
        resolve_name(ENTRIES, "deploy")
    err = info.value
    assert err.code == "ambiguous-skill"
    assert err.locators == ("/a/deploy/SKILL.md", "/b/deploy/SKILL.md")
    assert err.message == (
        "Skill name `deploy` is ambiguous. Retry with one exact `source`: `/a/deploy/SKILL.md`, `/b/deploy/SKILL.md`"
    )


def test_i1_unknown_name_lists_searchable_names_in_locale_order():
    with pytest.raises(ResolveError) as info:
        resolve_name(ENTRIES, "nope")
    err = info.value
    assert err.code == "unknown-skill"
    # searchable only (quiet undescribed, hidden explicit), de-duplicated, locale order
    assert err.suggestions == ("audit", "deploy", "Zeta")
    assert err.message.endswith("one of these indexed skills: audit, deploy, Zeta")


def test_i1_unknown_name_bounds_the_list_at_40():
    entries = [e(f"n{i:02}") for i in range(43)]
    with pytest.raises(ResolveError) as info:
        resolve_name(entries, "x")
    assert len(info.value.suggestions) == 40
    assert info.value.message.endswith("n38, n39 (and 3 more)")


def test_i1_nothing_searchable_gives_the_empty_text():
    with pytest.raises(ResolveError) as info:
        resolve_name([e("quiet", desc=None)], "x")
    assert info.value.message == EMPTY_MESSAGE
    assert info.value.suggestions == ()


def test_i2_locator_resolves_and_name_must_match():
    assert resolve_locator(ENTRIES, "/b/deploy/SKILL.md", "deploy").location == "/b/deploy/SKILL.md"
    assert resolve_locator(ENTRIES, "/b/deploy/SKILL.md").name == "deploy"
    with pytest.raises(ResolveError) as info:
        resolve_locator(ENTRIES, "/b/deploy/SKILL.md", "audit")
    assert info.value.code == "source-mismatch"
    assert info.value.message == (
        "Skill `audit` has no source `/b/deploy/SKILL.md`. Use action `list` or `search` and pass one of "
        "its advertised source locators."
    )


def test_i3_live_unresolved_locator_is_catalog_stale_with_current_locators():
    with pytest.raises(ResolveError) as info:
        resolve_locator(ENTRIES, "/old/deploy/SKILL.md", "deploy", live=True)
    err = info.value
    assert err.code == "catalog-stale"
    assert err.locators == ("/a/deploy/SKILL.md", "/b/deploy/SKILL.md")
    assert err.message == (
        "Skill catalog changed while loading `deploy` from stale source `/old/deploy/SKILL.md`. Retry with "
        "one currently advertised source: `/a/deploy/SKILL.md`, `/b/deploy/SKILL.md`"
    )
    with pytest.raises(ResolveError) as info:
        resolve_locator(ENTRIES, "/old/x/SKILL.md", "gone", live=True)
    assert info.value.locators == ()
    assert info.value.message.endswith("<none; use action `list` or `search`>")


def test_dollar_form_resolves_by_name():
    assert resolve_dollar(ENTRIES, "$audit please").name == "audit"
    with pytest.raises(ResolveError) as info:
        resolve_dollar(ENTRIES, "$deploy")
    assert info.value.code == "ambiguous-skill"


@pytest.mark.parametrize("command", NATIVE_COMMANDS)
def test_s1_native_commands_resolve_first(command):
    shadow = [e(command[1:])]
    result = resolve_slash(shadow, command + " args")
    assert result.kind == "native" and result.entry is None


def test_s1_unique_described_name_is_a_slash_skill():
    result = resolve_slash(ENTRIES, "/audit now")
    assert result.kind == "skill" and result.entry.name == "audit"
    # explicit exposure is still invokable by exact name (E1)
    assert resolve_slash(ENTRIES, "/hidden").kind == "skill"


def test_s1_ambiguous_name_disables_the_slash_form_and_lists_locators():
    result = resolve_slash(ENTRIES, "/deploy")
    assert result.kind == "ambiguous" and result.entry is None
    assert result.locators == ("/a/deploy/SKILL.md", "/b/deploy/SKILL.md")
    assert result.message == (
        "`/deploy` is disabled because skill name `deploy` is ambiguous; use `$deploy` with one exact "
        "source: `/a/deploy/SKILL.md`, `/b/deploy/SKILL.md`"
    )


def test_s1_unknown_and_undescribed_are_not_offered():
    assert resolve_slash(ENTRIES, "/nope").kind == "unknown"
    quiet = resolve_slash(ENTRIES, "/quiet")
    assert quiet.kind == "unknown" and "no description" in quiet.message
    assert resolve_slash(ENTRIES, "audit").kind == "unknown"


def test_s2_required_skills_report_every_failure():
    result = resolve_required("build", ["audit", "deploy", "missing"], ENTRIES)
    assert result.agent == "build"
    assert result.ok is False
    assert [r.name for r in result.resolved] == ["audit"]
    assert [name for name, _ in result.failures] == ["deploy", "missing"]
    assert result.failures[0][1].startswith("Skill name `deploy` is ambiguous.")
    assert result.failures[1][1].startswith("Unknown skill `missing`.")


def test_s2_all_resolved_is_ok():
    result = resolve_required("plan", ["audit", "quiet"], ENTRIES)
    assert result.ok and result.failures == ()
    assert [r.name for r in result.resolved] == ["audit", "quiet"]
