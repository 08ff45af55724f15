"""``--json`` failures are one JSON document on stdout (the message stays on stderr too), for
every command: a resolve that cannot be done, unusable input found while running."""

from __future__ import annotations

import json
import os

import pytest

from skillshelf.app.cli import main


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for folder in ("a", "b"):
        d = proj / ".agents" / "skills" / folder
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: pdf\ndescription: Copy {folder}\n---\nBody\n", encoding="utf-8")
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    return proj


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_resolve_json_failures_are_json_documents(workspace, capsys):
    code, out, err = run(capsys, "resolve", "nope", "--keep", "/x", "--json", "--cwd", str(workspace))
    assert code == 1 and err == "skillshelf resolve: no skill named `nope`\n"
    assert json.loads(out) == {"error": {"code": "failed", "message": "no skill named `nope`", "exit": 1}}
    code, out, _ = run(capsys, "resolve", "pdf", "--keep", "/elsewhere/SKILL.md", "--json", "--cwd", str(workspace))
    doc = json.loads(out)
    assert code == doc["error"]["exit"] != 0
    assert doc["error"]["message"].startswith("--keep /elsewhere/SKILL.md ")
    assert str(workspace / ".agents/skills/a/SKILL.md") in doc["error"]["message"]


def test_unusable_input_under_json_is_a_usage_document(workspace, tmp_path, capsys):
    for argv in (["debug", "skill"], ["resolve", "pdf", "--keep", "/x"], ["index"]):
        code, out, err = run(capsys, *argv, "--json", "--cwd", str(tmp_path / "missing"))
        assert code == 2 and err == f"skillshelf: --cwd {tmp_path / 'missing'}: not a directory\n"
        assert json.loads(out) == {"error": {"code": "usage", "exit": 2,
                                             "message": f"--cwd {tmp_path / 'missing'}: not a directory"}}


def test_a_command_that_writes_its_own_document_is_left_alone(workspace, capsys):
    code, out, _ = run(capsys, "tool", '{"action":"load","name":"nope"}', "--json", "--cwd", str(workspace))
    assert code == 1
    assert json.loads(out)["error"]["code"] == "unknown-skill"  # the tool's own error, once


GONE = ("skillshelf: the current directory no longer exists: run skillshelf from an existing directory or "
        "give --cwd DIR\n")


@pytest.fixture
def deleted_cwd(tmp_path):
    """The process's current directory deleted under it (a shell left in a removed folder)."""
    gone = tmp_path / "gone"
    gone.mkdir()
    before = os.getcwd()
    os.chdir(gone)
    gone.rmdir()
    yield
    os.chdir(before)


def test_a_deleted_current_directory_is_a_usage_error_not_a_traceback(workspace, deleted_cwd, capsys):
    for argv in (["index"], ["debug", "skill"], ["compare"], ["disable", "pdf"]):
        with pytest.raises(SystemExit) as stopped:  # (as for any unusable input, SPEC C2)
            main(argv)
        assert stopped.value.code == 2 and capsys.readouterr() == ("", GONE), argv
    code, out, err = run(capsys, "index", "--json")
    assert code == 2 and err == GONE
    assert json.loads(out) == {"error": {"code": "usage", "exit": 2, "message": GONE.removeprefix("skillshelf: ").strip()}}
    code, out, _ = run(capsys, "index", "--json", "--cwd", str(workspace))  # (--cwd: fine)
    assert code == 0 and json.loads(out)


def test_the_tui_refuses_a_working_directory_that_is_gone_or_no_directory_before_it_starts(
        workspace, deleted_cwd, tmp_path, capsys, monkeypatch):
    from skillshelf.app import ahead

    started: list[object] = []
    monkeypatch.setattr(ahead, "start", started.append)  # (nothing of the TUI may start)
    assert run(capsys, "--no-watch") == (2, "", GONE)
    assert run(capsys, "--cwd", str(tmp_path / "missing")) == (
        2, "", f"skillshelf: --cwd {tmp_path / 'missing'}: not a directory\n")
    assert started == []


def test_ctrl_c_while_the_tui_starts_is_exit_130_without_a_traceback(workspace, capsys, monkeypatch):
    from skillshelf.app import ahead

    def interrupted(_ns):
        raise KeyboardInterrupt

    monkeypatch.setattr(ahead, "start", interrupted)
    assert run(capsys, "--cwd", str(workspace)) == (130, "", "")


def test_a_usage_error_argparse_finds_under_json_is_a_usage_document_too(workspace, capsys):
    for argv, message in (
            (["index", "--budget", "abc"], "argument --budget: not a whole number of characters: 'abc'"),
            (["debug", "skill", "--host", "nope"],
             "argument --host: invalid choice: 'nope' (choose from 'zuno', 'zhin', 'claude', 'codex', 'opencode', "
             "'gemini')")):
        with pytest.raises(SystemExit) as exc:
            main([*argv, "--json"])
        out = capsys.readouterr()
        assert exc.value.code == 2
        assert json.loads(out.out) == {"error": {"code": "usage", "message": message, "exit": 2}}
        assert out.err.endswith(f": error: {message}\n")
        with pytest.raises(SystemExit):
            main(argv)  # (without --json: the usage on stderr alone, as before)
        assert capsys.readouterr().out == ""
