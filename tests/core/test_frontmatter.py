"""Host parser tests (SPEC F1–F3), named after the Zuno conformance ids Z039–Z065 and Z002–Z013."""

from __future__ import annotations

import os

import pytest

from skillshelf.core.frontmatter import (
    SkillParse,
    body_of,
    parse_skill_bytes,
    parse_skill_file,
    sanitize,
    sanitized_rows,
    split_document,
)
from skillshelf.core.model import Severity
from skillshelf.core.yamlload import MAX_EXPANDED_NODES

LOC = "/s/SKILL.md"


def p(text: str, loc: str = LOC) -> SkillParse:
    return parse_skill_bytes(text.encode("utf-8"), loc)


def codes(parse: SkillParse) -> list[str]:
    return [d.code for d in parse.diagnostics]


# ---- Z039–Z055 table ---------------------------------------------------------------------


def test_z039_strips_one_newline_after_the_closing_delimiter():
    r = p("---\nname: a\ndescription: d\n---\n\n# Body\n")
    assert (r.name, r.description, r.body) == ("a", "d", "\n# Body\n")
    assert r.accepted and r.warning is None


def test_z040_crlf_body_keeps_its_carriage_returns():
    r = p("---\r\nname: a\r\ndescription: d\r\n---\r\nBody\r\n")
    assert r.body == "Body\r\n"
    assert r.description == "d"
    assert r.name == "a"
    assert "crlf" in codes(r)


def test_z041_four_dashes_is_not_a_delimiter():
    text = "----\nname: a\n----\nB\n"
    r = p(text)
    assert r.name is None
    assert r.body == text
    assert r.warning.kind == "MissingName"


def test_z042_missing_closing_delimiter_empties_the_body():
    r = p("---\nname: a\ndescription: d\n")
    assert (r.name, r.body) == ("a", "")
    s = split_document("---\nname: a\ndescription: d\n")
    assert s.unclosed and s.close_line is None


def test_z043_comment_only_block_has_no_keys():
    r = p("---\n# just a comment\n---\nB\n")
    assert r.name is None
    assert r.warning.kind == "MissingName"
    assert dict(r.frontmatter) == {}


def test_z044_null_scalars_are_present_but_not_strings():
    r = p("---\nname:\n---\nB\n")
    assert r.warning.kind == "MissingName"
    assert r.diagnostics[-1].code == "missing-name"
    assert r.diagnostics[-1].line == 2
    r = p("---\nname: a\ndescription:\n---\nB\n")
    assert r.warning.kind == "InvalidDescription"
    assert r.name is None
    assert (r.diagnostics[-1].code, r.diagnostics[-1].field, r.diagnostics[-1].line) == (
        "invalid-description", "description", 3)


def test_z044_yaml_12_core_schema_keeps_yes_a_string():
    assert p("---\nname: yes\n---\nB\n").name == "yes"
    assert p("---\nname: 'no'\n---\nB\n").name == "no"
    for value in ("true", "123", "null", "~", "1.5", "0x1F"):
        r = p(f"---\nname: {value}\n---\nB\n")
        assert r.name is None and r.warning.kind == "MissingName", value


def test_z046_folded_scalars_fold_the_way_the_oracle_reports():
    r = p("---\nname: f\ndescription: >\n  line one\n  line two\n\n  para two\n---\nBody here\n")
    assert r.description == "line one line two\npara two\n"
    assert r.body == "Body here\n"


def test_z048_sequence_document_has_no_keys():
    r = p("---\n- a\n- b\n---\nB\n")
    assert r.name is None and r.warning.kind == "MissingName"


def test_z049_unknown_keys_are_ignored_not_rejected():
    r = p("---\nname: extra\ndescription: d\nlicense: MIT\nallowed-tools: [shell]\nversion: 2\n---\nB\n")
    assert (r.name, r.description, r.warning) == ("extra", "d", None)
    assert r.frontmatter["allowed-tools"] == ["shell"]
    assert r.frontmatter["version"] == 2


def test_z050_json_engine_is_supported():
    r = p('---json\n{"name":"j","description":"d"}\n---\nB\n')
    assert (r.name, r.description, r.body) == ("j", "d", "B\n")


def test_z051_yaml_language_tag_is_supported():
    assert p("---yaml\nname: y\ndescription: d\n---\nB\n").name == "y"
    assert p("---YML\nname: y2\n---\nB\n").name == "y2"
    assert p("---yaml  \t\nname: y3\n---\nB\n").name == "y3"


def test_z052_unregistered_engine_is_an_error():
    r = p('---toml\nname = "t"\n---\nB\n')
    assert r.warning.kind == "Frontmatter"
    assert r.warning.message == f'failed to load skill {LOC}: frontmatter engine "toml" is not registered'
    assert codes(r) == ["unknown-engine"]


def test_z053_broken_yaml_is_an_error():
    r = p("---\nname: [unclosed\n  - nope: : :\n---\nB\n")
    assert r.warning.kind == "Frontmatter"
    assert r.warning.message.startswith(f"failed to load skill {LOC}: invalid YAML frontmatter: ")
    d = r.diagnostics[-1]
    # reported where the unclosed `[` was opened, not where the parser gave up (line 3 column 9)
    assert (d.code, d.severity, d.line, d.column) == ("yaml-error", Severity.ERROR, 2, 7)
    assert d.message == "invalid YAML frontmatter: `[` is never closed (did not find expected ',' or ']') at line 2 column 7"


def test_z054_sanitize_leaves_hyphenated_keys_and_quoted_values_alone():
    text = '---\nallowed-tools: a: b\nquoted: "x: y"\nfolded: >\n  a: b\n---\nB\n'
    assert sanitize(text) == text


def test_z055_sanitize_retry_rewrites_unquoted_colon_values():
    text = "---\nname: s\ndescription: Use when: you need it\n---\nB\n"
    assert sanitize(text) == "---\nname: s\ndescription: |-\n  Use when: you need it\n---\nB\n"
    r = p(text)
    assert (r.name, r.description, r.sanitized) == ("s", "Use when: you need it", True)
    d = r.diagnostics[-1]
    assert (d.code, d.severity, d.line) == ("sanitized-retry", Severity.INFO, 3)


def test_a_failed_retry_points_at_the_line_that_still_fails_after_zunos_own_quoting():
    # Zuno quotes line 3 itself and parses again; line 5 (a hyphenated key the retry leaves
    # alone) is what stops the file. The warning stays Zuno's (the first error), the
    # diagnostic names the line to fix and how.
    text = ("---\nname: s\ndescription: Lint shell scripts: run it.\nversion: \"1\"\n"
            "allowed-tools: Bash(shellcheck: *)\n---\nB\n")
    r = p(text)
    assert r.warning is not None and r.warning.message == (
        f"failed to load skill {LOC}: invalid YAML frontmatter: mapping values are not allowed in this context "
        "at line 3 column 32")
    d = r.diagnostics[-1]
    assert (d.code, d.line, d.column, d.hint) == ("yaml-error", 5, 31, 'allowed-tools: "Bash(shellcheck: *)"')
    assert d.message == (
        "invalid YAML frontmatter: mapping values are not allowed in this context at line 3 column 32; Zuno "
        "quotes that value itself and parses again, which fails at line 5 column 31: mapping values are not "
        "allowed in this context; unquoted `: ` inside the value of `allowed-tools`: quote the value")
    assert sanitized_rows("a: b: c\nx: 1\nc: d: e") == [0, 0, 1, 2, 2]


@pytest.mark.parametrize("text, line", [
    ("---\nname: x\ndescription: a: b\nfoo: c: d\nfoo: e: f\n---\nbody\n", 5),  # (another line)
    ("---\nname: x\ndescription: first\ndescription: a: b\n---\n", 4),  # (the same line)
])
def test_a_retry_stopped_by_a_repeated_key_offers_no_quoting(text, line):
    # Zuno quotes the values itself: what stops the file is the repeated key, which no quoting mends
    d = p(text).diagnostics[-1]
    assert (d.code, d.line, d.column, d.hint) == ("yaml-error", line, 1, None)
    assert d.message.endswith(f"Zuno quotes that value itself and parses again, which fails at line {line} "
                              "column 1: duplicated key in mapping")


def test_z055_sanitize_retry_runs_only_after_a_failure():
    # valid YAML with a colon value ("http://x") is never rewritten
    r = p("---\nname: s\nhomepage: http://x\n---\nB\n")
    assert r.sanitized is False and r.frontmatter["homepage"] == "http://x"


def test_z055_sanitize_does_not_rescue_hyphenated_keys():
    r = p("---\nname: s\nargument-hint: a: b\n---\nB\n")
    assert r.warning.kind == "Frontmatter"


# ---- Z056–Z061 -----------------------------------------------------------------------------


def test_z056_a_valid_skill_catalogs_metadata_and_the_body():
    r = p("---\nname: a\ndescription: d\n---\n\n# Body\n")
    assert (r.location, r.name, r.description, r.body) == (LOC, "a", "d", "\n# Body\n")


def test_z057_a_description_less_skill_still_loads():
    r = p("---\nname: a\n---\nB\n")
    assert r.accepted and r.description is None and r.name == "a"


def test_z058_a_missing_name_is_rejected():
    r = p("---\ndescription: d\n---\nB\n")
    assert not r.accepted and r.warning.kind == "MissingName"


def test_z059_a_non_string_description_is_rejected():
    r = p("---\nname: a\ndescription: 42\n---\nB\n")
    assert not r.accepted and r.warning.kind == "InvalidDescription" and r.name is None
    assert r.warning.message == f"skill {LOC} has a `description` that is not a string"


def test_z060_the_rejection_message_names_the_file():
    r = p("---\ndescription: d\n---\nB\n", "/skills/broken/SKILL.md")
    assert r.warning.message == "skill /skills/broken/SKILL.md has no string `name` in its frontmatter"
    assert r.warning.source == "/skills/broken/SKILL.md"


def test_z061_missing_name_diagnostic_names_the_key():
    r = p("---\ndescription: d\n---\nB\n", "/skills/broken/SKILL.md")
    d = r.diagnostics[-1]
    assert (d.code, d.field, d.message) == ("missing-name", "name", "a skill needs a string `name` in its frontmatter")


# ---- Z002, Z008, Z010–Z013 --------------------------------------------------------------------


def test_z002_missing_name_message_contains_the_absolute_path(tmp_path):
    f = tmp_path / "broken" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\ndescription: I forgot my name.\n---\n\nBody.\n")
    r = parse_skill_file(str(f))
    assert r.warning.kind == "MissingName"
    assert r.warning.message == f"skill {f} has no string `name` in its frontmatter"


def test_z008_broken_frontmatter_warning_text(tmp_path):
    f = tmp_path / "bad" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\nname: [unclosed\n  - a: : :\n---\nB\n")
    r = parse_skill_file(str(f))
    assert r.warning.kind == "Frontmatter" and r.warning.source == str(f)
    assert r.warning.message.startswith(f"failed to load skill {f}: invalid YAML frontmatter: ")


def test_z010_a_body_is_read_verbatim():
    text = "---\nname: verbatim\ndescription: d\n---\n\n  indented\ttab\r\n\nlast\n"
    assert p(text).body == "\n  indented\ttab\r\n\nlast\n"
    assert body_of(text) == "\n  indented\ttab\r\n\nlast\n"
    assert body_of("\ufeff" + text) == "\n  indented\ttab\r\n\nlast\n"


def test_z011_parse_file_missing_name_is_a_diagnostic_on_name(tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text("---\ndescription: d\n---\nB\n")
    r = parse_skill_file(str(f))
    assert [(d.code, d.field) for d in r.diagnostics] == [("missing-name", "name")]
    assert str(f) in r.warning.message


def test_z012_an_absent_file_is_unreadable_naming_the_path(tmp_path):
    missing = str(tmp_path / "nowhere" / "SKILL.md")
    r = parse_skill_file(missing)
    assert r.warning.kind == "Unreadable" and r.warning.source == missing
    assert r.warning.message == f"failed to read skill {missing}: entity not found"  # Z-T: ErrorKind text
    assert r.body == "" and codes(r) == ["unreadable"]


def test_z013_round_trips_a_good_skill(tmp_path):
    f = tmp_path / "round" / "SKILL.md"
    f.parent.mkdir()
    data = b"---\nname: round\ndescription: d\n---\n\nbody of round\n"
    f.write_bytes(data)
    r = parse_skill_file(str(f), location="/loc/SKILL.md")
    assert (r.name, r.description, r.location) == ("round", "d", "/loc/SKILL.md")
    assert r.size == len(data)
    import hashlib

    assert r.content_sha256 == hashlib.sha256(data).hexdigest()


# ---- F1: decoding --------------------------------------------------------------------------


def test_f1_bom_means_no_frontmatter_for_zuno():
    """Z-F: the file must start with `---`; with a BOM it does not, so there is no name."""
    data = b"\xef\xbb\xbf---\nname: b\ndescription: d\n---\nB\n"
    r = parse_skill_bytes(data, LOC)
    assert (r.name, r.description, r.body) == (None, None, data.decode("utf-8"))
    assert r.warning.kind == "MissingName"
    assert [(d.code, d.severity) for d in r.diagnostics] == [("bom", Severity.WARNING), ("missing-name", Severity.ERROR)]
    assert r.diagnostics[0].message == ("the file starts with a UTF-8 byte-order mark: Zuno sees no frontmatter "
                                        "(the file does not start with `---`)")


def test_f1_invalid_utf8_is_unreadable_with_the_byte_offset():
    data = b"---\nname: caf\xe9\n---\nB\n"
    r = parse_skill_bytes(data, LOC)
    assert r.warning.kind == "Unreadable"
    assert r.warning.message == f"failed to read skill {LOC}: invalid data"  # Z-T
    d = r.diagnostics[0]
    assert (d.code, d.severity, d.line, d.column) == ("not-utf8", Severity.ERROR, 2, 10)
    assert d.message == "file is not UTF-8: byte 0xE9 at offset 13 is invalid"
    assert r.body == "" and r.name is None


def test_f1_utf16_bom_is_named():
    data = "---\nname: x\n---\n".encode("utf-16")  # starts with FF FE
    r = parse_skill_bytes(data, LOC)
    assert r.warning.kind == "Unreadable"
    assert r.diagnostics[0].message == "file is UTF-16 (little-endian) (byte-order mark FF FE); save it as UTF-8"
    big = parse_skill_bytes(b"\xfe\xff\x00-", LOC)
    assert "UTF-16 (big-endian)" in big.diagnostics[0].message


# ---- F2 details ----------------------------------------------------------------------------


def test_f2_zuno_closes_at_the_first_newline_dashes_substring():
    """Z-F: `\\n---` closes the block wherever it starts a line: `----` and `---# Title` end
    it and the rest of that line begins the body; `a---b` inside a value does not."""
    r = p("---\nname: a\ndescription: a---b\n---\nB\n")
    assert (r.description, r.body) == ("a---b", "B\n")
    r = p("---\nname: a\ndescription: x\n---- \n---\nB\n")
    assert (r.name, r.description, r.body) == ("a", "x", "- \n---\nB\n")
    r = p("---\nname: a\n---# Title\nB\n")
    assert (r.name, r.body, r.host_split.body_line) == ("a", "# Title\nB\n", 3)
    assert r.split.unclosed  # the line rule (the lint's) finds no closing line


def test_f2_only_one_cr_and_one_newline_follow_the_closing_dashes():
    r = p("--- \t\nname: a\n---  \nB\n")
    assert (r.name, r.body) == ("a", "  \nB\n")


def test_f2_anything_before_the_opening_line_means_no_frontmatter():
    r = p("\n---\nname: a\n---\nB\n")
    assert r.name is None and r.warning.kind == "MissingName"
    assert r.body == "\n---\nname: a\n---\nB\n"


def test_f2_crlf_values_never_hold_a_cr():
    r = p("---\r\nname: a\r\ndescription: >-\r\n  one\r\n  two\r\nlicense: 'MIT'\r\n---\r\n")
    assert (r.name, r.description, r.frontmatter["license"]) == ("a", "one two", "MIT")
    assert r.body == ""


def test_f2_split_reports_line_numbers():
    s = split_document("---\nname: a\ndescription: d\n---\n\nbody\n")
    assert (s.open_line, s.close_line, s.body_line, s.engine, s.raw) == (1, 4, 5, None, "name: a\ndescription: d\n")
    s = split_document("---JSON\n{}\n---\n")
    assert s.engine == "json"


# ---- F3 limits -----------------------------------------------------------------------------


def test_f3_frontmatter_over_64_kib_is_skillshelfs_own_limit():
    """Z-F: Zuno has no size limit; skillshelf's safety limit is reported as skillshelf's."""
    big = "x" * (64 * 1024)
    r = p(f"---\nname: a\ndescription: {big}\n---\nB\n")
    assert r.warning.kind == "skillshelf-limit"
    assert codes(r) == ["frontmatter-too-large"]
    assert r.warning.message == (f"skillshelf did not parse {LOC}: frontmatter is 65558 bytes, above skillshelf's "
                                 "safety limit of 65536 bytes (Zuno itself has no limit and would parse it)")


def test_f3_alias_expansion_beyond_the_limit_is_a_yaml_bomb():
    lines = ["name: x", "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    prev = "a"
    for level in "bcdefg":
        lines.append(f"{level}: &{level} [" + ", ".join(f"*{prev}" for _ in range(10)) + "]")
        prev = level
    r = p("---\n" + "\n".join(lines) + "\n---\nB\n")
    assert r.warning.kind == "skillshelf-limit"  # Z-F: skillshelf's safety limit, not Zuno's
    assert codes(r) == ["yaml-bomb"]
    assert f"exceeds {MAX_EXPANDED_NODES} nodes" in r.warning.message


def test_f3_small_aliases_are_fine():
    r = p("---\nname: x\nbase: &b {k: v}\nother: *b\n---\nB\n")
    assert r.accepted and r.frontmatter["other"] == {"k": "v"}


def test_f3_recursive_alias_is_refused():
    r = p("---\nname: x\na: &a [*a]\n---\nB\n")
    assert not r.accepted


def test_f3_python_tags_are_not_constructed():
    r = p("---\nname: x\nevil: !!python/tuple [1, 2]\n---\nB\n")
    assert r.warning.kind == "Frontmatter" and codes(r) == ["yaml-error"]
    # with a colon in the value the sanitize retry turns the whole value into a plain string
    r = p("---\nname: x\nevil: !!python/object/apply:os.system ['true']\n---\nB\n")
    assert r.frontmatter["evil"] == "!!python/object/apply:os.system ['true']"


def test_f3_fast_path_matches_the_yaml_loader():
    # values the fast path must hand to YAML (or type identically)
    r = p("---\nname: a\ndescription: \"quoted: yes\"\nlicense: 'it''s'\nx: 1.0\ny: on\n---\nB\n")
    assert dict(r.frontmatter) == {"name": "a", "description": "quoted: yes", "license": "it's", "x": 1.0, "y": "on"}
    r = p("---\nname: a # comment\ndescription: multi\n  line\n---\nB\n")
    assert (r.name, r.description) == ("a", "multi line")


def test_f3_json_error_has_line_and_column():
    r = p('---json\n{"name": "j",\n "description" "d"}\n---\nB\n')
    d = r.diagnostics[-1]
    assert (d.code, d.line, d.column) == ("json-error", 3, 16)
    assert r.warning.message.startswith(f"failed to load skill {LOC}: invalid JSON frontmatter: ")


def test_f3_yaml_error_position_is_relative_to_the_file():
    r = parse_skill_bytes(b"---\nname: a\nmetadata:\n\tversion: 1\n---\n", LOC)
    d = next(x for x in r.diagnostics if x.code == "yaml-error")
    assert (d.line, d.column) == (4, 1)


# ---- unreadable inputs -----------------------------------------------------------------------


def test_directory_named_skill_md_is_unreadable(tmp_path):
    d = tmp_path / "SKILL.md"
    d.mkdir()
    r = parse_skill_file(str(d))
    assert r.warning.kind == "Unreadable"
    assert r.warning.message == f"failed to read skill {d}: is a directory"  # Z-T: ErrorKind text


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_permission_denied_is_unreadable(tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text("---\nname: a\n---\n")
    f.chmod(0)
    try:
        r = parse_skill_file(str(f))
    finally:
        f.chmod(0o644)
    assert r.warning.kind == "Unreadable"
    assert r.warning.message == f"failed to read skill {f}: Permission denied (os error 13)"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_a_fifo_named_skill_md_is_unreadable_not_a_hang(tmp_path):
    f = tmp_path / "SKILL.md"
    os.mkfifo(f)
    r = parse_skill_file(str(f))
    assert r.warning.kind == "Unreadable"
    assert r.warning.message == f"failed to read skill {f}: not a regular file (a FIFO)"
    assert [(d.code, d.message) for d in r.diagnostics] == [
        ("unreadable", "cannot read the file: not a regular file (a FIFO)")]
