"""COMMON options (SPEC C) given before the command count as much as those after it: the
command's own defaults never reset them (``skillshelf --host claude debug skill`` was Zuno's
report, and ``--cwd`` / ``--path`` / ``--config`` before the command were dropped in silence)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillshelf.app.cli import DefaultHost, build_parser, main, merged_options


def _skill(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nBody\n")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    _skill(proj / ".agents" / "skills", "local")
    _skill(tmp_path / "extra-a", "alpha")
    _skill(tmp_path / "extra-b", "beta")
    home.mkdir()
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_", "CLAUDE_", "CODEX_", "GEMINI_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def parse(*argv: str):
    return merged_options(build_parser().parse_args(list(argv)))


def test_options_before_the_command_are_kept() -> None:
    ns = parse("--host", "claude", "--cwd", "/w", "--context-window", "1000", "--no-cache", "--path", "a",
               "--config", "c.json", "debug", "skill")
    assert (ns.host, ns.cwd, ns.context_window, ns.no_cache, ns.path, ns.config) == (
        "claude", "/w", 1000, True, ["a"], ["c.json"])
    assert not isinstance(ns.host, DefaultHost)


def test_options_after_the_command_win_and_lists_append_in_order() -> None:
    ns = parse("--host", "claude", "--path", "a", "--config", "1.json", "index", "--host", "codex", "--path", "b",
               "--path", "c", "--config", "2.json")
    assert (ns.host, ns.path, ns.config) == ("codex", ["a", "b", "c"], ["1.json", "2.json"])
    assert not hasattr(ns, "command_path") and not hasattr(ns, "command_config")


def test_no_options_give_the_defaults() -> None:
    ns = parse("index")
    assert (ns.host, ns.cwd, ns.context_window, ns.no_cache, ns.path, ns.config) == ("zuno", None, None, False, [], [])
    assert isinstance(ns.host, DefaultHost)
    assert isinstance(parse().host, DefaultHost)


def test_a_report_follows_host_cwd_and_paths_given_before_the_command(ws: Path, capsys) -> None:
    code = main(["--host", "codex", "--cwd", str(ws / "proj"), "--path", str(ws / "extra-a"), "debug", "skill",
                 "--json", "--path", str(ws / "extra-b")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (doc["host"], doc["cwd"]) == ("codex", str(ws / "proj"))
    code = main(["--cwd", str(ws / "proj"), "--path", str(ws / "extra-a"), "debug", "skill", "--json",
                 "--path", str(ws / "extra-b")])
    doc = json.loads(capsys.readouterr().out)
    names = sorted(s["name"] for s in doc["sources"] if not s["location"].startswith("builtin://"))
    assert (code, doc["host"], names) == (0, "zuno", ["alpha", "beta", "local"])


def test_a_config_layer_that_is_not_a_regular_file_says_what_it_is(ws: Path, capsys) -> None:
    """``--config`` naming a folder or a FIFO said ``no such file``; it says what is there, exit 2
    (a FIFO is never opened: reading one waits for a writer)."""
    fifo = ws / "layer.json"
    os.mkfifo(fifo)
    cases = {str(ws / "missing.json"): "no such file", str(ws): "a directory, not a file",
             str(fifo): "not a regular file (a FIFO)"}
    for path, problem in cases.items():
        with pytest.raises(SystemExit) as exited:
            main(["debug", "skill", "--cwd", str(ws / "proj"), "--config", path])
        assert exited.value.code == 2
        assert capsys.readouterr() == ("", f"skillshelf: --config {path}: {problem}\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["compare", "--hosts", ","], "argument --hosts: no host named; choose from: zuno, zhin, claude, codex, "
                                  "opencode, gemini"),
    (["watch", "--debounce", "-1"], "argument --debounce: must be 0 or more milliseconds, got -1"),
    (["watch", "--step", "x"], "argument --step: not a whole number of milliseconds: 'x'"),
    (["debug", "agent", " "], "argument NAME: an agent name is needed (for example orchestrator or review)"),
], ids=lambda v: v[0] if isinstance(v, list) else "")
def test_values_that_name_nothing_are_usage_errors(capsys, argv: list[str], message: str) -> None:
    """Each was accepted in silence (all hosts compared, a negative batch window, a report of an
    agent with no name); each is a usage error now, exit 2, its reason last on stderr."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(f": error: {message}\n")
