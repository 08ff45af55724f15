"""Tests for skillshelf.core.discovery and hosts.zuno (SPEC D1–D6; conformance §0.3, Z001,
Z003, Z004, Z009, Z017–Z031; cases B08, B09, B10).

Environment per conformance §0.2: ``HOME=T/home``, ``XDG_CONFIG_HOME=T/home/.config``,
``XDG_CACHE_HOME=T/home/.cache``. A ``.git`` directory at ``T`` bounds the project walk so
stray ``.zuno`` / ``.agents`` folders above the temporary directory cannot leak in. Skill names
equal directory basenames in these scenarios, so names are read from the path (this module
does not parse frontmatter).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.discovery import Discovery, discover, uncovered_folders
from skillshelf.core.hosts.zuno.roots import (
    path_not_found,
    zuno_discover,
    zuno_remote_cache_root,
    zuno_roots,
    zuno_watch_roots,
)
from skillshelf.core.model import CatalogWarning, Provenance, Root, Severity
from skillshelf.core.paths import Environment

PZ = Provenance.PROJECT_ZUNO
PA = Provenance.PROJECT_AGENTS
GZ = Provenance.GLOBAL_ZUNO
GA = Provenance.GLOBAL_AGENTS
CP = Provenance.CONFIGURED_PATH
RM = Provenance.REMOTE


@pytest.fixture
def T(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path


def env_for(T: Path, **extra: str) -> Environment:
    return Environment.from_mapping({
        "HOME": str(T / "home"),
        "XDG_CONFIG_HOME": str(T / "home/.config"),
        "XDG_CACHE_HOME": str(T / "home/.cache"),
        **extra,
    })


def skill(T: Path, relative: str, name: str | None = None) -> str:
    """Discovery-unit helper: ``relative/SKILL.md`` = ``---\\nname: N\\ndescription: d\\n---\\nB\\n``."""
    path = T / relative / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name or Path(relative).name}\ndescription: d\n---\nB\n")
    return str(path)


def run(T: Path, cwd: str = "proj", *, paths=(), env: Environment | None = None,
        remote_dirs=()) -> Discovery:
    (T / cwd).mkdir(parents=True, exist_ok=True)
    return zuno_discover(env or env_for(T), str(T / cwd), paths=list(paths),
                         remote_dirs=list(remote_dirs))


def pairs(T: Path, d: Discovery) -> list[tuple[Provenance, str]]:
    return [(m.provenance, os.path.relpath(m.location, T)) for m in d.matches]


def names(d: Discovery) -> list[str]:
    return [os.path.basename(m.directory) for m in d.matches]


# ---- conformance: tests/skill.rs ----------------------------------------------------------

def test_z001_canonical_roots_contribute_and_legacy_zuno_roots_are_ignored(T):
    for rel in ["proj/sub/.zuno/skill/from-project-zuno", "proj/sub/.agents/skills/from-project-agents",
                "proj/.claude/skills/from-project-claude", "home/.config/zuno/skill/from-config",
                "home/.config/zuno/skills/from-config-plural", "home/.zuno/skill/from-home-dot-zuno",
                "home/.agents/skills/from-agents", "home/.claude/skills/from-claude", "extra/from-path"]:
        skill(T, rel)
    d = run(T, "proj/sub", paths=[str(T / "extra")])
    assert names(d) == ["from-project-zuno", "from-project-agents", "from-config", "from-agents",
                        "from-path"]
    assert d.warnings == ()


def test_z003_duplicate_name_keeps_both_sources_project_first(T):
    skill(T, "proj/.zuno/skill/dupe")
    skill(T, "home/.agents/skills/dupe")
    d = run(T, "proj")
    assert [m.location for m in d.matches] == [
        str(T / "proj/.zuno/skill/dupe/SKILL.md"), str(T / "home/.agents/skills/dupe/SKILL.md")]
    assert d.warnings == ()


def test_z004_config_directory_does_not_hide_same_named_agent_skills(T):
    for rel in ["home/.claude/skills/dupe", "home/.agents/skills/dupe", "home/.config/zuno/skill/dupe"]:
        skill(T, rel)
    d = run(T, "proj")
    assert names(d) == ["dupe", "dupe"]
    assert pairs(T, d) == [(GZ, "home/.config/zuno/skill/dupe/SKILL.md"),
                           (GA, "home/.agents/skills/dupe/SKILL.md")]
    assert d.warnings == ()


def test_z009_dirs_are_reported_for_every_match(T):
    skill(T, "home/.agents/skills/one")
    skill(T, "home/.config/zuno/skill/two")
    assert run(T).dirs() == [str(T / "home/.config/zuno/skill/two"), str(T / "home/.agents/skills/one")]


# ---- conformance: discovery.rs unit tests --------------------------------------------------

def test_z017_every_local_root_is_visited_in_zuno_scope_order(T):
    for rel in ["proj/sub/.zuno/skill/pz", "proj/sub/.agents/skills/pa", "proj/.claude/skills/pc",
                "home/.config/zuno/skill/gz", "home/.agents/skills/ga", "home/.claude/skills/gc",
                "extra/e"]:
        skill(T, rel)
    d = run(T, "proj/sub", paths=[str(T / "extra")])
    assert pairs(T, d) == [
        (PZ, "proj/sub/.zuno/skill/pz/SKILL.md"),
        (PA, "proj/sub/.agents/skills/pa/SKILL.md"),
        (GZ, "home/.config/zuno/skill/gz/SKILL.md"),
        (GA, "home/.agents/skills/ga/SKILL.md"),
        (CP, "extra/e/SKILL.md"),
    ]
    assert d.warnings == ()


def test_z018_opencode_directories_are_not_skill_sources(T):
    skill(T, "home/.config/opencode/skill/wrong")
    skill(T, "xdg/opencode/skills/still-wrong")
    skill(T, "proj/.opencode/skills/project-wrong")
    env = Environment.from_mapping({"HOME": str(T / "home"), "XDG_CONFIG_HOME": str(T / "xdg"),
                                    "XDG_CACHE_HOME": str(T / "home/.cache")})
    d = run(T, "proj", env=env)
    assert d.matches == () and d.warnings == ()


def test_z019_claude_directories_are_never_implicit_skill_sources(T):
    for rel in ["home/.claude/skills/a", "proj/.claude/skills/c", "home/.agents/skills/b",
                "proj/.agents/skills/d"]:
        skill(T, rel)
    assert pairs(T, run(T, "proj")) == [(PA, "proj/.agents/skills/d/SKILL.md"),
                                        (GA, "home/.agents/skills/b/SKILL.md")]


def test_z020_claude_directory_can_still_be_selected_as_an_explicit_path(T):
    skill(T, "home/.claude/skills/a")
    d = run(T, "proj", paths=[str(T / "home/.claude/skills")])
    assert pairs(T, d) == [(CP, "home/.claude/skills/a/SKILL.md")]


def test_z021_external_switch_removes_agent_skills_but_keeps_zuno_roots(T):
    for rel in ["home/.config/opencode/skill/o", "home/.claude/skills/a", "home/.agents/skills/b",
                "proj/.opencode/skills/po", "proj/.agents/skills/c", "proj/.zuno/skill/pz",
                "home/.config/zuno/skill/d"]:
        skill(T, rel)
    d = run(T, "proj", env=env_for(T, ZUNO_DISABLE_EXTERNAL_SKILLS="1"))
    assert pairs(T, d) == [(PZ, "proj/.zuno/skill/pz/SKILL.md"),
                           (GZ, "home/.config/zuno/skill/d/SKILL.md")]
    assert [r.provenance for r in d.roots] == [PZ, GZ]


@pytest.mark.parametrize("value", ["0", "", "yes"])
def test_z021_external_switch_not_truthy_keeps_agents(T, value):
    skill(T, "proj/.agents/skills/c")
    d = run(T, "proj", env=env_for(T, ZUNO_DISABLE_EXTERNAL_SKILLS=value))
    assert pairs(T, d) == [(PA, "proj/.agents/skills/c/SKILL.md")]


def test_z022_project_config_switch_only_removes_project_zuno(T):
    skill(T, "proj/.zuno/skill/zuno")
    skill(T, "proj/.agents/skills/agents")
    d = run(T, "proj", env=env_for(T, ZUNO_DISABLE_PROJECT_CONFIG="true"))
    assert pairs(T, d) == [(PA, "proj/.agents/skills/agents/SKILL.md")]


def test_configured_relative_paths_resolve_against_cwd_not_worktree(T):
    """discovery.rs ``configured_relative_paths_resolve_against_directory_not_worktree``."""
    skill(T, "proj/sub/extra/a")
    skill(T, "proj/extra/b")
    (T / "proj/.git").mkdir(parents=True)
    d = run(T, "proj/sub", paths=["extra"])
    assert pairs(T, d) == [(CP, "proj/sub/extra/a/SKILL.md")]


def test_z024_configured_tilde_paths_expand_against_home(T):
    skill(T, "home/tilde/a")
    assert pairs(T, run(T, "proj", paths=["~/tilde"])) == [(CP, "home/tilde/a/SKILL.md")]


def test_z025_configured_path_that_is_not_a_directory_warns_and_continues(T):
    skill(T, "extra/a")
    (T / "afile").write_text("x")
    d = run(T, "proj", paths=[str(T / "absent"), str(T / "extra"), "afile"])
    assert pairs(T, d) == [(CP, "extra/a/SKILL.md")]
    assert d.warnings == (
        CatalogWarning("PathNotFound", str(T / "absent"), f"skill path not found: {T / 'absent'}"),
        CatalogWarning("PathNotFound", str(T / "proj/afile"),
                       f"skill path not found: {T / 'proj/afile'}"),
    )
    assert [r.provenance for r in d.roots].count(CP) == 1


def test_z026_same_file_reached_by_two_roots_is_one_match(T):
    skill(T, "home/.agents/skills/a")
    d = run(T, "proj", paths=[str(T / "home/.agents/skills")])
    assert pairs(T, d) == [(GA, "home/.agents/skills/a/SKILL.md")]
    assert d.matches[0].aliases == ()  # the same spelling again is not an alias
    assert [r.provenance for r in d.roots] == [GZ, GA, CP]


def test_z027_project_zuno_leads_and_opencode_is_not_a_source(T):
    for rel in ["home/.config/opencode/skill/ignored-global", "proj/.opencode/skills/ignored-project",
                "proj/sub/.zuno/skill/project-zuno", "proj/sub/.agents/skills/project-agents",
                "home/.config/zuno/skill/global-zuno", "home/.agents/skills/global-agents"]:
        skill(T, rel)
    d = run(T, "proj/sub")
    assert [os.path.relpath(m.location, T) for m in d.matches] == [
        "proj/sub/.zuno/skill/project-zuno/SKILL.md",
        "proj/sub/.agents/skills/project-agents/SKILL.md",
        "home/.config/zuno/skill/global-zuno/SKILL.md",
        "home/.agents/skills/global-agents/SKILL.md",
    ]


def test_z028_symlink_alias_is_one_canonical_source(T):
    real = skill(T, "home/.agents/skills/a")
    (T / "aliases").mkdir()
    (T / "aliases/a").symlink_to(T / "home/.agents/skills/a")
    d = run(T, "proj", paths=[str(T / "aliases")])
    assert pairs(T, d) == [(GA, "home/.agents/skills/a/SKILL.md")]
    assert d.matches[0].aliases == (str(T / "aliases/a/SKILL.md"),)
    assert d.matches[0].canonical == os.path.realpath(real)


def test_z029_config_dir_override_is_part_of_the_zuno_config_root(T):
    skill(T, "elsewhere/skill/a")
    d = run(T, "proj", env=env_for(T, ZUNO_CONFIG_DIR=str(T / "elsewhere")))
    assert pairs(T, d) == [(GZ, "elsewhere/skill/a/SKILL.md")]
    assert [r.path for r in d.roots if r.provenance is GZ] == [
        str(T / "home/.config/zuno"), str(T / "elsewhere")]


def test_z030_dirs_are_the_parents_of_every_match_in_order(T):
    skill(T, "home/.agents/skills/a")
    skill(T, "home/.agents/skills/b")
    assert run(T).dirs() == [str(T / "home/.agents/skills/a"), str(T / "home/.agents/skills/b")]


def test_z031_remote_cache_root_follows_xdg_cache_home(T):
    assert zuno_remote_cache_root(env_for(T)) == str(T / "home/.cache/zuno/skills")


# ---- root list details ---------------------------------------------------------------------

def test_roots_rows_order_fields_and_exists(T):
    (T / "proj/sub/.zuno/skill").mkdir(parents=True)
    (T / "proj/.zuno").mkdir(parents=True)  # exists, but has no skill/ below
    (T / "proj/.agents/skills").mkdir(parents=True)
    (T / "home/.agents").mkdir(parents=True)
    (T / "extra").mkdir()
    (T / "cache/r1").mkdir(parents=True)
    roots, warnings = zuno_roots(env_for(T), str(T / "proj/sub"), paths=[str(T / "extra")],
                                 remote_dirs=[str(T / "cache/r1")])
    assert warnings == ()
    assert [(r.provenance, os.path.relpath(r.path, T), r.prefix, r.dot, r.exists) for r in roots] == [
        (PZ, "proj/sub/.zuno", "skill", False, True),
        (PZ, "proj/.zuno", "skill", False, False),
        (PA, "proj/.agents", "skills", True, True),
        (GZ, "home/.config/zuno", "skill", False, False),
        (GA, "home/.agents", "skills", True, False),
        (CP, "extra", "", False, True),
        (RM, "cache/r1", "", False, True),
    ]


def test_global_agents_only_when_home_agents_is_a_directory(T):
    (T / "home/.agents").write_text("not a dir")
    roots, _ = zuno_roots(env_for(T), str(T))
    assert GA not in [r.provenance for r in roots]


def test_walk_stops_at_worktree(T):
    skill(T, "outer/.agents/skills/above")
    skill(T, "outer/repo/.agents/skills/inside")
    (T / "outer/repo/.git").write_text("gitdir: x\n")
    d = run(T, "outer/repo/deep")
    assert names(d) == ["inside"]


def test_explicit_no_worktree_walks_past_git(T):
    skill(T, "outer/.agents/skills/above")
    (T / "outer/repo/.git").mkdir(parents=True)
    roots, _ = zuno_roots(env_for(T), str(T / "outer/repo"), worktree=None)
    assert str(T / "outer/.agents") in [r.path for r in roots]
    roots, _ = zuno_roots(env_for(T), str(T / "outer/repo"))
    assert str(T / "outer/.agents") not in [r.path for r in roots]


def test_global_zuno_already_scanned_as_project_zuno_is_skipped(T):
    """SPEC D1 row 3: a global-zuno directory with the canonical path of a row-1 root is left out."""
    skill(T, "proj/.zuno/skill/p")
    roots, _ = zuno_roots(env_for(T, ZUNO_CONFIG_DIR=str(T / "proj/.zuno")), str(T / "proj"))
    assert [(r.provenance, os.path.relpath(r.path, T)) for r in roots] == [
        (PZ, "proj/.zuno"), (GZ, "home/.config/zuno")]
    # The same through a symlink: $XDG_CONFIG_HOME/zuno -> proj/.zuno.
    (T / "home/.config").mkdir(parents=True)
    (T / "home/.config/zuno").symlink_to(T / "proj/.zuno")
    d = run(T, "proj")
    assert [r.provenance for r in d.roots] == [PZ]
    assert pairs(T, d) == [(PZ, "proj/.zuno/skill/p/SKILL.md")]


def test_config_dir_equal_to_xdg_zuno_is_listed_once(T):
    roots, _ = zuno_roots(env_for(T, ZUNO_CONFIG_DIR=str(T / "home/.config/zuno/")), str(T))
    assert [r.provenance for r in roots] == [GZ]


def test_empty_config_dir_is_ignored(T):
    roots, _ = zuno_roots(env_for(T, ZUNO_CONFIG_DIR=""), str(T))
    assert [r.path for r in roots] == [str(T / "home/.config/zuno")]


def test_remote_root_is_scanned_last(T):
    skill(T, "home/.agents/skills/x")
    skill(T, "cache/zuno/skills/remote-one")
    d = run(T, "proj", remote_dirs=[str(T / "cache/zuno/skills/remote-one")])
    assert pairs(T, d) == [(GA, "home/.agents/skills/x/SKILL.md"),
                           (RM, "cache/zuno/skills/remote-one/SKILL.md")]


def test_relative_cwd_resolves_against_the_process_directory(T, monkeypatch):
    skill(T, "proj/.agents/skills/a")
    monkeypatch.chdir(T)
    roots, _ = zuno_roots(env_for(T), "proj")
    assert next(r.path for r in roots) == str(T / "proj/.agents")


# ---- watch roots (SPEC H4) -----------------------------------------------------------------

def test_watch_roots_worktree_config_and_paths(T):
    real = os.path.realpath(T)
    (T / "proj/sub").mkdir(parents=True)
    (T / "home/.agents/skills").mkdir(parents=True)
    (T / "extra/inner").mkdir(parents=True)
    skill(T, "cfg/one")
    watch = zuno_watch_roots(
        env_for(T, ZUNO_CONFIG_DIR=str(T / "zcd")), str(T / "proj/sub"),
        paths=[str(T / "extra"), str(T / "extra/inner"), "~/not-yet"],
        config_paths=[str(T / "cfg/one/SKILL.md"), str(T / "proj/sub/x")],
    )
    # The worktree T exists and every candidate lies below it, so T alone is watched.
    assert watch == (real,)
    # Without a worktree the walk root is cwd; outside candidates stay, deepest ones folded.
    watch = zuno_watch_roots(
        env_for(T, ZUNO_CONFIG_DIR=str(T / "zcd")), str(T / "proj/sub"), worktree=None,
        paths=[str(T / "extra"), str(T / "extra/inner"), "~/not-yet"],
        config_paths=[str(T / "cfg/one/SKILL.md")],
    )
    # Shallowest first (stable among equals); extra/inner folded into the existing extra.
    assert watch == (
        real + "/extra", real + "/proj/sub", real + "/zcd/skill", real + "/home/not-yet",
        real + "/cfg/one", real + "/home/.agents/skills", real + "/home/.config/zuno/skill",
    )


def test_watch_roots_skip_home_agents_when_absent_or_disabled(T):
    (T / "proj").mkdir()
    env = env_for(T)
    assert os.path.realpath(T / "home/.agents/skills") not in zuno_watch_roots(
        env, str(T / "proj"), worktree=None)
    (T / "home/.agents/skills").mkdir(parents=True)
    assert os.path.realpath(T / "home/.agents/skills") in zuno_watch_roots(
        env, str(T / "proj"), worktree=None)
    assert os.path.realpath(T / "home/.agents/skills") not in zuno_watch_roots(
        env_for(T, ZUNO_DISABLE_EXTERNAL_SKILLS="1"), str(T / "proj"), worktree=None)


def test_watch_roots_missing_parent_does_not_swallow_children(T):
    """A kept candidate that does not exist yet cannot be watched recursively, so a deeper
    candidate below it is kept as well."""
    (T / "proj").mkdir()
    watch = zuno_watch_roots(env_for(T), str(T / "proj"), worktree=None,
                             paths=[str(T / "later"), str(T / "later/deeper")])
    real = os.path.realpath(T)
    assert real + "/later" in watch and real + "/later/deeper" in watch


# ---- discover() on explicit roots ----------------------------------------------------------

def test_b08_two_roots_project_agents_before_global_agents(T):
    skill(T, "project/.agents/skills/formatter")
    skill(T, "user/.agents/skills/formatter")
    skill(T, "user/.agents/skills/linter")
    roots = [Root(PA, str(T / "project/.agents"), "skills", True, True),
             Root(GA, str(T / "user/.agents"), "skills", True, True)]
    d = discover(roots)
    assert pairs(T, d) == [(PA, "project/.agents/skills/formatter/SKILL.md"),
                           (GA, "user/.agents/skills/formatter/SKILL.md"),
                           (GA, "user/.agents/skills/linter/SKILL.md")]
    assert d.roots == tuple(roots)
    assert discover(list(reversed(roots))).matches[0].provenance is GA


def test_symlink_aliases_within_one_root_fold_into_the_first_spelling(T):
    skill(T, "s/real")
    (T / "s/b-alias").symlink_to("real")
    (T / "s/a-alias").symlink_to("real")
    d = discover([Root(CP, str(T / "s"), "", False, True)])
    assert [(os.path.relpath(m.location, T), tuple(os.path.relpath(a, T) for a in m.aliases))
            for m in d.matches] == [("s/a-alias/SKILL.md", ("s/b-alias/SKILL.md", "s/real/SKILL.md"))]
    assert d.matches[0].provenance is CP


def test_aliases_collect_across_roots_in_order_without_repeats(T):
    skill(T, "real/x")
    (T / "l1").mkdir()
    (T / "l1/x").symlink_to(T / "real/x")
    roots = [Root(CP, str(T / p), "", False, True) for p in ("real", "l1", "real", "l1")]
    d = discover(roots)
    assert len(d.matches) == 1
    m = d.matches[0]
    assert (m.location, m.aliases, m.root) == (str(T / "real/x/SKILL.md"),
                                              (str(T / "l1/x/SKILL.md"),), roots[0])


def test_b09_discovery_warnings_and_no_duplicates(T):
    skill(T, "skills/plain")
    skill(T, "store/linked-skill")
    (T / "skills/linked-skill").symlink_to("../store/linked-skill")
    (T / "skills/dangling").symlink_to("../store/does-not-exist")
    (T / "skills/loop").symlink_to("../skills")
    d = zuno_discover(env_for(T), str(T), paths=[str(T / "skills")])
    assert pairs(T, d) == [(CP, "skills/linked-skill/SKILL.md"), (CP, "skills/plain/SKILL.md")]
    assert [(w.kind, os.path.relpath(w.source, T)) for w in d.warnings] == [
        ("broken-symlink", "skills/dangling"), ("ScanFailed", "skills/loop"), ("symlink-loop", "skills/loop")]


def test_b10_nested_skill_is_still_a_match(T):
    for rel in ["skills/top-level", "skills/category-a/nested-one",
                "skills/category-a/group/deep-two", "skills/top-level/extras/inner"]:
        skill(T, rel)
    d = zuno_discover(env_for(T), str(T), paths=["skills"])
    assert names(d) == ["deep-two", "nested-one", "top-level", "inner"]
    assert d.warnings == ()


def test_unreadable_root_warns_and_other_roots_continue(T, monkeypatch):
    skill(T, "a/one")
    skill(T, "b/two")
    real_scandir = os.scandir
    blocked = str(T / "a")

    def guarded(path):
        if path == blocked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", guarded)
    d = zuno_discover(env_for(T), str(T), paths=["a", "b", "nope"])
    assert names(d) == ["two"]
    assert d.warnings == (path_not_found(str(T / "nope")),
                          CatalogWarning("ScanFailed", blocked, f"failed to scan skills in {blocked}: permission denied"))


def test_match_root_and_canonical_fields(T):
    skill(T, "home/.agents/skills/a")
    (T / "home/.agents/skills/a").rename(T / "home/.agents/skills/target")
    (T / "home/.agents/skills/a").symlink_to("target")
    d = run(T)
    m = d.matches[0]
    assert m.location == str(T / "home/.agents/skills/a/SKILL.md")
    assert m.canonical == os.path.realpath(T / "home/.agents/skills/target/SKILL.md")
    assert m.aliases == (str(T / "home/.agents/skills/target/SKILL.md"),)
    assert m.root.provenance is GA and m.root.path == str(T / "home/.agents")


# ---- uncovered-folder hints (SPEC D2) ------------------------------------------------------

def test_uncovered_folders_hint_for_claude_and_legacy_places(T):
    skill(T, "proj/.claude/skills/c1")
    skill(T, "proj/.claude/skills/c2")
    skill(T, "home/.claude/skills/hc")
    skill(T, "home/.config/zuno/skills/plural")
    skill(T, "proj/.agents/skills/covered")
    (T / "home/.codex/skills").mkdir(parents=True)  # exists but empty: no hint
    env = env_for(T)
    roots, _ = zuno_roots(env, str(T / "proj"))
    hints = uncovered_folders(env, str(T / "proj"), roots)
    assert [(h.severity, h.code, os.path.relpath(h.path, T)) for h in hints] == [
        (Severity.INFO, "uncovered-folder", "proj/.claude/skills"),
        (Severity.INFO, "uncovered-folder", "home/.claude/skills"),
        (Severity.INFO, "uncovered-folder", "home/.config/zuno/skills"),
    ]
    assert json.loads(hints[0].hint) == {"skills": {"paths": [str(T / "proj/.claude/skills")]}}
    assert json.loads(hints[1].hint) == {"skills": {"paths": ["~/.claude/skills"]}}
    assert hints[0].message == (f"2 SKILL.md files in {T / 'proj/.claude/skills'} not covered by "
                                "any root; add it to skills.paths to load them")
    assert hints[1].message.startswith("1 SKILL.md file in ")


def test_uncovered_folders_silent_once_a_root_covers_them(T):
    skill(T, "home/.claude/skills/hc")
    env = env_for(T)
    roots, _ = zuno_roots(env, str(T), paths=["~/.claude/skills"])
    assert uncovered_folders(env, str(T), roots) == ()
    # A root above the folder covers it only if its dot rule lets the scan into `.claude`.
    hidden_blocked = [Root(CP, str(T / "home"), "", False, True)]
    assert [h.path for h in uncovered_folders(env, str(T), hidden_blocked)] == [
        str(T / "home/.claude/skills")]
    dot_allowed = [Root(CP, str(T / "home"), "", True, True)]
    assert uncovered_folders(env, str(T), dot_allowed) == ()


def test_uncovered_folders_flags_roots_removed_by_a_switch(T):
    skill(T, "proj/.zuno/skill/pz")
    env = env_for(T, ZUNO_DISABLE_PROJECT_CONFIG="1")
    d = zuno_discover(env, str(T / "proj"), hints=True)
    assert d.matches == ()
    assert [os.path.relpath(h.path, T) for h in d.diagnostics] == ["proj/.zuno/skill"]


def test_uncovered_folders_covered_through_a_symlinked_root(T):
    skill(T, "home/.claude/skills/hc")
    (T / "linked").symlink_to(T / "home/.claude/skills")
    env = env_for(T)
    roots, _ = zuno_roots(env, str(T), paths=[str(T / "linked")])
    assert uncovered_folders(env, str(T), roots) == ()


def test_zuno_discover_without_hints_has_no_diagnostics(T):
    skill(T, "home/.claude/skills/hc")
    assert run(T).diagnostics == ()


# ---- shared cases and corpus (skipped when absent) -----------------------------------------

def test_shared_case_b08():
    case = SHARED / "cases/B08"
    if not case.is_dir():
        pytest.skip("shared cases absent")
    roots = [Root(PA, str(case / "project/.agents"), "skills", True, True),
             Root(GA, str(case / "user/.agents"), "skills", True, True)]
    d = discover(roots)
    assert [(m.provenance, os.path.relpath(m.location, case)) for m in d.matches] == [
        (PA, "project/.agents/skills/formatter/SKILL.md"),
        (GA, "user/.agents/skills/formatter/SKILL.md"),
        (GA, "user/.agents/skills/linter/SKILL.md"),
    ]
    assert d.warnings == ()


def test_shared_case_b09(tmp_path):
    case = SHARED / "cases/B09"
    if not case.is_dir():
        pytest.skip("shared cases absent")
    base = tmp_path / "B09"
    shutil.copytree(case, base, symlinks=True)
    (base / "skills").chmod(0o755)
    for name in ("linked-skill", "dangling", "loop"):
        entry = base / "skills" / name
        if not entry.is_symlink():  # checkout stored the link as a file holding its target
            target = entry.read_text().strip()
            entry.unlink()
            entry.symlink_to(target)
    d = discover([Root(CP, str(base / "skills"), "", False, True)])
    assert [os.path.relpath(m.location, base) for m in d.matches] == [
        "skills/linked-skill/SKILL.md", "skills/plain/SKILL.md"]
    # Z-T: a loop is Zuno's ScanFailed, and skillshelf's own line says it is a loop
    assert [w.kind for w in d.warnings] == ["broken-symlink", "ScanFailed", "symlink-loop"]


def test_shared_case_b10():
    skills = SHARED / "cases/B10/skills"
    if not skills.is_dir():
        pytest.skip("shared cases absent")
    d = discover([Root(CP, str(skills), "", False, True)])
    assert names(d) == ["deep-two", "nested-one", "top-level", "inner"]


def test_shared_corpus_as_a_configured_path(tmp_path):
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        pytest.skip("shared corpus absent")
    (tmp_path / ".git").mkdir()
    env = Environment.from_mapping({"HOME": str(tmp_path / "home")})
    d = zuno_discover(env, str(tmp_path), paths=[str(corpus)])
    assert len(d.matches) == 1100
    assert {m.provenance for m in d.matches} == {CP}
    # the 17 skills in dot folders are not scanned (Zuno's rule) but counted, never silent:
    # 1,100 + 17 = every one of the corpus's 1,117 SKILL.md files
    skipped = [(w.kind, os.path.relpath(w.source, corpus), w.message.split(" under ")[0]) for w in d.warnings]
    assert skipped == [
        ("dot-folder-skipped", "JimLiu__baoyu-skills/.claude", "1 SKILL.md file"),
        ("dot-folder-skipped", "github__awesome-copilot/.github", "2 SKILL.md files"),
        ("dot-folder-skipped", "openai__skills/skills/.curated", "6 SKILL.md files"),
        ("dot-folder-skipped", "openai__skills/skills/.experimental", "2 SKILL.md files"),
        ("dot-folder-skipped", "openai__skills/skills/.system", "2 SKILL.md files"),
        ("dot-folder-skipped", "zhinjs__zhin/.github", "4 SKILL.md files"),
    ]
    assert len({m.canonical for m in d.matches}) == 1100
