"""The --demo workspace (SPEC C3): packaged tree, copy with dot-folders, isolated environment."""

from __future__ import annotations

import json
import os

import pytest

from skillshelf.app.demo import GIT_MARKER, DemoWorkspace, demo_env, demo_source, prepare_demo
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment

# Every SKILL.md the demo ships, relative to the workspace root.
EXPECTED_SKILLS = {
    "home/.config/zuno/skill/pdf/SKILL.md",
    "home/.config/zuno/skill/commit-message/SKILL.md",
    "home/.config/zuno/skill/git-bisect/SKILL.md",
    "home/.agents/skills/docker-debugging/SKILL.md",
    "home/.agents/skills/changelog-writer/SKILL.md",
    "home/.agents/skills/k8s-manifests/SKILL.md",
    "home/.agents/skills/terraform-plan/SKILL.md",
    "project/.zuno/skill/pdf/SKILL.md",
    "project/.zuno/skill/sql-review/SKILL.md",
    "project/.zuno/skill/release-publish/SKILL.md",
    "project/.zuno/skill/log-triage/SKILL.md",
    "project/.agents/skills/api-design/SKILL.md",
    "project/.agents/skills/legacy-webpack/SKILL.md",
    "project/.agents/skills/meeting-notes/SKILL.md",
    "project/.agents/skills/shellcheck/SKILL.md",
    "project/.agents/skills/unit-tests/SKILL.md",
    "project/extra-skills/team-conventions/SKILL.md",
    "project/extra-skills/data/csv-cleanup/SKILL.md",
    "project/.claude/skills/frontend-a11y/SKILL.md",
    # copies the other clients settle differently (the compare screen shows them)
    "home/.claude/skills/frontend-a11y/SKILL.md",
    "project/.gemini/skills/api-design/SKILL.md",
    "project/.opencode/skills/unit-tests/SKILL.md",
}
EXPECTED_OTHER = {
    "home/.agents/skills/changelog-writer/agents/openai.yaml",
    "home/.agents/skills/terraform-plan/agents/zuno.yaml",
    "project/.zuno/skill/sql-review/references/checklist.md",
    "project/.zuno/zuno.json",
    "project/.git",
}


def _files(root: str) -> set[str]:
    out = set()
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            out.add(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return out


@pytest.fixture
def demo(tmp_path) -> DemoWorkspace:
    return prepare_demo(str(tmp_path / "demo"))


def test_c3_copy_has_every_file_including_dot_folders(demo):
    assert _files(demo.root) == EXPECTED_SKILLS | EXPECTED_OTHER


def test_c3_copy_matches_package_bytes(demo):
    src = demo_source()
    for rel in EXPECTED_SKILLS | EXPECTED_OTHER - {"project/.git"}:
        packaged = src.joinpath(*rel.split("/")).read_bytes()
        with open(os.path.join(demo.root, rel), "rb") as fh:
            assert fh.read() == packaged, rel


def test_c3_git_marker_is_a_file_so_project_is_the_worktree(demo):
    git = os.path.join(demo.cwd, ".git")
    assert os.path.isfile(git)
    with open(git, encoding="utf-8") as fh:
        assert fh.read() == GIT_MARKER


def test_c3_paths_and_env_point_inside_the_copy(demo, tmp_path):
    root = os.path.realpath(str(tmp_path / "demo"))
    assert demo.root == root
    assert demo.cwd == os.path.join(root, "project")
    assert demo.home == os.path.join(root, "home")
    assert demo.env["HOME"] == os.path.join(root, "home")
    assert demo.env["XDG_CONFIG_HOME"] == os.path.join(root, "home", ".config")
    assert demo.env["XDG_CACHE_HOME"] == os.path.join(root, "home", ".cache")
    assert os.path.isdir(demo.env["XDG_CACHE_HOME"])
    assert not [k for k in demo.env if k.startswith("ZUNO_")]


def test_c3_env_drops_zuno_and_client_vars_and_keeps_the_rest():
    env = demo_env("/w", {"ZUNO_CONFIG": "/x.json", "ZUNO_DISABLE_EXTERNAL_SKILLS": "1", "CODEX_HOME": "/c",
                          "CLAUDE_CONFIG_DIR": "/cl", "GEMINI_CLI_HOME": "/g", "OPENCODE_CONFIG_DIR": "/o",
                          "PATH": "/bin", "HOME": "/real", "XDG_CONFIG_HOME": "/real/.cfg",
                          "XDG_STATE_HOME": "/real/.state", "SKILLSHELF_STATE_DIR": "/real/journal"})
    assert env == {
        "PATH": "/bin",
        "HOME": "/w/home",
        "XDG_CONFIG_HOME": "/w/home/.config",
        "XDG_CACHE_HOME": "/w/home/.cache",
        "XDG_STATE_HOME": "/w/home/.local/state",  # (the demo's writes: a journal deleted with it)
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    from skillshelf.app.undo import state_dir
    from skillshelf.core.paths import Environment

    assert state_dir(Environment.from_mapping(env)) == "/w/home/.local/state/skillshelf"


def test_c3_default_target_is_a_fresh_temp_dir():
    first = prepare_demo()
    second = prepare_demo()
    try:
        assert first.root != second.root
        assert os.path.basename(first.root).startswith("skillshelf-demo-")
        assert os.path.isfile(os.path.join(first.cwd, ".zuno", "zuno.json"))
    finally:
        import shutil

        shutil.rmtree(first.root)
        shutil.rmtree(second.root)


def test_c3_edits_to_the_copy_do_not_touch_the_package(demo):
    path = os.path.join(demo.cwd, ".zuno", "skill", "pdf", "SKILL.md")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\nedited\n")
    packaged = demo_source().joinpath("project", ".zuno", "skill", "pdf", "SKILL.md").read_text("utf-8")
    assert not packaged.endswith("edited\n")


def test_c3_config_declares_search_explicit_disabled_and_a_small_budget(demo):
    with open(os.path.join(demo.cwd, ".zuno", "zuno.json"), encoding="utf-8") as fh:
        config = json.load(fh)
    skills = config["skills"]
    assert skills["paths"] == ["extra-skills"]
    assert skills["maxContextTokens"] == 500
    assert skills["config"] == [
        {"path": "~/.agents/skills/k8s-manifests", "exposure": "search"},
        {"path": ".zuno/skill/release-publish", "exposure": "explicit"},
        {"path": ".agents/skills/legacy-webpack/SKILL.md", "enabled": False},
    ]
    # every rule targets a skill that exists in the copy
    for rule, rel in [
        (skills["config"][0], "home/.agents/skills/k8s-manifests/SKILL.md"),
        (skills["config"][1], "project/.zuno/skill/release-publish/SKILL.md"),
        (skills["config"][2], "project/.agents/skills/legacy-webpack/SKILL.md"),
    ]:
        assert os.path.isfile(os.path.join(demo.root, rel)), rule


def _catalog(demo):
    return Catalog.open(
        demo.cwd, env=Environment.from_mapping(demo.env), pull_remote=False
    ).current


def test_c3_catalog_shows_conflict_rejections_and_uncovered_folder(demo):
    gen = _catalog(demo)
    root = demo.root
    pdf = [s.location for s in gen.sources if s.name == "pdf"]
    assert pdf == [
        f"{root}/project/.zuno/skill/pdf/SKILL.md",
        f"{root}/home/.config/zuno/skill/pdf/SKILL.md",
    ]
    assert "pdf" in gen.ambiguous_names()
    rejected = {r.location: r.warning.kind for r in gen.rejected}
    assert rejected == {
        f"{root}/project/.agents/skills/meeting-notes/SKILL.md": "MissingName",
        f"{root}/project/.agents/skills/shellcheck/SKILL.md": "Frontmatter",
    }
    # the unquoted colon in log-triage's description is rescued by the sanitize retry (Z054)
    triage = gen.get("log-triage")
    assert triage is not None
    assert triage.description.startswith("Triage a failing CI log: find the first real error")
    # .claude/skills is never scanned implicitly (SPEC D2), only hinted
    assert not [s for s in gen.sources if "/.claude/" in s.location]
    assert any(d.code == "uncovered-folder" and d.path == f"{root}/project/.claude/skills"
               for d in gen.diagnostics)
    terraform = gen.get("terraform-plan")
    assert terraform is not None and terraform.exposure.value == "search"
    changelog = gen.get("changelog-writer")
    assert changelog.display_name == "Changelog Writer"
    assert changelog.catalog_description == "Draft the next CHANGELOG.md section from git history"


def test_c3_catalog_applies_demo_config(demo):
    """skills.paths, skills.config and maxContextTokens from project/.zuno/zuno.json (SPEC K)."""
    gen = _catalog(demo)
    assert gen.named("team-conventions")
    by_name = {s.name: s for s in gen.sources if s.name != "pdf"}
    assert by_name["csv-cleanup"].location == f"{demo.root}/project/extra-skills/data/csv-cleanup/SKILL.md"
    assert by_name["k8s-manifests"].exposure.value == "search"
    assert by_name["release-publish"].exposure.value == "explicit"
    assert by_name["legacy-webpack"].enabled is False
    from skillshelf.core.render import Form, render_budgeted

    result = render_budgeted(gen.entries(), Form.INDEX, 500 * 4)
    assert result.truncated > 0
    assert result.omitted == 0
