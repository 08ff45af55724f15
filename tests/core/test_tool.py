"""The ``skill`` tool (SPEC L1–L6, I3; conformance §4 Z106–Z127 and §0.3).

Fixture convention of §4: ``skill(name, desc, body)`` is an embedded skill located at
``/skills/<name>/SKILL.md`` whose resource root is ``/skills/<name>``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.frontmatter import parse_skill_bytes
from skillshelf.core.model import Exposure, SkillEntry
from skillshelf.core.tool import (
    MAX_DOCUMENT_BYTES,
    READ_PAGE_CONTENT_BYTES,
    SCHEMA,
    SkillTool,
    ToolError,
    cursor_digest,
    search_score,
    search_terms,
)


def skill(name: str, desc: str | None, body: str, **kw) -> SkillEntry:
    return SkillEntry(name=name, location=f"/skills/{name}/SKILL.md", description=desc, body=body, **kw)


def refused(tool: SkillTool, request: dict) -> ToolError:
    with pytest.raises(ToolError) as info:
        tool.call(request)
    return info.value


class LiveCatalog:
    """A live catalog stand-in: ``current`` and ``refresh()`` re-read entries from disk."""

    class _Gen:
        def __init__(self, entries):
            self._entries = tuple(entries)

        def entries(self):
            return self._entries

    def __init__(self, build):
        self._build = build
        self.refreshes = 0
        self.current = self._Gen(build())

    def refresh(self):
        self.refreshes += 1
        self.current = self._Gen(self._build())
        return self.current


def disk_entries(root: Path) -> list[SkillEntry]:
    """File-backed entries for every ``root/*/SKILL.md`` the host accepts, sorted by path."""
    out = []
    for path in sorted(root.glob("*/SKILL.md")):
        parsed = parse_skill_bytes(path.read_bytes(), str(path))
        if parsed.name is not None:
            out.append(SkillEntry(parsed.name, str(path), parsed.description))
    return out


def write_skill(directory: Path, name: str, desc: str, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {desc}\n---\n{body}", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- schema and fields


def test_z106_schema_advertises_the_seven_fields_and_limit_range():
    props = SCHEMA["properties"]
    assert list(props) == ["action", "query", "name", "source", "path", "cursor", "limit"]
    assert props["action"]["enum"] == ["list", "search", "load", "read_resource"]
    assert (props["limit"]["minimum"], props["limit"]["maximum"]) == (1, 20)
    assert SCHEMA["additionalProperties"] is False
    assert SCHEMA["required"] == ["action"]


def test_z106_unknown_fields_are_rejected():
    err = refused(SkillTool([]), {"action": "list", "verbose": True})
    assert err.code == "invalid-arguments"
    assert err.message == (
        "unknown field `verbose`, expected one of `action`, `query`, `name`, `source`, `path`, `cursor`, `limit`"
    )


def test_missing_or_unknown_action_is_refused_like_serde():
    assert refused(SkillTool([]), {"name": "x"}).message == "missing field `action`"
    assert refused(SkillTool([]), {"action": "fetch"}).message == (
        "unknown variant `fetch`, expected one of `list`, `search`, `load`, `read_resource`"
    )
    assert refused(SkillTool([]), {"action": "search", "query": 5}).message == (
        "invalid type: integer `5`, expected a string"
    )
    assert refused(SkillTool([]), {"action": "search", "query": "a", "limit": -1}).message == (
        "invalid value: integer `-1`, expected usize"
    )


def test_z126_action_specific_fields_are_rejected_instead_of_silently_ignored():
    tool = SkillTool([skill("deploy", "Ship it.", "body")])
    err = refused(tool, {"action": "load", "name": "deploy", "query": "deploy"})
    assert err.code == "unexpected-field"
    assert err.message == "`skill` action `load` does not accept `query`"


@pytest.mark.parametrize(
    "request_, message",
    [
        # unexpected before missing: load without name but with path → path is named
        ({"action": "load", "path": "x"}, "`skill` action `load` does not accept `path`"),
        ({"action": "load"}, "`skill` action `load` requires `name`"),
        # order query, name, source, path, cursor, limit
        ({"action": "list", "limit": 3, "query": "q", "path": "p"}, "`skill` action `list` does not accept `query`"),
        ({"action": "list", "limit": 3, "path": "p"}, "`skill` action `list` does not accept `path`"),
        ({"action": "search", "cursor": "c", "source": "s"}, "`skill` action `search` does not accept `source`"),
        ({"action": "search", "cursor": "c"}, "`skill` action `search` does not accept `cursor`"),
        ({"action": "search"}, "`skill` action `search` requires `query`"),
        ({"action": "read_resource", "limit": 1, "name": "a"}, "`skill` action `read_resource` does not accept `limit`"),
        ({"action": "read_resource", "path": "a"}, "`skill` action `read_resource` requires `name`"),
        ({"action": "read_resource", "name": "a"}, "`skill` action `read_resource` requires `path`"),
    ],
)
def test_field_acceptance_order(request_, message):
    assert refused(SkillTool([skill("a", "d", "b")]), request_).message == message


def test_null_fields_count_as_absent():
    tool = SkillTool([skill("deploy", "Ship it.", "body")])
    assert tool.call({"action": "list", "query": None, "cursor": None}).title == "Skills"


# --------------------------------------------------------------------------- resolution in load


def test_z107_same_named_skills_require_the_source_returned_by_discovery():
    tool = SkillTool(
        [
            SkillEntry("deploy", "/skills/first/SKILL.md", "First deployment workflow.", body="FIRST BODY"),
            SkillEntry("deploy", "/skills/second/SKILL.md", "Second deployment workflow.", body="SECOND BODY"),
        ]
    )
    err = refused(tool, {"action": "load", "name": "deploy"})
    assert err.code == "ambiguous-skill"
    assert err.message == (
        "Skill name `deploy` is ambiguous. Retry with one exact `source`: "
        "`/skills/first/SKILL.md`, `/skills/second/SKILL.md`"
    )
    out = tool.call({"action": "load", "name": "deploy", "source": "/skills/second/SKILL.md"}).output
    assert "SECOND BODY" in out and "FIRST BODY" not in out


def test_source_naming_another_skill_is_a_source_mismatch():
    tool = SkillTool([skill("deploy", "d", "B"), skill("audit", "d", "B")])
    err = refused(tool, {"action": "load", "name": "deploy", "source": "/skills/audit/SKILL.md"})
    assert err.code == "source-mismatch"
    assert err.message == (
        "Skill `deploy` has no source `/skills/audit/SKILL.md`. Use action `list` or `search` and "
        "pass one of its advertised source locators."
    )


def test_z115_a_named_skill_answers_with_its_whole_body():
    body = "# Heading\n\nStep one.\n  indented\n\nStep two.\n"
    result = SkillTool([skill("deploy", "Ship it.", body)]).call({"action": "load", "name": "deploy"})
    assert result.output == (
        "Loaded skill `deploy`.\n"
        "Source: `/skills/deploy/SKILL.md`\n"
        "Resource root: `/skills/deploy`\n"
        "For relative text references, call `skill` with action `read_resource`, this exact skill name "
        "and source, and the referenced relative path. Use this root directly for assets or scripts; "
        "do not search the filesystem to rediscover this skill.\n"
        "\n"
        "--- BEGIN SKILL BODY ---\n"
        "# Heading\n\nStep one.\n  indented\n\nStep two.\n"
        "\n"
        "--- END SKILL BODY ---"
    )
    assert result.title == "Skill: deploy"
    assert result.metadata == {
        "name": "deploy",
        "source": "/skills/deploy/SKILL.md",
        "location": "/skills/deploy/SKILL.md",
        "complete": True,
        "root": "/skills/deploy",
    }


def test_z116_an_unknown_name_is_refused_with_the_names_that_exist():
    tool = SkillTool([skill("deploy", "Ship it.", "body"), skill("audit", "Check it.", "body")])
    err = refused(tool, {"action": "load", "name": "deployy"})
    assert err.code == "unknown-skill"
    assert err.message == (
        "Unknown skill `deployy`. Use action `search` to find a matching description, or set `name` "
        "to one of these indexed skills: audit, deploy"
    )


def test_the_refusal_bounds_how_many_names_it_pastes_back():
    tool = SkillTool([skill(f"skill-{i:03}", "described", "body") for i in range(45)])
    message = refused(tool, {"action": "load", "name": "absent"}).message
    assert message.endswith("skill-038, skill-039 (and 5 more)")
    assert "skill-040" not in message


def test_z118_an_undescribed_skill_is_loadable_but_not_suggested():
    tool = SkillTool([skill("quiet", None, "body of the quiet skill"), skill("loud", "described", "body")])
    assert "body of the quiet skill" in tool.call({"action": "load", "name": "quiet"}).output
    message = refused(tool, {"action": "load", "name": "absent"}).message
    assert message.endswith("one of these indexed skills: loud")
    assert "quiet" not in message


def test_z119_an_empty_catalog_says_so_instead_of_listing_nothing():
    expected = (
        "No skills are available in this session, so `skill` has nothing to load. Install a skill "
        "under `.agents/skills/` or add a `skills.paths[]` entry to your configuration."
    )
    tool = SkillTool([])
    assert refused(tool, {"action": "load", "name": "anything"}).message == expected
    assert refused(tool, {"action": "list"}).message == expected
    assert refused(tool, {"action": "search", "query": "x"}).message == expected
    # only undescribed skills: still nothing searchable
    assert refused(SkillTool([skill("quiet", None, "b")]), {"action": "list"}).code == "no-skills"


def test_z120_a_discovered_skill_with_an_empty_body_names_its_file():
    err = refused(SkillTool([skill("hollow", "described", "   \n\n")]), {"action": "load", "name": "hollow"})
    assert err.code == "bodyless"
    assert err.message == (
        "Skill `hollow` was discovered but its body is empty, so there is nothing to follow. "
        "Check /skills/hollow/SKILL.md."
    )


def test_document_too_large_is_refused_with_its_size():
    body = "x" * (MAX_DOCUMENT_BYTES + 1)
    err = refused(SkillTool([skill("big", "d", body)]), {"action": "load", "name": "big"})
    assert err.code == "document-too-large"
    assert err.message == "Skill `big` is 4194305 bytes, above the 4194304-byte document limit"


def test_explicit_and_builtin_entries_load_by_exact_name():
    builtin = SkillEntry("writer", "builtin://skillshelf/0.1.0/writer", "Write skills.", body="Do it.")
    explicit = skill("private-release", "Secret release workflow.", "explicit body", exposure=Exposure.EXPLICIT)
    tool = SkillTool([builtin, explicit])
    out = tool.call({"action": "load", "name": "writer"})
    assert out.output == (
        "Loaded skill `writer`.\nSource: `builtin://skillshelf/0.1.0/writer`\n"
        "This embedded skill has no filesystem resource root; follow its body directly.\n\n"
        "--- BEGIN SKILL BODY ---\nDo it.\n--- END SKILL BODY ---"
    )
    assert "root" not in out.metadata
    assert "explicit body" in tool.call({"action": "load", "name": "private-release"}).output


# --------------------------------------------------------------------------- file-backed bodies (L6)


def test_z111_a_filesystem_skill_body_is_read_after_selection_not_cached(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("---\nname: live\ndescription: Live instructions.\n---\nOLD BODY\n")
    entries = [SkillEntry("live", str(path), "Live instructions.")]
    path.write_text("---\nname: live\ndescription: Live instructions.\n---\nNEW BODY\n")
    out = SkillTool(entries).call({"action": "load", "name": "live"}).output
    assert "NEW BODY" in out and "OLD BODY" not in out


def test_z111_a_changed_declared_name_is_refused_on_a_fixed_catalog(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("---\nname: X\ndescription: d\n---\nB\n")
    err = refused(SkillTool([SkillEntry("live", str(path), "d")]), {"action": "load", "name": "live"})
    assert err.code == "document-unavailable"
    assert err.message == (
        f"Skill `live` could not be read from {path}: failed to read skill {path}: "
        "source identity changed from `live` to `X`; refresh the skill catalog"
    )


def test_a_deleted_file_is_a_read_failure_naming_the_os_error(tmp_path):
    path = tmp_path / "gone" / "SKILL.md"
    err = refused(SkillTool([SkillEntry("gone", str(path), "d")]), {"action": "load", "name": "gone"})
    assert err.message == (
        f"Skill `gone` could not be read from {path}: failed to read skill {path}: "
        "failed to read the selected SKILL.md: No such file or directory (os error 2)"
    )


def test_a_file_that_lost_its_name_is_a_read_failure(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("---\ndescription: d\n---\nB\n")
    err = refused(SkillTool([SkillEntry("a", str(path), "d")]), {"action": "load", "name": "a"})
    assert err.message.endswith(": source no longer declares a string `name`")


def test_z111_live_catalog_refreshes_once_after_a_rename(tmp_path):
    """I3: the declared name changed → refresh; the locator no longer declares the name → catalog-stale
    naming the current locators of that name."""
    root = tmp_path / "skills"
    old = write_skill(root / "a-old", "spreadsheet", "Handle spreadsheet work.", "Old.\n")
    catalog = LiveCatalog(lambda: disk_entries(root))
    tool = SkillTool(catalog)
    old.write_text("---\nname: sheets\ndescription: d\n---\nB\n")
    new = write_skill(root / "b-new", "spreadsheet", "Handle spreadsheet work.", "New.\n")
    err = refused(tool, {"action": "load", "name": "spreadsheet", "source": str(old)})
    assert err.code == "catalog-stale"
    assert err.message == (
        f"Skill catalog changed while loading `spreadsheet` from stale source `{old}`. "
        f"Retry with one currently advertised source: `{new}`"
    )
    assert catalog.refreshes == 1


def test_live_catalog_stale_with_no_current_source(tmp_path):
    root = tmp_path / "skills"
    old = write_skill(root / "a", "spreadsheet", "d", "B\n")
    catalog = LiveCatalog(lambda: disk_entries(root))
    tool = SkillTool(catalog)
    old.unlink()
    err = refused(tool, {"action": "load", "name": "spreadsheet", "source": str(old)})
    assert err.message.endswith("Retry with one currently advertised source: <none; use action `list` or `search`>")


def test_z112_a_running_live_tool_observes_an_installed_skill(tmp_path):
    root = tmp_path / "skills"
    root.mkdir()
    catalog = LiveCatalog(lambda: disk_entries(root))
    tool = SkillTool(catalog)
    source = write_skill(root / "spreadsheet", "spreadsheet", "Handle spreadsheet work.", "Normalize the workbook.\n")
    catalog.refresh()
    assert "spreadsheet" in tool.call({"action": "list"}).output
    assert "spreadsheet" in tool.call({"action": "search", "query": "spreadsheet"}).output
    loaded = tool.call({"action": "load", "name": "spreadsheet"}).output
    assert "Normalize the workbook." in loaded and f"Source: `{source}`" in loaded


def test_live_tool_refreshes_on_an_unknown_name(tmp_path):
    """A name not in the published generation forces one refresh before refusing (I3)."""
    root = tmp_path / "skills"
    root.mkdir()
    catalog = LiveCatalog(lambda: disk_entries(root))
    tool = SkillTool(catalog)
    write_skill(root / "fresh", "fresh", "Fresh.", "Fresh body.\n")
    assert "Fresh body." in tool.call({"action": "load", "name": "fresh"}).output
    assert catalog.refreshes == 1


# --------------------------------------------------------------------------- list and search


def test_z108_list_and_search_omit_the_source_for_a_unique_name():
    tool = SkillTool([skill("release-rust", "Release and publish a Rust CLI.", "body")])
    listed = tool.call({"action": "list"})
    assert listed.output == "Available skills 1-1 of 1:\n- release-rust: Release and publish a Rust CLI."
    assert listed.title == "Skills"
    searched = tool.call({"action": "search", "query": "publish Rust"})
    # release-rust: name segment `rust` 250 + display (= name) segment `rust` 125
    #               + description contains `publish` 30 + `rust` 30 = 435
    assert search_score(tool._fixed[0], "publish rust", ["publish", "rust"]) == 435
    assert searched.title == "Skill search: publish Rust"
    assert searched.output == (
        "Skill matches for `publish Rust` (1 shown, 1 matched, 1 available):\n"
        "- release-rust: Release and publish a Rust CLI.\n"
        "Load the selected instructions with action `load`, its exact `name`, and the advertised "
        "`source` when one is present; do not treat a description as the skill body."
    )


def test_list_and_search_include_sources_when_a_name_is_ambiguous():
    tool = SkillTool(
        [
            SkillEntry("release", "/skills/first/SKILL.md", "Release the first product.", body="1"),
            SkillEntry("release", "/skills/second/SKILL.md", "Release the second product.", body="2"),
        ]
    )
    assert tool.call({"action": "list"}).output == (
        "Available skills 1-2 of 2:\n"
        "- release: Release the first product. (source: `/skills/first/SKILL.md`)\n"
        "- release: Release the second product. (source: `/skills/second/SKILL.md`)"
    )
    out = tool.call({"action": "search", "query": "release"}).output
    assert "(source: `/skills/first/SKILL.md`)" in out and "(source: `/skills/second/SKILL.md`)" in out


def test_a_hidden_same_name_source_still_makes_the_source_visible():
    """Counted over any exposure: an explicit twin adds the source to the listed one."""
    tool = SkillTool(
        [
            SkillEntry("pdf", "/a/SKILL.md", "Read PDFs.", body="1"),
            SkillEntry("pdf", "/b/SKILL.md", "Other.", body="2", exposure=Exposure.EXPLICIT),
        ]
    )
    assert tool.call({"action": "list"}).output == (
        "Available skills 1-1 of 1:\n- pdf: Read PDFs. (source: `/a/SKILL.md`)"
    )


def test_z121_search_ranks_matching_descriptions_without_loading_bodies():
    tool = SkillTool(
        [
            skill("release-rust", "Release and publish a Rust CLI to GitHub.", "SECRET RELEASE BODY"),
            skill("release-web", "Release a web application to a hosting provider.", "SECRET WEB BODY"),
            skill("rust-review", "Review Rust code without publishing it.", "SECRET REVIEW BODY"),
        ]
    )
    q, terms = "publish rust cli", ["publish", "rust", "cli"]
    # release-rust: name segment rust 250 + display segment rust 125 + description publish/rust/cli 3×30 = 465
    # rust-review:  250 + 125 + description "publishing" ⊃ publish 30 + rust 30 = 435
    # release-web:  nothing ("application" does not contain "cli") = 0
    assert [search_score(e, q, terms) for e in tool._fixed] == [465, 0, 435]
    result = tool.call({"action": "search", "query": "publish Rust CLI", "limit": 2})
    assert result.title == "Skill search: publish Rust CLI"
    assert result.output == (
        "Skill matches for `publish Rust CLI` (2 shown, 2 matched, 3 available):\n"
        "- release-rust: Release and publish a Rust CLI to GitHub.\n"
        "- rust-review: Review Rust code without publishing it.\n"
        "Load the selected instructions with action `load`, its exact `name`, and the advertised "
        "`source` when one is present; do not treat a description as the skill body."
    )
    assert result.metadata == {"query": "publish Rust CLI", "shown": 2, "matched": 2, "available": 3}


def test_search_uses_sidecar_metadata_and_hides_explicit_only_skills():
    searchable = skill(
        "powerapps",
        "Long generic description.",
        "searchable body",
        display_name="Power Apps Engineering",
        short_description="Canvas application governance",
        exposure=Exposure.SEARCH,
    )
    explicit = skill("private-release", "Secret release workflow.", "explicit body", exposure=Exposure.EXPLICIT)
    tool = SkillTool([searchable, explicit])
    # terms canvas, engineering: short description contains canvas 60; display segment engineering 125 → 185
    assert search_score(searchable, "canvas engineering", ["canvas", "engineering"]) == 185
    out = tool.call({"action": "search", "query": "canvas engineering", "limit": 10}).output
    assert "- powerapps (Power Apps Engineering): Canvas application governance" in out
    assert "private-release" not in out
    assert "private-release" not in tool.call({"action": "list"}).output


def test_search_scoring_whole_query_weights():
    entry = SkillEntry("pdf", "/p", "Work with pdf files.", display_name="PDF", short_description="pdf tools")
    # query == name 10000; display "pdf" == query 8000; short contains 1000; description contains 500;
    # term pdf: name equals 400; display segment 125; short 60; description 30 → 20115
    assert search_score(entry, "pdf", ["pdf"]) == 20115
    partial = SkillEntry("pdf-tools", "/p", "x")
    # name contains query 2000 + display (= name) contains 1500; term: segment 250 + display segment 125 → 3875
    assert search_score(partial, "pdf", ["pdf"]) == 3875
    inner = SkillEntry("spdfx", "/p", "x")
    # name contains 2000 + display contains 1500; term: name contains 150 + display contains 75 → 3725
    assert search_score(inner, "pdf", ["pdf"]) == 3725


def test_search_ties_sort_by_locale_name_and_limit_cuts():
    tool = SkillTool([skill("b-x", "same", "1"), skill("A-x", "same", "1"), skill("a-x", "same", "1")])
    out = tool.call({"action": "search", "query": "same", "limit": 2}).output.splitlines()
    # all three score 500 + 30; locale order a-x < A-x (lowercase first on ties) < b-x
    assert out[0] == "Skill matches for `same` (2 shown, 3 matched, 3 available):"
    assert out[1:3] == ["- a-x: same", "- A-x: same"]


def test_search_without_matches_says_so():
    result = SkillTool([skill("deploy", "Ship it.", "b")]).call({"action": "search", "query": "zebra"})
    assert result.output == (
        "No skill description matched `zebra` among 1 discoverable skills. Search again with a broader "
        "capability or exact skill-name fragment."
    )
    assert result.metadata["shown"] == 0 and result.metadata["matched"] == 0


@pytest.mark.parametrize("query", ["", "   ", "!!! ---"])
def test_search_needs_a_word(query):
    err = refused(SkillTool([skill("a", "d", "b")]), {"action": "search", "query": query})
    assert err.message == "`skill` search needs a non-empty `query` containing a word or name"


@pytest.mark.parametrize("limit", [0, 21])
def test_search_limit_must_be_in_range(limit):
    err = refused(SkillTool([skill("a", "d", "b")]), {"action": "search", "query": "a", "limit": limit})
    assert err.message == f"`skill` search `limit` must be between 1 and 20, got {limit}"


def test_search_terms_split_on_non_alphanumerics():
    assert search_terms("Publish, Rust-CLI! 日本語") == ["publish", "rust", "cli", "日本語"]


def test_search_description_is_capped_at_1200_bytes_with_an_ellipsis():
    desc = "large trigger " * 1000
    out = SkillTool([skill("large", desc, "b")]).call({"action": "search", "query": "large trigger"}).output
    line = out.splitlines()[1]
    shown = line[len("- large: "):]
    assert shown.endswith("…") and len(shown.encode()) <= 1200
    # 1197 bytes of "large trigger large …" cut, trailing space trimmed, then …
    assert shown == ("large trigger " * 1000)[:1197].rstrip() + "…"


def test_search_description_cap_respects_multibyte_characters():
    desc = "€" * 500  # 1500 bytes
    out = SkillTool([skill("euro", desc, "b")]).call({"action": "list"}).output
    shown = out.splitlines()[1][len("- euro: "):]
    assert shown == "€" * 399 + "…"  # 399 × 3 = 1197 bytes + 3-byte ellipsis


def test_descriptions_are_whitespace_normalised_and_empty_ones_named():
    tool = SkillTool([skill("a", "  one\n\ttwo   three ", "b"), skill("b", "", "b")])
    assert tool.call({"action": "list"}).output == (
        "Available skills 1-2 of 2:\n- a: one two three\n- b: (empty description)"
    )


def test_list_pages_twenty_entries_and_continues_with_a_cursor():
    entries = [skill(f"s{i:02}", f"d{i}", "b") for i in range(25)]
    tool = SkillTool(entries)
    first = tool.call({"action": "list"})
    cursor = first.metadata["next_cursor"]
    identity = "\n".join(f"s{i:02}\0/skills/s{i:02}/SKILL.md\0s{i:02}\0d{i}" for i in range(25))
    assert cursor == f"v1|list|20|{cursor_digest('list', identity, identity)}"
    lines = first.output.splitlines()
    assert lines[0] == "Available skills 1-20 of 25:" and len(lines) == 22
    assert lines[-1] == f"Continue with action `list` and cursor `{cursor}` for the next page."
    assert first.metadata["complete"] is False and first.metadata["shown"] == 20
    second = tool.call({"action": "list", "cursor": cursor})
    assert second.output.splitlines()[0] == "Available skills 21-25 of 25:"
    assert second.output.splitlines()[-1] == "- s24: d24"
    assert second.metadata == {"shown": 5, "available": 25, "complete": True}
    # the catalog changed: the list cursor is stale
    changed = SkillTool(entries[:-1])
    assert refused(changed, {"action": "list", "cursor": cursor}).code == "stale-cursor"


# --------------------------------------------------------------------------- paging and cursors


def _multibyte_body() -> str:
    """> 3 pages, with 2-, 3- and 4-byte characters straddling every page edge."""
    unit = "a€日😀é"  # 1 + 3 + 3 + 4 + 2 = 13 bytes
    body = unit * 16_000  # 208,000 bytes ≈ 3.4 pages
    assert len(body.encode()) > 3 * READ_PAGE_CONTENT_BYTES
    return body


def _read_all_pages(tool, request):
    """Every result of a paged read, following ``next_cursor`` until ``complete``."""
    results = []
    result = tool.call(request)
    while True:
        results.append(result)
        if result.metadata["complete"]:
            return results
        result = tool.call({**request, "cursor": result.metadata["next_cursor"]})


def test_load_cursor_round_trip_over_multibyte_page_edges():
    body = _multibyte_body()
    tool = SkillTool([skill("big", "Big.", body)])
    results = _read_all_pages(tool, {"action": "load", "name": "big", "source": "/skills/big/SKILL.md"})
    assert len(results) == 4
    chunks = []
    for i, r in enumerate(results):
        lines = r.output.split("\n")
        if i == 0:
            assert lines[:2] == ["Loaded skill `big`.", "Source: `/skills/big/SKILL.md`"]
            marker = "--- BEGIN SKILL BODY ---"
        else:
            assert lines[:3] == ["Continuing skill `big`.", "Source: `/skills/big/SKILL.md`", ""]
            marker = "--- CONTINUE SKILL BODY ---"
        _head, _, rest = r.output.partition(marker + "\n")
        if r.metadata["complete"]:
            assert rest.endswith("\n--- END SKILL BODY ---")
            chunk = rest[: -len("\n--- END SKILL BODY ---")]
        else:
            footer = (
                "\nThe skill body is not complete. Call `skill` again with action `load`, name `big`, "
                f"source `/skills/big/SKILL.md`, and cursor `{r.metadata['next_cursor']}` before taking task action."
            )
            assert rest.endswith(footer)
            chunk = rest[: -len(footer)]
            assert len(chunk.encode()) <= READ_PAGE_CONTENT_BYTES
            assert r.metadata["next_cursor"].startswith("v1|load|")
        chunks.append(chunk)
    assert "".join(chunks) == body
    # 4,726 whole 13-byte units = 61,438 bytes, then 'a' (61,439); the '€' at 61,439–61,441
    # straddles the 61,440 edge, so the first page is cut back to 61,439 bytes
    assert len(chunks[0].encode()) == 61_439
    offset = int(results[0].metadata["next_cursor"].split("|")[2])
    assert offset == len(chunks[0].encode())
    digest = hashlib.sha256(b"load\0/skills/big/SKILL.md\0" + body.encode()).hexdigest()[:16]
    assert results[0].metadata["next_cursor"] == f"v1|load|{offset}|{digest}"


def test_first_page_cut_lands_on_a_character_boundary():
    body = "a" + "€" * 30_000  # byte 61,440 falls inside a 3-byte character
    first = SkillTool([skill("e", "d", body)]).call({"action": "load", "name": "e"})
    offset = int(first.metadata["next_cursor"].split("|")[2])
    assert offset == 61_438  # 1 + 3 × 20,479
    assert first.metadata["complete"] is False


def test_a_cursor_replayed_after_an_edit_is_refused(tmp_path):
    path = write_skill(tmp_path / "big", "big", "Big.", "x" * 100_000)
    tool = SkillTool([SkillEntry("big", str(path), "Big.")])
    cursor = tool.call({"action": "load", "name": "big"}).metadata["next_cursor"]
    write_skill(tmp_path / "big", "big", "Big.", "y" * 100_000)
    err = refused(tool, {"action": "load", "name": "big", "cursor": cursor})
    assert err.code == "stale-cursor"
    assert err.message == "`skill` action `load` received an invalid or stale `cursor`"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda c, d: c.replace("v1|", "v2|"),  # bad version
        lambda c, d: c.replace("|load|", "|read_resource|"),  # wrong action
        lambda c, d: c.replace("|load|", "|list|"),  # wrong action
        lambda c, d: f"v1|load|{d + 1}|" + c.split("|")[3],  # offset past the end
        lambda c, d: "v1|load|2|" + c.split("|")[3],  # inside the 3-byte '€'
        lambda c, d: c + "|x",  # five parts
        lambda c, d: "|".join(c.split("|")[:3]),  # three parts
        lambda c, d: "v1|load|-1|" + c.split("|")[3],  # not a number
        lambda c, d: c[:-1] + ("0" if c[-1] != "0" else "1"),  # digest
    ],
)
def test_invalid_cursors_are_refused(mutate):
    body = "a€" + "b" * 70_000
    tool = SkillTool([skill("c", "d", body)])
    cursor = tool.call({"action": "load", "name": "c"}).metadata["next_cursor"]
    bad = mutate(cursor, len(body.encode()))
    err = refused(tool, {"action": "load", "name": "c", "cursor": bad})
    assert err.message == "`skill` action `load` received an invalid or stale `cursor`"


def test_a_cursor_at_the_end_yields_an_empty_complete_page():
    body = "b" * 10
    digest = cursor_digest("load", "/skills/c/SKILL.md", body)
    r = SkillTool([skill("c", "d", body)]).call({"action": "load", "name": "c", "cursor": f"v1|load|10|{digest}"})
    assert r.metadata["complete"] is True
    assert r.output.endswith("--- CONTINUE SKILL BODY ---\n\n--- END SKILL BODY ---")


# --------------------------------------------------------------------------- read_resource (L5)


@pytest.fixture()
def scaffold(tmp_path):
    root = tmp_path / "github-project-scaffold"
    (root / "references").mkdir(parents=True)
    (root / "SKILL.md").write_text("body")
    (root / "references" / "ci.md").write_text("# CI contract\nPinned actions.\n")
    entry = SkillEntry("github-project-scaffold", str(root / "SKILL.md"), "Prepare a public repository.",
                       body="Read `references/ci.md`.")
    return root, SkillTool([entry])


def test_z123_a_referenced_skill_resource_is_read_without_filesystem_discovery(scaffold):
    root, tool = scaffold
    r = tool.call({"action": "read_resource", "name": "github-project-scaffold", "path": "references/ci.md"})
    assert r.output == "# CI contract\nPinned actions.\n"
    assert r.title == "Skill resource: github-project-scaffold/references/ci.md"
    assert r.metadata == {
        "name": "github-project-scaffold",
        "source": str(root / "SKILL.md"),
        "root": os.path.realpath(root),
        "path": os.path.realpath(root / "references" / "ci.md"),
        "resource": "references/ci.md",
        "complete": True,
    }


def _resource_refusal(tool, path):
    return refused(tool, {"action": "read_resource", "name": "github-project-scaffold", "path": path})


@pytest.mark.parametrize("path", ["../x", "/etc/passwd", "C:x", "a\\..\\b", "a/\0b", "", "  ", "./x", "a/./b", "..", "\\\\srv\\share"])
def test_resource_paths_must_be_plain_relative(scaffold, path):
    err = _resource_refusal(scaffold[1], path)
    assert err.code == "invalid-resource-path"
    assert err.message == (
        f"Skill resource `{path}` for `github-project-scaffold` must be a non-empty relative path "
        "and cannot contain `.` or `..` components"
    )


def test_a_resource_symlink_cannot_escape_the_skill_root(scaffold, tmp_path):
    root, tool = scaffold
    (tmp_path / "secret.md").write_text("outside")
    os.symlink(tmp_path / "secret.md", root / "references" / "escape.md")
    err = _resource_refusal(tool, "references/escape.md")
    assert err.code == "resource-outside-root"
    assert err.message == (
        "Skill resource `references/escape.md` for `github-project-scaffold` resolves outside its skill root"
    )


def test_a_resource_symlink_inside_the_root_is_followed(scaffold):
    root, tool = scaffold
    os.symlink(root / "references" / "ci.md", root / "alias.md")
    r = tool.call({"action": "read_resource", "name": "github-project-scaffold", "path": "alias.md"})
    assert r.output == "# CI contract\nPinned actions.\n"
    assert r.metadata["path"] == os.path.realpath(root / "references" / "ci.md")


def test_a_directory_is_not_a_regular_file(scaffold):
    err = _resource_refusal(scaffold[1], "references")
    assert err.message == "Skill resource `references` for `github-project-scaffold` is not a regular file"


def test_a_missing_resource_is_unavailable_with_the_os_error(scaffold):
    err = _resource_refusal(scaffold[1], " references/none.md ")
    assert err.code == "resource-unavailable"
    assert err.message == (
        "Skill resource `references/none.md` for `github-project-scaffold` is unavailable: "
        "No such file or directory (os error 2)"
    )


def test_a_non_utf8_resource_is_refused(scaffold):
    root, tool = scaffold
    (root / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    err = _resource_refusal(tool, "latin1.txt")
    assert err.message == "Skill resource `latin1.txt` for `github-project-scaffold` is not UTF-8 text"


def test_an_oversized_resource_is_refused(scaffold):
    root, tool = scaffold
    (root / "huge.txt").write_bytes(b"x" * (MAX_DOCUMENT_BYTES + 1))
    err = _resource_refusal(tool, "huge.txt")
    assert err.code == "resource-too-large"
    assert err.message == (
        "Skill resource `huge.txt` for `github-project-scaffold` is 4194305 bytes, above the "
        "4194304-byte text-resource limit"
    )


def test_a_builtin_skill_has_no_resource_root():
    tool = SkillTool([SkillEntry("writer", "builtin://skillshelf/0.1.0/writer", "W.", body="B")])
    err = refused(tool, {"action": "read_resource", "name": "writer", "path": "references/x.md"})
    assert err.code == "no-resource-root"
    assert err.message == (
        "Skill `writer` is not backed by a local SKILL.md, so it has no readable resource root "
        "(builtin://skillshelf/0.1.0/writer)"
    )


def test_resource_pages_round_trip_and_say_when_incomplete(scaffold):
    root, tool = scaffold
    text = "日本語🙂" * 20_000  # 13 bytes × 20,000 = 260,000 bytes
    (root / "long.md").write_text(text, encoding="utf-8")
    request = {"action": "read_resource", "name": "github-project-scaffold", "path": "long.md"}
    chunks = []
    for r in _read_all_pages(tool, request):
        if r.metadata["complete"]:
            chunks.append(r.output)
        else:
            footer = (
                "\n\nResource is not complete. Continue with action `read_resource`, name "
                f"`github-project-scaffold`, source `{root / 'SKILL.md'}`, path `long.md`, and cursor "
                f"`{r.metadata['next_cursor']}`."
            )
            assert r.output.endswith(footer)
            chunks.append(r.output[: -len(footer)])
    assert len(chunks) == 5
    assert "".join(chunks) == text
    # identity of a resource cursor is `locator::path`
    cursor = tool.call(request).metadata["next_cursor"]
    offset = int(cursor.split("|")[2])
    assert cursor == f"v1|read_resource|{offset}|{cursor_digest('read_resource', str(root / 'SKILL.md') + '::long.md', text)}"
    # a load cursor is not a read_resource cursor
    assert refused(tool, {**request, "cursor": cursor.replace("read_resource", "load")}).code == "stale-cursor"


# --------------------------------------------------------------------------- corpus property


def _corpus_skill_files():
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        return None
    return sorted(corpus.rglob("SKILL.md"))


def test_corpus_pages_concatenate_to_the_file_body():
    """For every corpus SKILL.md that parses with a name: paging a load to completion gives back
    exactly the body the host parser reads from the file."""
    files = _corpus_skill_files()
    if files is None:
        pytest.skip("../shared/corpus is absent")
    checked = 0
    for path in files:
        parsed = parse_skill_bytes(path.read_bytes(), str(path))
        if parsed.name is None or not parsed.body.strip() or len(parsed.body.encode()) > MAX_DOCUMENT_BYTES:
            continue
        tool = SkillTool([SkillEntry(parsed.name, str(path), parsed.description)])
        request = {"action": "load", "name": parsed.name}
        chunks = []
        for i, r in enumerate(_read_all_pages(tool, request)):
            marker = "--- BEGIN SKILL BODY ---\n" if i == 0 else "--- CONTINUE SKILL BODY ---\n"
            rest = r.output.split(marker, 1)[1]
            if r.metadata["complete"]:
                chunks.append(rest[: -len("\n--- END SKILL BODY ---")])
            else:
                chunks.append(rest[: rest.rindex("\nThe skill body is not complete.")])
        assert "".join(chunks) == parsed.body, path
        checked += 1
    assert checked > 1000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_a_skill_file_replaced_by_a_fifo_is_a_read_failure_not_a_hang(tmp_path):
    path = tmp_path / "SKILL.md"
    os.mkfifo(path)
    err = refused(SkillTool([SkillEntry("p", str(path), "d")]), {"action": "load", "name": "p"})
    assert err.message == (
        f"Skill `p` could not be read from {path}: failed to read skill {path}: "
        "failed to read the selected SKILL.md: not a regular file (a FIFO)"
    )
