"""``skillshelf resolve NAME --keep LOCATOR`` (SPEC K5, C, C2) against a temporary home and project.

Every test isolates HOME / XDG_* in ``tmp_path`` (SPEC C1); the real home is never touched.
"""

from __future__ import annotations

import io
import json
import os

import pytest

from skillshelf.app.cli import main


@pytest.fixture()
def ws(tmp_path, monkeypatch):
    """Two ``pdf`` skills (project ``.agents/skills/pdf`` and home ``.agents/skills/pdf``) and a
    unique ``notes`` skill. Returns ``(tmp_path, proj, project_pdf, home_pdf)``."""
    home = tmp_path / "home"
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    made = []
    for root, name, desc in [(proj, "pdf", "Project PDF tools."), (home, "pdf", "Home PDF tools."),
                             (proj, "notes", "Take notes.")]:
        d = root / ".agents" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nBody.\n")
        made.append(str(d / "SKILL.md"))
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path, proj, made[0], made[1]


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def debug_pdf(capsys, proj):
    code, out, _ = run(capsys, "debug", "skill", "--json", "--cwd", str(proj))
    assert code == 0
    doc = json.loads(out)
    return doc["summary"]["ambiguous"], {s["location"]: s for s in doc["sources"] if s["name"] == "pdf"}


def index_text(capsys, proj):
    code, out, _ = run(capsys, "index", "--cwd", str(proj))
    assert code == 0
    return out


def test_resolve_keep_project_source_disables_the_other(ws, capsys):
    _tmp_path, proj, project_pdf, home_pdf = ws
    ambiguous, _ = debug_pdf(capsys, proj)
    assert ambiguous == ["pdf"]
    assert f'<skill name="pdf" source="{project_pdf}">' in index_text(capsys, proj)

    code, out, err = run(capsys, "resolve", "pdf", "--keep", project_pdf, "--cwd", str(proj))
    target = proj / ".zuno" / "zuno.json"
    assert (code, err) == (0, "")
    # the home copy is written as ~/… : it follows the home to any machine
    assert out == (
        f"{target} (new file):\n"
        '  + {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}\n'
        f"wrote {target}; undo: skillshelf undo 1\n"
        "`pdf` is no longer ambiguous\n"
    )
    assert target.read_text() == (
        '{\n  "skills": {\n    "config": [\n'
        '      {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}\n'
        "    ]\n  }\n}\n"
    )
    ambiguous, pdf = debug_pdf(capsys, proj)
    assert ambiguous == []
    assert (pdf[project_pdf]["enabled"], pdf[home_pdf]["enabled"]) == (True, False)
    assert pdf[project_pdf]["ambiguous"] is False
    text = index_text(capsys, proj)
    assert '<skill name="pdf">Project PDF tools.</skill>' in text
    assert "source=" not in text


def test_resolve_json_and_existing_jsonc_keeps_every_other_byte(ws, capsys):
    _tmp_path, proj, project_pdf, home_pdf = ws
    before = (
        "// my project\n{\n  \"model\": \"big\", // pinned\n  \"skills\": {\n"
        "    \"config\": [\n      /* none yet */\n    ],\n  },\n}\n"
    )
    target = proj / ".zuno" / "zuno.jsonc"
    target.parent.mkdir()
    target.write_text(before)
    code, out, err = run(capsys, "resolve", "pdf", "--keep", home_pdf, "--cwd", str(proj), "--json")
    assert (code, err) == (0, "")
    # the project copy is written relative to the project folder (Zuno joins it to the folder it
    # starts in, here the project root)
    assert json.loads(out) == {
        "name": "pdf", "target": str(target),
        "entries": [{"path": ".agents/skills/pdf/SKILL.md", "enabled": False}], "removed": [],
        "written": True, "backup": str(target) + ".bak", "created": False, "restores": False,
        "deletes": False, "dryRun": False, "note": None, "ambiguous": False, "journal": 1,
    }
    assert target.read_text() == before.replace(
        "/* none yet */\n", '/* none yet */\n      {"path": ".agents/skills/pdf/SKILL.md", "enabled": false}\n')
    assert (proj / ".zuno" / "zuno.jsonc.bak").read_text() == before
    _, pdf = debug_pdf(capsys, proj)
    assert (pdf[project_pdf]["enabled"], pdf[home_pdf]["enabled"]) == (False, True)


def test_resolve_dry_run_writes_nothing(ws, capsys):
    _tmp_path, proj, project_pdf, _home_pdf = ws
    code, out, _ = run(capsys, "resolve", "pdf", "--keep", project_pdf, "--cwd", str(proj), "--dry-run")
    assert code == 0
    assert out.endswith("dry run: nothing written\n")
    assert '  + {"path": "~/.agents/skills/pdf/SKILL.md", "enabled": false}\n' in out
    assert not (proj / ".zuno").exists()


def test_resolve_bad_keep_lists_locators_exit_2(ws, capsys):
    _tmp_path, proj, project_pdf, _home_pdf = ws
    code, out, err = run(capsys, "resolve", "pdf", "--keep", "/elsewhere/SKILL.md", "--cwd", str(proj))
    assert (code, out) == (2, "")
    assert err == (
        "skillshelf resolve: --keep /elsewhere/SKILL.md designates no enabled source of `pdf`; give one of:\n"
        f"  pdf  {project_pdf}\n  pdf  ~/.agents/skills/pdf/SKILL.md\n"
    )


def test_resolve_unknown_or_unambiguous_name_exit_1(ws, capsys):
    _tmp_path, proj, project_pdf, _ = ws
    code, _, err = run(capsys, "resolve", "nope", "--keep", project_pdf, "--cwd", str(proj))
    assert (code, err) == (1, "skillshelf resolve: no skill named `nope`\n")
    notes = str(proj / ".agents" / "skills" / "notes" / "SKILL.md")
    code, _, err = run(capsys, "resolve", "notes", "--keep", notes, "--cwd", str(proj))
    assert (code, err) == (1, f"skillshelf resolve: skill `notes` is not ambiguous ({notes}); nothing to resolve — "
                              "use enable, disable or expose to change one source\n")


def test_resolve_others_search_stays_ambiguous(ws, capsys):
    _tmp_path, proj, project_pdf, home_pdf = ws
    code, out, _ = run(capsys, "resolve", "pdf", "--keep", project_pdf, "--others", "search",
                       "--cwd", str(proj))
    assert code == 0
    assert out.endswith("`pdf` is still ambiguous: 2 enabled sources (search/explicit sources stay "
                        "loadable by name; disable all but one to remove the ambiguity)\n")
    _, pdf = debug_pdf(capsys, proj)
    assert (pdf[home_pdf]["enabled"], pdf[home_pdf]["exposure"]) == (True, "search")


def test_resolve_global_file(ws, capsys):
    tmp_path, proj, project_pdf, home_pdf = ws
    code, _, _ = run(capsys, "resolve", "pdf", "--keep", home_pdf, "--global", "--cwd", str(proj))
    assert code == 0
    assert (tmp_path / "config" / "zuno" / "zuno.json").is_file()
    ambiguous, pdf = debug_pdf(capsys, proj)
    assert ambiguous == [] and pdf[project_pdf]["enabled"] is False


def test_resolve_file_zuno_does_not_read_is_undone(ws, capsys):
    tmp_path, proj, project_pdf, home_pdf = ws
    stray = tmp_path / "stray" / "zuno.json"
    code, _, err = run(capsys, "resolve", "pdf", "--keep", project_pdf, "--file", str(stray),
                       "--cwd", str(proj))
    assert code == 1
    assert f"{home_pdf} should be `disable` but is enabled, exposure index" in err
    assert "the change was undone" in err
    assert not stray.exists()


def test_resolve_refuses_unparsable_config(ws, capsys):
    _tmp_path, proj, project_pdf, _ = ws
    target = proj / ".zuno" / "zuno.json"
    target.parent.mkdir()
    target.write_text('{"skills": ')
    code, out, err = run(capsys, "resolve", "pdf", "--keep", project_pdf, "--cwd", str(proj))
    assert (code, out) == (1, "")
    lines = err.splitlines()
    # Z-K: the layer Zuno cannot parse is announced first as a refusal
    assert lines[0] == f"skillshelf: Zuno would refuse to start: {target}:1:12: expected a value, found the end of the text"
    assert lines[1].startswith(f"skillshelf resolve: {target}:1:")
    assert "--file" in err
    assert target.read_text() == '{"skills": '


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_x1_resolve_messages_on_a_terminal_show_escapes_visibly(ws, monkeypatch):
    """SPEC X1: a --keep that names no source echoes it (and the locators) on stderr."""
    _tmp_path, proj, _project_pdf, _home_pdf = ws
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    code = main(["resolve", "pdf", "--keep", "/x\x1b]0;t\x07/SKILL.md", "--cwd", str(proj)])
    assert code == 2
    assert tty.getvalue().startswith("skillshelf resolve: --keep /x␛]0;t␇/SKILL.md designates no enabled source of `pdf`")
