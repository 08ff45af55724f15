"""A skill named like one of its host's own slash commands (SPEC S1): each host says how the skill
is reached, in its own terms; whole names only."""

from __future__ import annotations

import pytest

from skillshelf.core.hosts import HOSTS, get_host


@pytest.mark.parametrize(("host", "name", "note"), [
    ("zuno", "plan", "`/plan` is Zuno's own command, which resolves first: reach this skill as `$plan`, not `/plan`"),
    ("zuno", "compact", "`/compact` is Zuno's own command, which resolves first: reach this skill as `$compact`, "
                        "not `/compact`"),
    ("codex", "review", "`/review` is Codex's own command: reach this skill as `$review` (or from /skills), "
                        "not `/review`"),
    ("gemini", "plan", "`/plan` is Gemini CLI's own command, so it renames this skill's: reach it as `/plan1`, "
                       "not `/plan`"),
    ("opencode", "review", "`/review` is opencode's own command, which keeps the name: the model still loads "
                           "this skill with the skill tool, but `/review` does not run it"),
    ("claude", "plan", "`/plan` is also Claude Code's own command; its lookup finds skills first, so `/plan` "
                       "runs this skill instead of Claude Code's own `/plan`"),
])
def test_each_host_names_its_own_command(host, name, note):
    assert get_host(host).slash_note(name) == note


@pytest.mark.parametrize("name", ["plan-review", "planning", "Plan", "my-compact", "pla"])
def test_whole_names_only(name):
    assert all(h.slash_note(name) is None for h in HOSTS.values())


def test_zhin_has_no_slash_commands():
    assert get_host("zhin").native_commands == frozenset()
    assert get_host("zhin").slash_note("help") is None


def test_every_listed_command_gets_a_note_and_is_slash_prefixed():
    for h in HOSTS.values():
        for command in h.native_commands:
            assert command.startswith("/") and " " not in command
            assert h.slash_note(command[1:]) is not None


def test_lint_for_a_host_target_notes_the_clash(tmp_path, capsys):
    from skillshelf.app.cli import main

    skill = tmp_path / "plan"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: plan\ndescription: Plans\n---\nBody.\n", encoding="utf-8")
    assert main(["lint", "--target", "zuno", str(skill)]) == 0
    out, _ = capsys.readouterr()
    assert out == (f"{skill / 'SKILL.md'}: info[slash-command] `/plan` is Zuno's own command, which resolves first: "
                   "reach this skill as `$plan`, not `/plan`\n")
    assert main(["lint", str(skill)]) == 0  # the standard (spec) names no host
    assert "slash-command" not in capsys.readouterr().out
