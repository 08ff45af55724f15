"""A symlink to ``/`` in a skill root never walks the machine (SPEC D4, skillshelf's safety
limits in :mod:`skillshelf.core.walklimits`): a symlinked folder pointing at an ancestor of the
scan folder is reported and not entered, depth and entries are capped with one warning naming
the cap, and hosts with limits of their own (Codex) keep exactly theirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.core import walklimits
from skillshelf.core.catalog import Catalog
from skillshelf.core.lint import lint_paths
from skillshelf.core.paths import Environment
from skillshelf.core.scan import scan

SKILL = "---\nname: {n}\ndescription: d\n---\nBody.\n"


def skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(n=name), encoding="utf-8")
    return folder / "SKILL.md"


def env(tmp: Path) -> Environment:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                     "XDG_CACHE_HOME": str(home / ".cache"), "GEMINI_CLI_TRUST_WORKSPACE": "true",
                                     "PATH": os.environ.get("PATH", "")})


def test_is_ancestor():
    assert walklimits.is_ancestor("/", "/a/b")
    assert walklimits.is_ancestor("/a", "/a/b")
    assert not walklimits.is_ancestor("/a/b", "/a/b")  # the scan folder itself is a loop, not an ancestor
    assert not walklimits.is_ancestor("/a/bc", "/a/b")
    assert not walklimits.is_ancestor("/a/b/c", "/a/b")


def test_a_symlink_to_the_filesystem_root_is_reported_not_walked(tmp_path):
    root = tmp_path / "skills"
    skill(root / "ok", "ok")
    os.symlink("/", root / "everything")
    os.symlink(str(tmp_path), root / "parent")
    result = scan(str(root), dot=False)
    assert result.matches == (str(root / "ok" / "SKILL.md"),)
    assert [(w.kind, w.source) for w in result.warnings] == [
        ("symlink-ancestor", str(root / "everything")), ("symlink-ancestor", str(root / "parent"))]
    assert result.warnings[0].message == (
        f"{root}/everything -> / points at a folder holding the scan folder {root}; skillshelf does not "
        "follow it (its safety limit: it would walk everything under / again)")


def test_a_symlink_outside_every_root_is_followed(tmp_path):
    root = tmp_path / "skills"
    skill(tmp_path / "src" / "pdf", "pdf")
    root.mkdir()
    os.symlink(str(tmp_path / "src" / "pdf"), root / "pdf")
    result = scan(str(root), dot=False)
    assert result.matches == (str(root / "pdf" / "SKILL.md"),)
    assert result.warnings == ()


def test_depth_is_capped_once_naming_the_link_it_came_through(tmp_path):
    root = tmp_path / "skills"
    deep = tmp_path / "elsewhere"
    for level in range(1, walklimits.MAX_WALK_DEPTH + 3):
        deep = deep / f"l{level}"
    skill(deep, "too-deep")
    at_cap = tmp_path / "elsewhere"
    for level in range(1, walklimits.MAX_WALK_DEPTH):
        at_cap = at_cap / f"l{level}"
    skill(at_cap, "at-cap")
    root.mkdir()
    os.symlink(str(tmp_path / "elsewhere"), root / "linked")
    result = scan(str(root), dot=False)
    assert [os.path.basename(os.path.dirname(m)) for m in result.matches] == [f"l{walklimits.MAX_WALK_DEPTH - 1}"]
    assert [w.kind for w in result.warnings] == ["walk-limit"]
    assert result.warnings[0].message.startswith(
        f"{root}: skillshelf enters folders at most {walklimits.MAX_WALK_DEPTH} levels deep (its safety limit); ")
    assert f"reached through the symlinked folder {root}/linked" in result.warnings[0].message


def test_entries_are_capped_and_the_walk_says_where_it_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr("skillshelf.core.scan.MAX_WALK_ENTRIES", 5)  # the walk's cap
    monkeypatch.setattr("skillshelf.core.walklimits.MAX_WALK_ENTRIES", 5)  # the warning's words
    root = tmp_path / "skills"
    for name in ("a", "b", "c", "d", "e", "f"):
        skill(root / name, name)
    result = scan(str(root), dot=False)
    assert len(result.matches) < 6
    assert [w.kind for w in result.warnings] == ["walk-limit"]
    assert "lists at most 5 entries per scan folder (its safety limit); the walk stopped in" in result.warnings[0].message


@pytest.mark.parametrize("host", ["zuno", "opencode"])
def test_a_catalog_with_a_root_symlink_reports_it_and_loads_the_rest(tmp_path, host):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    root = proj / ".agents" / "skills"
    skill(root / "ok", "ok")
    os.symlink("/", root / "slash")
    gen = Catalog.open(str(proj), env=env(tmp_path), host=host, pull_remote=False).current
    assert [s.name for s in gen.sources if s.location.startswith(str(root))] == ["ok"]
    kinds = {w.kind: w for w in gen.warnings}
    assert kinds["symlink-ancestor"].source == str(root / "slash")


def test_codex_keeps_its_own_caps(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    root = proj / ".agents" / "skills"
    skill(root / "ok", "ok")
    os.symlink(str(tmp_path / "outside"), root / "out")
    deep = tmp_path / "outside"
    for level in range(1, 8):
        deep = deep / f"l{level}"
    skill(deep, "deep-seven")
    gen = Catalog.open(str(proj), env=env(tmp_path), host="codex", pull_remote=False).current
    names = {s.name for s in gen.sources}
    assert "ok" in names and "deep-seven" not in names  # Codex stops at depth 6, as the client does
    assert not any(w.kind in ("walk-limit", "symlink-ancestor") for w in gen.warnings)


def test_lint_of_a_tree_with_a_root_symlink_says_what_it_did_not_walk(tmp_path):
    root = tmp_path / "skills"
    skill(root / "ok", "ok")
    os.symlink("/", root / "slash")
    reports = lint_paths([str(root)])
    assert [r.path for r in reports] == [str(root / "ok" / "SKILL.md"), str(root / "slash")]
    note = reports[1].diagnostics[0]
    assert (note.code, note.severity.value) == ("symlink-ancestor", "warning")


def test_claude_commands_with_a_root_symlink_are_bounded(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    commands = proj / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "hello.md").write_text("Say hello.\n", encoding="utf-8")
    os.symlink("/", commands / "slash")
    gen = Catalog.open(str(proj), env=env(tmp_path), host="claude", pull_remote=False).current
    assert "hello" in {s.name for s in gen.sources}
    assert any(w.kind == "symlink-ancestor" and w.source == str(commands / "slash") for w in gen.warnings)
