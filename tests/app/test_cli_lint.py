"""``skillshelf lint`` (SPEC C, C2): exact text lines, JSON document and exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path

from skillshelf.app.cli import main


def write(root: Path, folder: str, text: str) -> Path:
    d = root / folder
    d.mkdir(parents=True)
    f = d / "SKILL.md"
    f.write_text(text, encoding="utf-8")
    return f


GOOD = "---\nname: tidy\ndescription: Tidies tables. Use for reports.\n---\n\nBody\n"
COLON = "---\nname: colon\ndescription: Sort logs: errors first.\n---\n\nBody\n"


def test_lint_clean_tree_exits_0(tmp_path, capsys):
    write(tmp_path, "tidy", GOOD)
    assert main(["lint", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "1 file checked (spec): 1 valid, 0 invalid — 0 errors, 0 warnings, 0 notes\n"


def test_lint_text_lines_with_position_and_hint(tmp_path, capsys):
    f = write(tmp_path, "colon", COLON)
    write(tmp_path, "tidy", GOOD)
    assert main(["lint", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{f}:3:23: error[quote-description] unquoted `: ` inside the value of `description` is invalid YAML; "
        "quote the value (Zuno retries with it quoted, strict parsers such as skills-ref drop the skill)",
        '  hint: description: "Sort logs: errors first."',
    ]
    assert err == "2 files checked (spec): 1 valid, 1 invalid — 1 error, 0 warnings, 0 notes\n"


def test_lint_omits_unknown_positions(tmp_path, capsys):
    f = write(tmp_path, "bare", "# Just prose\n")
    (tmp_path / "bare" / "skill.md").write_text(GOOD)  # ignored: a SKILL.md exists beside it
    assert main(["lint", str(f.parent)]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == f"{f}:1:1: error[frontmatter-missing] no frontmatter: line 1 is not `---`"
    nested = write(tmp_path, "bare/inner", GOOD.replace("tidy", "inner"))
    assert main(["lint", str(nested)]) == 0  # a warning only
    out, _ = capsys.readouterr()
    assert out.splitlines()[0].startswith(f"{nested}: warning[nested-skill] this skill is inside the skill ")


def test_lint_target_zuno_downgrades_to_warnings(tmp_path, capsys):
    write(tmp_path, "colon", COLON)
    assert main(["lint", "--target", "zuno", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert ": warning[quote-description] " in out
    assert err == "1 file checked (zuno): 1 valid, 0 invalid — 0 errors, 1 warning, 0 notes\n"


def test_lint_json_document(tmp_path, capsys):
    f = write(tmp_path, "colon", COLON)
    g = write(tmp_path, "tidy", GOOD)
    assert main(["lint", "--json", "--target", "portable", str(tmp_path)]) == 1
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    assert doc["target"] == "portable"
    assert doc["summary"] == {"files": 2, "valid": 1, "invalid": 1, "errors": 1, "warnings": 0, "notes": 0}
    assert [x["path"] for x in doc["files"]] == [str(f), str(g)]
    first = doc["files"][0]
    assert (first["name"], first["valid"]) == ("colon", False)
    assert first["diagnostics"][0] == {
        "severity": "error",
        "code": "quote-description",
        "message": "unquoted `: ` inside the value of `description` is invalid YAML; quote the value "
        "(Zuno retries with it quoted, strict parsers such as skills-ref drop the skill)",
        "field": "description",
        "line": 3,
        "column": 23,
        "hint": 'description: "Sort logs: errors first."',
    }
    assert doc["files"][1] == {"path": str(g), "name": "tidy", "valid": True, "diagnostics": []}


def test_lint_missing_path_exits_2(tmp_path, capsys):
    assert main(["lint", str(tmp_path / "nope")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"skillshelf lint: path does not exist: {tmp_path / 'nope'}\n"


def test_lint_nothing_to_lint_exits_2(tmp_path, capsys):
    assert main(["lint", str(tmp_path)]) == 2
    _, err = capsys.readouterr()
    assert err == f"skillshelf lint: no SKILL.md found under {tmp_path}\n"


def test_lint_accepts_common_options(tmp_path, capsys):
    write(tmp_path, "tidy", GOOD)
    assert main(["lint", "--host", "zhin", "--cwd", str(tmp_path), str(tmp_path)]) == 0


def test_lint_host_without_target_lints_by_that_hosts_rules(tmp_path, capsys):
    """``--host NAME`` alone means that host's rules (it was silently the spec's); an explicit
    ``--target`` wins; neither: the spec."""
    f = write(tmp_path, "tidy", "\ufeff" + GOOD)
    expected = {
        ("--host", "codex"): (1, f"{f}:1: error[codex-error] missing YAML frontmatter delimited by ---\n",
                              "1 file checked (codex): 0 valid, 1 invalid — 1 error, 0 warnings, 0 notes\n"),
        ("--host", "zuno"): (1, f"{f}:1:1: error[bom] the file starts with a UTF-8 byte-order mark: Zuno sees no "
                             "frontmatter (the file does not start with `---`)\n"
                             "  hint: save the file as UTF-8 without a byte-order mark\n",
                             "1 file checked (zuno): 0 valid, 1 invalid — 1 error, 0 warnings, 0 notes\n"),
        ("--host", "codex", "--target", "spec"): (0, f"{f}:1:1: info[bom] the file starts with a UTF-8 byte-order "
                                                  "mark: Zuno sees no frontmatter (the file does not start with "
                                                  "`---`)\n  hint: save the file as UTF-8 without a byte-order mark\n",
                                                  "1 file checked (spec): 1 valid, 0 invalid — 0 errors, 0 warnings, "
                                                  "1 note\n"),
    }
    for argv, (code, out, err) in expected.items():
        assert main(["lint", *argv, str(f)]) == code
        assert capsys.readouterr() == (out, err)
    assert main(["lint", str(f)]) == 0
    assert capsys.readouterr().err == "1 file checked (spec): 1 valid, 0 invalid — 0 errors, 0 warnings, 1 note\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_x1_lint_on_a_terminal_shows_a_names_escapes_visibly(tmp_path, monkeypatch):
    """SPEC X1: lint used to print a name's ESC/BEL raw in its messages."""
    write(tmp_path, "evil", "---\nname: \"ev\\e[2Jil\\a\"\ndescription: d\n---\n\nBody\n")
    tty = _Terminal()
    monkeypatch.setattr("sys.stdout", tty)
    assert main(["lint", str(tmp_path)]) == 1
    out = tty.getvalue()
    assert "\x1b" not in out and "\x07" not in out
    assert "error[name-mismatch] name `ev␛[2Jil␇` does not match its folder `evil`" in out


def test_summary_counts_files_and_diagnostics_apart(tmp_path, capsys):
    """Two findings in one invalid file are 2 errors of 1 invalid file, never "2 errors" read as
    two broken files."""
    write(tmp_path, "twice", "---\nname: Bad_Name\ndescription: d\nextra: 1\n---\nBody.\n")
    write(tmp_path, "tidy", GOOD)
    assert main(["lint", str(tmp_path)]) == 1
    _, err = capsys.readouterr()
    assert err == "2 files checked (spec): 1 valid, 1 invalid — 3 errors, 0 warnings, 0 notes\n"
