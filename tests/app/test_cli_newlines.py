"""Every text output ends with a newline (a shell prompt never sticks to the last line), on stdout
and stderr, for every command — except the skill tool's text on a pipe, which is the model's
exact bytes (``tool --json`` and a terminal add nothing the model does not get either way)."""

from __future__ import annotations

import io
import json
import os
import sys

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
        (d / "SKILL.md").write_text(f"---\nname: pdf\ndescription: Copy {folder}\n---\nBody {folder}", encoding="utf-8")
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    return proj


COMMANDS = [
    ["debug", "skill"], ["debug", "skill", "--json"], ["debug", "agent", "nobody"], ["debug", "agent", "x", "--json"],
    ["index"], ["index", "--json"], ["index", "--host", "zhin"], ["index", "--host", "claude"],
    ["compare"], ["tool", '{"action":"list"}', "--json"], ["tool", '{"action":"load","name":"nope"}', "--json"],
    ["tool", "not json"], ["resolve", "pdf", "--keep", "/nowhere"], ["resolve", "nope", "--keep", "/x"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_every_output_ends_with_a_newline(workspace, capsys, argv):
    main([*argv, "--cwd", str(workspace)])
    out, err = capsys.readouterr()
    assert out or err
    for stream in (out, err):
        assert stream == "" or stream.endswith("\n")
    if "--json" in argv and out:
        json.loads(out)


@pytest.mark.parametrize("argv", [["lint", "."], ["lint", "--json", "."], ["lint", "nowhere"], ["--version"]],
                         ids=" ".join)
def test_lint_and_version_end_with_a_newline(workspace, capsys, monkeypatch, argv):
    monkeypatch.chdir(workspace / ".agents" / "skills")
    main(argv)
    out, err = capsys.readouterr()
    assert out or err
    for stream in (out, err):
        assert stream == "" or stream.endswith("\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_tool_text_gets_a_newline_on_a_terminal_and_stays_exact_on_a_pipe(workspace, monkeypatch):
    request = ['{"action":"load","name":"pdf","source":"' + str(workspace / ".agents/skills/a/SKILL.md") + '"}',
               "--cwd", str(workspace)]
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stdout", pipe)
    assert main(["tool", *request]) == 0
    assert not pipe.getvalue().endswith("\n")  # the model's text ends with the body's last byte
    tty = _Terminal()
    monkeypatch.setattr(sys, "stdout", tty)
    assert main(["tool", *request]) == 0
    assert tty.getvalue() == pipe.getvalue() + "\n"
