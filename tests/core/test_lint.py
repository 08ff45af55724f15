"""Lint layer tests (SPEC F4–F5) on fixtures written here; targets spec, portable, zuno, zhin."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.frontmatter import parse_skill_bytes
from skillshelf.core.lint import (
    LintReport,
    Target,
    lint_file,
    lint_parsed,
    lint_paths,
    name_problems,
    suggest_name,
)
from skillshelf.core.model import Severity
from skillshelf.core.walklimits import MAX_WALK_DEPTH


def skill(root: Path, folder: str, text: str | bytes, filename: str = "SKILL.md") -> Path:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    f = d / filename
    if isinstance(text, bytes):
        f.write_bytes(text)
    else:
        f.write_text(text, encoding="utf-8")
    return f


def good(name: str, extra: str = "", body: str = "# Title\n\nDo the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: Does {name} things. Use when asked.\n{extra}---\n\n{body}"


def by_code(report: LintReport) -> dict[str, list]:
    out: dict[str, list] = {}
    for d in report.diagnostics:
        out.setdefault(d.code, []).append(d)
    return out


def lint_text(text: str, folder: str, target: Target = Target.SPEC):
    return lint_parsed(parse_skill_bytes(text.encode(), f"/x/{folder}/SKILL.md"), target=target, folder_name=folder)


def test_good_skill_is_valid_for_every_target(tmp_path):
    f = skill(tmp_path, "tidy", good("tidy"))
    for target in Target:
        r = lint_file(str(f), target=target)
        assert (r.valid, r.name, r.diagnostics) == (True, "tidy", ()), target


# ---- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,problems",
    [
        ("good-name", []),
        ("数据导出", []),
        ("My_Skill", ["must be lowercase", "contains invalid characters: '_'"]),
        ("double--dash", ["must not contain consecutive hyphens"]),
        ("trailing-", ["must not start or end with a hyphen"]),
        ("a" * 65, ["is 65 characters (limit 64)"]),
        ("", ["must not be empty"]),
    ],
)
def test_f4_name_rule(name, problems):
    assert name_problems(name) == problems


def test_f4_suggest_name():
    assert suggest_name("My_Skill") == "my-skill"
    assert suggest_name("deploy:prod") == "deploy-prod"
    assert suggest_name("数据导出", "data-export") == "data-export"
    assert suggest_name("---", "") == "my-skill"


def test_f4_bad_name_has_field_line_column_and_hint():
    (d,) = [d for d in lint_text(good("data_export"), "data_export") if d.code == "name-invalid"]
    assert (d.severity, d.field, d.line, d.column, d.hint) == (Severity.ERROR, "name", 2, 7, "name: data-export")


def test_f4_name_mismatch_uses_nfkc_and_suggests_the_folder():
    diags = lint_text(good("ｎfkc-test"), "nfkc-test")  # full-width n normalises to n
    assert [d.code for d in diags] == []
    (d,) = [d for d in lint_text(good("other"), "tidy") if d.code == "name-mismatch"]
    assert d.hint == "set `name: tidy` or rename the folder to `other`"
    assert (d.line, d.field) == (2, "name")


def test_f4_unicode_name_is_spec_valid_but_not_portable():
    text = good("数据导出")
    spec = lint_text(text, "数据导出", Target.SPEC)
    assert [(d.code, d.severity) for d in spec] == [("name-not-ascii", Severity.WARNING)]
    port = lint_text(text, "数据导出", Target.PORTABLE)
    assert [(d.code, d.severity) for d in port] == [("name-not-ascii", Severity.ERROR)]


# ---- fields --------------------------------------------------------------------------------


def test_f4_field_types_and_lengths():
    long_desc = "x" * 1025
    text = (
        "---\nname: t\n"
        f"description: {long_desc}\n"
        f"compatibility: {'c' * 501}\n"
        "license: [MIT]\n"
        "metadata:\n  version: 1.0\n"
        "allowed-tools: [Read, Write]\n"
        "version: 2\n"
        "---\nbody\n"
    )
    diags = {d.code: d for d in lint_text(text, "t")}
    assert diags["description-too-long"].message == "`description` is 1025 characters (limit 1024)"
    assert (diags["description-too-long"].line, diags["description-too-long"].field) == (3, "description")
    assert diags["compatibility-too-long"].line == 4
    assert diags["license-type"].message == "`license` must be a string, got list"
    assert diags["metadata-type"].message == "`metadata.version` must be a string, got number"
    assert diags["metadata-type"].hint == 'version: "1.0"'
    assert diags["allowed-tools-type"].hint == "allowed-tools: Read Write"
    assert (diags["allowed-tools-type"].line, diags["allowed-tools-type"].column) == (8, 16)
    assert (diags["unknown-key"].field, diags["unknown-key"].line, diags["unknown-key"].column) == ("version", 9, 1)
    assert all(d.severity is Severity.ERROR for d in diags.values())


def test_f5_zuno_target_only_errors_on_what_the_host_rejects():
    text = "---\nname: Bad_Name\nversion: 2\nallowed-tools: [Read]\n---\nbody\n"
    diags = lint_text(text, "folder", Target.ZUNO)
    assert all(d.severity is not Severity.ERROR for d in diags)
    assert "unknown-key" not in [d.code for d in diags]
    assert ("missing-description", Severity.WARNING) in [(d.code, d.severity) for d in diags]
    rejected = lint_text("---\nname: 5\n---\nbody\n", "folder", Target.ZUNO)
    assert [(d.code, d.severity) for d in rejected if d.severity is Severity.ERROR] == [("name-type", Severity.ERROR)]


def test_f5_zhin_target_rules():
    text = (
        "---\nname: deploy\nscopes: [dm]\nalways: 'yes'\nkeywords: [ok, '']\ntools:\n  - web_search\n"
        "---\n# Research\n"
    )
    diags = {d.code: d for d in lint_text(text, "research", Target.ZHIN)}
    assert diags["name-mismatch"].message == "name deploy must match directory research"
    assert diags["scopes-invalid"].message == "Skill frontmatter scopes must be private, group, or channel"
    assert diags["always-type"].message == "Skill frontmatter always must be a boolean"
    assert diags["list-field-type"].message == "Skill frontmatter keywords must contain non-empty strings"
    assert diags["list-field-type"].line == 5
    assert "unknown-key" not in diags
    assert diags["missing-description"].severity is Severity.INFO  # Zhin falls back to the heading
    bad_dir = [d.code for d in lint_text(good("My_Dir"), "My_Dir", Target.ZHIN)]
    assert bad_dir == ["dir-name-invalid"]
    nofm = lint_text("# Research\n\nUse primary sources.", "research", Target.ZHIN)
    assert [(d.code, d.severity) for d in nofm] == [("frontmatter-missing", Severity.INFO)]
    empty_body = [d.code for d in lint_text("---\nname: r\n---\n", "r", Target.ZHIN)]
    assert empty_body == ["missing-description", "body-empty"]


def test_f4_duplicate_key_and_not_mapping():
    diags = lint_text("---\nname: a\nname: a\ndescription: d\n---\nB\n", "a")
    assert [(d.code, d.line) for d in diags] == [("duplicate-key", 3)]
    diags = lint_text("---\n- a\n- b\n---\nB\n", "a")
    assert [d.code for d in diags] == ["yaml-not-mapping"]


# ---- frontmatter faults ---------------------------------------------------------------------


def test_f2_frontmatter_not_first_points_at_the_block():
    diags = lint_text("\n<!-- intro -->\n---\nname: a\ndescription: d\n---\nB\n", "a")
    (d,) = diags
    assert (d.code, d.line, d.hint) == ("frontmatter-not-first", 3, "remove the 2 line(s) above line 3")


def test_f2_horizontal_rule_is_not_a_late_frontmatter():
    diags = lint_text("# Title\n\ntext\n\n---\n\nmore\n", "a")
    assert [d.code for d in diags] == ["frontmatter-missing"]


def test_f2_unclosed_and_unknown_engine():
    diags = lint_text("---\nname: a\ndescription: d\n", "a")
    assert [(d.code, d.line) for d in diags] == [("frontmatter-unclosed", 1)]
    diags = lint_text("---toml\nname = 'a'\n---\nB\n", "a")
    assert [(d.code, d.message) for d in diags] == [("unknown-engine", 'frontmatter engine "toml" is not registered')]


def test_b01_kind_unquoted_colon_has_the_quoted_line_as_hint():
    text = "---\nname: colon\ndescription: Sort logs: errors first, then the rest.\n---\nB\n"
    (d,) = lint_text(text, "colon")
    assert (d.code, d.severity, d.field, d.line, d.column) == ("quote-description", Severity.ERROR, "description", 3, 23)
    assert d.hint == 'description: "Sort logs: errors first, then the rest."'
    (z,) = lint_text(text, "colon", Target.ZUNO)
    assert z.severity is Severity.WARNING


def test_b01_kind_unquoted_colon_in_a_hyphenated_key_is_a_yaml_error_with_hint():
    text = "---\nname: h\ndescription: d\nargument-hint: file: path\n---\nB\n"
    (d,) = lint_text(text, "h")
    assert (d.code, d.field, d.line) == ("yaml-error", "argument-hint", 4)
    assert d.hint == 'argument-hint: "file: path"'


def test_b01_kind_tab_indent_is_reported_on_its_line():
    text = "---\nname: t\ndescription: d\nmetadata:\n\tauthor: me\n---\nB\n"
    (d,) = lint_text(text, "t")
    assert (d.code, d.line, d.column, d.field, d.hint) == ("tab-indent", 5, 1, "metadata", "  author: me")


# ---- body and tree checks -------------------------------------------------------------------


def test_f4_body_too_long_reports_the_measured_size(tmp_path):
    body = "line\n" * 501
    f = skill(tmp_path, "long", good("long", body=body))
    (d,) = lint_file(str(f)).diagnostics
    assert d.code == "body-too-long" and d.severity is Severity.WARNING
    assert d.message == ("body is 502 lines and about 626 tokens (2,506 characters / 4); "
                         "keep it under 500 lines and 5,000 tokens")
    assert d.line == 505  # the 501st body line
    f2 = skill(tmp_path, "wide", good("wide", body="x" * 20004 + "\n"))
    (d2,) = lint_file(str(f2)).diagnostics
    assert "about 5,001 tokens" in d2.message


def test_f4_missing_reference_is_conservative(tmp_path):
    body = (
        "See [the guide](references/guide.md) and [missing](references/nope.md#part).\n"
        "Run `scripts/run.py` then `scripts/gone.py`; also `src/app.py` and [web](https://x.org/a.md).\n"
        "```\n[in code](references/also-nope.md)\n```\n"
        "![img](assets/logo.png) [anchor](#top) [up](../other/SKILL.md)\n"
    )
    f = skill(tmp_path, "refs", good("refs", body=body))
    (f.parent / "references").mkdir()
    (f.parent / "references" / "guide.md").write_text("g")
    (f.parent / "scripts").mkdir()
    (f.parent / "scripts" / "run.py").write_text("")
    diags = [(d.code, d.line, d.column, d.message) for d in lint_file(str(f)).diagnostics]
    assert diags == [
        ("missing-reference", 6, 52, "`references/nope.md` is referenced but does not exist in the skill folder"),
        ("missing-reference", 7, 28, "`scripts/gone.py` is referenced but does not exist in the skill folder"),
        ("missing-reference", 11, 8, "`assets/logo.png` is referenced but does not exist in the skill folder"),
        ("reference-outside", 11, 45, "`../other/SKILL.md` points outside the skill folder: it does not travel with "
                                      "the skill (installers copy only the folder, and Zuno's read_resource refuses it)"),
    ]


def test_f4_nested_skill_names_the_outer_skill(tmp_path):
    skill(tmp_path, "outer", good("outer"))
    inner = skill(tmp_path, "outer/parts/inner", good("inner"))
    reports = lint_paths([str(tmp_path)])
    assert [os.path.relpath(r.path, tmp_path) for r in reports] == ["outer/SKILL.md", "outer/parts/inner/SKILL.md"]
    (d,) = reports[1].diagnostics
    assert d.code == "nested-skill" and d.severity is Severity.WARNING
    assert d.message.startswith(f"this skill is inside the skill `outer` ({tmp_path / 'outer' / 'SKILL.md'})")
    assert lint_file(str(inner)).diagnostics[0].code == "nested-skill"


def test_f4_wrong_file_name_and_directory_named_skill_md(tmp_path):
    skill(tmp_path, "lower", good("lower"), filename="skill.md")
    skill(tmp_path, "both", good("both"))
    skill(tmp_path, "both", good("both"), filename="Skill.md")
    (tmp_path / "dir" / "SKILL.md").mkdir(parents=True)
    reports = {os.path.relpath(r.path, tmp_path): r for r in lint_paths([str(tmp_path)])}
    assert sorted(reports) == ["both/SKILL.md", "dir/SKILL.md", "lower/skill.md"]
    assert [d.code for d in reports["lower/skill.md"].diagnostics] == ["wrong-file-name"]
    assert reports["lower/skill.md"].valid  # a warning only
    assert [(d.code, d.severity) for d in reports["dir/SKILL.md"].diagnostics] == [("not-a-file", Severity.ERROR)]


def test_f1_non_utf8_and_utf16_files_are_reported_not_crashed(tmp_path):
    skill(tmp_path, "latin", b"---\nname: latin\ndescription: caf\xe9\n---\nB\n")
    skill(tmp_path, "wide", "---\nname: wide\n---\n".encode("utf-16"))
    skill(tmp_path, "fine", good("fine"))
    reports = {os.path.basename(os.path.dirname(r.path)): r for r in lint_paths([str(tmp_path)])}
    (d,) = reports["latin"].diagnostics
    assert (d.code, d.line, d.column) == ("not-utf8", 3, 17)
    assert "offset 32" in d.message
    assert "UTF-16" in reports["wide"].diagnostics[0].message
    assert reports["fine"].valid


def test_huge_frontmatter_and_yaml_bomb_are_errors(tmp_path):
    skill(tmp_path, "huge", "---\nname: huge\ndescription: " + "y" * 70000 + "\n---\nB\n")
    bomb = ["name: bomb", "a: &a [x, x, x, x, x, x, x, x, x, x]"]
    prev = "a"
    for lvl in "bcdef":
        bomb.append(f"{lvl}: &{lvl} [" + ", ".join([f"*{prev}"] * 10) + "]")
        prev = lvl
    skill(tmp_path, "bomb", "---\n" + "\n".join(bomb) + "\n---\nB\n")
    reports = {os.path.basename(os.path.dirname(r.path)): r for r in lint_paths([str(tmp_path)])}
    assert [d.code for d in reports["huge"].diagnostics] == ["frontmatter-too-large"]
    assert [d.code for d in reports["bomb"].diagnostics] == ["yaml-bomb"]


def test_lint_paths_missing_path_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        lint_paths([str(tmp_path / "nope")])


def test_lint_paths_accepts_skill_dirs_files_and_dedupes(tmp_path):
    f = skill(tmp_path, "one", good("one"))
    reports = lint_paths([str(f.parent), str(f), str(tmp_path)])
    assert [r.path for r in reports] == [str(f.parent / "SKILL.md")]


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="shared corpus absent")
def test_corpus_lint_never_crashes():
    corpus = SHARED / "corpus"
    for target in (Target.SPEC, Target.ZUNO):
        reports = lint_paths([str(corpus)], target=target)
        assert len([r for r in reports if r.path.endswith("/SKILL.md")]) >= 1117
        for r in reports:
            for d in r.diagnostics:
                assert d.code and d.message and isinstance(d.severity, Severity)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_a_fifo_named_skill_md_is_not_a_file_and_never_opened(tmp_path):
    """Opening a FIFO blocks until a writer comes: `lint` used to hang on it."""
    (tmp_path / "pipe").mkdir()
    os.mkfifo(tmp_path / "pipe" / "SKILL.md")
    (report,) = lint_paths([str(tmp_path)])
    assert (report.valid, [(d.code, d.severity, d.message) for d in report.diagnostics]) == (False, [
        ("not-a-file", Severity.ERROR, "`SKILL.md` is a FIFO, not a regular file; no host can read it")])


def _nest(top, name: str, levels: int) -> int:
    """Create ``levels`` nested folders ``name`` below ``top`` via dir_fd (no path length limit,
    no recursion); returns an fd of the innermost folder (caller closes)."""
    fd = os.open(top, os.O_RDONLY)
    for _ in range(levels):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    return fd


def test_a_tree_deeper_than_the_recursion_limit_is_walked_to_the_depth_limit(tmp_path):
    """os.walk recursed once per level and raised RecursionError past ~1,000 levels; the walk is
    iterative and stops at skillshelf's depth limit, saying so (SPEC D4)."""
    fd = _nest(tmp_path, "d", 1100)
    try:
        out = os.open("SKILL.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, good("d").encode())
        os.close(out)
    finally:
        os.close(fd)
    try:
        (report,) = lint_paths([str(tmp_path)])
        assert report.path == str(tmp_path)
        assert [(d.code, d.severity) for d in report.diagnostics] == [("walk-limit", Severity.WARNING)]
        deepest = os.path.join(str(tmp_path), *(["d"] * (MAX_WALK_DEPTH + 1)))
        assert f"{deepest} and folders as deep are not read" in report.diagnostics[0].message
    finally:
        _split_chain(tmp_path, "d", 1100)


def _split_chain(top, name: str, levels: int, step: int = 400) -> None:
    """Move every ``step``-th level of a ``_nest`` chain up to ``top`` (as ``part<i>``), so the
    recursive ``shutil.rmtree`` of pytest's tmp_path cleanup stays far from the recursion limit
    (a leftover chain breaks every later pytest run's cleanup)."""
    top_fd = os.open(top, os.O_RDONLY)
    fd = os.open(name, os.O_RDONLY, dir_fd=top_fd)
    try:
        for level in range(2, levels + 1):
            if level % step == 0:
                os.rename(name, f"part{level}", src_dir_fd=fd, dst_dir_fd=top_fd)
                inner = os.open(f"part{level}", os.O_RDONLY, dir_fd=top_fd)
            else:
                inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
        os.close(top_fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux PATH_MAX and errno text")
def test_a_folder_that_cannot_be_listed_is_reported_not_dropped(tmp_path):
    """Past PATH_MAX a folder cannot be listed: its skills are unknown, so lint says so (exit 1).
    Sixteen 255-character levels pass PATH_MAX (4,096) within the walk's depth limit."""
    assert len(str(tmp_path)) < 256
    os.close(_nest(tmp_path, "x" * 255, 16))
    reports = lint_paths([str(tmp_path)])
    assert [(r.valid, [d.code for d in r.diagnostics]) for r in reports] == [(False, ["unreadable"])]
    assert reports[0].diagnostics[0].message == (
        "cannot list this folder: File name too long (os error 36); skills below it were not checked")


def test_name_hint_is_quoted_when_yaml_would_not_read_a_string(tmp_path):
    """A numeric name's fix hint must itself be valid: ``name: "123"``, not ``name: 123``."""
    from skillshelf.core.lint import Target, lint_file

    d = tmp_path / "s"
    d.mkdir()
    (d / "SKILL.md").write_text("---\nname: 123\ndescription: d\n---\nB\n", encoding="utf-8")
    rep = lint_file(str(d / "SKILL.md"), target=Target.SPEC)
    hints = [x.hint for x in rep.diagnostics if x.code == "name-type"]
    assert hints == ['name: "123"']
