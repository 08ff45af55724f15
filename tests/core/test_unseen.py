"""What a host's walk passes over without a word (SPEC D4, F4 ``wrong-file-name``): near-miss file
names and ``SKILL.md`` files in skipped dot folders, reported per host with the file, the exact
expected name and what would include them — the same on a case-insensitive file system."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from skillshelf.core.catalog import Catalog
from skillshelf.core.hostlint import host_lint_file
from skillshelf.core.hosts import get_host
from skillshelf.core.lint import lint_file, lint_paths
from skillshelf.core.paths import Environment
from skillshelf.core.scan import scan
from skillshelf.core.unseen import count_skill_files, is_near_miss


def write(path: Path, name: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: d\n---\nBody [guide](docs/Guide.md)\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["skill.md", "Skill.md", "SKILL.MD", "SKILLS.md", "skill.markdown", "Skill.txt"])
def test_near_miss_names(name):
    assert is_near_miss(name)


@pytest.mark.parametrize("name", ["SKILL.md", "README.md", "SKILL.md.bak", "skills.json", "myskill.md"])
def test_not_near_miss_names(name):
    assert not is_near_miss(name)


# ---- host zuno (core.scan) ------------------------------------------------------------------


def test_zuno_names_the_file_and_the_exact_expected_name(tmp_path):
    for folder, name in (("a", "skill.md"), ("b", "Skill.md"), ("c", "SKILL.MD"), ("d", "SKILLS.md")):
        write(tmp_path / "skills" / folder / name, folder)
    write(tmp_path / "skills/both/SKILL.md", "both")
    write(tmp_path / "skills/both/skill.md", "both-copy")  # a SKILL.md is there: nothing is lost
    result = scan(str(tmp_path / "skills"), dot=False)
    assert [m[len(str(tmp_path)) + 1:] for m in result.matches] == ["skills/both/SKILL.md"]
    got = [(w.kind, w.source, w.message) for w in result.warnings]
    d = tmp_path / "skills"
    assert got == [
        ("wrong-file-name", f"{d}/a/skill.md", f"{d}/a/skill.md is not read: Zuno reads only a file named exactly "
         f"`SKILL.md` (case-sensitive), and this one is `skill.md`; rename it to {d}/a/SKILL.md"),
        ("wrong-file-name", f"{d}/b/Skill.md", f"{d}/b/Skill.md is not read: Zuno reads only a file named exactly "
         f"`SKILL.md` (case-sensitive), and this one is `Skill.md`; rename it to {d}/b/SKILL.md"),
        ("wrong-file-name", f"{d}/c/SKILL.MD", f"{d}/c/SKILL.MD is not read: Zuno reads only a file named exactly "
         f"`SKILL.md` (case-sensitive), and this one is `SKILL.MD`; rename it to {d}/c/SKILL.md"),
        ("wrong-file-name", f"{d}/d/SKILLS.md", f"{d}/d/SKILLS.md is not read: Zuno reads only a file named exactly "
         f"`SKILL.md` (case-sensitive), and this one is `SKILLS.md`; rename it to {d}/d/SKILL.md"),
    ]


def test_zuno_dot_folders_under_a_configured_path_are_counted(tmp_path):
    repo = tmp_path / "repo"
    for rel in (".curated/a", ".curated/b", ".curated/.deeper/c", ".system/d", "plain/e"):
        write(repo / rel / "SKILL.md", rel.rsplit("/", 1)[-1])
    write(repo / ".git/hooks/x/SKILL.md", "vcs")  # version control: never counted
    (repo / ".empty").mkdir()
    result = scan(str(repo), dot=False)
    assert [m[len(str(repo)) + 1:] for m in result.matches] == ["plain/e/SKILL.md"]
    assert [(w.kind, w.message) for w in result.warnings] == [
        ("dot-folder-skipped", f"3 SKILL.md files under {repo}/.curated were not scanned: Zuno skips folders whose "
                               f'name starts with `.`; add "{repo}/.curated" to skills.paths to include them'),
        ("dot-folder-skipped", f"1 SKILL.md file under {repo}/.system was not scanned: Zuno skips folders whose "
                               f'name starts with `.`; add "{repo}/.system" to skills.paths to include them'),
    ]
    # what the hint says works: the dot folder as a skills.paths entry is read
    assert len(scan(str(repo / ".curated"), dot=False).matches) == 2  # .deeper stays pruned (and counted)


def test_count_is_bounded_and_says_so(tmp_path):
    for i in range(6):
        write(tmp_path / ".big" / f"s{i}" / "SKILL.md", f"s{i}")
    assert count_skill_files(str(tmp_path / ".big")) == (6, True)
    assert count_skill_files(str(tmp_path / ".big"), limit=3) == (2, False)


def test_the_warning_follows_live_edits_inside_a_dot_folder(tmp_path):
    home, proj, repo = tmp_path / "home", tmp_path / "proj", tmp_path / "repo"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    write(repo / "plain/a/SKILL.md", "a")
    write(repo / ".curated/b/SKILL.md", "b")
    env = Environment.from_mapping({"HOME": str(home)})
    cat = Catalog.open(str(proj), env=env, paths=[str(repo)], pull_remote=False)

    def skipped() -> list[str]:
        return [w.message.split(" under ")[0] for w in cat.current.warnings if w.kind == "dot-folder-skipped"]

    assert skipped() == ["1 SKILL.md file"]
    new = write(repo / ".curated/c/SKILL.md", "c")
    cat.refresh_paths([str(new)])
    assert skipped() == ["2 SKILL.md files"]
    new.unlink()
    (repo / ".curated/b/SKILL.md").unlink()
    cat.refresh_paths([str(new), str(repo / ".curated/b/SKILL.md")])
    assert skipped() == []


# ---- every host, in its own terms --------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    (tmp_path / "home").mkdir()
    write(proj / ".agents/skills/near/skill.md", "near")
    write(proj / ".agents/skills/good/SKILL.md", "good")
    write(proj / ".agents/skills/.hidden/x/SKILL.md", "x")
    write(proj / ".agents/skills/.flat/SKILL.md", "flat")
    write(proj / ".claude/skills/cnear/Skill.md", "cnear")
    write(proj / ".opencode/skills/.ohid/y/SKILL.md", "y")
    write(tmp_path / "repo/.curated/z/SKILL.md", "z")
    write(tmp_path / "repo/plain/SKILLS.md", "plain")
    return tmp_path


EXPECTED = {
    "zuno": [("wrong-file-name", "proj/.agents/skills/near/skill.md"), ("dot-folder-skipped", "repo/.curated"),
             ("wrong-file-name", "repo/plain/SKILLS.md")],
    "claude": [("wrong-file-name", "proj/.claude/skills/cnear/Skill.md")],
    "codex": [("dot-folder-skipped", "proj/.agents/skills/.flat"), ("dot-folder-skipped", "proj/.agents/skills/.hidden"),
              ("wrong-file-name", "proj/.agents/skills/near/skill.md")],
    "opencode": [("wrong-file-name", "proj/.claude/skills/cnear/Skill.md"),
                 ("wrong-file-name", "proj/.agents/skills/near/skill.md"),
                 ("dot-folder-skipped", "proj/.opencode/skills/.ohid"), ("dot-folder-skipped", "repo/.curated"),
                 ("wrong-file-name", "repo/plain/SKILLS.md")],
    "gemini": [("dot-folder-skipped", "proj/.agents/skills/.flat"),
               ("wrong-file-name", "proj/.agents/skills/near/skill.md")],
}
READER = {"zuno": "Zuno", "claude": "Claude Code", "codex": "Codex", "opencode": "opencode", "gemini": "Gemini CLI"}
INCLUDE = {
    "codex": "move them to a folder whose name does not start with `.`, or link one there (Codex follows folder symlinks)",
    "gemini": "rename the folder without the leading `.` to include it",
}


def unseen(ws: Path, host: str) -> list[tuple[str, str, str]]:
    env = Environment.from_mapping({"HOME": str(ws / "home"), "GEMINI_CLI_TRUST_WORKSPACE": "true", "PATH": ""})
    cat = Catalog.open(str(ws / "proj"), env=env, host=host, paths=[str(ws / "repo")], pull_remote=False)
    return [(w.kind, os.path.relpath(w.source, ws), w.message) for w in cat.current.warnings
            if w.kind in ("wrong-file-name", "dot-folder-skipped")]


@pytest.mark.parametrize("host", sorted(EXPECTED))
def test_every_host_reports_what_its_walk_passes_over(workspace, host):
    got = unseen(workspace, host)
    assert [(k, s) for k, s, _ in got] == EXPECTED[host]
    for kind, source, message in got:
        assert f" {READER[host]} " in f" {message} "
        if kind == "wrong-file-name":
            assert message.endswith(f"rename it to {workspace / os.path.dirname(source) / 'SKILL.md'}")
        elif host in INCLUDE:
            assert message.endswith(INCLUDE[host])


def test_zhin_names_a_near_miss_in_a_skill_folder(tmp_path):
    plugin = tmp_path / "plugin"
    write(plugin / "skills/near/SKILL.MD", "near")
    write(plugin / "skills/fine/SKILL.md", "fine")
    cat = Catalog.open(str(plugin), host="zhin", env=Environment.from_mapping({"HOME": str(tmp_path)}),
                       pull_remote=False)
    assert [s.name for s in cat.current.sources] == ["fine"]
    assert [(w.kind, w.source) for w in cat.current.warnings if w.kind == "wrong-file-name"] == [
        ("wrong-file-name", str(plugin / "skills/near/SKILL.MD"))]


# ---- the same answer on a case-insensitive file system ------------------------------------------


def _fold(path: str) -> str:
    """``path`` with each missing component replaced by the one existing entry that differs only
    in case (what a case-insensitive file system resolves)."""
    parts = path.split("/")
    out = parts[0] or "/"
    for part in parts[1:]:
        if not part:
            continue
        candidate = os.path.join(out, part)
        if not _REAL_LEXISTS(candidate):
            try:
                hits = [n for n in os.listdir(out) if n.casefold() == part.casefold()]
            except OSError:
                hits = []
            if len(hits) == 1:
                candidate = os.path.join(out, hits[0])
        out = candidate
    return out


_REAL_LSTAT = os.lstat


def _REAL_LEXISTS(path: str) -> bool:
    try:
        _REAL_LSTAT(path)
    except OSError:
        return False
    return True


def _results(ws: Path) -> tuple[object, ...]:
    skills = ws / "proj/.agents/skills"
    ref = lint_file(str(skills / "good/SKILL.md")).diagnostics
    return (
        scan(str(skills), dot=False),
        [(r.path, [d.code for d in r.diagnostics]) for r in lint_paths([str(skills)])],
        ref,
        host_lint_file(get_host("gemini"), str(skills / "good/SKILL.md")).valid,
        {h: [(k, s) for k, s, _ in unseen(ws, h)] for h in ("zuno", "gemini", "codex")},
    )


def test_results_do_not_depend_on_the_file_system_folding_case(workspace, monkeypatch):
    (workspace / "proj/.agents/skills/good/docs").mkdir()
    (workspace / "proj/.agents/skills/good/docs/guide.md").write_text("lower-case on disk")
    before = _results(workspace)
    with monkeypatch.context() as m:
        for mod, name in ((os, "stat"), (os, "lstat")):
            real = getattr(mod, name)
            m.setattr(mod, name, lambda p, *a, _r=real, **k: _r(_fold(os.fspath(p)) if isinstance(p, (str, Path)) else p, *a, **k))
        for name in ("exists", "isfile", "isdir", "lexists"):
            real = getattr(os.path, name)
            m.setattr(os.path, name, lambda p, _r=real: _r(_fold(os.fspath(p))))
        assert os.path.isfile(workspace / "proj/.agents/skills/near/SKILL.md")  # the simulation folds case
        after = _results(workspace)
    assert after == before
    # the reference spelled `docs/Guide.md` is missing on a case-sensitive system, and said so either way
    (missing,) = [d for d in before[2] if d.code == "missing-reference"]
    assert missing.hint == "docs/guide.md"


def test_lint_notes_a_file_inside_a_dot_folder_of_the_tree(tmp_path):
    write(tmp_path / "repo/.curated/a/SKILL.md", "a")
    write(tmp_path / "repo/plain/b/SKILL.md", "b")
    reports = {os.path.relpath(r.path, tmp_path): r for r in lint_paths([str(tmp_path / "repo")])}
    (note,) = [d for d in reports["repo/.curated/a/SKILL.md"].diagnostics if d.code == "in-dot-folder"]
    assert note.severity.value == "info"
    assert note.message == (f"this file is inside the dot folder `.curated` below {tmp_path / 'repo'}: hosts that do "
                            "not enter dot folders (Zuno below skills.paths and .zuno/skill, Codex, Gemini CLI, "
                            "opencode below its skill folders and skills.paths) never read it from there")
    assert all(d.code != "in-dot-folder" for d in reports["repo/plain/b/SKILL.md"].diagnostics)
    # linted as the dot folder itself, nothing to note
    assert all(d.code != "in-dot-folder" for r in lint_paths([str(tmp_path / "repo/.curated")]) for d in r.diagnostics)
