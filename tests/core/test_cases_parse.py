"""Cases B01–B05 and B12: each fault kind reproduced with our own fixtures, then (when
``<repo>/../shared`` exists) the real case trees checked against their expected.md statements."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.frontmatter import parse_skill_file
from skillshelf.core.lint import Target, lint_paths
from skillshelf.core.model import Severity

CASES = SHARED / "cases"


def write(root: Path, folder: str, data: bytes | str) -> None:
    d = root / "skills" / folder
    d.mkdir(parents=True)
    (d / "SKILL.md").write_bytes(data.encode() if isinstance(data, str) else data)


def reports_by_folder(root: Path, target: Target = Target.SPEC):
    return {os.path.basename(os.path.dirname(r.path)): r for r in lint_paths([str(root)], target=target)}


def parses_by_folder(root: Path):
    out = {}
    for d in sorted((root / "skills").iterdir()):
        out[d.name] = parse_skill_file(str(d / "SKILL.md"))
    return out


def errors(report) -> list[tuple[str, str | None, int | None]]:
    return [(d.code, d.field, d.line) for d in report.diagnostics if d.severity is Severity.ERROR]


def case_dir(case: str) -> Path:
    d = CASES / case
    if not (d / "skills").is_dir():
        pytest.skip(f"shared case {case} absent")
    return d


# ---- B01: unquoted colon and tab indentation -------------------------------------------------


def _b01_checks(root: Path, colon: str, tab: str, fine: list[str], quoted_desc: tuple[str, str] | None):
    reports = reports_by_folder(root)
    for name in fine:
        assert reports[name].valid, name
    assert reports[colon].valid is False
    (d,) = reports[colon].diagnostics
    assert (d.severity, d.field, d.line) == (Severity.ERROR, "description", 3)
    assert "quote the value" in d.message and d.hint.startswith('description: "')
    assert errors(reports[tab])[0][0] == "tab-indent" and errors(reports[tab])[0][2] == 5
    assert sum(r.valid for r in reports.values()) == len(fine)
    if quoted_desc:
        parses = parses_by_folder(root)
        assert parses[quoted_desc[0]].description == quoted_desc[1]


def test_b01_kind_own_fixtures(tmp_path):
    write(tmp_path, "plain", "---\nname: plain\ndescription: Formats tables for reports.\n---\n\nBody\n")
    write(tmp_path, "quoted", '---\nname: quoted\ndescription: "Check logs: warnings last."\n---\n\nBody\n')
    write(tmp_path, "colon", "---\nname: colon\ndescription: Check logs: warnings last.\n---\n\nBody\n")
    write(tmp_path, "tabbed", "---\nname: tabbed\ndescription: Sort things.\nmetadata:\n\towner: me\n---\n\nB\n")
    _b01_checks(tmp_path, "colon", "tabbed", ["plain", "quoted"], ("quoted", "Check logs: warnings last."))


def test_b01_shared_case():
    root = case_dir("B01")
    _b01_checks(root, "unquoted-colon", "tab-indent", ["release-notes", "quoted-colon"],
                ("quoted-colon", "Triage build logs: list errors first, then warnings, then notes."))


# ---- B02: block scalars ------------------------------------------------------------------------


def test_b02_kind_own_fixtures(tmp_path):
    write(tmp_path, "strip", "---\nname: strip\ndescription: >-\n  Joins two\n  short lines.\n---\nB\n")
    write(tmp_path, "keep", "---\nname: keep\ndescription: |\n  First.\n  Second.\n---\nB\n")
    write(tmp_path, "clip", "---\nname: clip\ndescription: >\n  Folds\n  here.\nlicense: MIT\n---\nB\n")
    parses = parses_by_folder(tmp_path)
    assert parses["strip"].description == "Joins two short lines."
    assert parses["keep"].description == "First.\nSecond.\n"
    assert parses["clip"].description == "Folds here.\n"
    assert parses["clip"].frontmatter["license"] == "MIT"
    assert all(r.valid and not r.diagnostics for r in reports_by_folder(tmp_path).values())


def test_b02_shared_case():
    root = case_dir("B02")
    parses = parses_by_folder(root)
    assert parses["folded-strip"].description == "Turns CSV exports into tidy Markdown tables. Use for quick reports."
    assert parses["literal-keep"].description.rstrip("\n") == (
        "First line of the literal block.\nSecond line keeps its own line.")
    assert parses["folded-clip"].description.rstrip("\n") == "Summarizes a diff by file and by risk."
    assert parses["folded-clip"].frontmatter["license"] == "MIT"
    for p in parses.values():
        assert p.description.strip() not in (">-", ">", "|", "")
    reports = reports_by_folder(root)
    assert len(reports) == 3 and all(r.valid and not r.diagnostics for r in reports.values())


# ---- B03: CRLF ----------------------------------------------------------------------------------


def test_b03_kind_own_fixtures(tmp_path):
    write(tmp_path, "crlf", "---\r\nname: crlf\r\ndescription: >-\r\n  Two\r\n  lines.\r\n---\r\n\r\n# T\r\n")
    write(tmp_path, "lf", "---\nname: lf\ndescription: >-\n  Two\n  lines.\n---\n\n# T\n")
    parses = parses_by_folder(tmp_path)
    assert parses["crlf"].description == parses["lf"].description == "Two lines."
    assert parses["crlf"].name == "crlf"
    reports = reports_by_folder(tmp_path)
    assert [(d.code, d.severity) for d in reports["crlf"].diagnostics] == [("crlf", Severity.INFO)]
    assert reports["lf"].diagnostics == ()


def test_b03_shared_case():
    root = case_dir("B03")
    parses = parses_by_folder(root)
    want = "Normalizes line endings in text files before a commit."
    assert (parses["crlf-skill"].name, parses["crlf-skill"].description) == ("crlf-skill", want)
    assert parses["lf-twin"].description == want
    for key, value in parses["crlf-skill"].frontmatter.items():
        assert "\r" not in key and "\r" not in value
    reports = reports_by_folder(root)
    assert all(r.valid for r in reports.values())
    assert all(d.severity is Severity.INFO for r in reports.values() for d in r.diagnostics)


# ---- B04: BOM -----------------------------------------------------------------------------------


def test_b04_kind_own_fixtures(tmp_path):
    """Z-F: for Zuno a BOM means no frontmatter (no name); the lint still explains it."""
    write(tmp_path, "bommed", b"\xef\xbb\xbf---\nname: bommed\ndescription: Has a BOM.\n---\n\nB\n")
    parses = parses_by_folder(tmp_path)
    assert (parses["bommed"].name, parses["bommed"].description) == (None, None)
    assert parses["bommed"].warning.kind == "MissingName"
    (d,) = reports_by_folder(tmp_path)["bommed"].diagnostics
    assert (d.code, d.severity) == ("bom", Severity.INFO)
    assert d.message == ("the file starts with a UTF-8 byte-order mark: Zuno sees no frontmatter (the file does "
                         "not start with `---`)")


def test_b04_shared_case():
    root = case_dir("B04")
    parses = parses_by_folder(root)
    # Z-F: Zuno sees no frontmatter in a file that starts with a BOM
    assert (parses["bom-skill"].name, parses["bom-skill"].warning.kind) == (None, "MissingName")
    for name, p in parses.items():
        if name != "bom-skill":
            assert p.accepted
    reports = reports_by_folder(root)
    assert all(r.valid for r in reports.values())  # the lint (target spec) explains it, as info
    assert [d.code for d in reports["bom-skill"].diagnostics] == ["bom"]


# ---- B05: missing / empty / unterminated frontmatter ------------------------------------------


def _b05_checks(root: Path, good: str, none: str, empty: str, open_: str, noname: str, noname_desc: str):
    reports = reports_by_folder(root)
    assert [n for n, r in reports.items() if r.valid] == [good]
    assert [c for c, _, _ in errors(reports[none])] == ["frontmatter-missing"]
    assert reports[none].name is None
    assert [c for c, _, _ in errors(reports[empty])] == ["missing-name", "missing-description"]
    codes = [c for c, _, _ in errors(reports[open_])]
    assert codes[0] == "frontmatter-unclosed" and errors(reports[open_])[0][2] == 1
    assert [c for c, _, _ in errors(reports[noname])] == ["missing-name"]
    parses = parses_by_folder(root)
    assert parses[noname].frontmatter["description"] == noname_desc
    assert parses[none].name is None and parses[none].description is None
    assert parses[open_].body == ""


def test_b05_kind_own_fixtures(tmp_path):
    write(tmp_path, "ok", "---\nname: ok\ndescription: Fine.\n---\n\nB\n")
    write(tmp_path, "bare", "# Heading only\n\nText.\n")
    write(tmp_path, "hollow", "---\n---\n\n# Hollow\n")
    write(tmp_path, "open", "---\nname: open\ndescription: Never closed.\n\n# Heading\n\nProse line.\n")
    write(tmp_path, "anon", "---\ndescription: Has no name.\n---\n\nB\n")
    _b05_checks(tmp_path, "ok", "bare", "hollow", "open", "anon", "Has no name.")


def test_b05_shared_case():
    root = case_dir("B05")
    _b05_checks(root, "good", "no-frontmatter", "empty-frontmatter", "unterminated", "no-name",
                "Formats SQL queries with consistent keyword case.")


# ---- B12: name rule ------------------------------------------------------------------------------


def _b12_checks(root: Path, valid: list[str], bad: list[str], unicode: str, colon_folder: str):
    reports = reports_by_folder(root)
    assert sorted(n for n, r in reports.items() if r.valid) == sorted(valid)
    for folder in bad:
        errs = errors(reports[folder])
        assert errs and all(field == "name" for _, field, _ in errs), folder
        assert "name-invalid" in [c for c, _, _ in errs]
    assert "name-mismatch" in [c for c, _, _ in errors(reports[colon_folder])]
    assert [d.code for d in reports[unicode].diagnostics] == ["name-not-ascii"]
    assert reports[unicode].diagnostics[0].severity is Severity.WARNING
    portable = reports_by_folder(root, Target.PORTABLE)
    assert portable[unicode].valid is False


def test_b12_kind_own_fixtures(tmp_path):
    def named(folder: str, name: str) -> None:
        write(tmp_path, folder, f"---\nname: {name}\ndescription: Does one thing well.\n---\n\nB\n")

    named("fine-name", "fine-name")
    named("图片压缩", "图片压缩")
    named("Up_Case", "Up_Case")
    named("snake_case", "snake_case")
    named("ship-it", "ship:it")
    named("two--dashes", "two--dashes")
    named("end-", "end-")
    _b12_checks(tmp_path, ["fine-name", "图片压缩"], ["Up_Case", "snake_case", "ship-it", "two--dashes", "end-"],
                "图片压缩", "ship-it")


def test_b12_shared_case():
    root = case_dir("B12")
    _b12_checks(root, ["good-name", "数据导出"],
                ["My_Skill", "data_export", "deploy-prod", "double--dash", "trailing-"], "数据导出", "deploy-prod")
