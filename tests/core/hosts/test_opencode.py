"""Host ``opencode`` (opencode 1.18.33): one test per rule, exact values, no real client.

Workspaces are built in ``tmp_path``: ``home`` is HOME, ``repo`` a git worktree (a minimal
``.git`` folder git accepts), ``repo/sub`` the working directory unless a test says otherwise.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest

from skillshelf.core.catalog import Catalog
from skillshelf.core.compare import CellState, compare, unread_reason
from skillshelf.core.hostlint import host_lint_file
from skillshelf.core.hosts import get_host, host_names
from skillshelf.core.hosts.base import EntryState, HostContext
from skillshelf.core.hosts.opencode import BUILTIN_LOCATION, OPENCODE, catalog_of
from skillshelf.core.hosts.opencode.builtin import BUILTIN, builtin_texts
from skillshelf.core.hosts.opencode.catalog import collation_key
from skillshelf.core.hosts.opencode.matter import sanitize
from skillshelf.core.model import Provenance, Status
from skillshelf.core.paths import Environment
from skillshelf.core.tool import ToolError

walk_mod = importlib.import_module("skillshelf.core.hosts.opencode.walk")

PATH = "/usr/bin:/bin"  # git, but no opencode: the built-in text is the sized marker


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def skill(folder: Path, name: str, description: str | None = "d", body: str = "body\n") -> Path:
    lines = ["---", f"name: {name}"] + ([f"description: {description}"] if description is not None else []) + ["---"]
    return write(folder / "SKILL.md", "\n".join(lines) + "\n" + body)


def fake_git(repo: Path) -> None:
    (repo / ".git" / "objects").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "refs").mkdir(parents=True, exist_ok=True)
    write(repo / ".git" / "HEAD", "ref: refs/heads/main\n")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    fake_git(tmp_path / "repo")
    (tmp_path / "repo" / "sub").mkdir()
    return tmp_path


def open_ws(base: Path, cwd: Path | None = None, **env: str) -> Catalog:
    variables = {"HOME": str(base / "home"), "PATH": PATH, **env}
    context = HostContext(cwd=str(cwd or base / "repo" / "sub"), env=Environment.from_mapping(variables))
    return Catalog.from_context(OPENCODE, context)


def files(cat: Catalog) -> dict[str, Status]:
    return {s.location: s.status for s in cat.current.sources if s.location != BUILTIN_LOCATION}


def rel(base: Path, cat: Catalog) -> list[str]:
    return sorted(os.path.relpath(loc, base) for loc in files(cat))


# ----------------------------------------------------------------------------------- registry


def test_registered_with_client_and_version() -> None:
    host = get_host("opencode")
    assert host is OPENCODE
    assert (host.name, host.client, host.version, host.describe()) == ("opencode", "opencode", "1.18.33",
                                                                       "opencode 1.18.33")
    assert host_names().index("opencode") > host_names().index("zhin")


# ----------------------------------------------------------------------------------- roots


def test_roots_in_scan_order(ws: Path) -> None:
    home, repo = ws / "home", ws / "repo"
    for d in (home / ".claude", home / ".agents", repo / ".claude", repo / "sub" / ".agents",
              repo / "sub" / ".opencode", home / ".opencode"):
        d.mkdir(parents=True)
    write(repo / "opencode.json", json.dumps({"skills": {"paths": ["extra"]}}))
    (repo / "sub" / "extra").mkdir()
    cat = open_ws(ws)
    got = [(r.provenance, os.path.relpath(r.scan_dir, ws), r.dot, r.label) for r in cat.current.roots]
    assert got == [
        (Provenance.USER, "home/.claude/skills", True, "~/.claude/skills"),
        (Provenance.USER, "home/.agents/skills", True, "~/.agents/skills"),
        (Provenance.PROJECT, "repo/sub/.agents/skills", True, "project .agents/skills"),
        (Provenance.PROJECT, "repo/.claude/skills", True, "project .claude/skills"),
        (Provenance.USER, "home/.config/opencode/skill", False, "~/.config/opencode/skill"),
        (Provenance.USER, "home/.config/opencode/skills", False, "~/.config/opencode/skills"),
        (Provenance.PROJECT, "repo/sub/.opencode/skill", False, "project .opencode/skill"),
        (Provenance.PROJECT, "repo/sub/.opencode/skills", False, "project .opencode/skills"),
        (Provenance.USER, "home/.opencode/skill", False, "~/.opencode/skill"),
        (Provenance.USER, "home/.opencode/skills", False, "~/.opencode/skills"),
        (Provenance.CONFIGURED_PATH, "repo/sub/extra", False, "skills.paths"),
    ]


def test_folders_opencode_does_not_read(ws: Path) -> None:
    home, repo, sub = ws / "home", ws / "repo", ws / "repo" / "sub"
    for i, folder in enumerate([sub / ".codex/skills/a", sub / ".gemini/skills/a", sub / ".github/skills/a",
                                sub / "skills/a", sub / ".claude/skill/a", sub / ".agents/skill/a",
                                sub / ".opencode/agent/skills/a", sub / "deeper/.claude/skills/a",
                                ws / ".claude/skills/above", home / ".config/agents/skills/a",
                                home / ".config/claude/skills/a", home / ".codex/skills/a"]):
        skill(folder, f"n{i}")
    skill(repo / ".claude/skills/read", "read")
    assert rel(ws, open_ws(ws)) == ["repo/.claude/skills/read/SKILL.md"]


def test_without_git_the_walk_goes_to_root_past_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = home / "proj" / "a"
    cwd.mkdir(parents=True)
    skill(home / "proj" / ".agents/skills/p", "p")
    skill(home / ".claude/skills/u", "u")
    skill(tmp_path / ".claude/skills/above-home", "above-home")
    cat = open_ws(tmp_path, cwd=cwd)
    assert rel(tmp_path, cat) == [".claude/skills/above-home/SKILL.md", "home/.claude/skills/u/SKILL.md",
                                  "home/proj/.agents/skills/p/SKILL.md"]
    assert "opencode walks up to /" in cat.current.diagnostics[0].message


def test_bogus_git_file_is_no_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / ".git", "gitdir: /nonexistent/gitdir\n")
    (tmp_path / "home").mkdir()
    skill(tmp_path / ".agents/skills/above", "above")
    cat = open_ws(tmp_path, cwd=repo)
    assert rel(tmp_path, cat) == [".agents/skills/above/SKILL.md"]
    assert "is not a git repository" in cat.current.diagnostics[0].message


def test_linked_worktree_git_file_stops_the_walk(tmp_path: Path) -> None:
    main = tmp_path / "main"
    fake_git(main)
    gitdir = main / ".git" / "worktrees" / "wt"
    write(gitdir / "HEAD", "ref: refs/heads/wt\n")
    write(gitdir / "commondir", "../..\n")
    wt = tmp_path / "outer" / "wt"
    write(wt / ".git", f"gitdir: {gitdir}\n")
    (tmp_path / "home").mkdir()
    skill(tmp_path / "outer/.claude/skills/above", "above")
    skill(wt / ".claude/skills/in", "in")
    assert rel(tmp_path, open_ws(tmp_path, cwd=wt)) == ["outer/wt/.claude/skills/in/SKILL.md"]


def test_xdg_config_home_moves_the_config_folder(ws: Path) -> None:
    skill(ws / "xdg/opencode/skills/x", "x")
    skill(ws / "home/.config/opencode/skills/h", "h")
    assert rel(ws, open_ws(ws, XDG_CONFIG_HOME=str(ws / "xdg"))) == ["xdg/opencode/skills/x/SKILL.md"]
    assert rel(ws, open_ws(ws, XDG_CONFIG_HOME="")) == ["home/.config/opencode/skills/h/SKILL.md"]


def test_opencode_config_dir_is_a_root_and_a_config_layer(ws: Path) -> None:
    cd = ws / "cd"
    skill(cd / "skill/one", "one")
    skill(cd / ".claude/skills/not", "not")
    skill(ws / "repo/sub/p/q", "q")
    write(cd / "opencode.json", json.dumps({"skills": {"paths": ["p"]}}))
    assert rel(ws, open_ws(ws, OPENCODE_CONFIG_DIR=str(cd))) == ["cd/skill/one/SKILL.md", "repo/sub/p/q/SKILL.md"]


def test_opencode_test_home_moves_home_but_not_config(ws: Path) -> None:
    t = ws / "t"
    skill(t / ".claude/skills/a", "a")
    skill(t / ".opencode/skills/b", "b")
    skill(t / "tp/c", "c")
    skill(ws / "home/.claude/skills/real", "real")
    skill(ws / "home/.config/opencode/skills/cfg", "cfg")
    write(ws / "repo/opencode.json", json.dumps({"skills": {"paths": ["~/tp"]}}))
    assert rel(ws, open_ws(ws, OPENCODE_TEST_HOME=str(t))) == [
        "home/.config/opencode/skills/cfg/SKILL.md", "t/.claude/skills/a/SKILL.md",
        "t/.opencode/skills/b/SKILL.md", "t/tp/c/SKILL.md"]


def test_skills_paths_entries(ws: Path) -> None:
    sub = ws / "repo" / "sub"
    skill(sub / "rel/a", "a")
    skill(sub / "rel/.dot/b", "b")
    skill(ws / "home/hp/c", "c")
    skill(ws / "abs/d", "d")
    write(sub / "afile", "x")
    write(ws / "repo/opencode.json", json.dumps({"skills": {"paths": ["ignored"]}}))
    write(sub / "opencode.jsonc", '// comment\n{"skills": {"paths": ["rel", "~/hp", "%s", "missing", "afile",],},}'
          % (ws / "abs"))
    cat = open_ws(ws)
    assert rel(ws, cat) == ["abs/d/SKILL.md", "home/hp/c/SKILL.md", "repo/sub/rel/a/SKILL.md"]
    missing = [(w.kind, w.message) for w in cat.current.warnings if w.kind == "PathNotFound"]
    assert missing == [
        ("PathNotFound", (f"skill path not found path={sub / 'missing'} (skills.paths entry 'missing'; opencode logs a "
                         "WARN and skips it)")),
        ("PathNotFound", (f"skill path not found path={sub / 'afile'} (skills.paths entry 'afile'; opencode logs a "
                         "WARN and skips it)")),
    ]


def test_nearest_dot_opencode_config_is_overridden_by_farther_ones(ws: Path) -> None:
    repo, sub = ws / "repo", ws / "repo" / "sub"
    skill(sub / "near/a", "a")
    skill(sub / "far/b", "b")
    write(sub / ".opencode/opencode.json", json.dumps({"skills": {"paths": ["near"]}}))
    write(repo / ".opencode/opencode.json", json.dumps({"skills": {"paths": ["far"]}}))
    assert rel(ws, open_ws(ws)) == ["repo/sub/far/b/SKILL.md"]


def test_config_content_with_env_substitution(ws: Path) -> None:
    skill(ws / "repo/sub/from-env/a", "a")
    content = json.dumps({"skills": {"paths": ["{env:SKILLDIR}"]}})
    assert rel(ws, open_ws(ws, OPENCODE_CONFIG_CONTENT=content, SKILLDIR="from-env")) == [
        "repo/sub/from-env/a/SKILL.md"]


@pytest.mark.parametrize(("env", "expected"), [
    ({}, ["home/.agents/skills/ua/SKILL.md", "home/.claude/skills/uc/SKILL.md", "repo/.opencode/skills/po/SKILL.md",
          "repo/sub/.agents/skills/pa/SKILL.md", "repo/sub/.claude/skills/pc/SKILL.md", "repo/sub/cfgpath/cp/SKILL.md"]),
    ({"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}, ["repo/.opencode/skills/po/SKILL.md", "repo/sub/cfgpath/cp/SKILL.md"]),
    ({"OPENCODE_DISABLE_CLAUDE_CODE": "true"}, ["home/.agents/skills/ua/SKILL.md", "repo/.opencode/skills/po/SKILL.md",
                                                "repo/sub/.agents/skills/pa/SKILL.md", "repo/sub/cfgpath/cp/SKILL.md"]),
    ({"OPENCODE_DISABLE_CLAUDE_CODE_SKILLS": "y"}, ["home/.agents/skills/ua/SKILL.md",
                                                    "repo/.opencode/skills/po/SKILL.md",
                                                    "repo/sub/.agents/skills/pa/SKILL.md",
                                                    "repo/sub/cfgpath/cp/SKILL.md"]),
    ({"OPENCODE_DISABLE_PROJECT_CONFIG": "TRUE"}, ["home/.agents/skills/ua/SKILL.md", "home/.claude/skills/uc/SKILL.md",
                                                   "repo/sub/.agents/skills/pa/SKILL.md",
                                                   "repo/sub/.claude/skills/pc/SKILL.md"]),
    ({"OPENCODE_DISABLE_PROJECT_CONFIG": "yes"}, ["home/.agents/skills/ua/SKILL.md", "home/.claude/skills/uc/SKILL.md",
                                                  "repo/.opencode/skills/po/SKILL.md",
                                                  "repo/sub/.agents/skills/pa/SKILL.md",
                                                  "repo/sub/.claude/skills/pc/SKILL.md",
                                                  "repo/sub/cfgpath/cp/SKILL.md"]),
])
def test_environment_switches(ws: Path, env: dict[str, str], expected: list[str]) -> None:
    home, repo, sub = ws / "home", ws / "repo", ws / "repo" / "sub"
    skill(home / ".claude/skills/uc", "uc")
    skill(home / ".agents/skills/ua", "ua")
    skill(sub / ".claude/skills/pc", "pc")
    skill(sub / ".agents/skills/pa", "pa")
    skill(repo / ".opencode/skills/po", "po")
    skill(sub / "cfgpath/cp", "cp")
    write(sub / "opencode.json", json.dumps({"skills": {"paths": ["cfgpath"]}}))
    assert rel(ws, open_ws(ws, **env)) == expected


@pytest.mark.parametrize("value", ["TRUE", "", " 1", "maybe"])
def test_a_bad_switch_value_makes_opencode_refuse_to_start(ws: Path, value: str) -> None:
    skill(ws / "repo/sub/.claude/skills/a", "a")
    cat = open_ws(ws, OPENCODE_DISABLE_EXTERNAL_SKILLS=value)
    expected = ('opencode would refuse to start (exit 1): SchemaError(Expected "true" | "yes" | "on" | "1" | "y" | '
                f'"false" | "no" | "off" | "0" | "n", got {json.dumps(value)} at ["OPENCODE_DISABLE_EXTERNAL_SKILLS"])')
    assert cat.current.sources == ()
    assert [(w.kind, w.message) for w in cat.current.warnings] == [("opencode-refuses-start", expected)]
    shown = cat.model_catalog()
    assert (shown.text, shown.notes) == ("", (expected,))


def test_a_file_named_dot_opencode_makes_opencode_refuse_to_start(ws: Path) -> None:
    write(ws / "repo/.opencode", "not a folder")
    cat = open_ws(ws)
    assert cat.current.sources == ()
    assert cat.current.warnings[0].message == (
        f"opencode would refuse to start (exit 1): Unexpected error: BadResource: FileSystem.readFile "
        f"({ws / 'repo/.opencode'}/opencode.json): {ws / 'repo/.opencode'} is a file, not a folder")


@pytest.mark.parametrize(("text", "message"), [
    ('{"skills": {"paths": ["a"]},, }', "is not valid JSON(C)"),
    ('{"skills": {"paths": "a"}}', 'Expected array | undefined, got "a" skills.paths'),
    ('{"skills": {"paths": [1]}}', "Expected string, got 1 skills.paths.0"),
    ('{"permission": {"skill": "maybe"}}', 'Expected PermissionActionConfig, got "maybe" permission.skill'),
    ("[]", "Expected Config, got []"),
    ('{"instructions": "{file:nope.txt}"}', "bad file reference {file:nope.txt}"),
])
def test_an_invalid_config_layer_makes_opencode_refuse_to_start(ws: Path, text: str, message: str) -> None:
    write(ws / "repo/opencode.json", text)
    cat = open_ws(ws)
    warning = cat.current.warnings[0]
    assert warning.kind == "opencode-refuses-start"
    assert message in warning.message and str(ws / "repo/opencode.json") in warning.message


def test_lenient_config_that_opencode_accepts(ws: Path) -> None:
    skill(ws / "repo/sub/p/a", "a")
    write(ws / "repo/opencode.json", '{"skills": {"paths": ["p",],}, "unknown": 1, /* c */}')
    write(ws / "home/.config/opencode/opencode.json", "")
    assert rel(ws, open_ws(ws)) == ["repo/sub/p/a/SKILL.md"]


# ----------------------------------------------------------------------------------- walk


def test_glob_depth_names_and_folders(ws: Path) -> None:
    root = ws / "repo/sub/.agents/skills"
    skill(root, "at-root")
    skill(root / "a/b/c/d/e/f/g/h", "deep")
    skill(root / "node_modules/pkg", "in-node-modules")
    skill(root / "outer", "outer")
    skill(root / "outer/inner", "inner")
    write(root / "lower/skill.md", "---\nname: lower\ndescription: d\n---\n")
    write(root / "upper/SKILL.MD", "---\nname: upper\ndescription: d\n---\n")
    skill(root / "odd/SKILL.md/x", "in-a-folder-named-SKILL.md")
    skill(root / "[glob]* dir", "metachars")
    assert rel(ws, open_ws(ws)) == sorted([
        "repo/sub/.agents/skills/SKILL.md", "repo/sub/.agents/skills/a/b/c/d/e/f/g/h/SKILL.md",
        "repo/sub/.agents/skills/node_modules/pkg/SKILL.md", "repo/sub/.agents/skills/outer/SKILL.md",
        "repo/sub/.agents/skills/outer/inner/SKILL.md", "repo/sub/.agents/skills/odd/SKILL.md/x/SKILL.md",
        "repo/sub/.agents/skills/[glob]* dir/SKILL.md"])


def test_dot_folders_only_below_claude_and_agents(ws: Path) -> None:
    sub = ws / "repo/sub"
    skill(sub / ".claude/skills/.hidden/a", "a")
    skill(sub / ".opencode/skills/.hidden/b", "b")
    skill(sub / "paths/.hidden/c", "c")
    write(sub / "opencode.json", json.dumps({"skills": {"paths": ["paths"]}}))
    assert rel(ws, open_ws(ws)) == ["repo/sub/.claude/skills/.hidden/a/SKILL.md"]


def test_symlinks_followed_and_reported_under_the_link(ws: Path) -> None:
    root = ws / "repo/sub/.claude/skills"
    skill(ws / "elsewhere/real", "via-dir-link")
    root.mkdir(parents=True)
    (root / "linked").symlink_to(ws / "elsewhere/real")
    skill(ws / "elsewhere/file-target", "via-file-link")
    (root / "filelink").mkdir()
    (root / "filelink/SKILL.md").symlink_to(ws / "elsewhere/file-target/SKILL.md")
    (root / "broken").mkdir()
    (root / "broken/SKILL.md").symlink_to(ws / "nowhere/SKILL.md")
    (root / "brokendir").symlink_to(ws / "nowhere")
    cat = open_ws(ws)
    assert files(cat) == {str(root / "linked/SKILL.md"): Status.OK, str(root / "filelink/SKILL.md"): Status.OK}
    assert cat.current.by_location(str(root / "linked/SKILL.md")).canonical == str(ws / "elsewhere/real/SKILL.md")
    rejected = cat.current.rejected
    assert [r.location for r in rejected] == [str(root / "broken/SKILL.md")]
    assert rejected[0].diagnostics[0].code == "opencode-read-error"
    assert "opencode cannot read the file" in rejected[0].warning.message
    assert [w.kind for w in cat.current.warnings if w.source == str(root / "brokendir")] == ["broken-symlink"]


def test_the_same_file_under_two_spellings_is_two_racing_copies(ws: Path) -> None:
    home = ws / "home"
    skill(home / ".claude/skills/u", "twice")
    (home / ".agents").mkdir()
    (home / ".agents/skills").symlink_to(home / ".claude/skills")
    cat = open_ws(ws)
    a, b = str(home / ".claude/skills/u/SKILL.md"), str(home / ".agents/skills/u/SKILL.md")
    assert files(cat) == {a: Status.RACE, b: Status.RACE}
    assert cat.current.by_location(a).shadowed_by == (b,)


def test_the_same_path_string_twice_is_one_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    fake_git(home)
    skill(home / ".claude/skills/u", "u")
    cat = open_ws(tmp_path, cwd=home)
    assert files(cat) == {str(home / ".claude/skills/u/SKILL.md"): Status.OK}


def test_one_symlink_loop_gives_41_racing_copies(ws: Path) -> None:
    loopy = ws / "repo/sub/.opencode/skills/loopy"
    skill(loopy, "loopy")
    (loopy / "self").symlink_to(".")
    cat = open_ws(ws)
    found = files(cat)
    assert len(found) == 41
    assert set(found.values()) == {Status.RACE}
    assert str(loopy / ("self/" * 40) / "SKILL.md") in found
    loops = [w for w in cat.current.warnings if w.kind == "symlink-loop"]
    assert len(loops) == 1 and loops[0].source == str(loopy / "self")


def test_the_walk_stops_at_its_folder_budget(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk_mod, "MAX_FOLDERS", 5)
    import skillshelf.core.hosts.opencode as host_pkg

    monkeypatch.setattr(host_pkg, "MAX_FOLDERS", 5)
    for i in range(10):
        skill(ws / f"repo/sub/.claude/skills/s{i}", f"s{i}")
    cat = open_ws(ws)
    limit = [w for w in cat.current.warnings if w.kind == "opencode-walk-limit"]
    assert len(limit) == 1
    assert limit[0].message.startswith("skillshelf stopped after 5 folders at ")
    assert len(files(cat)) == 4


# ----------------------------------------------------------------------------------- parser

PARSER = [
    # (text, accepted, name, description, hidden)
    ("---\nname: ok\ndescription: plain\n---\nbody\n", True, "ok", "plain", False),
    ("\ufeff---\nname: bom\ndescription: with a BOM\n---\n", True, "bom", "with a BOM", False),
    ("---\r\nname: crlf\r\ndescription: crlf\r\n---\r\n", True, "crlf", "crlf", False),
    ("---\rname: cr\rdescription: cr\r---\r", False, None, None, False),
    ("\n---\nname: blank-first\ndescription: d\n---\n", False, None, None, False),
    (" ---\nname: space-first\ndescription: d\n---\n", False, None, None, False),
    ("# no front matter\n", False, None, None, False),
    ("---\nname: unclosed\ndescription: yaml only\n", True, "unclosed", "yaml only", False),
    ("---\nname: unclosed-body\ndescription: d\n\n# Title\n\nText here.\n", False, None, None, False),
    ("--- \nname: trailing-space\ndescription: d\n---\n", True, "trailing-space", "d", False),
    ("----\nname: four\ndescription: d\n----\n", False, None, None, False),
    ("---yaml\nname: lang-yaml\ndescription: d\n---\n", True, "lang-yaml", "d", False),
    ("---YAML\nname: lang-upper\ndescription: d\n---\n", True, "lang-upper", "d", False),
    ('---json\n{"name": "lang-json", "description": "from json"}\n---\n', True, "lang-json", "from json", False),
    ('---JSON\n{"name": "x", "description": "d"}\n---\n', False, None, None, False),
    ('---toml\nname = "x"\n---\n', False, None, None, False),
    ('---js\n({name: "lang-js", description: "js " + (40 + 2)})\n---\n', True, "lang-js", "js 42", False),
    ("---\nname: suffix\ndescription: closing line has a suffix\n---more\nbody\n", True, "suffix",
     "closing line has a suffix", False),
    ("---\n---\nbody\n", False, None, None, False),
    ("---\n# only a comment\n---\n", False, None, None, False),
    ("---\nname:\ttabbed\ndescription:\ttab after colon\n---\n", True, "tabbed", "tab after colon", False),
    ("---\nname: dup\ndescription: one\ndescription: two\n---\n", False, None, None, False),
    ("---\nname: 123\ndescription: d\n---\n", False, None, None, False),
    ("---\nname: yes\ndescription: d\n---\n", True, "yes", "d", False),
    ("---\nname: true\ndescription: d\n---\n", False, None, None, False),
    ("---\nname: 2024-01-02\ndescription: d\n---\n", False, None, None, False),
    ("---\nname: 0o17\ndescription: d\n---\n", True, "0o17", "d", False),
    ("---\nname: 1:20\ndescription: d\n---\n", False, None, None, False),
    ('---\nname: "123"\ndescription: d\n---\n', True, "123", "d", False),
    ("---\nname: !!str 456\ndescription: d\n---\n", True, "456", "d", False),
    ("---\nname: ''\ndescription: empty name\n---\n", True, "", "empty name", False),
    ("---\nname: Has Spaces/And:Caps\ndescription: d\n---\n", True, "Has Spaces/And:Caps", "d", False),
    ("---\nname: no-description\n---\n", True, "no-description", None, True),
    ("---\nname: empty-description\ndescription: ''\n---\n", True, "empty-description", "", False),
    ("---\nname: null-description\ndescription:\n---\n", False, None, None, False),
    ("---\nname: list-description\ndescription: [a]\n---\n", False, None, None, False),
    ("---\nname: literal\ndescription: |\n  one\n  two\n---\n", True, "literal", "one\ntwo\n", False),
    ("---\nname: folded\ndescription: >-\n  one\n  two\n---\n", True, "folded", "one two", False),
    ("---\nname: rescued\ndescription: Use when: the user asks\n---\n", True, "rescued", "Use when: the user asks",
     False),
    ("\ufeff---\nname: bom-colon\ndescription: Use when: x\n---\n", False, None, None, False),
    ("---\nname: hyphen\nallowed-tools: Read: x\ndescription: d\n---\n", False, None, None, False),
    ("---\nname: constructor\ndescription: d\n---\n", True, "constructor", "d", False),
    ("---\nname: __proto__\ndescription: d\n---\n", False, None, None, False),
    ("---\nname: nel\ndescription: a\x85b\n---\n", True, "nel", "a\x85b", False),
    ("---\nname: ctrl\ndescription: a\x07b\n---\n", False, None, None, False),
]


@pytest.mark.parametrize(("text", "accepted", "name", "description", "hidden"), PARSER)
def test_parser(text: str, accepted: bool, name: str | None, description: str | None, hidden: bool) -> None:
    v = OPENCODE.accept("/x/SKILL.md", text.encode("utf-8"))
    assert (v.accepted, v.name, v.description, v.hidden is not None) == (accepted, name, description, hidden)
    if not accepted:
        assert v.reason and any(d.severity.value == "error" for d in v.diagnostics)


def test_invalid_utf8_becomes_replacement_characters() -> None:
    v = OPENCODE.accept("/x/SKILL.md", b"---\nname: bad\ndescription: a \xff\xfe b\n---\n")
    assert (v.name, v.description) == ("bad", "a \ufffd\ufffd b")
    assert [(d.code, d.line) for d in v.diagnostics] == [("opencode-invalid-utf8", 3)]


def test_drop_diagnostics_name_their_field_and_line() -> None:
    v = OPENCODE.accept("/x/SKILL.md", b"---\nname: 42\ndescription: d\n---\n")
    assert [(d.code, d.field, d.line) for d in v.diagnostics] == [("opencode-name-not-string", "name", 2)]
    assert v.reason == "`name` is a number (42), not a string: opencode drops it silently"
    v = OPENCODE.accept("/x/SKILL.md", b"---\nname: x\ndescription:\n---\n")
    assert [(d.code, d.field, d.line) for d in v.diagnostics] == [("opencode-description-not-string", "description", 3)]
    v = OPENCODE.accept("/x/SKILL.md", b"---\nname: x\ndescription: d\ndescription: e\n---\n")
    d = v.diagnostics[0]
    assert (d.code, d.line, d.column) == ("opencode-invalid-frontmatter", 4, 1)
    assert v.reason == ("invalid front matter (duplicated mapping key at line 4); the sanitize retry changes nothing, "
                        "so gray-matter's cache hands back empty data and opencode drops the file silently")


def test_a_failed_retry_is_a_logged_error() -> None:
    v = OPENCODE.accept("/x/SKILL.md", b"---\nname: x\ndescription: Use when: a\nbad: [\n---\n")
    assert [d.code for d in v.diagnostics] == ["opencode-frontmatter-error"]
    assert v.reason.startswith("failed to load skill: /x/SKILL.md: Failed to parse YAML frontmatter: ")
    assert "opencode logs an ERROR" in v.reason


def test_sanitize_retry_is_a_warning_with_field_and_line() -> None:
    v = OPENCODE.accept("/x/SKILL.md", b"---\nname: x\ndescription: Use when: a\n---\n")
    assert v.accepted
    assert [(d.code, d.severity.value, d.field, d.line) for d in v.diagnostics] == [
        ("opencode-sanitize-retry", "warning", "description", 3)]


def test_sanitize_rewrites_plain_values_with_a_colon() -> None:
    text = "---\nname: x\ndescription: a: b\nmeta: {a: b}\nquoted: 'a: b'\n  indented: a: b\n---\n"
    assert sanitize(text) == (
        "---\nname: x\ndescription: |-\n  a: b\nmeta: |-\n  {a: b}\nquoted: 'a: b'\n  indented: a: b\n---\n",
        ((3, "description"), (4, "meta")))
    assert sanitize("\ufeff" + text) == ("\ufeff" + text, ())


def test_unreadable_file_verdict() -> None:
    v = OPENCODE.accept("/x/SKILL.md", None, error="Permission denied")
    assert (v.accepted, v.diagnostics[0].code) == (False, "opencode-read-error")
    assert v.reason == "failed to load skill: opencode cannot read the file (Permission denied); it logs an ERROR"


def test_lint_target_is_the_hosts_verdict(tmp_path: Path) -> None:
    path = write(tmp_path / "s/SKILL.md", "---\nname: 1e3\ndescription: d\n---\n")
    report = host_lint_file(OPENCODE, str(path))
    assert not report.valid
    assert [(d.code, d.field, d.line) for d in report.diagnostics] == [("opencode-name-not-string", "name", 2)]
    hidden = write(tmp_path / "h/SKILL.md", "---\nname: h\n---\n")
    assert [d.code for d in host_lint_file(OPENCODE, str(hidden)).diagnostics] == ["opencode-loads", "opencode-hides"]


# ----------------------------------------------------------------------------------- race


def test_same_name_copies_race(ws: Path) -> None:
    a = skill(ws / "home/.claude/skills/a", "dup", "from home")
    b = skill(ws / "repo/sub/.opencode/skills/b", "dup", "from project")
    cat = open_ws(ws)
    sa, sb = cat.current.by_location(str(a)), cat.current.by_location(str(b))
    assert (sa.status, sa.shadowed_by, sb.status, sb.shadowed_by) == (Status.RACE, (str(b),), Status.RACE, (str(a),))
    assert sa.status_reason == ("2 files are named `dup`: opencode parses them concurrently and each parse that "
                                "finishes overwrites the name (WARN duplicate skill name), so any of them may win")


def test_a_file_named_like_the_builtin_always_replaces_it(ws: Path) -> None:
    f = skill(ws / "repo/sub/.agents/skills/co", "customize-opencode", "mine")
    cat = open_ws(ws)
    builtin = cat.current.by_location(BUILTIN_LOCATION)
    assert (builtin.status, builtin.shadowed_by) == (Status.SHADOWED, (str(f),))
    assert cat.current.by_location(str(f)).status is Status.OK


def test_identical_copies_needing_the_retry_share_the_cache(ws: Path) -> None:
    text = "---\nname: cached\ndescription: Use when: it matters\n---\nbody\n"
    a = write(ws / "home/.claude/skills/a/SKILL.md", text)
    b = write(ws / "repo/sub/.agents/skills/b/SKILL.md", text)
    c = write(ws / "home/.agents/skills/c/SKILL.md", "\ufeff" + text)
    cat = open_ws(ws)
    sa = cat.current.by_location(str(a))
    assert sa.status is Status.RACE
    assert set(sa.shadowed_by) == {str(b), str(c)}
    assert "only the first one parsed loads" in sa.status_reason
    assert "none of them loads" in sa.status_reason
    assert [r.location for r in cat.current.rejected] == [str(c)]


def test_identical_copies_that_fail_are_logged_once_either_may_be_the_one(ws: Path) -> None:
    text = "---\nname: x\ndescription: Use when: a\nbad: [\n---\n"
    a = write(ws / "home/.claude/skills/a/SKILL.md", text)
    b = write(ws / "home/.agents/skills/b/SKILL.md", text)
    lone = write(ws / "repo/sub/.agents/skills/c/SKILL.md", text.replace("name: x", "name: y"))
    cat = open_ws(ws)
    rejected = {r.location: r for r in cat.current.rejected}
    assert [d.code for d in rejected[str(a)].diagnostics] == ["opencode-frontmatter-error", "opencode-cache-twin"]
    assert rejected[str(a)].diagnostics[1].message == (
        f"byte-identical to {b}: opencode logs the failure for whichever copy it parses first and drops the others "
        "without a log")
    assert rejected[str(b)].diagnostics[1].message.startswith(f"byte-identical to {a}: ")
    assert [d.code for d in rejected[str(lone)].diagnostics] == ["opencode-frontmatter-error"]


def test_object_prototype_names_are_listed(ws: Path) -> None:
    skill(ws / "repo/sub/.claude/skills/c", "constructor")
    skill(ws / "repo/sub/.claude/skills/p", "__proto__")
    cat = open_ws(ws)
    assert [s.name for s in cat.current.sources if s.location != BUILTIN_LOCATION] == ["constructor"]
    assert "prototype" in cat.current.rejected[0].warning.message


# ----------------------------------------------------------------------------------- hidden


def test_no_description_is_listed_but_hidden(ws: Path) -> None:
    f = skill(ws / "repo/sub/.claude/skills/n", "nodesc", None)
    cat = open_ws(ws)
    s = cat.current.by_location(str(f))
    assert (s.status, s.description) == (Status.HIDDEN, None)
    entry = next(e for e in cat.model_catalog().entries if e.location == str(f))
    assert (entry.state, entry.note) == (EntryState.HIDDEN, "no description key")


def test_permission_rules_last_match_wins(ws: Path) -> None:
    for n in ("perm-a", "perm-ok", "other"):
        skill(ws / f"repo/sub/.claude/skills/{n}", n)
    write(ws / "repo/opencode.json", json.dumps({"permission": {"skill": {"perm-*": "deny", "perm-ok": "allow"}}}))
    cat = open_ws(ws)
    statuses = {s.name: s.status for s in cat.current.sources}
    assert statuses == {"customize-opencode": Status.OK, "perm-a": Status.HIDDEN, "perm-ok": Status.OK,
                        "other": Status.OK}
    assert "<name>perm-a</name>" not in cat.model_catalog().text
    assert "<name>perm-ok</name>" in cat.model_catalog().text


def test_permission_from_env_and_tools(ws: Path) -> None:
    skill(ws / "repo/sub/.claude/skills/a", "a")
    cat = open_ws(ws, OPENCODE_PERMISSION=json.dumps({"skill": {"a": "deny"}}))
    assert cat.current.by_location(str(ws / "repo/sub/.claude/skills/a/SKILL.md")).status is Status.HIDDEN
    write(ws / "repo/opencode.json", json.dumps({"tools": {"skill": False}}))
    shown = open_ws(ws).model_catalog()
    assert shown.text == ""
    assert shown.notes[0].startswith("no skills section: the skill permission is denied for every name")
    bad = open_ws(ws, OPENCODE_PERMISSION="{bad")
    assert [w.kind for w in bad.current.warnings] == ["opencode-permission-env"]


def test_whole_section_denied(ws: Path) -> None:
    skill(ws / "repo/sub/.claude/skills/a", "a")
    write(ws / "repo/opencode.json", json.dumps({"permission": {"skill": "deny"}}))
    cat = open_ws(ws)
    shown = cat.model_catalog()
    assert (shown.text, shown.listed) == ("", 0)
    assert {e.state for e in shown.entries} == {EntryState.HIDDEN}


def test_nothing_shown_gives_the_empty_block(ws: Path) -> None:
    skill(ws / "repo/sub/.claude/skills/a", "a", None)
    write(ws / "repo/opencode.json", json.dumps({"permission": {"skill": {"customize-opencode": "deny"}}}))
    assert open_ws(ws).model_catalog().text == (
        "Skills provide specialized instructions and workflows for specific tasks.\n"
        "Use the skill tool to load a skill when a task matches its description.\n"
        "No skills are currently available.")


# ----------------------------------------------------------------------------------- order


def test_listing_order_puts_array_index_names_first(ws: Path) -> None:
    root = ws / "repo/sub/.claude/skills"
    for folder, name in (("a", "zeta"), ("b", '"123"'), ("c", "alpha"), ("d", '"7"'), ("e", '"007"')):
        skill(root / folder, name)
    assert [s.name for s in open_ws(ws).current.sources] == ["7", "123", "customize-opencode", "zeta", "alpha", "007"]


def test_catalog_order_is_locale_compare() -> None:
    names = ["b", "B", "a", "_x", "-x", "Zed", "éclair", "eclair", "Eclair", "alpha10", "alpha2", "aa", "A", "~t", "1"]
    assert sorted(names, key=collation_key) == ["_x", "-x", "~t", "1", "a", "A", "aa", "alpha10", "alpha2", "b",
                                                "B", "eclair", "Eclair", "éclair", "Zed"]


# ----------------------------------------------------------------------------------- catalog


def test_catalog_text_exactly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = tmp_path / "r&<co>"
    fake_git(repo)
    skill(home / ".agents/skills/empty", "empty", "''")
    write(repo / ".opencode/skills/multi/SKILL.md",
          '---\nname: multi\ndescription: |-\n  first line\n    indented\n  <tag> & "q"\n---\n')
    skill(repo / ".agents/skills/it's", "quote's", "path with a quote & <angle>")
    skill(repo / ".agents/skills/nodesc", "nodesc", None)
    cat = open_ws(tmp_path, cwd=repo)
    shown = cat.model_catalog()
    marker = BUILTIN.description_marker()
    assert shown.text == (
        "Skills provide specialized instructions and workflows for specific tasks.\n"
        "Use the skill tool to load a skill when a task matches its description.\n"
        "<available_skills>\n"
        "  <skill>\n    <name>customize-opencode</name>\n"
        f"    <description>{marker}</description>\n"
        "    <location>&lt;built-in&gt;</location>\n  </skill>\n"
        "  <skill>\n    <name>empty</name>\n    <description></description>\n"
        f"    <location>{home}/.agents/skills/empty/SKILL.md</location>\n  </skill>\n"
        "  <skill>\n    <name>multi</name>\n"
        '    <description>first line\n  indented\n<tag> & "q"</description>\n'
        f"    <location>{tmp_path}/r&amp;&lt;co&gt;/.opencode/skills/multi/SKILL.md</location>\n  </skill>\n"
        "  <skill>\n    <name>quote's</name>\n    <description>path with a quote & <angle></description>\n"
        f"    <location>{tmp_path}/r&amp;&lt;co&gt;/.agents/skills/it&#39;s/SKILL.md</location>\n  </skill>\n"
        "</available_skills>")
    assert (shown.budget, shown.used, len(marker)) == (None, len(shown.text), 386)
    assert cat.index_budget is None
    assert "a marker of the same length (386 characters)" in shown.notes[-1]


def test_empty_workspace_catalog_is_701_characters(ws: Path) -> None:
    assert open_ws(ws).model_catalog().used == 701


def test_race_groups_show_one_entry_and_say_so(ws: Path) -> None:
    a = skill(ws / "home/.claude/skills/a", "dup", "first")
    b = skill(ws / "repo/sub/.opencode/skills/b", "dup", "second")
    shown = open_ws(ws).model_catalog()
    assert shown.text.count("<name>dup</name>") == 1
    assert "<description>first</description>" in shown.text
    states = {e.location: e.state for e in shown.entries}
    assert (states[str(a)], states[str(b)]) == (EntryState.LISTED, EntryState.HIDDEN)
    assert shown.notes[0] == ("opencode's same-name race: `dup` (2 copies) — opencode parses the copies concurrently "
                              "and keeps whichever finishes last; the catalog text shows each with its first copy in "
                              "scan order, but any copy may be the one opencode shows")


def test_catalog_of_renders_the_given_winner(ws: Path) -> None:
    skill(ws / "home/.claude/skills/a", "dup", "first")
    b = skill(ws / "repo/sub/.opencode/skills/b", "dup", "second")
    cat = open_ws(ws)
    chosen = [s for s in cat.current.sources if s.name != "dup" or s.location == str(b)]
    assert "<description>second</description>" in catalog_of(chosen, (), None, builtin_texts(None, "/none")).text


# ----------------------------------------------------------------------------------- tool


def test_skill_tool_output(ws: Path) -> None:
    folder = ws / "repo/sub/.claude/skills/demo"
    skill(folder, "demo", "d", body="\n  # Demo\n\nSteps.\n\n")
    write(folder / "scripts/run.sh", "#!/bin/sh\n")
    write(folder / ".hidden", "x")
    write(folder / "nested/SKILL.md", "not a skill file to list")
    (folder / "link.txt").symlink_to(folder / ".hidden")
    cat = open_ws(ws)
    result = OPENCODE.skill_tool(cat).call({"name": "demo"})
    assert result.output == "\n".join([
        '<skill_content name="demo">', "# Skill: demo", "", "# Demo\n\nSteps.", "",
        f"Base directory for this skill: {folder}",
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
        "Note: file list is sampled.", "", "<skill_files>",
        f"<file>{folder}/.hidden</file>\n<file>{folder}/scripts/run.sh</file>", "</skill_files>", "</skill_content>"])
    assert result.title == "Loaded skill: demo"


def test_skill_tool_unknown_name(ws: Path) -> None:
    for n in ("b", "Z", "a", "ä"):
        skill(ws / f"repo/sub/.claude/skills/{n}", n)
    with pytest.raises(ToolError) as err:
        OPENCODE.skill_tool(open_ws(ws)).call({"name": "nosuch"})
    assert err.value.message == 'Skill "nosuch" not found. Available skills: Z, a, b, customize-opencode, ä'


def test_skill_tool_loads_a_skill_without_description_and_refuses_denied(ws: Path) -> None:
    skill(ws / "repo/sub/.claude/skills/n", "nodesc", None)
    skill(ws / "repo/sub/.claude/skills/x", "denied")
    write(ws / "repo/opencode.json", json.dumps({"permission": {"skill": {"denied": "deny"}}}))
    tool = OPENCODE.skill_tool(open_ws(ws))
    assert tool.call({"name": "nodesc"}).output.startswith('<skill_content name="nodesc">')
    with pytest.raises(ToolError) as err:
        tool.call({"name": "denied"})
    assert err.value.message == (
        "The user has specified a rule which prevents you from using this specific tool call. Here are some of the "
        'relevant rules [{"permission":"*","action":"allow","pattern":"*"},'
        '{"permission":"skill","pattern":"denied","action":"deny"}]')


def test_skill_tool_absent_when_every_name_is_denied(ws: Path) -> None:
    write(ws / "repo/opencode.json", json.dumps({"permission": {"skill": "deny"}}))
    with pytest.raises(ToolError) as err:
        OPENCODE.skill_tool(open_ws(ws)).call({"name": "customize-opencode"})
    assert err.value.code == "no-skill-tool"


def test_builtin_loads_with_dot_base_directory(ws: Path) -> None:
    result = OPENCODE.skill_tool(open_ws(ws)).call({"name": "customize-opencode"})
    assert "Base directory for this skill: .\n" in result.output
    assert BUILTIN.content_marker() in result.output


# ----------------------------------------------------------------------------------- built-in, watch, compare


def test_builtin_text_needs_a_verified_executable(tmp_path: Path) -> None:
    fake = write(tmp_path / "bin/opencode", b"\0" * 1_100_000 + b'MA="customize-opencode",gA="not the text";')
    fake.chmod(0o755)
    texts = builtin_texts(str(tmp_path / "bin"), str(tmp_path))
    assert (texts.description, texts.content) == (None, None)


def test_watch_targets_cover_roots_walk_and_config(ws: Path) -> None:
    skill(ws / "repo/sub/.claude/skills/a", "a")
    write(ws / "repo/opencode.json", "{}")
    targets = open_ws(ws).watch_targets()
    assert str(ws / "repo/sub/.claude/skills") in targets.roots
    assert str(ws / "repo") in targets.config_dirs and str(ws / "repo/sub") in targets.config_dirs
    assert str(ws / "repo/opencode.json") in targets.config_files
    assert "opencode.jsonc" in targets.names


def test_compare_shows_the_race(ws: Path) -> None:
    skill(ws / "home/.claude/skills/a", "dup")
    skill(ws / "repo/sub/.opencode/skills/b", "dup")
    context = HostContext(cwd=str(ws / "repo/sub"),
                          env=Environment.from_mapping({"HOME": str(ws / "home"), "PATH": PATH}))
    rows = compare(context, [OPENCODE]).rows
    assert [r.cells["opencode"].state for r in rows] == [CellState.RACE, CellState.RACE]


def test_roots_a_switch_turns_off_say_why(ws: Path) -> None:
    a = skill(ws / "home/.agents/skills/a", "a")
    b = skill(ws / "repo/.opencode/skills/b", "b")
    env = {"HOME": str(ws / "home"), "PATH": PATH, "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
           "OPENCODE_DISABLE_PROJECT_CONFIG": "true"}
    context = HostContext(cwd=str(ws / "repo/sub"), env=Environment.from_mapping(env))
    cells = {r.location: r.cells["opencode"] for r in compare(context, [OPENCODE, get_host("zuno")]).rows}
    assert (cells[str(a)].state, cells[str(a)].reason) == (
        CellState.NOT_READ, "OPENCODE_DISABLE_EXTERNAL_SKILLS is on: opencode reads no .claude or .agents skills")
    roots = Catalog.from_context(OPENCODE, context).current.roots
    assert unread_reason(OPENCODE, roots, [str(b)]) == (
        "OPENCODE_DISABLE_PROJECT_CONFIG is on: opencode reads no project .opencode folder")


def test_refusal_keeps_the_roots_as_unread(ws: Path) -> None:
    cat = open_ws(ws, OPENCODE_PURE="nope")
    assert cat.current.roots and all(r.unread.startswith("opencode would refuse to start") for r in cat.current.roots)


def test_jsyaml_fast_path_equals_the_patched_loader():
    """The libyaml fast path gives exactly what the pure-Python js-yaml 3 emulation gives (values
    and failures) on texts that touch every implicit type, quoting, blocks, flows and damage."""
    import random

    from skillshelf.core.hosts.opencode.jsyaml import YamlFailure, load, load_slow

    def result(fn, text):
        try:
            return ("ok", fn(text))
        except YamlFailure as exc:
            return ("fails", exc.problem)

    base = [
        "name: a\ndescription: plain text",
        "name: 1:20\ndescription: 0x1F\nversion: 1e3\nflag: yes\nother: ~",
        "name: 'single'\ndescription: \"double \\u00e9\"\nwhen: 2024-13-45",
        "description: >-\n  folded\n  two\nmetadata:\n  key: value\n  list:\n    - a\n    - b",
        "description: |\n  literal\n\n  kept\nname: [a, b]\ntags: {x: 1}",
        "name: x\nname: y",
        "description: Use when: colons",
        "key: 'a' b: c",
    ]
    rng = random.Random(5)
    texts = list(base)
    pieces = [": ", '"', "'", "#", " ", "- ", "[", "{", "}", "yes", "0o17", "1_000", ".5", "null", ":", "-", "\\"]
    for b in base:
        for _ in range(60):
            lines = b.split("\n")
            i = rng.randrange(len(lines))
            at = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:at] + rng.choice(pieces) + lines[i][at:]
            texts.append("\n".join(lines))
    assert [result(load, t) for t in texts] == [result(load_slow, t) for t in texts]
